package planner

import (
	"testing"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/shoaldb/shoal/sqlparse"
)

func TestKeyBounds(t *testing.T) {
	for _, tc := range []struct {
		where string
		want  string // boundsString, or "none"
	}{
		{"o.id BETWEEN 10 AND 20", "[10, 20]"},
		{"id >= 10 AND id < 20", "[10, 19]"},
		{"10 < o.id AND 20 >= o.id", "[11, 20]"},
		{"(id > 5) AND (Carrier = 'AA' AND id <= 9)", "[6, 9]"},
		{"id = -3", "[-3, -3]"},
		{"id IN (7, 3, 12)", "[3, 12]"},
		{"id BETWEEN 1 AND 100 AND id BETWEEN 50 AND 200", "[50, 100]"},
		{"id > 10", "[11, +inf)"},
		{"id < 10", "(-inf, 9]"},
		{"id <= 9223372036854775807", "none"}, // no tighter than the type
		// Not understood: bounds nothing.
		{"id > 10 OR id < 5", "none"},
		{"NOT (id > 10)", "none"},
		{"id NOT BETWEEN 1 AND 5", "none"},
		{"id NOT IN (1, 2)", "none"},
		{"id IN (1, '2')", "none"},
		{"id > 1.5", "none"},
		{"id > '10'", "none"},
		{"id + 1 > 10", "none"},
		{"x.id > 10", "none"}, // another table's id
		{"Distance > 10", "none"},
		{"id IN (SELECT id FROM t)", "none"},
		{"id > 18446744073709551615", "none"},
	} {
		stmt, err := sqlparse.ParseOne("SELECT 1 FROM ontime o WHERE " + tc.where)
		if err != nil {
			t.Fatalf("%s: %v", tc.where, err)
		}
		lo, hi := keyBounds(stmt.(*ast.SelectStmt).Where, "o", "id")
		got := "none"
		if lo != nil || hi != nil {
			got = boundsString(lo, hi)
		}
		if got != tc.want {
			t.Errorf("WHERE %s: bounds %s, want %s", tc.where, got, tc.want)
		}
	}
}
