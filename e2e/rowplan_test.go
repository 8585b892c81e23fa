package e2e

import (
	"regexp"
	"strconv"
	"testing"
)

// TestRowPlanFragments checks that a row plan is cut by the rows it
// returns (the replica optimizer's estimate), not by the table's size: a
// selective indexed query runs as one fragment, an export of the table
// as several. Each must return the primary's rows in the primary's order.
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
		// Without ORDER BY MariaDB's scan returns the rows in primary key
		// order; the fragments' outputs are forwarded in that order
		// (schedule.InOrder), whatever order they complete in.
		{"export unordered", "select id, Carrier, Origin, Dest from ontime", 2, 1 << 20},
		{"filtered unordered", "select id, TailNum, ArrDelayMinutes from ontime where ArrDelayMinutes > 30", 2, 1 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if n := fragments(tc.q); n < tc.min || n > tc.max {
				t.Errorf("%d fragments, want %d..%d", n, tc.min, tc.max)
			}
			diff(t, tc.q, true)
		})
	}
	// Over a whole-table pin too: its batches are in key order and each
	// batch's rows are handed on in their batch's order
	// (pinexec.Sink's rank), whichever partition finishes first.
	shoalExec(t, "CACHE TABLE ontime.ontime")
	defer env.shoal.Exec("UNCACHE TABLE IF EXISTS ontime.ontime")
	for _, q := range []string{
		"select id, Carrier, Origin, Dest from ontime",
		"select id, TailNum, ArrDelayMinutes from ontime where ArrDelayMinutes > 30",
		"select * from ontime where DepDelayMinutes > 100",
	} {
		diffWhere(t, "in memory:", q)
	}
}
