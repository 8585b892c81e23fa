package e2e

import (
	"strings"
	"testing"
)

// TestModFunction: MOD(x, y) written as a function, over operations and
// as an operand, distributed (fragments and the final stage) and over a
// pinned table. The TiDB parser makes MOD(a - 2, 7) the node of
// a - 2 % 7 without the call's parentheses, and Shoal restored it as
// `a-2%7`: 2715 groups where MariaDB has 7, on every path Shoal computes
// itself (sqlparse.mysqlNames now keeps them).
func TestModFunction(t *testing.T) {
	qs := []string{
		"SELECT MOD(Distance - 2, 7) m, COUNT(*) FROM ontime GROUP BY m ORDER BY m",
		"SELECT 100 * MOD(DayOfWeek, 3) m, COUNT(*) FROM ontime GROUP BY m ORDER BY m",
		"SELECT SUM(MOD(Distance - 2, 7)), SUM(MOD(Distance, 100 DIV 3)), SUM(MOD(Distance, MOD(DayOfWeek, 4) + 1)) FROM ontime",
		"SELECT COUNT(*) FROM ontime WHERE MOD(Distance - 2, 7) = 0",
		"SELECT Origin, MOD(COUNT(*) - 2, 7) r FROM ontime GROUP BY Origin HAVING MOD(COUNT(*) - 1, 5) > 1 ORDER BY MOD(COUNT(*) + 3, 11), Origin LIMIT 20",
		"SELECT -MOD(Distance, 3) m, COUNT(*) FROM ontime GROUP BY m ORDER BY m",
	}
	if ex := explain(t, qs[0]); !strings.Contains(ex, "split ") {
		t.Fatalf("%s is not distributed:\n%s", qs[0], ex)
	}
	for _, q := range qs {
		diff(t, q, true)
	}
	shoalExec(t, "CACHE TABLE ontime.ontime")
	t.Cleanup(func() { env.shoal.Exec("UNCACHE TABLE IF EXISTS ontime.ontime") })
	if ex := explain(t, qs[0]); !strings.Contains(ex, "in memory") {
		t.Fatalf("%s is not in memory over the pin:\n%s", qs[0], ex)
	}
	for _, q := range qs {
		diff(t, q, true)
	}
}
