package e2e

import (
	"regexp"
	"strconv"
	"testing"
)

// TestRowPlanFragments checks that a row plan is cut by the rows it
// returns (the replica optimizer's estimate), not by the table's size: a
// selective indexed query runs as one fragment, an export of the table
// as several. Both must return the primary's rows.
func TestRowPlanFragments(t *testing.T) {
	count := regexp.MustCompile(`(?m)^fragments: (\d+) over`)
	fragments := func(q string) int {
		t.Helper()
		ex := explain(t, q)
		m := count.FindStringSubmatch(ex)
		if m == nil {
			t.Fatalf("no fragment count in EXPLAIN %s:\n%s", q, ex)
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	for _, tc := range []struct {
		name     string
		q        string
		min, max int
	}{
		{"selective", "select id, FlightDate, Carrier, Origin from ontime where FlightDate between '2010-01-01' and '2010-01-07' order by FlightDate, id", 1, 1},
		{"export", "select id, Carrier, Origin, Dest from ontime order by id", 2, 1 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if n := fragments(tc.q); n < tc.min || n > tc.max {
				t.Errorf("%d fragments, want %d..%d", n, tc.min, tc.max)
			}
			diff(t, tc.q, true)
		})
	}
}
