package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"

	_ "github.com/go-sql-driver/mysql"

	"github.com/shoaldb/shoal/bench"
	"github.com/shoaldb/shoal/deploy/localcluster"
)

// runBench implements `shoal bench`: Percona's queries directly on one
// replica and through Shoal, in the same run, on a local cluster.
func runBench(args []string) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: shoal bench [--dir D] [--runs N] [-v]\n\nRuns Percona's queries 1 and 2 directly on the first replica and through\nthe coordinator of the local cluster in D, and prints times, ratio and\nwhat was shipped from workers.")
		fs.PrintDefaults()
	}
	dir := fs.String("dir", defaultLocalDir, "local cluster directory")
	runs := fs.Int("runs", 3, "runs per query and side (best is reported)")
	verbose := fs.Bool("v", false, "print both results")
	set := fs.String("queries", "core", "query set: core (Percona q1, q2), breadth (join, count distinct) or all")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	c, err := localcluster.Load(*dir)
	if err != nil {
		return fmt.Errorf("%w (start one with: shoal local up --dir %s)", err, *dir)
	}
	direct, err := sql.Open("mysql", c.DSN(c.Replicas[0].MySQL))
	if err != nil {
		return err
	}
	defer direct.Close()
	shoal, err := sql.Open("mysql", c.DSN(c.Coordinator.MySQL))
	if err != nil {
		return err
	}
	defer shoal.Close()
	ctx := context.Background()
	var rows int64
	if err := direct.QueryRowContext(ctx, "select count(*) from ontime").Scan(&rows); err != nil {
		return err
	}
	fmt.Printf("ontime rows: %d; direct = one connection to %s; shoal = coordinator %s over %d replicas\n",
		rows, c.Replicas[0].MySQL, c.Coordinator.MySQL, len(c.Replicas))
	var qs []bench.Query
	switch *set {
	case "core":
		qs = bench.Core(rows)
	case "breadth":
		qs = bench.Breadth()
	case "all":
		qs = append(bench.Core(rows), bench.Breadth()...)
	default:
		return fmt.Errorf("--queries: unknown set %q (core, breadth or all)", *set)
	}
	rs, err := bench.Run(ctx, direct, shoal, qs, *runs)
	if err != nil {
		return err
	}
	bench.Print(os.Stdout, rs, *verbose)
	for _, r := range rs {
		if !r.Equal {
			return fmt.Errorf("%s: results differ between direct and shoal", r.Query.Name)
		}
	}
	return nil
}
