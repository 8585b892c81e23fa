package convwarn

import (
	"testing"

	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
	"vitess.io/vitess/go/vt/sqlparser"
)

// TestRisk: the forms MariaDB warns about for the values an implicit
// conversion cuts, and the same forms where nothing is cut. (pinexec's
// TestWarnRisk runs them through a pin's compile.)
func TestRisk(t *testing.T) {
	types := map[string]querypb.Type{"c": sqltypes.VarChar, "n": sqltypes.Int32, "d": sqltypes.Date, "e": sqltypes.Enum}
	typeOf := func(c *sqlparser.ColName) (querypb.Type, string, bool) {
		ty, ok := types[c.Name.String()]
		return ty, c.Name.String(), ok
	}
	parser, err := sqlparser.New(sqlparser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		expr  string
		warns bool
	}{
		{"c = 0", true}, {"0 < c", true}, {"c in (1, 2)", true}, {"c between 1 and 2", true},
		{"c + 1", true}, {"-c", true}, {"cast(c as signed)", true}, {"convert(c, decimal)", true},
		{"n = '5x'", true}, {"n = ''", true}, {"n = '5 '", true}, {"d > '2005-13-01'", true},
		{"c = 'x'", false}, {"c like 5", false}, {"n = ' -1.5e1'", false}, {"n in (1, 2)", false},
		{"d > '2005-02-01 10:00:00'", false}, {"d = '20050201'", false}, {"e = 1", false},
		{"cast(n as signed)", false}, {"unknown = 0", false},
		// Date text as MariaDB reads it against a date: warned only with
		// trailing text, a month past 12 or no date at all.
		{"d > '2016-12-30 '", false}, {"d > ' 2016-12-31'", false}, {"d > '2016.12.30'", false},
		{"d > '2016-12-31 10'", false}, {"d > '2016-12-31T00:00'", false}, {"d > '2016-02-31'", false},
		{"d > '2016-12-00'", false}, {"d > '2016-12-30 00:00:00 '", false}, {"d > 161230", false},
		{"d > '2016-12-30x'", true}, {"d > 'garbage'", true},
		// Logical operators read their operands as numbers.
		{"c or 'x'", true}, {"n and 1", false}, {"not c", true}, {"c xor 1", true},
	} {
		e, err := parser.ParseExpr(tc.expr)
		if err != nil {
			t.Fatalf("%s: %v", tc.expr, err)
		}
		if why := Risk(e, typeOf); (why != "") != tc.warns {
			t.Errorf("%s: risk %q, want warns=%v", tc.expr, why, tc.warns)
		}
	}
	if SumRisk(sqlparser.NewColName("c"), typeOf) == "" || SumRisk(sqlparser.NewColName("n"), typeOf) != "" {
		t.Error("SUM of text must warn, SUM of a number not")
	}
}
