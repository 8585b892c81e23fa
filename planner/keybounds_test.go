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
		{"id + 1 > 10", "none"},
		{"x.id > 10", "none"}, // another table's id
		{"Distance > 10", "none"},
		{"id IN (SELECT id FROM t)", "none"},
		{"id > 18446744073709551615", "none"},
		// Constant expressions fold with MySQL's semantics.
		{"id = 1500017 + 0*12345", "[1500017, 1500017]"},
		{"id = 10 + 5", "[15, 15]"},
		{"id = CAST('7' AS SIGNED)", "[7, 7]"},
		{"id = CONVERT('12', SIGNED)", "[12, 12]"},
		{"id = CAST('7abc' AS SIGNED)", "[7, 7]"},
		{"o.id = (3 * (2 + 1))", "[9, 9]"},
		{"15 / 3 = id", "[5, 5]"},
		{"id = 7 DIV 2", "[3, 3]"},
		{"id = -(-3)", "[3, 3]"},
		{"id = ABS(-4)", "[4, 4]"},
		{"id BETWEEN 10 - 5 AND 10 + 5", "[5, 15]"},
		{"id IN (1 + 1, 3 * 3)", "[2, 9]"},
		{"id IN (1, '2')", "[1, 2]"},
		// Decimals compare as decimals: 7.5 is between keys.
		{"id = 7.5", "empty"},
		{"id = 7.0", "[7, 7]"},
		{"id = 16 / 3", "empty"},
		{"id > 1.5", "[2, +inf)"},
		{"id >= 1.5", "[2, +inf)"},
		{"id < 1.5", "(-inf, 1]"},
		{"id <= 1.5", "(-inf, 1]"},
		{"id < -1.5", "(-inf, -2]"},
		{"id > -1.5", "[-1, +inf)"},
		{"id BETWEEN 1.5 AND 3.5", "[2, 3]"},
		{"id IN (7.5, 3, 4.0)", "[3, 4]"},
		{"id IN (7.5, 8.5)", "empty"},
		// Strings and doubles compare as doubles: '7abc' is 7.
		{"id = '7abc'", "[7, 7]"},
		{"id = ' 7'", "[7, 7]"},
		{"id = '7.5'", "empty"},
		{"id = 'abc'", "[0, 0]"},
		{"id > '10'", "[11, +inf)"},
		{"id = 1e1", "[10, 10]"},
		{"id = '1e3'", "[1000, 1000]"},
		{"id = CAST(7 AS CHAR)", "[7, 7]"},
		// NULL matches nothing.
		{"id = NULL", "empty"},
		{"id IN (NULL, 3)", "[3, 3]"},
		{"id BETWEEN NULL AND 5", "empty"},
		{"id = 5 AND id = 6", "empty"},
		// Not folded: bounds nothing.
		{"id = 9223372036854775807 + 1", "none"}, // out of range: an error
		{"id = '9007199254740993'", "none"},      // beyond exact doubles
		{"id = FLOOR(RAND() * 10)", "none"},
		{"id = UNIX_TIMESTAMP()", "none"},
		{"id = @v", "none"},
		{"id = x'37'", "none"},
		{"id = b'111'", "none"},
		{"id = (SELECT 1)", "none"},
		{"id = Distance + 1", "none"},
		{"id <=> 5", "none"},
	} {
		stmt, err := sqlparse.ParseOne("SELECT 1 FROM ontime o WHERE " + tc.where)
		if err != nil {
			t.Fatalf("%s: %v", tc.where, err)
		}
		lo, hi := keyBounds(stmt.(*ast.SelectStmt).Where, "o", "id")
		got := "none"
		if lo != nil && hi != nil && *lo > *hi {
			got = "empty"
		} else if lo != nil || hi != nil {
			got = boundsString(lo, hi)
		}
		if got != tc.want {
			t.Errorf("WHERE %s: bounds %s, want %s", tc.where, got, tc.want)
		}
	}
}

func TestKeyPoints(t *testing.T) {
	for _, tc := range []struct {
		where  string
		points int64
	}{
		{"id = 5", 1},
		{"id = 1500017 + 0*7", 1},
		{"id = 5 AND Carrier = 'AA'", 1},
		{"id IN (1, 9, 40, 9)", 3},
		{"id IN (1, 9, 40) AND id = 9", 1},
		{"id BETWEEN 1 AND 10", -1}, // a range: the key sample estimates it
		{"id >= 1 AND id < 1000 AND id IN (5, 2000)", 2},
		{"id = 7.5", 0},
		{"id = NULL", 0},
		{"id > 10", -1},
		{"id = 5 OR id = 6", -1},
		{"Carrier = 'AA'", -1},
	} {
		stmt, err := sqlparse.ParseOne("SELECT 1 FROM ontime o WHERE " + tc.where)
		if err != nil {
			t.Fatalf("%s: %v", tc.where, err)
		}
		_, _, got := keyRange(stmt.(*ast.SelectStmt).Where, "o", "id")
		if got != tc.points {
			t.Errorf("WHERE %s: %d points, want %d", tc.where, got, tc.points)
		}
	}
}
