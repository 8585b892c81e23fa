package sqlparse

import (
	"strings"
	"testing"
)

// TestTooDeep: statements up to MaxDepth levels are planned, deeper
// ones are not, whether the depth comes from parentheses, NOT or function
// calls, and measuring a very deep one stays cheap.
func TestTooDeep(t *testing.T) {
	for _, c := range []struct {
		q    func(n int) string
		name string
	}{
		{func(n int) string {
			return "SELECT COUNT(*) FROM ontime WHERE " + strings.Repeat("(", n) + "id > 0" + strings.Repeat(")", n)
		}, "parentheses"},
		{func(n int) string { return "SELECT COUNT(*) FROM ontime WHERE " + strings.Repeat("NOT ", n) + "id > 0" }, "NOT"},
		{func(n int) string {
			return "SELECT SUM(" + strings.Repeat("ABS(", n) + "id" + strings.Repeat(")", n) + ") s FROM ontime"
		}, "functions"},
	} {
		for _, n := range []int{10000, MaxDepth + 1, 1000000} {
			stmt, err := ParseOne(c.q(n))
			if err != nil {
				t.Fatalf("%s %d: %v", c.name, n, err)
			}
			why := TooDeep(stmt)
			if (why != "") != (n > MaxDepth) {
				t.Errorf("%s %d deep: tooDeep says %q", c.name, n, why)
			}
		}
	}
}

// TestLexDepth: the pre-parse estimate counts parentheses and runs of
// prefix operators, not literals, comments, flat lists or binary chains.
func TestLexDepth(t *testing.T) {
	deep := MaxDepth + 1
	for _, c := range []struct {
		q       string
		tooDeep bool
	}{
		{"SELECT " + strings.Repeat("(", deep) + "1" + strings.Repeat(")", deep), true},
		{"SELECT " + strings.Repeat("(", 10000) + "1" + strings.Repeat(")", 10000), false},
		{"SELECT COUNT(*) FROM t WHERE " + strings.Repeat("NOT ", deep) + "a", true},
		{"SELECT COUNT(*) FROM t WHERE " + strings.Repeat("not(", deep/2+1) + "a" + strings.Repeat(")", deep/2+1), true},
		{"SELECT " + strings.Repeat("-", deep) + "1", true},
		{"SELECT " + strings.Repeat("ABS(", deep) + "1" + strings.Repeat(")", deep), true},
		{"SELECT '" + strings.Repeat("(", deep) + "'", false},
		{"SELECT 1 /* " + strings.Repeat("(", deep) + " */", false},
		{"SELECT 1 -- " + strings.Repeat("(", deep) + "\n, 2", false},
		{"SELECT `" + strings.Repeat("(", deep) + "` FROM t", false},
		{"SELECT * FROM t WHERE a IN (" + strings.Repeat("1, ", deep) + "1)", false},
		{"SELECT a" + strings.Repeat(" - b", deep) + " FROM t", false},
		{"SELECT a" + strings.Repeat("+1", deep) + " FROM t", false},
		{"SELECT notes, nothing FROM t WHERE " + strings.Repeat("knot AND ", deep) + "1", false},
	} {
		if got := LexDepth(c.q); (got > MaxDepth) != c.tooDeep {
			t.Errorf("%.50s…: LexDepth %d, too deep: want %v", c.q, got, c.tooDeep)
		}
	}
}
