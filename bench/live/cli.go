package live

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	_ "github.com/go-sql-driver/mysql" // the "mysql" driver of sql.Open

	"github.com/shoaldb/shoal/bench/measure"
	"github.com/shoaldb/shoal/deploy/localcluster"
	"github.com/shoaldb/shoal/internal/cli"
)

// Command is `shoal bench live` (live.go).
func Command(args []string) error {
	fs := flag.NewFlagSet("bench live", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: shoal bench live [--dir D] [--rows N] [--rate R] [--clients C]
           [--duration 3m] [--probe 250ms] [--sample 5s] [--keep]
           [--follow primary|replica] [--warmup 0s]
           [--kill-replica 60s [--restart-after 60s]]

A live pin under write load, on the local cluster in D. Loads --rows rows
into shoal_live.events on the primary, pins them twice through the
coordinator — live (CACHE TABLE … OPTIONS ('refresh' = 'live')) and static —
then for --duration: writes --rate row changes/s on the primary (30%
inserts, 40% updates, 30% deletes, a transaction every 20 ms), probes
staleness with a marker row (updated on the primary every --probe: the
time until the pin's position covers its GTID, until a replica has
applied it, and until a point read through the live pin shows it), and
runs --clients dashboard
connections that alternate a chart over the live pin and the same chart
over the static pin. Prints staleness p50/p99, events applied per second,
each pin's dashboard QPS and latency, the pin's and the coordinator's
memory every --sample; then stops the writes, waits until the pin shows
the primary's GTID position, and compares its full contents and every
chart with the primary: any difference is a wrong answer and makes the
command fail.

With --kill-replica T (which implies --follow replica), the replica the
live pin follows is killed (SIGKILL) T into the run and started again
--restart-after later: the pin must move to another replica without a
reload (a reload fails the command), and the final comparison proves
that no change was lost or applied twice.

With --follow primary the live pin follows the primary's binary log
(OPTIONS ('follow' = 'primary'); the coordinator needs primary: in its
config, which shoal local up writes); --follow replica follows a replica;
without the flag the coordinator's live_follow decides (primary in the
configs shoal local up and the compose cluster write). --warmup W starts
the staleness probes W into the run, after the dashboards' first
statements (the writes and the dashboards start at once).

flags:
`)
		fs.PrintDefaults()
	}
	dir := fs.String("dir", localcluster.DefaultDir, "local cluster directory")
	rows := fs.Int("rows", 100_000, "rows in the table at the start")
	rate := fs.Int("rate", 4000, "row changes per second on the primary")
	clients := fs.Int("clients", 50, "dashboard connections")
	duration := fs.Duration("duration", 3*time.Minute, "duration of the timed run")
	probe := fs.Duration("probe", 250*time.Millisecond, "time between two staleness probes")
	sample := fs.Duration("sample", 5*time.Second, "time between two memory samples")
	seed := fs.Uint64("seed", 1, "random seed")
	keep := fs.Bool("keep", false, "keep the pins and shoal_live.events afterwards")
	follow := fs.String("follow", "", "the live pin's 'follow' option: primary or replica (default: the coordinator's live_follow)")
	warmup := fs.Duration("warmup", 0, "start the staleness probes this long into the run")
	kill := fs.Duration("kill-replica", 0, "kill the replica the live pin follows this long into the run (0: never)")
	restartAfter := fs.Duration("restart-after", time.Minute, "with --kill-replica: start the killed replica again this long after the kill")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	switch *follow {
	case "":
		if *kill > 0 { // the cluster's default may be the primary
			*follow = "replica"
		}
	case "replica":
	case "primary":
		if *kill > 0 {
			return fmt.Errorf("bench live: --kill-replica kills the replica the pin follows; use it with --follow replica")
		}
	default:
		return fmt.Errorf("bench live: --follow %q: use primary or replica", *follow)
	}
	c, err := measure.LoadCluster(*dir)
	if err != nil {
		return err
	}
	open := func(addr string, conns int) (*sql.DB, error) {
		db, err := sql.Open("mysql", c.DSN(addr))
		if err != nil {
			return nil, err
		}
		db.SetMaxOpenConns(conns)
		db.SetMaxIdleConns(conns)
		return db, nil
	}
	shoal, err := open(c.Coordinator.MySQL, *clients+4)
	if err != nil {
		return err
	}
	defer shoal.Close()
	primary, err := open(c.Primary, 4)
	if err != nil {
		return err
	}
	defer primary.Close()
	var replicas []*sql.DB
	for _, r := range c.Replicas {
		db, err := open(r.MySQL, 1)
		if err != nil {
			return err
		}
		defer db.Close()
		replicas = append(replicas, db)
	}
	metrics := ""
	if c.Coordinator.HTTP != "" {
		metrics = "http://" + c.Coordinator.HTTP + "/metrics"
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Printf("bench live: coordinator %s, primary %s, %d replicas; %d rows, %d changes/s, %d clients, %s\n",
		c.Coordinator.MySQL, c.Primary, len(c.Replicas), *rows, *rate, *clients, *duration)
	rep, err := RunLive(ctx, LiveOptions{Shoal: shoal, Primary: primary, Replicas: replicas, MetricsURL: metrics,
		Rows: *rows, Rate: *rate, Clients: *clients, Duration: *duration, Probe: *probe, Sample: *sample,
		Seed: *seed, Keep: *keep, Follow: *follow, Warmup: *warmup, Progress: os.Stderr,
		Kill: *kill, RestartAfter: *restartAfter, Crash: func(addr string) (func(context.Context) error, error) {
			for i, r := range c.Replicas {
				if r.MySQL == addr {
					return localcluster.CrashReplica(*dir, i)
				}
			}
			return nil, fmt.Errorf("the live pin follows %s, which is not a replica of the cluster in %s", addr, *dir)
		}})
	if rep != nil {
		PrintLive(os.Stdout, rep)
	}
	if err != nil {
		return err
	}
	if n := rep.WrongRows + rep.WrongCharts; n > 0 {
		return fmt.Errorf("bench live: %d wrong answers", n)
	}
	if f := rep.Failover; f != nil && (f.Err != "" || f.RestartErr != "") {
		return fmt.Errorf("bench live: the replica kill went wrong: %s%s", f.Err, f.RestartErr)
	}
	if *kill > 0 && rep.Reloads != "" {
		return fmt.Errorf("bench live: the pin reloaded after the replica kill instead of resuming from its position: %s", rep.Reloads)
	}
	if *kill > 0 && rep.Failover == nil {
		return fmt.Errorf("bench live: the run ended before --kill-replica %s", *kill)
	}
	return nil
}
