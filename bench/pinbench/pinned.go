// Package pinbench is `shoal bench pinned`, the pinned workload:
// Percona's queries 1 and 2 over ontime pinned in the coordinator's
// memory, beside in-memory DuckDB on the same rows with the same number
// of threads, the distributed path and MySQL, in one run.
// Three steps (scripts/bench-duckdb.sh runs them):
//
//	shoal bench pinned --export DIR     rows of the primary → DIR/ontime.tsv, DIR/manifest.json
//	bin/shoal-duckdb compare --manifest DIR/manifest.json --out DIR/duckdb.json   (module bench/duckdb)
//	shoal bench pinned --duckdb DIR/duckdb.json
//
// The manifest carries the column types (from the primary's
// information_schema, mapped to DuckDB's), the queries (scan.Core) and a
// check query; the third step measures Shoal and reads DuckDB's times and
// answers from the JSON.
//
// It owns the export for DuckDB (export.go: ExportTSV, DuckColumn), which
// the module bench/duckdb imports. It may import bench/measure and
// bench/scan (the query sets), deploy/localcluster, internal/cli and
// sqlparse; no other bench package imports it.
package pinbench

import (
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/shoaldb/shoal/bench/measure"
	"github.com/shoaldb/shoal/bench/scan"
	"github.com/shoaldb/shoal/deploy/localcluster"
	"github.com/shoaldb/shoal/internal/cli"
)

// pinnedTable is the table the workload pins, reads and exports.
const pinnedTable = "ontime"

// pinnedCheckSQL fingerprints the rows: DuckDB's answer must equal the
// pinned table's, so both hold the same rows.
const pinnedCheckSQL = "select count(*), sum(id), sum(Distance), count(TailNum), count(ArrDelayMinutes), sum(ArrDelayMinutes) from ontime"

// duckReport is what shoal-duckdb compare writes (--out).
type duckReport struct {
	Version        string      `json:"duckdb_version"`
	Threads        int         `json:"threads"`
	Rows           int64       `json:"rows"`
	LoadMs         float64     `json:"load_ms"`
	ArrowBytes     int64       `json:"arrow_bytes"`
	ArrowDictBytes int64       `json:"arrow_dict_bytes"`
	MemoryBytes    int64       `json:"duckdb_memory_bytes"`
	Check          []string    `json:"check"`
	Queries        []duckTimes `json:"queries"`
}

type duckTimes struct {
	Name   string     `json:"name"`
	SQL    string     `json:"sql"`
	BestMs float64    `json:"best_ms"`
	Rows   [][]string `json:"rows"`
}

func (d duckTimes) best() time.Duration { return time.Duration(d.BestMs * float64(time.Millisecond)) }

// Command is `shoal bench pinned`.
func Command(args []string) error {
	fs := flag.NewFlagSet("bench pinned", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: shoal bench pinned --export DIR [--dir D]
       shoal bench pinned [--dir D] [--runs N] [--direct-runs N] [--duckdb FILE] [-v]

Percona's queries 1 and 2 over ontime pinned in the coordinator's memory
(CACHE TABLE ontime.ontime), through the distributed path (after UNCACHE)
and directly on the first replica, in one run; with --duckdb, beside
in-memory DuckDB's times from shoal-duckdb compare (bench/duckdb). Every answer is
checked against MySQL's (as sorted rows). scripts/bench-duckdb.sh runs
the whole comparison.

Pinned times: "engine" is the coordinator's own execution time from
EXPLAIN ANALYZE (no network, no planning, no result cache); "client" is a
statement text the coordinator has not seen (a distinct comment each run),
so it plans and runs the query but cannot answer from its result cache;
"cached" is the same text again, from the result cache. A table pinned
before the run is pinned again at the end.

--export DIR writes the primary's ontime rows to DIR/ontime.tsv and
DIR/manifest.json (column types, queries) for shoal-duckdb compare, and stops.

flags:
`)
		fs.PrintDefaults()
	}
	dir := fs.String("dir", localcluster.DefaultDir, "local cluster directory")
	export := fs.String("export", "", "write the primary's rows and a manifest for shoal-duckdb compare (bench/duckdb) to this directory, then stop")
	duckPath := fs.String("duckdb", "", "DuckDB results written by shoal-duckdb compare --out")
	runs := fs.Int("runs", 5, "timed runs per query on each Shoal path, after a warm-up (best is reported)")
	directRuns := fs.Int("direct-runs", 1, "timed runs per query directly on the replica (its answer is the reference)")
	verbose := fs.Bool("v", false, "print every side's answers")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if *runs < 1 || *directRuns < 1 {
		return fmt.Errorf("--runs and --direct-runs must be at least 1")
	}
	ctx := context.Background()
	if *export != "" {
		c, err := measure.LoadCluster(*dir)
		if err != nil {
			return err
		}
		return exportForDuckDB(ctx, c, *export)
	}
	var duck *duckReport
	if *duckPath != "" {
		b, err := os.ReadFile(*duckPath)
		if err != nil {
			return err
		}
		duck = &duckReport{}
		if err := json.Unmarshal(b, duck); err != nil {
			return fmt.Errorf("%s: %w", *duckPath, err)
		}
	}
	c, direct, shoal, err := measure.OpenCluster(*dir, 2)
	if err != nil {
		return err
	}
	defer direct.Close()
	defer shoal.Close()
	var rows int64
	if err := direct.QueryRowContext(ctx, "select count(*) from "+pinnedTable).Scan(&rows); err != nil {
		return err
	}
	if duck != nil && duck.Rows != rows {
		return fmt.Errorf("DuckDB loaded %d rows, the replica has %d: export again", duck.Rows, rows)
	}
	fmt.Printf("%s rows: %d; shoal = coordinator %s (in-memory engine: one partition per core, %d cores here); direct = replica %s\n",
		pinnedTable, rows, c.Coordinator.MySQL, runtime.NumCPU(), c.Replicas[0].MySQL)
	if duck != nil {
		fmt.Printf("duckdb = %s in memory, threads = %d (from %s)\n", duck.Version, duck.Threads, *duckPath)
	}
	rep, err := measurePinned(ctx, shoal, direct, scan.Core(rows), *runs, *directRuns, duck != nil)
	if err != nil {
		return err
	}
	rep.duck = duck
	rep.print(os.Stdout, *verbose)
	if bad := rep.mismatches(); len(bad) > 0 {
		return fmt.Errorf("answers differ from MySQL's: %s", strings.Join(bad, "; "))
	}
	return nil
}

// pinnedQuery is one query's measurement on every Shoal path and directly.
type pinnedQuery struct {
	q                                           scan.Query
	engine, client, cached, distributed, direct time.Duration
	pinnedRows, distRows, directRows            [][]string
}

type pinnedReport struct {
	queries []pinnedQuery
	pin     pinInfo // SHOW CACHED TABLES while pinned
	loaded  time.Duration
	check   []string // pinnedCheckSQL through the pinned table
	duck    *duckReport
}

// measurePinned pins the table if it is not, times each query pinned,
// unpins it and times them distributed, then directly; a table that was
// pinned before is pinned again on the way out.
func measurePinned(ctx context.Context, shoal, direct *sql.DB, qs []scan.Query, runs, directRuns int, check bool) (rep *pinnedReport, err error) {
	rep = &pinnedReport{}
	const cacheStmt = "CACHE TABLE ontime." + pinnedTable
	before, err := showCachedTable(ctx, shoal, "ontime", pinnedTable)
	if err != nil {
		return nil, err
	}
	if before.Found {
		defer func() {
			if _, perr := shoal.ExecContext(ctx, cacheStmt); perr != nil && err == nil {
				err = fmt.Errorf("pinning %s again: %w", pinnedTable, perr)
			}
		}()
	} else {
		start := time.Now()
		if _, err := shoal.ExecContext(ctx, cacheStmt); err != nil {
			return nil, err
		}
		rep.loaded = time.Since(start)
	}
	if rep.pin, err = showCachedTable(ctx, shoal, "ontime", pinnedTable); err != nil {
		return nil, err
	}
	if !rep.pin.Found {
		return nil, fmt.Errorf("%s: not in SHOW CACHED TABLES after %s", pinnedTable, cacheStmt)
	}
	if check {
		_, rs, err := measure.Timed(ctx, shoal, pinnedCheckSQL)
		if err != nil {
			return nil, fmt.Errorf("check query: %w", err)
		}
		if len(rs) == 1 {
			rep.check = rs[0]
		}
	}
	nonce := time.Now().UnixNano()
	for _, q := range qs {
		pq := pinnedQuery{q: q}
		if pq.engine, err = pinnedEngineTime(ctx, shoal, q.SQL, runs); err != nil {
			return nil, fmt.Errorf("%s pinned: %w", q.Name, err)
		}
		// A text the coordinator has not seen: planned and run, not
		// answered from the result cache (keyed by the exact text).
		pq.client, pq.pinnedRows, err = bestOf(runs, func(i int) (time.Duration, [][]string, error) {
			return measure.Timed(ctx, shoal, fmt.Sprintf("%s /* bench pinned %x run %d */", q.SQL, nonce, i))
		})
		if err != nil {
			return nil, fmt.Errorf("%s pinned: %w", q.Name, err)
		}
		if pq.cached, _, err = bestOf(runs+1, func(int) (time.Duration, [][]string, error) { return measure.Timed(ctx, shoal, q.SQL) }); err != nil {
			return nil, fmt.Errorf("%s pinned: %w", q.Name, err)
		}
		rep.queries = append(rep.queries, pq)
	}
	if _, err := shoal.ExecContext(ctx, "UNCACHE TABLE ontime."+pinnedTable); err != nil {
		return nil, err
	}
	for i := range rep.queries {
		pq := &rep.queries[i]
		if _, _, err := measure.Timed(ctx, shoal, pq.q.SQL); err != nil { // warm-up
			return nil, fmt.Errorf("%s distributed: %w", pq.q.Name, err)
		}
		if pq.distributed, pq.distRows, err = bestOf(runs, func(int) (time.Duration, [][]string, error) { return measure.Timed(ctx, shoal, pq.q.SQL) }); err != nil {
			return nil, fmt.Errorf("%s distributed: %w", pq.q.Name, err)
		}
	}
	for i := range rep.queries {
		pq := &rep.queries[i]
		if pq.direct, pq.directRows, err = bestOf(directRuns, func(int) (time.Duration, [][]string, error) { return measure.Timed(ctx, direct, pq.q.SQL) }); err != nil {
			return nil, fmt.Errorf("%s direct: %w", pq.q.Name, err)
		}
	}
	return rep, nil
}

// pinInfo is one row of SHOW CACHED TABLES.
type pinInfo struct {
	Found                          bool
	Rows, MemoryBytes, BytesPerRow int64
	LoadMs                         int64
}

func showCachedTable(ctx context.Context, shoal *sql.DB, db, table string) (pinInfo, error) {
	rows, err := shoal.QueryContext(ctx, "SHOW CACHED TABLES")
	if err != nil {
		return pinInfo{}, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return pinInfo{}, err
	}
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return pinInfo{}, err
		}
		get := func(name string) string {
			if i := slices.Index(cols, name); i >= 0 {
				return vals[i].String
			}
			return ""
		}
		if get("Database") != db || get("Table") != table {
			continue
		}
		num := func(name string) int64 { n, _ := strconv.ParseInt(get(name), 10, 64); return n }
		return pinInfo{Found: true, Rows: num("Rows"), MemoryBytes: num("Memory_bytes"), BytesPerRow: num("Bytes_per_row"), LoadMs: num("Load_ms")}, nil
	}
	return pinInfo{}, rows.Err()
}

// analyzeTimeRe reads the execution time off EXPLAIN ANALYZE's summary
// line (engine/plan.go (Explain): "analyze: N rows returned in D; ...").
var analyzeTimeRe = regexp.MustCompile(`^analyze: \d+ rows returned in ([^;]+);`)

// pinnedEngineTime is the best of runs EXPLAIN ANALYZE executions after
// one warm-up: the coordinator's time to run the plan and build the
// answer. EXPLAIN ANALYZE always executes (it does not read the result
// cache) and reuses the cached plan.
func pinnedEngineTime(ctx context.Context, shoal *sql.DB, query string, runs int) (time.Duration, error) {
	var best time.Duration
	for i := 0; i <= runs; i++ {
		a, err := measure.Explain(ctx, shoal, query)
		if err != nil {
			return 0, err
		}
		if a.InMemory == "" {
			return 0, fmt.Errorf("the plan does not read the pinned table:\n  %s", strings.Join(a.Lines, "\n  "))
		}
		d, err := analyzeTime(a.Lines)
		if err != nil {
			return 0, err
		}
		if i > 0 && (i == 1 || d < best) {
			best = d
		}
	}
	return best, nil
}

func analyzeTime(lines []string) (time.Duration, error) {
	for _, l := range lines {
		if m := analyzeTimeRe.FindStringSubmatch(l); m != nil {
			return time.ParseDuration(m[1])
		}
	}
	return 0, fmt.Errorf("no execution time in EXPLAIN ANALYZE:\n  %s", strings.Join(lines, "\n  "))
}

// bestOf runs f n times and keeps the fastest run and its answer.
func bestOf(n int, f func(run int) (time.Duration, [][]string, error)) (time.Duration, [][]string, error) {
	var (
		best time.Duration
		rows [][]string
	)
	for i := 0; i < n; i++ {
		d, rs, err := f(i)
		if err != nil {
			return 0, nil, err
		}
		if i == 0 || d < best {
			best, rows = d, rs
		}
	}
	return best, rows, nil
}

// mismatches names every answer that differs from MySQL's, and a DuckDB
// table whose fingerprint differs from the pinned table's.
func (r *pinnedReport) mismatches() []string {
	var bad []string
	for _, pq := range r.queries {
		for _, side := range r.differs(pq) {
			bad = append(bad, pq.q.Name+" "+side)
		}
	}
	if r.duck != nil && r.check != nil && !sameRows([][]string{r.duck.Check}, [][]string{r.check}, numericCell) {
		bad = append(bad, fmt.Sprintf("rows: DuckDB's fingerprint %v, the pinned table's %v", r.duck.Check, r.check))
	}
	return bad
}

// differs names the sides whose answer to pq differs from MySQL's:
// Shoal's must be the same text, DuckDB's the same numbers (it prints 0.1
// where MySQL prints 0.10).
func (r *pinnedReport) differs(pq pinnedQuery) []string {
	var bad []string
	if !sameRows(pq.pinnedRows, pq.directRows, exactCell) {
		bad = append(bad, "pinned")
	}
	if !sameRows(pq.distRows, pq.directRows, exactCell) {
		bad = append(bad, "distributed")
	}
	if d, ok := r.duckQuery(pq.q.Name); ok && !sameRows(d.Rows, pq.directRows, numericCell) {
		bad = append(bad, "duckdb")
	}
	return bad
}

func (r *pinnedReport) duckQuery(name string) (duckTimes, bool) {
	if r.duck == nil {
		return duckTimes{}, false
	}
	for _, d := range r.duck.Queries {
		if d.Name == name {
			return d, true
		}
	}
	return duckTimes{}, false
}

func exactCell(s string) string { return s }

// numericCell writes a number one way (0.10 and 0.1 alike); other text
// stays as it is.
func numericCell(s string) string {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return strconv.FormatInt(n, 10)
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return s
}

// sameRows compares two answers as sorted rows after norm of each cell.
func sameRows(a, b [][]string, norm func(string) string) bool {
	key := func(rows [][]string) []string {
		out := make([]string, len(rows))
		for i, r := range rows {
			cells := make([]string, len(r))
			for j, c := range r {
				cells[j] = norm(c)
			}
			out[i] = strings.Join(cells, "\x00")
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(key(a), key(b))
}

func (r *pinnedReport) print(w io.Writer, verbose bool) {
	if verbose {
		for _, pq := range r.queries {
			fmt.Fprintf(w, "== %s\n%s\n-- direct (MySQL):\n", pq.q.Name, pq.q.SQL)
			printAnswer(w, pq.directRows)
			fmt.Fprintln(w, "-- shoal pinned:")
			printAnswer(w, pq.pinnedRows)
			fmt.Fprintln(w, "-- shoal distributed:")
			printAnswer(w, pq.distRows)
			if d, ok := r.duckQuery(pq.q.Name); ok {
				fmt.Fprintln(w, "-- duckdb:")
				printAnswer(w, d.Rows)
			}
		}
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "query\tduckdb\tpinned engine\tpinned client\tpinned cached\tdistributed\tdirect\tengine/duckdb\tclient/duckdb\tdistributed/client\tequal to MySQL\t")
	for _, pq := range r.queries {
		duck, engRatio, cliRatio := "-", "-", "-"
		if d, ok := r.duckQuery(pq.q.Name); ok {
			duck = fmtMs(d.best())
			engRatio = ratio(pq.engine, d.best())
			cliRatio = ratio(pq.client, d.best())
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", pq.q.Name, duck,
			fmtMs(pq.engine), fmtMs(pq.client), fmtMs(pq.cached), fmtMs(pq.distributed), fmtMs(pq.direct),
			engRatio, cliRatio, ratio(pq.distributed, pq.client), equality(r.differs(pq)))
	}
	tw.Flush()

	p := r.pin
	fmt.Fprintln(w)
	loaded := "pinned before this run"
	if r.loaded > 0 {
		loaded = "CACHE TABLE took " + fmtMs(r.loaded)
	}
	fmt.Fprintf(w, "SHOW CACHED TABLES ontime.%s: Rows %d, Memory_bytes %d, Bytes_per_row %d, Load_ms %d (%s)\n",
		pinnedTable, p.Rows, p.MemoryBytes, p.BytesPerRow, p.LoadMs, loaded)
	if d := r.duck; d != nil && d.Rows > 0 {
		perRow := func(b int64) float64 { return float64(b) / float64(d.Rows) }
		fmt.Fprintf(w, "Arrow, MySQL's column widths, utf8 strings:       %d bytes, %.1f per row; pinned/Arrow %.2f\n",
			d.ArrowBytes, perRow(d.ArrowBytes), float64(p.MemoryBytes)/float64(d.ArrowBytes))
		fmt.Fprintf(w, "Arrow, MySQL's column widths, dictionary strings: %d bytes, %.1f per row; pinned/Arrow %.2f\n",
			d.ArrowDictBytes, perRow(d.ArrowDictBytes), float64(p.MemoryBytes)/float64(d.ArrowDictBytes))
		fmt.Fprintf(w, "DuckDB in memory (duckdb_memory()):              %d bytes, %.1f per row\n", d.MemoryBytes, perRow(d.MemoryBytes))
		same := "yes"
		if !sameRows([][]string{d.Check}, [][]string{r.check}, numericCell) {
			same = fmt.Sprintf("NO: DuckDB %v, pinned %v", d.Check, r.check)
		}
		fmt.Fprintf(w, "same rows in DuckDB and pinned (%s): %s\n", pinnedCheckSQL, same)
	}
}

func printAnswer(w io.Writer, rows [][]string) {
	for _, r := range rows {
		fmt.Fprintln(w, "  "+strings.Join(r, "\t"))
	}
}

func equality(differs []string) string {
	if len(differs) > 0 {
		return "DIFFERS: " + strings.Join(differs, ",")
	}
	return "yes"
}

func ratio(a, b time.Duration) string {
	if a <= 0 || b <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", a.Seconds()/b.Seconds())
}

// fmtMs prints a duration in milliseconds, three significant figures or so.
func fmtMs(d time.Duration) string {
	ms := float64(d) / float64(time.Millisecond)
	switch {
	case d == 0:
		return "-"
	case ms < 10:
		return fmt.Sprintf("%.2fms", ms)
	case ms < 100:
		return fmt.Sprintf("%.1fms", ms)
	}
	return fmt.Sprintf("%.0fms", ms)
}
