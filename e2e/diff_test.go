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
	rows  [][]string
	err   *mysql.MySQLError
}

func query(db *sql.DB, q string) (*result, error) { return queryArgs(db, q) }

// diff runs q through Shoal and on the primary and reports differences.
// ordered says the query's ORDER BY is total, so row order must match too.
func diff(t *testing.T, q string, ordered bool) *result {
	t.Helper()
	got, err := query(env.shoal, q)
	if err != nil {
		t.Fatalf("shoal: %s: %v", q, err)
	}
	want, err := query(env.direct, q)
	if err != nil {
		t.Fatalf("direct: %s: %v", q, err)
	}
	if (got.err == nil) != (want.err == nil) {
		t.Fatalf("%s:\nshoal error %v\ndirect error %v", q, got.err, want.err)
	}
	if want.err != nil {
		if got.err.Number != want.err.Number {
			t.Errorf("%s: shoal error %d, direct %d (%v / %v)", q, got.err.Number, want.err.Number, got.err, want.err)
		}
		return got
	}
	if !slices.Equal(got.cols, want.cols) {
		t.Errorf("%s: columns\nshoal  %q\ndirect %q", q, got.cols, want.cols)
	}
	if !slices.Equal(got.types, want.types) {
		t.Errorf("%s: types\nshoal  %q\ndirect %q", q, got.types, want.types)
	}
	g, w := got.rows, want.rows
	if !ordered {
		g, w = sorted(g), sorted(w)
	}
	if len(g) != len(w) {
		t.Errorf("%s: %d rows through shoal, %d direct", q, len(g), len(w))
	}
	for i := 0; i < len(g) && i < len(w); i++ {
		if !slices.Equal(g[i], w[i]) {
			t.Errorf("%s: row %d\nshoal  %q\ndirect %q", q, i, g[i], w[i])
			break
		}
	}
	return got
}

func sorted(rows [][]string) [][]string {
	out := slices.Clone(rows)
	slices.SortFunc(out, func(a, b []string) int {
		return strings.Compare(strings.Join(a, "\x00"), strings.Join(b, "\x00"))
	})
	return out
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
