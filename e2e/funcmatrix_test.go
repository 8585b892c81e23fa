package e2e

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
)

// The function coverage matrix (issue 13): every built-in function a
// reporting query is likely to use, applied to a group key, to an
// aggregate, inside HAVING and inside ORDER BY, over utf8mb4 and latin1
// string columns, integer and DECIMAL columns and dates. Each case runs
// through Shoal and directly on MariaDB and must be either distributed
// and equal to MariaDB's answer (the text as sent and the column names
// and types), or passed through — equal too, since the replica answers
// it — with the reason EXPLAIN gives. Anything else fails the test.
//
// The matrix in docs/functions.md is written from the same run
// (go test ./e2e -run TestFunctionMatrix -update-functions); without the
// flag the test fails when the committed file no longer says what the
// run found, so the document cannot drift from the code.

var updateFunctions = flag.Bool("update-functions", false, "rewrite docs/functions.md from TestFunctionMatrix")

// variant is one table and the columns a function's argument comes from.
type variant struct {
	name  string // in the report
	table string
	key   map[byte]string // the group key per argument kind
	group string          // the group key of the aggregate context
	agg   map[byte]string // the aggregate per argument kind
}

var matrixVariants = []variant{
	{name: "utf8mb4", table: "ontime",
		key:   map[byte]string{'s': "Carrier", 'n': "DayOfWeek", 'd': "FlightDate"},
		group: "Carrier",
		agg:   map[byte]string{'s': "MAX(Origin)", 'n': "SUM(Distance)", 'd': "MAX(FlightDate)"}},
	{name: "latin1", table: mixedTable,
		key:   map[byte]string{'s': "l1", 'n': "amount", 'd': "day"},
		group: "u8",
		agg:   map[byte]string{'s': "MAX(l1)", 'n': "AVG(amount)", 'd': "MIN(day)"}},
	{name: "utf8mb4 (nullable)", table: mixedTable,
		key:   map[byte]string{'s': "u8", 'n': "n"},
		group: "l1",
		agg:   map[byte]string{'s': "MIN(u8)", 'n': "AVG(n)"}},
}

// matrixContexts place the function: over the group key in the select
// list, over an aggregate, in HAVING, in ORDER BY.
var matrixContexts = []struct {
	name string
	sql  func(v variant, f string, kind byte) string
}{
	{"group key", func(v variant, f string, k byte) string {
		key := v.key[k]
		return fmt.Sprintf("SELECT %s, %s AS f, COUNT(*) FROM %s GROUP BY %s ORDER BY 1", key, fmt.Sprintf(f, key), v.table, key)
	}},
	{"aggregate", func(v variant, f string, k byte) string {
		return fmt.Sprintf("SELECT %s, %s AS f FROM %s GROUP BY %s ORDER BY 1", v.group, fmt.Sprintf(f, v.agg[k]), v.table, v.group)
	}},
	{"HAVING", func(v variant, f string, k byte) string {
		key := v.key[k]
		return fmt.Sprintf("SELECT %s, COUNT(*) FROM %s GROUP BY %s HAVING (%s) IS NOT NULL ORDER BY 1", key, v.table, key, fmt.Sprintf(f, key))
	}},
	{"ORDER BY", func(v variant, f string, k byte) string {
		key := v.key[k]
		return fmt.Sprintf("SELECT %s, COUNT(*) FROM %s GROUP BY %s ORDER BY %s, 1", key, v.table, key, fmt.Sprintf(f, key))
	}},
}

// outcome of one case.
const (
	outDistributed = "distributed"
	outPassthrough = "passthrough"
	outNotValid    = "error on MariaDB too"
)

func TestFunctionMatrix(t *testing.T) {
	type cell = struct{ out, reason string }
	cells := map[string]map[string][]cell{} // function → context → one per variant
	totals := map[string]int{}
	reasons := map[string]int{}
	failed := 0
	type job struct {
		f fn
		c int // context
		v int // variant
	}
	var jobs []job
	all := 0
	for _, f := range matrixFuncs {
		cells[f.f] = map[string][]cell{}
		for ci := range matrixContexts {
			for vi, v := range matrixVariants {
				if _, ok := v.key[f.kind]; ok {
					// Under the race detector one case in twice
					// raceShare, the largest sweep with no share floor
					// to hold there (scripts/test.sh runs them all
					// without it).
					if all%(raceShare*min(raceShare, 2)) == 0 {
						jobs = append(jobs, job{f, ci, vi})
					}
					all++
				}
			}
		}
	}
	if raceShare > 1 && *updateFunctions {
		t.Fatal("-update-functions needs every case: run it without -race")
	}
	// Four cases at a time; each cell has its place, so the order the
	// cases finish in does not matter.
	results := make([]cell, len(jobs))
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := make(chan int)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				j := jobs[i]
				out, wrong, fatal := runMatrixCase(matrixContexts[j.c].sql(matrixVariants[j.v], j.f.f, j.f.kind))
				results[i] = out
				mu.Lock()
				if fatal != "" || wrong != "" {
					failed++
					t.Error(fatal + wrong)
				}
				mu.Unlock()
			}
		}()
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, j := range jobs {
		out := results[i]
		totals[out.out]++
		if out.out == outPassthrough {
			reasons[genericReason(out.reason)]++
		}
		name := matrixContexts[j.c].name
		cells[j.f.f][name] = append(cells[j.f.f][name], out)
	}
	n := totals[outDistributed] + totals[outPassthrough] + totals[outNotValid]
	t.Logf("function matrix: %d cases (%d functions × 4 contexts × up to %d tables): %d distributed, %d passed through, %d errors on MariaDB too; %d wrong",
		n, len(matrixFuncs), len(matrixVariants), totals[outDistributed], totals[outPassthrough], totals[outNotValid], failed)
	var rs []string
	for r, k := range reasons {
		rs = append(rs, fmt.Sprintf("%5d  %s", k, r))
	}
	sort.Sort(sort.Reverse(sort.StringSlice(rs)))
	t.Logf("passthrough reasons:\n%s", strings.Join(rs, "\n"))

	// The document.
	var b strings.Builder
	b.WriteString(`# Function support matrix

Written by ` + "`go test ./e2e -run TestFunctionMatrix -update-functions`" + ` from
the run of the differential test ` + "`TestFunctionMatrix`" + ` (e2e/funcmatrix_test.go):
do not edit by hand. Each function is applied to a group key, to an
aggregate, inside HAVING and inside ORDER BY, over a utf8mb4 table
(` + "`ontime`" + `), a latin1 table with a latin1 column and a utf8mb4 column
(` + "`mixed_cs`" + `), integer, DECIMAL and DATE columns. Every case is run through
Shoal and directly on MariaDB; the test fails unless the answers are
equal (values as the server sends their text, column names and types).

- **D**: distributed (the final stage evaluates it after the merge)
- **P**: passed through to one replica unchanged (reason below the table)
- **E**: MariaDB refuses the statement too (not a valid case), and Shoal
  returns the same error

A cell lists one letter per table the case ran on, in the order utf8mb4,
latin1, utf8mb4 (nullable).

`)
	fmt.Fprintf(&b, "Totals: %d cases; %d distributed (%.1f %%), %d passed through, %d refused by MariaDB too.\n\n",
		n, totals[outDistributed], 100*float64(totals[outDistributed])/float64(max(n, 1)), totals[outPassthrough], totals[outNotValid])
	cats := []string{}
	for _, f := range matrixFuncs {
		if !slices.Contains(cats, f.cat) {
			cats = append(cats, f.cat)
		}
	}
	passNotes := map[string]int{}
	var notes []string
	for _, cat := range cats {
		fmt.Fprintf(&b, "## %s\n\n| expression | group key | aggregate | HAVING | ORDER BY |\n|---|---|---|---|---|\n", cat)
		for _, f := range matrixFuncs {
			if f.cat != cat {
				continue
			}
			arg := map[byte]string{'s': "s", 'n': "n", 'd': "d"}[f.kind]
			fmt.Fprintf(&b, "| `%s` |", strings.ReplaceAll(fmt.Sprintf(f.f, arg), "|", `\|`))
			for _, c := range matrixContexts {
				var letters []string
				for _, x := range cells[f.f][c.name] {
					switch x.out {
					case outDistributed:
						letters = append(letters, "D")
					case outNotValid:
						letters = append(letters, "E")
					default:
						r := genericReason(x.reason)
						k, ok := passNotes[r]
						if !ok {
							k = len(passNotes) + 1
							passNotes[r] = k
							notes = append(notes, fmt.Sprintf("%d. %s", k, r))
						}
						letters = append(letters, fmt.Sprintf("P%d", k))
					}
				}
				fmt.Fprintf(&b, " %s |", strings.Join(letters, " "))
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	if len(notes) > 0 {
		b.WriteString("## Why cases pass through\n\n" + strings.Join(notes, "\n") + "\n")
	}
	if raceShare > 1 {
		t.Logf("race detector: %d of %d cases run, docs/functions.md not compared (the run without -race does)", len(jobs), all)
		return
	}
	const path = "../docs/functions.md"
	if *updateFunctions {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	old, _ := os.ReadFile(path)
	if string(old) != b.String() {
		t.Errorf("docs/functions.md no longer says what this run found: rewrite it with go test ./e2e -run TestFunctionMatrix -update-functions and review the diff")
	}
}

// runMatrixCase runs q through Shoal and on MariaDB and classifies it;
// wrong says how Shoal's answer differs, fatal what went wrong on the way.
func runMatrixCase(q string) (out struct{ out, reason string }, wrong, fatal string) {
	want, err := rawDirect.query(q)
	if err != nil {
		return out, "", fmt.Sprintf("direct: %s: %v", q, err)
	}
	got, err := rawShoal.query(q)
	if err != nil {
		return out, "", fmt.Sprintf("shoal: %s: %v", q, err)
	}
	if want.err != nil {
		out.out = outNotValid
		if got.err == nil || got.err.Number != want.err.Number {
			wrong = fmt.Sprintf("%s: MariaDB fails with %v, Shoal answers %v", q, want.err, got.err)
		}
		return out, wrong, ""
	}
	if d := differs(got, want); d != "" {
		wrong = q + ": " + d
	}
	plan, err := rawShoal.query("EXPLAIN " + q)
	switch {
	case err != nil:
		return out, wrong, fmt.Sprintf("EXPLAIN %s: %v", q, err)
	case plan.err != nil || len(plan.rows) == 0:
		return out, wrong, fmt.Sprintf("EXPLAIN %s: %v", q, plan.err)
	}
	if r, ok := strings.CutPrefix(plan.rows[0][0], "passthrough to one replica: "); ok {
		out.out, out.reason = outPassthrough, r
	} else {
		out.out = outDistributed
	}
	return out, wrong, ""
}

// genericReason strips the statement-specific parts of a passthrough
// reason (column names, literals) so reasons group by cause.
func genericReason(r string) string {
	rest, ok := strings.CutPrefix(r, "final stage: ")
	if !ok {
		return r
	}
	if _, why, ok := strings.Cut(rest, "cannot be evaluated exactly: "); ok {
		if i := strings.Index(why, "__"); i > 0 { // a column of the merge
			why = why[:i]
		}
		return "final stage: " + why
	}
	// "final stage: json_quote(__g0)…": the evaluator lacks the function.
	name := rest
	if i := strings.IndexAny(name, "( "); i > 0 {
		name = name[:i]
	}
	return "final stage: the evaluator does not implement " + strings.ToUpper(name)
}

// differs says how got differs from want (rows in order, column names
// and types, and definitions when compareDefs is on), or "".
func differs(got, want *result) string {
	if got.err != nil {
		return fmt.Sprintf("Shoal fails with %v where MariaDB answers", got.err)
	}
	if !slices.Equal(got.cols, want.cols) {
		return fmt.Sprintf("columns %q, MariaDB %q", got.cols, want.cols)
	}
	if !slices.Equal(got.types, want.types) {
		return fmt.Sprintf("types %q, MariaDB %q", got.types, want.types)
	}
	if compareDefs && !slices.Equal(got.defs, want.defs) {
		return fmt.Sprintf("column definitions %q, MariaDB %q", got.defs, want.defs)
	}
	if len(got.rows) != len(want.rows) {
		return fmt.Sprintf("%d rows, MariaDB %d", len(got.rows), len(want.rows))
	}
	for i := range got.rows {
		if !slices.Equal(got.rows[i], want.rows[i]) {
			return fmt.Sprintf("row %d: %q, MariaDB %q", i, got.rows[i], want.rows[i])
		}
	}
	return ""
}
