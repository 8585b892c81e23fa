package evalexpr

import (
	"strings"
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

// TestEquivalents: the rewritten functions give MySQL's values, NULL
// included (the function matrix compares them with MariaDB's).
func TestEquivalents(t *testing.T) {
	env, err := NewEnv("10.11.6-MariaDB")
	if err != nil {
		t.Fatal(err)
	}
	layout := NewLayout([]string{"d"}, []*querypb.Field{{Name: "d", Type: sqltypes.Date, Charset: 63}})
	for _, c := range []struct {
		src  string
		d    sqltypes.Value
		want string
	}{
		{"DATEDIFF(d, '2000-01-01')", sqltypes.MakeTrusted(sqltypes.Date, []byte("2005-06-15")), "1992"},
		{"DATEDIFF('2000-01-01', d)", sqltypes.MakeTrusted(sqltypes.Date, []byte("2005-06-15")), "-1992"},
		{"DATEDIFF(d, '2000-01-01')", sqltypes.NULL, "NULL"},
		{"DAYNAME(d)", sqltypes.MakeTrusted(sqltypes.Date, []byte("2005-06-15")), "Wednesday"},
		{"DAYNAME(d)", sqltypes.MakeTrusted(sqltypes.Date, []byte("2024-03-03")), "Sunday"},
		{"DAYNAME(d)", sqltypes.NULL, "NULL"},
		{"EXTRACT(YEAR_MONTH FROM d)", sqltypes.MakeTrusted(sqltypes.Date, []byte("2005-06-15")), "200506"},
		{"EXTRACT(YEAR_MONTH FROM d)", sqltypes.NULL, "NULL"},
	} {
		x, err := env.Compile(c.src, layout)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		v, _, err := env.NewEvaluator().Eval(x, []sqltypes.Value{c.d})
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		got := "NULL"
		if !v.IsNull() {
			got = v.ToString()
		}
		if got != c.want {
			t.Errorf("%s over %v = %s, want %s", c.src, c.d, got, c.want)
		}
	}
}

// TestMariaJSON: on MariaDB the JSON the server writes as built (keys in
// argument order, DOUBLEs with display decimals, documents re-read) does
// not compile, so the statement passes through; the JSON both agree on
// does, and on MySQL none of it is refused.
func TestMariaJSON(t *testing.T) {
	maria, err := NewEnv("10.11.6-MariaDB-0+deb12u1")
	if err != nil {
		t.Fatal(err)
	}
	mysql, err := NewEnv("8.0.40")
	if err != nil {
		t.Fatal(err)
	}
	layout := NewLayout([]string{"n", "d", "f", "s", "m"}, []*querypb.Field{
		{Type: sqltypes.Int64}, {Type: sqltypes.Decimal, ColumnLength: 12, Decimals: 2}, {Type: sqltypes.Float64},
		{Type: sqltypes.VarChar, Charset: 45}, nil, // m: a merged column whose type is known only from its values
	})
	for _, c := range []struct {
		src     string
		refused bool
	}{
		{"JSON_ARRAY(n, d, s, NULL, TRUE, 1.50)", false},
		{"JSON_OBJECT('k', s)", false},
		{"JSON_OBJECT('k', d)", false},
		{"JSON_OBJECT('b', n, 'a', 1)", true},
		{"JSON_OBJECT('a', n, 'a', 2)", true},
		{"JSON_ARRAY(f)", true},
		{"JSON_ARRAY(n * 1e0)", true},
		{"JSON_ARRAY(m)", true},
		{"JSON_OBJECT('k', m)", true},
		{"JSON_KEYS(JSON_OBJECT('k', s))", true},
		{"JSON_EXTRACT(JSON_OBJECT('k', s), '$')", true},
		{"CONCAT(s, JSON_EXTRACT(JSON_ARRAY(n), '$[0]'))", true},
	} {
		_, err := maria.Compile(c.src, layout)
		if got := err != nil; got != c.refused {
			t.Errorf("MariaDB %s: refused %v (%v), want %v", c.src, got, err, c.refused)
		}
		if _, err := mysql.Compile(c.src, layout); err != nil && !strings.Contains(err.Error(), "not implement") {
			t.Errorf("MySQL %s: %v", c.src, err)
		}
	}
}

// TestInexactConversions: a FLOAT inside an expression (it arrives as its
// printed digits), TIME_TO_SEC of a value with fractional seconds and
// CAST to UNSIGNED of a value that is not an integer do not compile, so
// the statement passes through; a bare FLOAT and the exact cases do.
func TestInexactConversions(t *testing.T) {
	e, err := NewEnv("10.11.6-MariaDB-0+deb12u1")
	if err != nil {
		t.Fatal(err)
	}
	layout := NewLayout([]string{"n", "d", "fl", "db", "t3", "t0", "dt6", "dy", "m", "u"}, []*querypb.Field{
		{Type: sqltypes.Int64}, {Type: sqltypes.Decimal, ColumnLength: 12, Decimals: 2}, {Type: sqltypes.Float32},
		{Type: sqltypes.Float64}, {Type: sqltypes.Time, Decimals: 3}, {Type: sqltypes.Time},
		{Type: sqltypes.Datetime, Decimals: 6}, {Type: sqltypes.Date}, nil, {Type: sqltypes.Uint64},
	})
	for _, c := range []struct {
		src     string
		refused bool
	}{
		{"fl", false},
		{"fl + 0", true},
		{"CAST(fl AS DECIMAL(10,4))", true},
		{"fl > 1", true},
		{"db + 0", false},
		{"TIME_TO_SEC(t3)", true},
		{"TIME_TO_SEC(dt6)", true},
		{"TIME_TO_SEC(t0)", false},
		{"TIME_TO_SEC(dy)", false},
		{"TIME_TO_SEC(m)", true},
		{"CAST(n AS UNSIGNED)", false},
		{"CAST(d AS UNSIGNED)", true},
		{"CONVERT(db, UNSIGNED)", true},
		{"CAST(d AS SIGNED)", false},
		{"HEX(d)", true},
		{"BIN(db)", true},
		{"HEX(n)", false},
		{"HEX(m)", false},
		{"-u", true},
		{"-n", false},
		{"u - 1", false},
	} {
		_, err := e.Compile(c.src, layout)
		if got := err != nil; got != c.refused {
			t.Errorf("%s: refused %v (%v), want %v", c.src, got, err, c.refused)
		}
	}
}
