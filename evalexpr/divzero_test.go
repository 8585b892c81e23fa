package evalexpr

import (
	"testing"

	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// TestDividesByZero: which rows divide by zero in a division the
// expression makes on every row, as MariaDB's warning 1365 counts them
// (checked with MariaDB 10.11 over one row of a table holding a, b and s,
// `SELECT <expr> FROM t; SHOW COUNT(*) WARNINGS`; over constants MariaDB
// folds IF and CASE and warns for a branch it does not take). A division
// in a branch is not checked, though MariaDB warns when the row takes it
// (COALESCE(NULL, a / b) warns): the statement then distributes without
// the warning, as every distributed statement did before.
func TestDividesByZero(t *testing.T) {
	env, err := NewEnv("10.11.19-MariaDB")
	if err != nil {
		t.Fatal(err)
	}
	fields := []*querypb.Field{
		{Name: "a", Type: sqltypes.Int64},
		{Name: "b", Type: sqltypes.Decimal, Decimals: 2},
		{Name: "s", Type: sqltypes.VarChar, Charset: 45},
	}
	layout := NewLayout([]string{"a", "b", "s"}, fields)
	row := func(a, b, s string) []sqltypes.Value {
		v := func(t querypb.Type, x string) sqltypes.Value {
			if x == "NULL" {
				return sqltypes.NULL
			}
			return sqltypes.MakeTrusted(t, []byte(x))
		}
		return []sqltypes.Value{v(sqltypes.Int64, a), v(sqltypes.Decimal, b), v(sqltypes.VarChar, s)}
	}
	for _, c := range []struct {
		src     string
		a, b, s string
		want    bool
	}{
		{"a / b", "7", "0.00", "x", true},
		{"a / b", "7", "0.50", "x", false},
		{"a / b", "NULL", "0.00", "x", false}, // NULL / 0: no warning
		{"a / b", "7", "NULL", "x", false},
		{"a DIV b", "7", "0.00", "x", true},
		{"a MOD b", "7", "0.00", "x", true},
		{"MOD(a, b)", "7", "0.00", "x", true},
		{"a % b", "7", "0.00", "x", true},
		{"a / s", "7", "1", "abc", true}, // 'abc' reads as 0
		{"a / s", "7", "1", "2", false},
		{"a / s", "7", "1", "12abc", true}, // its prefix, 12, with a warning (implicit.go)
		{"a / s", "7", "1", " 0e5x", true},
		{"IFNULL(a / b, -1)", "7", "0.00", "x", true},
		{"ROUND(a / (b - 1), 2) + 1", "7", "1.00", "x", true},
		{"a / NULLIF(b, 0)", "7", "0.00", "x", false},
		// In a branch the row may not take: not checked.
		{"IF(b = 0, NULL, a / b)", "7", "0.00", "x", false},
		{"CASE WHEN b = 0 THEN NULL ELSE a / b END", "7", "0.00", "x", false},
		{"COALESCE(NULL, a / b)", "7", "0.00", "x", false},
		{"b <> 0 AND a / b > 1", "7", "0.00", "x", false},
		// The condition of IF is evaluated on every row.
		{"IF(a / b > 1, 1, 0)", "7", "0.00", "x", true},
		{"a + b", "7", "0.00", "x", false},
		// Text read as a number by arithmetic or a comparison with a
		// number (implicit.go): MariaDB warns 1292 for what it cuts.
		{"a + s", "7", "1", "abc", true},
		{"a + s", "7", "1", " 2", false},
		{"-s", "7", "1", "2x", true},
		{"s > a", "7", "1", "N100AA", true},
		{"b = s", "7", "1", "1.00", false},
		{"a IN (1, s)", "7", "1", "x", true},
		{"s BETWEEN a AND 9", "7", "1", "8", false},
		{"s > 'b'", "7", "1", "x", false},        // text with text
		{"s LIKE 7", "7", "1", "x", false},       // a number read as text
		{"a > 5 OR s > 1", "7", "1", "x", false}, // the right side of OR
	} {
		x, err := env.Compile(c.src, layout)
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		if got := env.NewEvaluator().DividesByZero(x, row(c.a, c.b, c.s)); got != c.want {
			t.Errorf("%s over a=%s b=%s s=%s: DividesByZero %v, want %v", c.src, c.a, c.b, c.s, got, c.want)
		}
	}
}
