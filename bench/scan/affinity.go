package scan

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	_ "github.com/go-sql-driver/mysql" // the "mysql" driver of sql.Open

	"github.com/shoaldb/shoal/bench/measure"
	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/coordinator"
	"github.com/shoaldb/shoal/deploy/localcluster"
	"github.com/shoaldb/shoal/internal/cli"
)

// Two workloads about how fragments are cut and placed:
//
//	shoal bench fragments   fragment-time balance of a query over many runs
//	shoal bench affinity    repeated Percona q1 with range affinity on and off
//
// Both read EXPLAIN ANALYZE's fragment lines (Profile).

// FragmentsCommand is `shoal bench fragments`: it runs each query
// several times with EXPLAIN ANALYZE through the cluster's coordinator and
// reports how evenly the fragments took: pooled over all runs, and per range (each range's median time
// across runs, so that a noisy neighbour's moment does not count as skew).
func FragmentsCommand(args []string) error {
	fs := flag.NewFlagSet("bench fragments", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: shoal bench fragments [--dir D] [--runs N] [--queries SET] [--count-rows]

Runs each query N times with EXPLAIN ANALYZE through the coordinator of the
local cluster in D and prints the fragments' time distribution: p50, p95
and p95/p50 pooled over every run, and per range (the median of each
range's times across runs). With --count-rows the rows of each range of
the last run are counted on the first replica (one scan of ontime).

flags:
`)
		fs.PrintDefaults()
	}
	dir := fs.String("dir", localcluster.DefaultDir, "local cluster directory")
	runs := fs.Int("runs", 10, "EXPLAIN ANALYZE runs per query")
	set := fs.String("queries", "core", querySetHelp)
	countRows := fs.Bool("count-rows", false, "count each range's rows on the first replica")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	c, direct, shoal, err := measure.OpenCluster(*dir, 2)
	if err != nil {
		return err
	}
	defer direct.Close()
	defer shoal.Close()
	ctx := context.Background()
	var rows int64
	if err := direct.QueryRowContext(ctx, "select count(*) from ontime").Scan(&rows); err != nil {
		return err
	}
	qs, err := querySet(*set, rows)
	if err != nil {
		return err
	}
	fmt.Printf("ontime rows: %d; coordinator %s over %d replicas; %d runs per query\n", rows, c.Coordinator.MySQL, len(c.Replicas), *runs)
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "query\tfragments\twall p50\tfrag p50\tfrag p95\tp95/p50\trange p50\trange p95\tp95/p50\trows max/median\t")
	for _, q := range qs {
		p, err := ProfileQuery(ctx, shoal, q.SQL, *runs)
		if err != nil {
			return fmt.Errorf("%s: %w", q.Name, err)
		}
		pooled, per := p.Pooled(), p.PerRange()
		balance := "-"
		if *countRows {
			counts, err := rangeRows(ctx, direct, p.Ranges())
			if err != nil {
				return fmt.Errorf("%s: counting rows per range: %w", q.Name, err)
			}
			balance = maxOverMedian(counts)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", q.Name, per.N, measure.FmtDur(p.Wall().P50),
			measure.FmtDur(pooled.P50), measure.FmtDur(pooled.P95), Skew(pooled),
			measure.FmtDur(per.P50), measure.FmtDur(per.P95), Skew(per), balance)
	}
	return tw.Flush()
}

// rangeRows counts the ontime rows of each range ("[lo, hi)" as EXPLAIN
// ANALYZE prints them) in one scan.
func rangeRows(ctx context.Context, db *sql.DB, ranges []string) ([]int64, error) {
	var sums []string
	for _, r := range ranges {
		pred, err := rangePredicate("id", r)
		if err != nil {
			return nil, err
		}
		sums = append(sums, "coalesce(sum("+pred+"), 0)")
	}
	counts := make([]int64, len(sums))
	ptrs := make([]any, len(sums))
	for i := range counts {
		ptrs[i] = &counts[i]
	}
	err := db.QueryRowContext(ctx, "select "+strings.Join(sums, ", ")+" from ontime").Scan(ptrs...)
	return counts, err
}

// rangePredicate turns "[lo, hi)" ("-inf", "+inf" open) or "NULL" into a
// predicate on col.
func rangePredicate(col, r string) (string, error) {
	if r == "NULL" {
		return col + " is null", nil
	}
	inner, ok := strings.CutPrefix(r, "[")
	if inner, ok = strings.CutSuffix(inner, ")"); !ok {
		return "", fmt.Errorf("range %q", r)
	}
	lo, hi, ok := strings.Cut(inner, ", ")
	if !ok {
		return "", fmt.Errorf("range %q", r)
	}
	var conds []string
	if lo != "-inf" {
		if _, err := strconv.ParseInt(lo, 10, 64); err != nil {
			return "", fmt.Errorf("range %q: %w", r, err)
		}
		conds = append(conds, col+" >= "+lo)
	}
	if hi != "+inf" {
		if _, err := strconv.ParseInt(hi, 10, 64); err != nil {
			return "", fmt.Errorf("range %q: %w", r, err)
		}
		conds = append(conds, col+" < "+hi)
	}
	if len(conds) == 0 {
		return col + " is not null", nil
	}
	return strings.Join(conds, " and "), nil
}

func maxOverMedian(counts []int64) string {
	if len(counts) == 0 {
		return "-"
	}
	ds := make([]time.Duration, len(counts)) // Summarize sorts durations; counts fit
	for i, c := range counts {
		ds[i] = time.Duration(c)
	}
	l := measure.Summarize(ds)
	if l.P50 <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", float64(l.Max)/float64(l.P50))
}

// AffinityCommand is `shoal bench affinity`, which measures range
// affinity: Percona's q1, repeated, through two coordinators started in this process on the local cluster's
// workers — one placing ranges by affinity, one by timing alone — in
// alternating blocks, with each replica's InnoDB buffer pool misses.
// Affinity pays off when a replica's buffer pool holds its share of the
// table but not the whole table: start the cluster so, e.g.
//
//	shoal local up --rows 2000000 --buffer-pool 128M --pin-cpus
func AffinityCommand(args []string) error {
	fs := flag.NewFlagSet("bench affinity", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: shoal bench affinity [--dir D] [--runs N] [--warmup N] [--rounds N]

Repeats Percona's q1 through two coordinators started in this process on
the workers of the local cluster in D, one with range affinity (the
default) and one with affinity: false, in alternating blocks (warm-up runs,
then timed runs), and prints per mode the query time, the fragments' time,
the replicas' buffer pool misses (Innodb_buffer_pool_reads) per query and
how often a range ran on the same replica as the run before; then the
ratio. Useful when each replica's buffer pool is smaller than the table
and larger than its share (the table's size and the pools are printed).

flags:
`)
		fs.PrintDefaults()
	}
	dir := fs.String("dir", localcluster.DefaultDir, "local cluster directory")
	runs := fs.Int("runs", 6, "timed runs per block")
	warmup := fs.Int("warmup", 2, "untimed runs at the start of each block")
	rounds := fs.Int("rounds", 2, "blocks per mode, alternating")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	c, err := measure.LoadCluster(*dir)
	if err != nil {
		return err
	}
	var cfg config.Coordinator
	if err := config.Load(filepath.Join(*dir, "coordinator.yaml"), &cfg); err != nil {
		return err
	}
	ctx := context.Background()
	var reps []*sql.DB
	for _, r := range c.Replicas {
		db, err := sql.Open("mysql", c.DSN(r.MySQL))
		if err != nil {
			return err
		}
		defer db.Close()
		db.SetMaxOpenConns(1)
		reps = append(reps, db)
	}
	var rows, tableBytes, pool int64
	if err := reps[0].QueryRowContext(ctx, "select count(*) from ontime").Scan(&rows); err != nil {
		return err
	}
	if err := reps[0].QueryRowContext(ctx, `select data_length + index_length from information_schema.tables
		where table_schema = database() and table_name = 'ontime'`).Scan(&tableBytes); err != nil {
		return err
	}
	if err := reps[0].QueryRowContext(ctx, "select @@innodb_buffer_pool_size").Scan(&pool); err != nil {
		return err
	}
	q := Core(rows)[0]
	share := tableBytes / int64(len(c.Replicas))
	fmt.Printf("ontime: %d rows, %d MiB (data + indexes); %d replicas, buffer pool %d MiB each; share per replica %d MiB\n",
		rows, tableBytes>>20, len(c.Replicas), pool>>20, share>>20)
	if tableBytes <= pool {
		fmt.Println("note: the table fits in one buffer pool: both modes read from memory, expect a ratio near 1")
	} else if share > pool {
		fmt.Println("note: a replica's share does not fit in its buffer pool: affinity can only help partly")
	}
	for i, r := range c.Replicas {
		if r.CPU != nil {
			fmt.Printf("replica%d and its worker pinned to cpu %d\n", i+1, *r.CPU)
		}
	}

	modes := []struct {
		name     string
		affinity bool
	}{{"affinity", true}, {"random", false}}
	dbs := make([]*sql.DB, len(modes))
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	for i, m := range modes {
		mc := cfg
		mc.Listen = "127.0.0.1:0"
		mc.HTTPListen = new("")
		mc.SlowQueryLog = ""
		mc.Affinity = new(m.affinity)
		co, err := coordinator.New(ctx, mc, log)
		if err != nil {
			return fmt.Errorf("%s coordinator: %w", m.name, err)
		}
		go co.Serve()
		defer co.Close()
		db, err := sql.Open("mysql", fmt.Sprintf("%s:%s@tcp(%s)/%s", c.User, c.Password, co.Addr(), c.Database))
		if err != nil {
			return err
		}
		defer db.Close()
		dbs[i] = db
	}

	profiles := make([]Profile, len(modes))
	reads := make([]int64, len(modes))
	for round := range *rounds {
		for i, m := range modes {
			if _, err := ProfileQuery(ctx, dbs[i], q.SQL, *warmup); err != nil {
				return fmt.Errorf("%s warm-up: %w", m.name, err)
			}
			before, err := poolReads(ctx, reps)
			if err != nil {
				return err
			}
			p, err := ProfileQuery(ctx, dbs[i], q.SQL, *runs)
			if err != nil {
				return fmt.Errorf("%s: %w", m.name, err)
			}
			after, err := poolReads(ctx, reps)
			if err != nil {
				return err
			}
			reads[i] += after - before
			profiles[i].Merge(p)
			fmt.Fprintf(os.Stderr, "round %d %-8s q1 p50 %s, %d buffer pool reads per query\n", round+1, m.name,
				measure.FmtDur(p.Wall().P50), (after-before)/int64(max(*runs, 1)))
		}
	}

	fmt.Printf("\n%s, %d rounds of %d warm-up + %d timed runs per mode, alternating\n", q.Name, *rounds, *warmup, *runs)
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "placement\tq1 p50\tq1 mean\tfrag p50\tfrag p95\tpool reads/query\tsame replica as last run\t")
	for i, m := range modes {
		w, f := profiles[i].Wall(), profiles[i].Pooled()
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%.0f%%\t\n", m.name, measure.FmtDur(w.P50), measure.FmtDur(w.Mean),
			measure.FmtDur(f.P50), measure.FmtDur(f.P95), reads[i]/int64(max(len(profiles[i].Times), 1)), 100*profiles[i].Stability())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	on, off := profiles[0].Wall(), profiles[1].Wall()
	if on.P50 > 0 {
		fmt.Printf("random / affinity: q1 p50 %.2fx, mean %.2fx", float64(off.P50)/float64(on.P50), float64(off.Mean)/float64(on.Mean))
		if reads[0] > 0 {
			fmt.Printf(", buffer pool reads %.2fx", float64(reads[1])/float64(reads[0]))
		}
		fmt.Println()
	}
	return nil
}

// poolReads sums Innodb_buffer_pool_reads (reads that missed the buffer
// pool and went to disk) over the replicas.
func poolReads(ctx context.Context, reps []*sql.DB) (int64, error) {
	var sum int64
	for _, db := range reps {
		var name string
		var n int64
		err := db.QueryRowContext(ctx, "show global status like 'Innodb_buffer_pool_reads'").Scan(&name, &n)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return 0, err
		}
		sum += n
	}
	return sum, nil
}
