package evalexpr

import (
	"testing"

	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// TestInexact: what the server computes with the C library, or by
// MariaDB's own rules, is flagged at compile time; the rest is not.
func TestInexact(t *testing.T) {
	fields := []*querypb.Field{{Name: "a", Type: sqltypes.Float64, Charset: 63}, {Name: "s", Type: sqltypes.VarChar, Charset: 45}}
	layout := NewLayout([]string{"a", "s"}, fields)
	maria, err := NewEnv("10.11.6-MariaDB-0+deb12u1")
	if err != nil {
		t.Fatal(err)
	}
	mysql, err := NewEnv("8.0.40")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		env     *Env
		src     string
		inexact bool
		json    bool
	}{
		{maria, "LN(a)", true, false},
		{maria, "ROUND(LOG10(a), 2) + 1", true, false},
		{maria, "POW(a, 2)", true, false},
		{maria, "ATAN2(a, 2)", true, false},
		{maria, "SQRT(a)", false, false},
		{maria, "a * 1.5 + ABS(a)", false, false},
		{maria, "REGEXP_SUBSTR(s, '[A-Z]+')", true, false},
		{mysql, "REGEXP_SUBSTR(s, '[A-Z]+')", false, false},
		{maria, "REGEXP_REPLACE(s, 'a', 'b')", false, false},
		{maria, "JSON_ARRAY(s, 1)", false, true},
		{maria, "CONCAT(s, LEFT(s, 2))", false, false},
	} {
		x, err := c.env.Compile(c.src, layout)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		if got := x.Inexact() != ""; got != c.inexact {
			t.Errorf("%s (MariaDB %v): inexact %v (%q), want %v", c.src, c.env.MariaDB(), got, x.Inexact(), c.inexact)
		}
		if x.JSON() != c.json {
			t.Errorf("%s: JSON() = %v, want %v", c.src, x.JSON(), c.json)
		}
	}
}
