package literal

import (
	"testing"

	"vitess.io/vitess/go/vt/sqlparser"
)

// TestScaled places literals among a column's scaled integers.
func TestScaled(t *testing.T) {
	p := sqlparser.NewTestParser()
	for _, c := range []struct {
		lit   string
		scale int32
		clamp bool
		k     int64
		exact bool
		ok    bool
	}{
		{"12.5", 2, true, 1250, true, true},
		{"12.505", 2, true, 1250, false, true},
		{"-12.505", 2, true, -1251, false, true},
		{"-12.500", 2, true, -1250, true, true},
		{"-0.001", 2, true, -1, false, true},
		{"-0.00", 2, true, 0, true, true},
		{"007.1", 2, true, 710, true, true},
		{".5", 0, true, 0, false, true},
		{"42", 4, true, 420000, true, true},
		{"99999999999999999999", 2, true, 1e18, false, true},
		{"-99999999999999999999", 2, true, -1e18 - 1, false, true},
		{"9223372036854775807", 0, false, 9223372036854775807, true, true},
		{"-9223372036854775807.5", 0, false, -9223372036854775808, false, true},
		{"99999999999999999999", 0, false, 0, false, false},
		{"1e3", 0, false, 0, false, false},
		{"'12'", 0, false, 0, false, false},
	} {
		e, err := p.ParseExpr(c.lit)
		if err != nil {
			t.Fatal(err)
		}
		k, exact, ok := Scaled(e, c.scale, c.clamp)
		if ok != c.ok || (ok && (k != c.k || exact != c.exact)) {
			t.Errorf("%s at scale %d: %d %v %v, want %d %v %v", c.lit, c.scale, k, exact, ok, c.k, c.exact, c.ok)
		}
	}
}
