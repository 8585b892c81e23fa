package e2e

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/shoaldb/shoal/bench/measure"
)

// TestFragmentsBalanced: the coordinator cuts ontime (ids with dense runs,
// sparse runs and holes) at the quantiles of its split-key sample, so the
// ranges of a distributed query hold about equal rows, and together every
// row exactly once.
func TestFragmentsBalanced(t *testing.T) {
	r, err := query(env.shoal, "EXPLAIN ANALYZE select DayOfWeek, count(*) from ontime group by DayOfWeek")
	if err != nil || r.err != nil {
		t.Fatalf("EXPLAIN ANALYZE: %v %v", err, r.err)
	}
	var lines []string
	for _, row := range r.rows {
		lines = append(lines, row[0])
	}
	a, err := measure.ParseAnalysis(lines)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Fragments) < 4 {
		t.Fatalf("%d fragments:\n%s", len(a.Fragments), strings.Join(lines, "\n"))
	}
	var sums []string
	for _, f := range a.Fragments {
		sums = append(sums, "coalesce(sum("+rangeCond(t, f.Range)+"), 0)")
	}
	c, err := query(env.direct, "select count(*), "+strings.Join(sums, ", ")+" from ontime")
	if err != nil || c.err != nil {
		t.Fatalf("counting: %v %v", err, c.err)
	}
	total, _ := strconv.ParseInt(c.rows[0][0], 10, 64)
	var counts []int64
	var sum int64
	for _, v := range c.rows[0][1:] {
		n, _ := strconv.ParseInt(v, 10, 64)
		counts = append(counts, n)
		sum += n
	}
	if sum != total {
		t.Errorf("the ranges hold %d rows, the table %d", sum, total)
	}
	s := slices.Sorted(slices.Values(counts))
	if skew := float64(s[len(s)-1]) / float64(s[len(s)/2]); skew > 1.5 {
		t.Errorf("rows per range %v: max/median %.2f, want <= 1.5", counts, skew)
	}
}

// rangeCond turns "[lo, hi)" of EXPLAIN ANALYZE into a condition on id.
func rangeCond(t *testing.T, r string) string {
	var lo, hi string
	if _, err := fmt.Sscanf(strings.NewReplacer("[", "", ")", "", ",", "").Replace(r), "%s %s", &lo, &hi); err != nil {
		t.Fatalf("range %q: %v", r, err)
	}
	conds := []string{"true"}
	if lo != "-inf" {
		conds = append(conds, "id >= "+lo)
	}
	if hi != "+inf" {
		conds = append(conds, "id < "+hi)
	}
	return strings.Join(conds, " and ")
}

// TestFragmentsWithinKeyWindow: a query whose WHERE bounds the split key
// (id BETWEEN a AND b) is cut within that window, so its fragments share
// the window's rows instead of one fragment reading them all while the
// others read nothing.
func TestFragmentsWithinKeyWindow(t *testing.T) {
	b, err := query(env.direct, "select min(id), max(id) from ontime")
	if err != nil || b.err != nil {
		t.Fatalf("bounds: %v %v", err, b.err)
	}
	lo, _ := strconv.ParseInt(b.rows[0][0], 10, 64)
	hi, _ := strconv.ParseInt(b.rows[0][1], 10, 64)
	// The middle third of the key span.
	wlo, whi := lo+(hi-lo)/3, lo+2*(hi-lo)/3
	window := fmt.Sprintf("id between %d and %d", wlo, whi)
	r, err := query(env.shoal, "EXPLAIN ANALYZE select DayOfWeek, count(*) from ontime where "+window+" group by DayOfWeek")
	if err != nil || r.err != nil {
		t.Fatalf("EXPLAIN ANALYZE: %v %v", err, r.err)
	}
	var lines []string
	for _, row := range r.rows {
		lines = append(lines, row[0])
	}
	a, err := measure.ParseAnalysis(lines)
	if err != nil {
		t.Fatal(err)
	}
	plan := strings.Join(lines, "\n")
	if len(a.Fragments) < 4 || !strings.Contains(plan, fmt.Sprintf("ranges cut within [%d, %d]", wlo, whi)) {
		t.Fatalf("want at least 4 fragments cut within [%d, %d]:\n%s", wlo, whi, plan)
	}
	var sums []string
	for _, f := range a.Fragments {
		sums = append(sums, "coalesce(sum("+window+" and "+rangeCond(t, f.Range)+"), 0)")
	}
	c, err := query(env.direct, "select sum("+window+"), "+strings.Join(sums, ", ")+" from ontime")
	if err != nil || c.err != nil {
		t.Fatalf("counting: %v %v", err, c.err)
	}
	total, _ := strconv.ParseInt(c.rows[0][0], 10, 64)
	var counts []int64
	var sum int64
	for _, v := range c.rows[0][1:] {
		n, _ := strconv.ParseInt(v, 10, 64)
		counts = append(counts, n)
		sum += n
	}
	if sum != total || total == 0 {
		t.Errorf("the ranges hold %d of the window's %d rows", sum, total)
	}
	s := slices.Sorted(slices.Values(counts))
	if skew := float64(s[len(s)-1]) / float64(max(s[len(s)/2], 1)); skew > 2 {
		t.Errorf("window rows per range %v: max/median %.2f, want <= 2\n%s", counts, skew, plan)
	}
}
