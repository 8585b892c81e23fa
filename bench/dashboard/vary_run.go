package dashboard

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/shoaldb/shoal/bench/measure"
	"github.com/shoaldb/shoal/deploy/localcluster"
)

// Side names of a varying dashboard run.
const (
	SideVaried = "shoal varied"
	SideCached = "shoal cached"
)

// PeerOpener loads the rows of table WHERE cond from src (a replica) into
// a peer engine and returns it with the slice its charts read there; the
// close function releases it. DuckDB's lives in the module bench/duckdb,
// so that the shoal binary does not link it.
type PeerOpener func(ctx context.Context, src *sql.DB, table, cond string) (Peer, Slice, func(), error)

// varyRun is what `shoal bench dashboard --vary` runs, resolved from its
// flags.
type varyRun struct {
	c             *localcluster.Cluster
	shoal, direct *sql.DB
	shoalSlice    Slice
	directSlice   Slice
	charts        []Chart
	steps         []int
	stepTime      time.Duration
	fixed         bool
	lockstep      bool // varied steps: users in step through the charts
	rounds        int
	churn         int
	verify        bool
	setup, down   []string
	open          PeerOpener
}

// run is the varying dashboard: setup, verification against the replica
// (fixed texts), per-chart latency at one connection beside the peer,
// the ramp (each step varied, then with fixed texts for the cached
// figure), the churn (distinct statements, with the coordinator's RSS
// before and after), teardown.
func (r *varyRun) run(ctx context.Context, out io.Writer) (err error) {
	for _, s := range r.setup {
		fmt.Fprintf(os.Stderr, "setup through shoal: %s\n", s)
		t := time.Now()
		if _, err := r.shoal.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("setup %q: %w", s, err)
		}
		fmt.Fprintf(os.Stderr, "  done in %s\n", measure.FmtDur(time.Since(t)))
	}
	defer func() {
		tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		for _, s := range r.down {
			if _, terr := r.shoal.ExecContext(tctx, s); terr != nil && err == nil {
				err = fmt.Errorf("teardown %q: %w", s, terr)
			}
		}
	}()
	fmt.Fprintf(out, "coordinator: %s\n", r.memory(ctx))
	v, err := LoadVarier(ctx, r.direct, r.directSlice.Table, r.directSlice.Where)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "varying: Distance <> K (K unique per user and query), FlightDate ranges within %s..%s, IN lists of %d carriers\n",
		v.First.Format(time.DateOnly), v.Last.Format(time.DateOnly), len(v.Carriers))
	mismatches := 0
	if r.verify {
		var checks []measure.ChartCheck
		for i, c := range r.charts {
			// A varied text of each chart, through Shoal and directly.
			sq := v.Queries(r.charts, r.shoalSlice)(2, i)
			dq := v.Queries(r.charts, r.directSlice)(2, i)
			ch, err := measure.Verify(ctx, r.shoal, r.direct, c.Name, sq, dq)
			if err != nil {
				return err
			}
			checks = append(checks, ch)
		}
		fmt.Fprintln(out, "\nverification (a varied text of each chart, through shoal and directly on the replica):")
		PrintChecks(out, checks)
		for _, ch := range checks {
			if !ch.Equal {
				mismatches++
			}
		}
	}

	var peer Peer
	peerSlice := r.shoalSlice
	if r.open != nil {
		fmt.Fprintf(os.Stderr, "loading %s WHERE %s into the peer ...\n", r.directSlice.Table, r.directSlice.Where)
		t := time.Now()
		p, s, closePeer, err := r.open(ctx, r.direct, r.directSlice.Table, r.directSlice.Where)
		if err != nil {
			return fmt.Errorf("loading the peer: %w", err)
		}
		defer closePeer()
		peer, peerSlice = p, s
		fmt.Fprintf(out, "peer: %s, loaded in %s\n", p.Name(), measure.FmtDur(time.Since(t)))
	}
	if r.rounds > 0 {
		ts, err := RunChartLatency(ctx, r.shoal, r.shoalSlice, peer, peerSlice, r.charts, v, r.rounds)
		if err != nil {
			return err
		}
		name := ""
		if peer != nil {
			name = peer.Name()
		}
		fmt.Fprintf(out, "\none connection, varying literals, %d rounds of the %d charts (mean per query):\n", r.rounds, len(r.charts))
		PrintChartLatency(out, name, ts)
		if chartLatencyFailed(ts) {
			mismatches++
		}
		cc := []Chart{ColumnCompareChart()}
		ts, err = RunChartLatency(ctx, r.shoal, r.shoalSlice, peer, peerSlice, cc, v, r.rounds)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "\ncolumn against column (%s), one connection, %d runs:\n", "OriginState <> DestState", r.rounds)
		PrintChartLatency(out, name, ts)
		if chartLatencyFailed(ts) {
			mismatches++
		}
	}

	var steps []StepResult
	varied := v.Queries(r.charts, r.shoalSlice)
	fixed := fixedQueries(render(r.charts, r.shoalSlice))
	for _, users := range r.steps {
		sides := []struct {
			name string
			gen  func(int, int) string
		}{{SideVaried, varied}}
		if r.fixed {
			sides = append(sides, struct {
				name string
				gen  func(int, int) string
			}{SideCached, fixed})
		}
		for _, s := range sides {
			fmt.Fprintf(os.Stderr, "step %d users, %s, %s ...", users, s.name, r.stepTime)
			// Each step's users start at a sequence of their own, so no
			// text of an earlier step (or of the one-connection timings,
			// sequences below 1,000,000) comes back.
			base := (len(steps) + 1) * 1_000_000
			gen := s.gen
			if s.name == SideVaried {
				// User u starts at chart u, as the fixed texts do: users
				// in step would send the heaviest chart all at once, a
				// burst the queue then serves at that chart's pace.
				stagger := 1
				if r.lockstep {
					stagger = 0
				}
				gen = func(u, seq int) string { return s.gen(u, base+seq+stagger*u) }
			}
			res, err := RunStepWith(ctx, r.shoal, s.name, gen, users, r.stepTime)
			if err != nil {
				fmt.Fprintln(os.Stderr)
				return err
			}
			fmt.Fprintf(os.Stderr, " %.1f qps, p99 %s, %d errors; %s\n", res.QPS(), measure.FmtDur(res.Latency.P99), res.Errors, r.memory(ctx))
			steps = append(steps, res)
		}
	}
	if len(steps) > 0 {
		fmt.Fprintf(out, "\nramp (closed loop, one connection per user, %s per step):\n", r.stepTime)
		PrintSteps(out, steps)
	}
	if r.churn > 0 {
		fmt.Fprintf(out, "\nchurn: %d distinct varied statements at 4 connections\n", r.churn)
		fmt.Fprintf(out, "  before: %s\n", r.memory(ctx))
		// Four quarters, memory after each: a bound shows as a plateau.
		per := (r.churn + 15) / 16
		sent := 0
		for q := range 4 {
			gen := func(u, seq int) string { return varied(1000+q*4+u, seq) }
			t := time.Now()
			res, err := runCount(ctx, r.shoal, gen, 4, per)
			if err != nil {
				return err
			}
			sent += res.OK + res.Errors
			fmt.Fprintf(out, "  %d statements (%d errors) in %s, %.1f qps; after %d: %s\n", res.OK, res.Errors, measure.FmtDur(time.Since(t)),
				float64(res.OK)/time.Since(t).Seconds(), sent, r.memory(ctx))
			for _, e := range res.FirstErrors {
				fmt.Fprintf(out, "  error: %s\n", e)
			}
		}
	}
	if mismatches > 0 {
		return fmt.Errorf("%d charts answered differently or failed (see above)", mismatches)
	}
	return nil
}

// runCount has users users send per queries each from gen (closed
// loop, no time bound but ctx's).
func runCount(ctx context.Context, db *sql.DB, gen func(int, int) string, users, per int) (StepResult, error) {
	return runStep(ctx, db, SideVaried, gen, users, 0, per)
}

// memory describes the coordinator's resident memory (from its pid file
// in the cluster directory), its pins (SHOW CACHED TABLES) and its plan
// cache (its /metrics).
func (r *varyRun) memory(ctx context.Context) string {
	var parts []string
	if rss, err := coordinatorRSS(r.c.Dir); err == nil {
		parts = append(parts, "RSS "+measure.FmtBytes(rss))
	} else {
		parts = append(parts, "RSS unknown ("+err.Error()+")")
	}
	if n, err := pinnedBytes(ctx, r.shoal); err == nil {
		parts = append(parts, "pins "+measure.FmtBytes(n))
	}
	if m, err := measure.ScrapeMetrics(ctx, "http://"+r.c.Coordinator.HTTP+"/metrics", "shoal_plan_cache_bytes", "shoal_plan_cache_entries", "shoal_plan_cache_evictions_total", "go_memstats_heap_inuse_bytes"); err == nil {
		parts = append(parts, fmt.Sprintf("plan cache %s in %.0f entries (%.0f evicted), heap in use %s",
			measure.FmtBytes(int64(m["shoal_plan_cache_bytes"])), m["shoal_plan_cache_entries"], m["shoal_plan_cache_evictions_total"], measure.FmtBytes(int64(m["go_memstats_heap_inuse_bytes"]))))
	}
	return strings.Join(parts, ", ")
}

// coordinatorRSS reads VmRSS of the coordinator whose pid file is in dir.
func coordinatorRSS(dir string) (int64, error) {
	b, err := os.ReadFile(filepath.Join(dir, "coordinator.pid"))
	if err != nil {
		return 0, err
	}
	pid := strings.TrimSpace(string(b))
	f, err := os.Open("/proc/" + pid + "/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no VmRSS for pid %s", pid)
}

// pinnedBytes sums Memory_bytes of SHOW CACHED TABLES.
func pinnedBytes(ctx context.Context, db *sql.DB) (int64, error) {
	rows, err := db.QueryContext(ctx, "SHOW CACHED TABLES")
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return 0, err
	}
	at := -1
	for i, c := range cols {
		if c == "Memory_bytes" {
			at = i
		}
	}
	if at < 0 {
		return 0, fmt.Errorf("SHOW CACHED TABLES has no Memory_bytes")
	}
	raw := make([]sql.RawBytes, len(cols))
	ptrs := make([]any, len(cols))
	for i := range raw {
		ptrs[i] = &raw[i]
	}
	var sum int64
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return 0, err
		}
		n, _ := strconv.ParseInt(string(raw[at]), 10, 64)
		sum += n
	}
	return sum, rows.Err()
}
