package scan

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"

	"github.com/shoaldb/shoal/bench/measure"
	"github.com/shoaldb/shoal/deploy/localcluster"
	"github.com/shoaldb/shoal/internal/cli"
)

// viaHelp describes --via (viaCoordinator).
const viaHelp = `coordinator the Shoal side uses: "" (the main one, loopback links to the workers), ` +
	`shaped or shaped-lz4 (through netshape proxies, without or with lz4 IPC compression; needs shoal local up --shape)`

// checkVia validates a --via value before anything is opened.
func checkVia(via string) error {
	switch via {
	case "", "shaped", "shaped-lz4":
		return nil
	}
	return fmt.Errorf("--via %q: use shaped or shaped-lz4, or leave it out for the main coordinator", via)
}

// viaCoordinator returns the address of c's coordinator that via names
// (checkVia) and a description of it for report headers.
func viaCoordinator(c *localcluster.Cluster, via string) (addr, desc string, err error) {
	if err := checkVia(via); err != nil {
		return "", "", err
	}
	if via == "" {
		return c.Coordinator.MySQL, "coordinator " + c.Coordinator.MySQL, nil
	}
	key := localcluster.ShapedNone
	if via == "shaped-lz4" {
		key = localcluster.ShapedLZ4
	}
	addr = c.Coordinator.Shaped[key]
	if addr == "" {
		return "", "", fmt.Errorf("--via %s: the cluster in %s was started without --shape, so it has no shaped coordinators; "+
			"restart it with: shoal local up --dir %s --shape delay=500us,rate=1Gbit", via, c.Dir, c.Dir)
	}
	return addr, fmt.Sprintf("coordinator-%s %s (workers behind %s links, IPC compression %s)", via, addr, c.Coordinator.Shape, key), nil
}

// openClusterVia is measure.OpenCluster with the Shoal side on the
// coordinator via names (viaCoordinator), described in desc.
func openClusterVia(dir string, conns int, via string) (c *localcluster.Cluster, direct, shoal *sql.DB, desc string, err error) {
	if err := checkVia(via); err != nil {
		return nil, nil, nil, "", err
	}
	if c, err = measure.LoadCluster(dir); err != nil {
		return nil, nil, nil, "", err
	}
	addr, desc, err := viaCoordinator(c, via)
	if err != nil {
		return nil, nil, nil, "", err
	}
	if direct, shoal, err = measure.OpenSides(c, addr, conns); err != nil {
		return nil, nil, nil, "", err
	}
	return c, direct, shoal, desc, nil
}

// Command is `shoal bench [scan]`, the scan workload: Percona's queries
// directly on one replica and through Shoal, in the same run, on a local
// cluster.
func Command(args []string) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: shoal bench [scan] [--dir D] [--runs N] [--queries SET] [--via shaped|shaped-lz4] [-v]
       shoal bench dashboard --help
       shoal bench pinned --help

Runs Percona's queries 1 and 2 directly on the first replica and through
the coordinator of the local cluster in D, and prints times, ratio, what
was shipped from workers, the fragments' time distribution and what a
row-shipping engine would have fetched. --via shaped or shaped-lz4 runs the
Shoal side through a coordinator that reaches the workers over shaped links
(a cluster started with shoal local up --shape).

flags:
`)
		fs.PrintDefaults()
	}
	dir := fs.String("dir", localcluster.DefaultDir, "local cluster directory")
	runs := fs.Int("runs", 3, "runs per query and side (best is reported)")
	verbose := fs.Bool("v", false, "print both results")
	set := fs.String("queries", "core", querySetHelp)
	via := fs.String("via", "", viaHelp)
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	c, direct, shoal, shoalDesc, err := openClusterVia(*dir, 2, *via)
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
	fmt.Printf("ontime rows: %d; direct = one connection to %s; shoal = %s over %d replicas\n",
		rows, c.Replicas[0].MySQL, shoalDesc, len(c.Replicas))
	qs, err := querySet(*set, rows)
	if err != nil {
		return err
	}
	rs, err := Run(ctx, direct, shoal, qs, *runs)
	if err != nil {
		return err
	}
	Print(os.Stdout, rs, *verbose)
	for _, r := range rs {
		if !r.Equal {
			return fmt.Errorf("%s: results differ between direct and shoal", r.Query.Name)
		}
	}
	return nil
}
