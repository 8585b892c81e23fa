package evalexpr

import (
	"testing"

	"vitess.io/vitess/go/sqltypes"
	"vitess.io/vitess/go/vt/sqlparser"
)

// TestCastWarns: the text MariaDB 10.11 converts without a warning is
// what castWarns lets through (its answers to CAST(s AS t) and SHOW COUNT(*)
// WARNINGS, taken by hand).
func TestCastWarns(t *testing.T) {
	ten, two := 10, 2
	signed := &sqlparser.ConvertType{Type: "signed"}
	unsigned := &sqlparser.ConvertType{Type: "unsigned"}
	dec := &sqlparser.ConvertType{Type: "decimal", Length: &ten, Scale: &two}
	double := &sqlparser.ConvertType{Type: "double"}
	cases := []struct {
		s                      string
		sig, uns, decim, doubl bool // MariaDB warns
	}{
		{"12", false, false, false, false},
		{" 12", false, false, false, false},
		{"\t7", false, false, false, false},
		{"+5", false, false, false, false},
		{"-5", false, true, false, false},
		{"12 ", true, true, true, true},
		{"12abc", true, true, true, true},
		{"", true, true, true, true},
		{"abc", true, true, true, true},
		{"9E", true, true, true, true},
		{"1e3", true, true, true, false},
		{"1.5", true, true, false, false},
		{"1.555", true, true, true, false},
		{"123456789", false, false, true, false},
	}
	for _, c := range cases {
		v := sqltypes.NewVarChar(c.s)
		for _, k := range []struct {
			t    *sqlparser.ConvertType
			want bool
		}{{signed, c.sig}, {unsigned, c.uns}, {dec, c.decim}, {double, c.doubl}} {
			if got := castWarns(v, k.t); got != k.want {
				t.Errorf("CAST(%q AS %s): warns %v, want %v", c.s, k.t.Type, got, k.want)
			}
		}
	}
	if castWarns(sqltypes.NewInt64(5), signed) || castWarns(sqltypes.NULL, signed) {
		t.Error("a number or NULL warned")
	}
	if numberType(&sqlparser.ConvertType{Type: "char"}) != "" || numberType(&sqlparser.ConvertType{Type: "UNSIGNED INTEGER"}) != "unsigned" {
		t.Error("numberType")
	}
}
