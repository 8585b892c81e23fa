package coordinator

import (
	"strings"
	"testing"

	"github.com/shoaldb/shoal/sqlparse"
)

// TestTooDeep: statements up to maxPlanDepth levels are planned, deeper
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
		for _, n := range []int{10000, maxPlanDepth + 1, 1000000} {
			stmt, err := sqlparse.ParseOne(c.q(n))
			if err != nil {
				t.Fatalf("%s %d: %v", c.name, n, err)
			}
			why := tooDeep(stmt)
			if (why != "") != (n > maxPlanDepth) {
				t.Errorf("%s %d deep: tooDeep says %q", c.name, n, why)
			}
		}
	}
}
