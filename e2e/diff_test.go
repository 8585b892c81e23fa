package e2e

import (
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// result is a query's answer in comparable form.
type result struct {
	cols  []string
	types []string
	// defs are the column definitions as sent (the raw client's answers
	// only, rawclient_test.go).
	defs []string
	rows [][]string
	err  *mysql.MySQLError
}

func query(db *sql.DB, q string) (*result, error) { return queryArgs(db, q) }

// bothSides runs q through Shoal and on the primary, each as the client
// sees it (a statement's error is part of the answer; a broken connection
// fails the test).
func bothSides(t *testing.T, q string) (got, want *result) {
	t.Helper()
	got, err := rawShoal.query(q)
	if err != nil {
		t.Fatalf("shoal: %s: %v", q, err)
	}
	if want, err = rawDirect.query(q); err != nil {
		t.Fatalf("direct: %s: %v", q, err)
	}
	return got, want
}

// diff runs q through Shoal and on the primary and reports differences.
// ordered says the query's ORDER BY is total, so row order must match too.
func diff(t *testing.T, q string, ordered bool) *result {
	t.Helper()
	got, want := bothSides(t, q)
	if cutJSONArray(got, want) {
		t.Logf("documented refusal: %v", got.err)
		return nil
	}
	compare(t, q, got, want, ordered)
	return got
}

// diffOnConns runs q on a Shoal connection and a direct one (the same
// session state on both) and compares the ordered answers under label.
func diffOnConns(t *testing.T, shoal, direct queryer, label, q string) {
	t.Helper()
	got, err := queryArgs(shoal, q)
	if err != nil {
		t.Fatal(err)
	}
	want, err := queryArgs(direct, q)
	if err != nil {
		t.Fatal(err)
	}
	compare(t, label, got, want, true)
}

// diffValues is diff without comparing column definitions, for a shape
// docs/sql.md ("Column definitions") lists as described by its select
// items rather than MariaDB's temporary table (a derived table's outer
// statement). The e2e tests do not run in parallel.
func diffValues(t *testing.T, q string, ordered bool) *result {
	t.Helper()
	saved := compareDefs
	compareDefs = false
	defer func() { compareDefs = saved }()
	return diff(t, q, ordered)
}

func sorted(rows [][]string) [][]string {
	out := slices.Clone(rows)
	slices.SortFunc(out, func(a, b []string) int {
		return strings.Compare(strings.Join(a, "\x00"), strings.Join(b, "\x00"))
	})
	return out
}

// diffWhere is diff for each statement after checking that Shoal's
// EXPLAIN of it contains where ("split " for a distributed plan, "in
// memory:" for one over a pin).
func diffWhere(t *testing.T, where string, qs ...string) {
	t.Helper()
	for _, q := range qs {
		if plan := explain(t, q); !strings.Contains(plan, where) {
			t.Errorf("%s does not run %q:\n%s", q, where, plan)
		}
		diff(t, q, true)
	}
}

// runsInMemory reports whether an EXPLAIN is of a plan that runs in
// memory over pins (a line "in memory: …"), not one whose notes only say
// "in memory" (why a pin is not read, say).
func runsInMemory(plan string) bool {
	for _, l := range strings.Split(plan, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "in memory:") {
			return true
		}
	}
	return false
}

// explain returns Shoal's EXPLAIN lines for q.
func explain(t *testing.T, q string) string {
	t.Helper()
	r, err := query(env.shoal, "EXPLAIN "+q)
	if err != nil || r.err != nil {
		t.Fatalf("EXPLAIN %s: %v %v", q, err, r.err)
	}
	var lines []string
	for _, row := range r.rows {
		lines = append(lines, row[0])
	}
	return strings.Join(lines, "\n")
}

var _ = fmt.Sprint

// scanOrdered reports whether q, a row query without ORDER BY, reads one
// table in primary key order on MariaDB: its plan is a full scan of an
// InnoDB table (type ALL) or a range or scan of its PRIMARY key, with no
// sort or temporary table. Such a query's row order is defined in
// practice (the scan's), and Shoal hands the fragments' rows on in key
// order (schedule.InOrder): the sweeps compare its rows in order. Where
// MariaDB reads through a secondary index the order is that index's
// (docs/sql.md), and the rows are compared as a set.
func scanOrdered(t *testing.T, q string) bool {
	t.Helper()
	r, err := query(env.direct, "EXPLAIN "+q)
	if err != nil || r.err != nil || len(r.rows) != 1 {
		return false
	}
	col := func(name string) string {
		for i, c := range r.cols {
			if strings.EqualFold(c, name) {
				return r.rows[0][i]
			}
		}
		return ""
	}
	if strings.Contains(col("Extra"), "filesort") || strings.Contains(col("Extra"), "temporary") {
		return false
	}
	return col("type") == "ALL" || col("key") == "PRIMARY"
}
