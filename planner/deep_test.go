package planner_test

import (
	"strings"
	"testing"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/shoaldb/shoal/planner"
	"github.com/shoaldb/shoal/pushdown"
	"github.com/shoaldb/shoal/sqlparse"
)

// TestPlanDeepNesting plans statements nested 10,000 deep (beyond
// FuzzPlan's 4 KiB inputs): the planner's recursive walkers and the
// renderer must neither crash nor lose a level, and every fragment must
// parse again.
func TestPlanDeepNesting(t *testing.T) {
	const n = 10000
	nest := func(open, inner, close string) string {
		return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
	}
	for _, q := range []string{
		"SELECT SUM(" + nest("ABS(", "Distance", ")") + ") AS s FROM ontime",
		"SELECT Carrier, MAX(" + nest("ABS(", "Distance", ")") + ") AS m FROM ontime GROUP BY Carrier",
		"SELECT COUNT(*) FROM ontime WHERE " + nest("(", "id > 0", ")"),
		"SELECT COUNT(*) FROM ontime WHERE " + strings.Repeat("NOT ", n) + "(id > 0)",
		"SELECT SUM(id" + strings.Repeat("+1", n) + ") AS s FROM ontime",
		"SELECT SUM(" + strings.Repeat("CASE WHEN id > 0 THEN ", n) + "1" + strings.Repeat(" ELSE 0 END", n) + ") AS s FROM ontime",
	} {
		stmt, err := sqlparse.ParseOne(q)
		if err != nil {
			t.Logf("%.60s…: not parsed (%v)", q, err)
			continue
		}
		p, err := planner.PlanSelect(fuzzCatalog(), "ontime", stmt.(*ast.SelectStmt))
		if err != nil {
			t.Logf("%.60s…: not planned (%v)", q, err)
			continue
		}
		frag := pushdown.Bind(p, pushdown.Split(1, 1000, 2, false)[0])
		if _, err := sqlparse.ParseOne(frag); err != nil {
			t.Fatalf("%.60s…: fragment does not parse: %v", q, err)
		}
		for _, word := range []string{"ABS(", "NOT ", "+1", "CASE WHEN", "(((("} {
			if c := strings.Count(q, word); c >= n && strings.Count(frag, word) < c {
				t.Errorf("%.60s…: the fragment has %d of %d %q", q, strings.Count(frag, word), c, word)
			}
		}
	}
}
