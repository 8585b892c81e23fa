package dashboard

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/shoaldb/shoal/bench/measure"
	"github.com/shoaldb/shoal/deploy/localcluster"
	"github.com/shoaldb/shoal/internal/cli"
)

// Command is `shoal bench dashboard`; with --vary, open (when
// not nil) loads the peer engine the charts are compared with (the
// module bench/duckdb passes DuckDB's).
func Command(args []string, open PeerOpener) error {
	fs := flag.NewFlagSet("bench dashboard", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: shoal bench dashboard [--dir D] [--steps 10,25,50] [--step-time 10s]
           [--direct=false] [--table T] [--where COND] [--setup "SQL;SQL"]
           [--teardown "SQL;SQL"] [--csv FILE] [--svg FILE]
       shoal bench dashboard --vary [--rounds N] [--fixed=false] [--churn N] [--lockstep] ...

A BI dashboard as a load test: at each step, that many virtual users (one
connection each) cycle through 15 chart queries over a recent slice of
ontime for --step-time, through the coordinator of the local cluster in D
and then directly on its first replica. Prints QPS, latency percentiles
and success rate per step and side, and the ratio Shoal/direct.

Through Shoal the charts read --table; directly they read ontime; both
with the slice condition --where, so a pinned copy can be measured:
  --setup "CACHE TABLE ontime.recent AS SELECT * FROM ontime.ontime WHERE YearD >= 2009"
  --table recent --teardown "UNCACHE TABLE ontime.recent"
Before timing, each chart's answer through Shoal and directly are compared
(as sorted rows); a mismatch makes the command fail after the report.

--vary: every query gets literals of its own (Distance <> K with K unique
per user and query, FlightDate ranges, carrier IN lists), so no cache can
answer and no two connections send the same text. It prints each chart's
mean latency at one connection (--rounds rounds), beside DuckDB on the
same rows when run as bench/duckdb's binary (go run ./bench/duckdb
dashboard --vary ...; scripts/bench-dashboard-vary.sh), then each step
varied and, unless --fixed=false, with the fixed texts (the cached
figure), then --churn N distinct statements with the coordinator's RSS,
pins and plan cache before and after. --direct is ignored with --vary.

flags:
`)
		fs.PrintDefaults()
	}
	dir := fs.String("dir", localcluster.DefaultDir, "local cluster directory")
	stepsFlag := fs.String("steps", "10,25,50,75,100,150,300", "virtual users per step, comma separated")
	stepTime := fs.Duration("step-time", 10*time.Second, "duration of each step on each side")
	runDirect := fs.Bool("direct", true, "run each step directly on the first replica too")
	verify := fs.Bool("verify", true, "compare each chart's answer through Shoal and directly before timing")
	table := fs.String("table", "ontime", "table the charts read through Shoal (ontime, or a pinned copy)")
	where := fs.String("where", "", "slice condition of every chart (default: the last --years years, by YearD)")
	years := fs.Int("years", 2, "years in the default slice, counting back from the newest FlightDate")
	setup := fs.String("setup", "", "statements run once through Shoal before the steps, separated by ';'")
	teardown := fs.String("teardown", "", "statements run once through Shoal after the steps, separated by ';'")
	csvPath := fs.String("csv", "", "write one CSV row per side and step to this file")
	svgPath := fs.String("svg", "", "write an SVG chart of QPS and p99 against users to this file")
	vary := fs.Bool("vary", false, "vary every query's literals (no cache can answer); see above")
	fixed := fs.Bool("fixed", true, "with --vary: run each step with the fixed texts too (the cached figure)")
	lockstep := fs.Bool("lockstep", false, "with --vary: every user starts at the first chart and all go through the charts in step (a dashboard everyone opens at once: the heavy charts arrive together); default: user u starts at chart u")
	rounds := fs.Int("rounds", 20, "with --vary: rounds of the charts at one connection for the per-chart latencies (0: none)")
	churn := fs.Int("churn", 0, "with --vary: distinct statements sent after the steps, with the coordinator's memory before and after")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	steps, err := parseSteps(*stepsFlag)
	if err != nil {
		return err
	}
	if *stepTime <= 0 {
		return fmt.Errorf("--step-time must be positive")
	}
	// --churn runs 4 users: the pool must hold them whatever the steps.
	c, direct, shoal, err := measure.OpenCluster(*dir, max(slices.Max(steps), 4)+1)
	if err != nil {
		return err
	}
	defer direct.Close()
	defer shoal.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	cond := *where
	if cond == "" {
		var last sql.NullInt64
		if err := direct.QueryRowContext(ctx, "select year(max(FlightDate)) from ontime").Scan(&last); err != nil {
			return err
		}
		if !last.Valid {
			return fmt.Errorf("ontime is empty")
		}
		cond = RecentSlice("ontime", int(last.Int64), *years).Where
	}
	var total, inSlice int64
	if err := direct.QueryRowContext(ctx, "select count(*), coalesce(sum(("+cond+")), 0) from ontime").Scan(&total, &inSlice); err != nil {
		return fmt.Errorf("counting the slice %q: %w", cond, err)
	}
	charts := Dashboard()
	if *vary {
		fmt.Printf("dashboard --vary: %d charts over %s WHERE %s (%d of %d ontime rows); shoal = coordinator %s over %d replicas\nsteps %v users, %s each\n",
			len(charts), *table, cond, inSlice, total, c.Coordinator.MySQL, len(c.Replicas), steps, *stepTime)
		r := &varyRun{c: c, shoal: shoal, direct: direct,
			shoalSlice: Slice{Table: *table, Where: cond}, directSlice: Slice{Table: "ontime", Where: cond},
			charts: charts, steps: steps, stepTime: *stepTime, fixed: *fixed, lockstep: *lockstep, rounds: *rounds, churn: *churn,
			verify: *verify, setup: splitStatements(*setup), down: splitStatements(*teardown), open: open}
		return r.run(ctx, os.Stdout)
	}
	fmt.Printf("dashboard: %d charts over %s WHERE %s (%d of %d ontime rows); shoal = coordinator %s over %d replicas",
		len(charts), *table, cond, inSlice, total, c.Coordinator.MySQL, len(c.Replicas))
	if *runDirect {
		fmt.Printf("; direct = replica %s", c.Replicas[0].MySQL)
	}
	fmt.Printf("\nsteps %v users, %s each\n", steps, *stepTime)

	rep, err := RunDashboard(ctx, DashboardOptions{
		Shoal: shoal, Direct: direct,
		ShoalSlice:  Slice{Table: *table, Where: cond},
		DirectSlice: Slice{Table: "ontime", Where: cond},
		Charts:      charts, Steps: steps, StepTime: *stepTime,
		RunDirect: *runDirect, Verify: *verify,
		Setup: splitStatements(*setup), Teardown: splitStatements(*teardown),
		Progress: os.Stderr,
	})
	if rep != nil && len(rep.Checks) > 0 {
		fmt.Println()
		PrintChecks(os.Stdout, rep.Checks)
	}
	if rep != nil && len(rep.Steps) > 0 {
		fmt.Println()
		PrintSteps(os.Stdout, rep.Steps)
		title := fmt.Sprintf("shoal bench dashboard: %d charts, %s WHERE %s (%d rows), %s per step", len(charts), *table, cond, inSlice, *stepTime)
		if werr := writeFile(*csvPath, func(f *os.File) error { return WriteCSV(f, rep.Steps) }); werr != nil && err == nil {
			err = werr
		}
		if werr := writeFile(*svgPath, func(f *os.File) error { return WriteSVG(f, title, rep.Steps) }); werr != nil && err == nil {
			err = werr
		}
	}
	if err != nil {
		return err
	}
	if n := rep.Mismatches(); n > 0 {
		return fmt.Errorf("%d of %d charts answered differently through shoal and directly", n, len(rep.Checks))
	}
	return nil
}

// parseSteps reads "10,25,50" into user counts, in the order given.
func parseSteps(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("--steps: %q is not a positive number of users", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// splitStatements splits "SQL; SQL" on ';' (statements holding a ';' in a
// literal are not supported), dropping empty ones.
func splitStatements(s string) []string {
	var out []string
	for _, st := range strings.Split(s, ";") {
		if st = strings.TrimSpace(st); st != "" {
			out = append(out, st)
		}
	}
	return out
}

// writeFile creates path and fills it with write; nothing when path is "".
func writeFile(path string, write func(*os.File) error) error {
	if path == "" {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Printf("wrote %s\n", path)
	return nil
}
