package e2e

import (
	"bufio"
	"cmp"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestRandomQueries runs generated reporting queries (querygen.go) through
// Shoal and directly on the primary and compares their answers.
//
//	SHOAL_RANDOM_QUERIES  how many queries (default 2000; 500, the first
//	                      ones of the seed, under the race detector:
//	                      raceShare)
//	SHOAL_RANDOM_SEED     the generator's seed (default 1)
//	SHOAL_RANDOM_PARALLEL concurrent queries (default 3)
//	SHOAL_RANDOM_WINDOW   confine each query to a random window of this
//	                      many ids of ontime (default 0: the whole table),
//	                      for thousands of queries on a 10M-row table
//
// Query i of a seed does not depend on the others, so a failing subtest
// "q/0042-grouped" is reproduced alone with
// -run 'TestRandomQueries/q/0042-' and the same seed. Mismatches fail their
// subtest and the run goes on; the end of the log lists the first ones and,
// per category, how many queries Shoal distributed and passed through.
func TestRandomQueries(t *testing.T) {
	randomQueries(t, envInt(t, "SHOAL_RANDOM_QUERIES", 2000/raceShare), uint64(envInt(t, "SHOAL_RANDOM_SEED", 1)),
		envInt(t, "SHOAL_RANDOM_WINDOW", 0))
}

// TestRandomQueriesWindowed is TestRandomQueries with another seed, each
// query confined to a window of 300 ids: the seeds tried beside seed 1
// each found a class it did not (a temporary table's column definitions
// over a key window bounded on both sides, a negative zero, a separator's
// charset in the second merge stage, a quotient the planner could not
// type), so CI runs two.
func TestRandomQueriesWindowed(t *testing.T) {
	randomQueries(t, 2000/raceShare, 31337, 300)
}

func randomQueries(t *testing.T, n int, seed uint64, size int) {
	par := max(1, envInt(t, "SHOAL_RANDOM_PARALLEL", 3))
	win := keyWindow(t, size)
	t.Logf("SHOAL_RANDOM_SEED=%d SHOAL_RANDOM_QUERIES=%d SHOAL_RANDOM_PARALLEL=%d SHOAL_RANDOM_WINDOW=%d (ids %d..%d)",
		seed, n, par, win.Size, win.Min, win.Max+win.Size-1)

	start := time.Now()
	warnedRuns := func() int { return int(scrapeAt(t, env.coord.HTTPAddr()).get("shoal_warned_passthrough_total")) }
	warnedBefore := warnedRuns()
	outcomes := make([]outcome, n)
	t.Run("q", func(t *testing.T) {
		next := make(chan int)
		var wg sync.WaitGroup
		for range par {
			wg.Go(func() {
				for i := range next {
					q := GenQueryIn(seed, i, win)
					o := &outcomes[i]
					o.q = q
					o.ok = t.Run(fmt.Sprintf("%04d-%s", i, q.Category), func(t *testing.T) {
						runGenerated(t, q, o)
					})
				}
			})
		}
		for i := range n {
			next <- i
		}
		close(next)
		wg.Wait()
	})
	elapsed := time.Since(start)
	t.Logf("%d queries in %s (seed %d)", n, elapsed.Round(time.Millisecond), seed)
	summarize(t, outcomes, warnedRuns()-warnedBefore)
}

// keyWindow is the window of size ids of ontime a generated query is
// confined to (none for 0).
func keyWindow(t *testing.T, size int) Window {
	if size <= 0 {
		return Window{}
	}
	r, err := query(env.direct, "SELECT MIN(id), MAX(id) FROM ontime")
	if err != nil || r.err != nil || len(r.rows) != 1 {
		t.Fatalf("key range of ontime: %v %v", err, r)
	}
	lo, _ := strconv.ParseInt(r.rows[0][0], 10, 64)
	hi, _ := strconv.ParseInt(r.rows[0][1], 10, 64)
	return Window{Min: lo, Max: max(lo, hi-int64(size)+1), Size: int64(size)}
}

// outcome is what happened to one generated query.
type outcome struct {
	q           Query
	distributed bool
	reason      string // passthrough reason, or the EXPLAIN error
	explainErr  bool
	invalid     bool // MariaDB itself refused the query: a generator bug
	ok          bool
	// valuesOnly: its column definitions differ as documented
	// (reorderedJoinDefs), its values were compared.
	valuesOnly bool
	// scanOrdered: a row query without ORDER BY whose rows were compared
	// in the order of MariaDB's primary key scan (scanOrdered).
	scanOrdered bool
}

// reorderedJoinDefs reports whether q is a join the replica reads through
// a temporary table starting from another table than ontime: docs/sql.md
// ("Column definitions") lists its definitions as differing, because
// every probe that selects no rows changes the join's access paths and
// with them MariaDB's temporary-table layout (AVG's BINARY_FLAG). Its
// values, names and types are still compared; the summary counts them.
func reorderedJoinDefs(t *testing.T, q string) bool {
	if !strings.Contains(q, " JOIN ") {
		return false
	}
	r, err := rawDirect.query("EXPLAIN " + q)
	if err != nil || r.err != nil || len(r.rows) == 0 || len(r.rows[0]) < 10 {
		return false
	}
	return r.rows[0][2] != "o" && r.rows[0][2] != "ontime" && strings.Contains(r.rows[0][9], "Using temporary")
}

func runGenerated(t *testing.T, q Query, o *outcome) {
	ex, err := query(env.shoal, "EXPLAIN "+q.SQL)
	switch {
	case err != nil:
		o.explainErr, o.reason = true, err.Error()
	case ex.err != nil:
		o.explainErr, o.reason = true, ex.err.Error()
	case len(ex.rows) == 0:
		o.explainErr, o.reason = true, "no rows"
	default:
		first := ex.rows[0][0]
		o.distributed = strings.HasPrefix(first, "split ") || strings.HasPrefix(first, "derived table ") || strings.HasPrefix(first, "union all of ")
		if !o.distributed {
			o.reason = strings.TrimPrefix(first, "passthrough to one replica: ")
		}
	}
	defer func() {
		if t.Failed() {
			mode := "distributed"
			if !o.distributed {
				mode = "passthrough (" + o.reason + ")"
			}
			t.Logf("failed query (%s, ordered=%v, %s):\n%s", q.Category, q.Ordered, mode, q.SQL)
		}
	}()
	if o.explainErr {
		t.Errorf("EXPLAIN %s: %s", q.SQL, o.reason)
	}
	ordered := q.Ordered
	if !ordered && q.Category == CatRows && o.distributed && scanOrdered(t, q.SQL) {
		ordered = true // in the primary key order of MariaDB's scan
		o.scanOrdered = true
	}
	r, differ := diffBagsDefs(t, q.SQL, ordered, q.Bags, !reorderedJoinDefs(t, q.SQL))
	o.valuesOnly = differ
	// A value out of range for the data (1690: COT(0), a BIGINT UNSIGNED
	// underflow) is an answer users get, which diff compared: Shoal must
	// fail alike. Any other refusal is the generator's mistake.
	if r != nil && r.err != nil && r.err.Number != 1690 {
		o.invalid = true
		t.Errorf("generator bug: MariaDB refuses %s: %v", q.SQL, r.err)
	}
}

// summarize reports the outcomes by category and fails the test when too
// few were distributed; warned is how many statements planned for
// distribution ran on a replica because a fragment or the final stage
// warned (engine/schedule: Warned): they count as passed through.
func summarize(t *testing.T, outcomes []outcome, warned int) {
	type counts struct{ total, dist, pass, failed, invalid, explainErr int }
	byCat := map[string]*counts{}
	byFeature := map[string]*counts{}
	reasons := map[string]int{}
	add := func(m map[string]*counts, k string, o outcome) {
		c := m[k]
		if c == nil {
			c = &counts{}
			m[k] = c
		}
		c.total++
		switch {
		case o.explainErr:
			c.explainErr++
		case o.distributed:
			c.dist++
		default:
			c.pass++
		}
		if !o.ok {
			c.failed++
		}
		if o.invalid {
			c.invalid++
		}
	}
	var failed []outcome
	for _, o := range outcomes {
		if o.q.SQL == "" {
			continue // not run (the run was interrupted)
		}
		add(byCat, o.q.Category, o)
		if o.q.Feature != "" {
			add(byFeature, o.q.Feature, o)
		}
		if o.q.Category != CatBreadth && !o.distributed && !o.explainErr {
			reasons[normalizeReason(o.reason)]++
		}
		if !o.ok {
			failed = append(failed, o)
		}
	}
	var b strings.Builder
	table := func(title string, m map[string]*counts) {
		fmt.Fprintf(&b, "\n%-16s %6s %12s %12s %7s %8s %8s\n", title, "total", "distributed", "passthrough", "failed", "invalid", "explain!")
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		var sum counts
		for _, k := range keys {
			c := m[k]
			fmt.Fprintf(&b, "%-16s %6d %12d %12d %7d %8d %8d\n", k, c.total, c.dist, c.pass, c.failed, c.invalid, c.explainErr)
			sum.total += c.total
			sum.dist += c.dist
			sum.pass += c.pass
			sum.failed += c.failed
			sum.invalid += c.invalid
			sum.explainErr += c.explainErr
		}
		fmt.Fprintf(&b, "%-16s %6d %12d %12d %7d %8d %8d\n", "all", sum.total, sum.dist, sum.pass, sum.failed, sum.invalid, sum.explainErr)
	}
	table("category", byCat)
	table("breadth feature", byFeature)
	if len(reasons) > 0 {
		type rc struct {
			reason string
			n      int
		}
		var rs []rc
		for r, n := range reasons {
			rs = append(rs, rc{r, n})
		}
		slices.SortFunc(rs, func(a, b rc) int { return cmp.Or(b.n-a.n, strings.Compare(a.reason, b.reason)) })
		b.WriteString("\npassthrough reasons of non-breadth queries:\n")
		for _, r := range rs {
			fmt.Fprintf(&b, "%6d  %s\n", r.n, r.reason)
		}
	}
	dist, total := 0, 0
	for _, o := range outcomes {
		if o.q.SQL == "" || o.q.Category == CatBreadth {
			continue
		}
		total++
		if o.distributed {
			dist++
		}
	}
	if total > 0 {
		share := float64(dist) / float64(total)
		fmt.Fprintf(&b, "\ndistributed share of non-breadth queries: %d of %d (%.1f%%), floor %.0f%%\n", dist, total, 100*share, 100*minDistributedShare)
		if total >= 200 && share < minDistributedShare {
			t.Errorf("only %.1f%% of the non-breadth queries were distributed (floor %.0f%%): see the passthrough reasons", 100*share, 100*minDistributedShare)
		}
	}
	// Statements that warn on MariaDB run there (engine/schedule: Warned): the
	// generator's BIT_OR of text, dates like '2006-03-26x' and divisions
	// by a zero sum, 21 of seed 1's first 800 (2.6%). Many more would
	// mean statements fall back without warnings of their own.
	ran := 0
	for _, o := range outcomes {
		if o.q.SQL != "" {
			ran++
		}
	}
	fmt.Fprintf(&b, "statements planned for distribution that ran on a replica for their warnings: %d of %d, ceiling %.0f%%\n", warned, ran, 100*maxWarnedShare)
	if ran >= 200 && float64(warned) > maxWarnedShare*float64(ran) {
		t.Errorf("%d of %d statements ran on a replica for warnings (ceiling %.0f%%)", warned, ran, 100*maxWarnedShare)
	}
	valuesOnly, scanOrdered, unorderedRows := 0, 0, 0
	for _, o := range outcomes {
		if o.valuesOnly {
			valuesOnly++
		}
		if o.scanOrdered {
			scanOrdered++
		}
		if o.q.Category == CatRows && !o.q.Ordered && o.distributed {
			unorderedRows++
		}
	}
	fmt.Fprintf(&b, "distributed row queries without ORDER BY compared in MariaDB's key-order scan order: %d of %d\n", scanOrdered, unorderedRows)
	if unorderedRows >= 10 && 2*scanOrdered < unorderedRows {
		// 39 of 41 with seed 1's first 800: fewer means the order is no
		// longer compared (scanOrdered misreads EXPLAIN), not checked.
		t.Errorf("only %d of %d unordered row queries were compared in order", scanOrdered, unorderedRows)
	}
	fmt.Fprintf(&b, "joins whose column definitions differ as documented (reorderedJoinDefs; values compared): %d\n", valuesOnly)
	if valuesOnly*100 > len(outcomes) {
		// One with seed 1: more means the class grew, not a documented case.
		t.Errorf("%d of %d queries differ in column definitions as reordered joins (more than 1%%)", valuesOnly, len(outcomes))
	}
	t.Log(b.String())
	if len(failed) > 0 {
		var fb strings.Builder
		fmt.Fprintf(&fb, "%d of %d queries failed; the first ones:\n", len(failed), len(outcomes))
		for _, o := range failed[:min(len(failed), 10)] {
			mode := "unordered"
			if o.q.Ordered {
				mode = "ordered"
			}
			fmt.Fprintf(&fb, "-- %s, %s\n%s\n", mode, o.q.Category, o.q.SQL)
		}
		t.Error(fb.String())
	}
}

// minDistributedShare is the floor of the share of generated non-breadth
// queries (grouped, scalar, rows, mixed) Shoal distributes; a change that
// makes more of them pass through fails the suite.
// Measured at 93.5% (seed 1, 2,000 queries) once aggregates over DECIMAL
// divisions distributed where MySQL's rounding is known (80.9% before:
// 243 of 291 passthroughs were "aggregate over a DECIMAL division").
const minDistributedShare = 0.90

// maxWarnedShare is the ceiling of the share of generated statements that
// run on a replica because they warned (summarize).
const maxWarnedShare = 0.06

// normalizeReason shortens a passthrough reason to its first line with
// Shoal's internal aggregate names (__a0, __a1, ...) made equal, so equal
// causes count together.
func normalizeReason(r string) string {
	r, _, _ = strings.Cut(r, "\n")
	r = hiddenName.ReplaceAllString(r, "__aN")
	if len(r) > 160 {
		r = r[:160] + "..."
	}
	return r
}

var hiddenName = regexp.MustCompile(`__a[0-9]+`)

func envInt(t *testing.T, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		t.Fatalf("%s=%q: want a non-negative integer", name, s)
	}
	return n
}

// regression is one query of testdata/regressions.sql.
type regression struct {
	line    int
	sql     string
	ordered bool
}

// readRegressions parses testdata/regressions.sql; its header documents the
// format.
func readRegressions(path string) ([]regression, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []regression
	var mode *bool
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSpace(sc.Text())
		switch {
		case s == "-- ordered" || s == "-- unordered":
			v := s == "-- ordered"
			mode = &v
		case s == "" || strings.HasPrefix(s, "--"):
		default:
			if mode == nil {
				return nil, fmt.Errorf("%s:%d: query without a preceding -- ordered / -- unordered line", path, line)
			}
			out = append(out, regression{line: line, sql: strings.TrimSuffix(s, ";"), ordered: *mode})
			mode = nil
		}
	}
	return out, sc.Err()
}

// TestRegressions runs the queries of testdata/regressions.sql: queries
// that once answered differently through Shoal than on MySQL.
func TestRegressions(t *testing.T) {
	regs, err := readRegressions("testdata/regressions.sql")
	if err != nil {
		t.Fatal(err)
	}
	if len(regs) == 0 {
		t.Skip("no regression queries")
	}
	for _, r := range regs {
		t.Run(fmt.Sprintf("line%d", r.line), func(t *testing.T) {
			diff(t, r.sql, r.ordered)
		})
	}
}
