package e2e

import (
	"strings"
	"testing"
)

// TestFoundRows: FOUND_ROWS() and ROW_COUNT() after statements Shoal
// distributed or answered itself are MariaDB's (router/lastresult.go).
// Passed through, they asked the session's replica connection, which had
// not seen those statements: FOUND_ROWS() after a distributed statement
// of 3 rows said 1, the count of whatever that connection ran last.
func TestFoundRows(t *testing.T) {
	const dist3 = "SELECT DayOfWeek, COUNT(*) FROM ontime GROUP BY DayOfWeek ORDER BY DayOfWeek LIMIT 3"
	const dist0 = "SELECT DayOfWeek, COUNT(*) FROM ontime WHERE YearD = 1800 GROUP BY DayOfWeek"
	for _, q := range []string{dist3, dist0} {
		if ex := explain(t, q); !strings.Contains(ex, "split ") {
			t.Fatalf("%s is not distributed:\n%s", q, ex)
		}
	}
	for _, seq := range [][]string{
		{"SELECT 1 UNION SELECT 2", dist3, "SELECT FOUND_ROWS()", "SELECT found_rows() AS n, ROW_COUNT() rc", "SELECT FOUND_ROWS()"},
		{"SELECT 1 UNION SELECT 2", dist0, "SELECT ROW_COUNT(), FOUND_ROWS() FROM DUAL"},
		{dist3, "USE ontime", "SELECT FOUND_ROWS()", "SELECT ROW_COUNT()"},
		{dist3, "SET @a = 1", "SELECT FOUND_ROWS()", "SELECT ROW_COUNT()"},
		{dist3, "SELECT 1 UNION SELECT 2", "SELECT FOUND_ROWS()"},
		{dist3, "SELECT SQL_CALC_FOUND_ROWS DayOfWeek FROM ontime LIMIT 2", "SELECT FOUND_ROWS()"},
		{dist3, "SELECT FOUND_ROWS() AS a, found_rows() AS b", "SELECT FOUND_ROWS()"},
	} {
		sameSequence(t, rawShoal, rawDirect, false, seq...)
	}
}
