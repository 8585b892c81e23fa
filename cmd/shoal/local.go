package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/shoaldb/shoal/deploy/localcluster"
	"github.com/shoaldb/shoal/internal/cli"
	"github.com/shoaldb/shoal/netshape"
)

// runLocal implements `shoal local up|down`.
func runLocal(args []string) error {
	usage := func() {
		fmt.Fprint(os.Stderr, `usage: shoal local up|down [flags]

  up    start a MariaDB primary, GTID replicas, the ontime sample data,
        one worker per replica and a coordinator, all on 127.0.0.1
  down  stop everything 'up' started

run 'shoal local up --help' or 'shoal local down --help' for flags
`)
	}
	if len(args) == 0 {
		usage()
		return fmt.Errorf("local: missing up or down")
	}
	switch args[0] {
	case "up":
		return runLocalUp(args[1:])
	case "down":
		return runLocalDown(args[1:])
	case "-h", "--help", "help":
		usage()
		return nil
	}
	usage()
	return fmt.Errorf("local: unknown subcommand %q", args[0])
}

func runLocalUp(args []string) error {
	fs := flag.NewFlagSet("local up", flag.ContinueOnError)
	dir := fs.String("dir", localcluster.DefaultDir, "directory for data, logs and configuration")
	replicas := fs.Int("replicas", 2, "number of replicas, each with a worker")
	rows := fs.Int64("rows", 10_000_000, "number of ontime rows to load")
	seed := fs.Uint64("seed", 1, "random seed of the generated data")
	bufferPool := fs.String("buffer-pool", "256M", "innodb_buffer_pool_size of each server")
	basePort := fs.Int("base-port", 0, "primary port; replica i on base+i, coordinator on base+100, worker i on base+100+i (0: free ports)")
	slots := fs.Int("worker-slots", 0, "fragments each worker runs at once (0: its default)")
	noShoal := fs.Bool("no-shoal", false, "start only the MariaDB primary and replicas")
	pinCPUs := fs.Bool("pin-cpus", false, "pin replica i's mysqld and worker to CPU i (taskset -c), round robin: N replicas on N cores behave like N hosts")
	shape := fs.String("shape", "", "run the workers' links through shoal netshape proxies with this link, e.g. delay=500us,rate=1Gbit, and start coordinators that use them; see docs/benchmarks.md")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: shoal local up [flags]

Start a local cluster under --dir: a MariaDB primary (mariadbd must be
installed: apt-get install -y mariadb-server), replicas fed by GTID
replication, the ontime sample data loaded on the primary, one worker per
replica and a coordinator. Nothing listens beyond 127.0.0.1 and the
machine's own MySQL configuration is not read.

flags:
`)
		fs.PrintDefaults()
	}
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if *shape != "" {
		if _, err := netshape.ParseLink(*shape); err != nil {
			return fmt.Errorf("--shape: %w", err)
		}
		if *noShoal {
			return fmt.Errorf("--shape shapes the workers' links and --no-shoal starts no workers: drop one of them")
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	start := time.Now()
	c, err := localcluster.Up(ctx, localcluster.Options{
		Dir: *dir, Replicas: *replicas, Rows: *rows, Seed: *seed, BufferPool: *bufferPool,
		BasePort: *basePort, WorkerSlots: *slots, NoShoal: *noShoal, PinCPUs: *pinCPUs, Shape: *shape, Log: os.Stderr,
	})
	if err != nil {
		return err
	}
	var reps []string
	for _, r := range c.Replicas {
		s := r.MySQL
		if r.Worker != "" {
			s += " (worker " + r.Worker
			if r.WorkerHTTP != "" {
				s += ", http " + r.WorkerHTTP
			}
			s += ")"
		}
		if r.CPU != nil {
			s += fmt.Sprintf(" on cpu %d", *r.CPU)
		}
		reps = append(reps, s)
	}
	fmt.Printf("local cluster up in %s (loading and replicating %d rows took %s)\n",
		time.Since(start).Round(time.Second), *rows, c.LoadTime.Round(time.Millisecond))
	fmt.Printf("  primary   %s\n  replicas  %s\n", c.Primary, strings.Join(reps, ", "))
	if c.Coordinator.MySQL != "" {
		fmt.Printf("  coordinator %s", c.Coordinator.MySQL)
		if c.Coordinator.HTTP != "" {
			fmt.Printf(" (status page http://%s/)", c.Coordinator.HTTP)
		}
		fmt.Println()
		_, port, _ := strings.Cut(c.Coordinator.MySQL, ":")
		fmt.Printf("connect:\n  mariadb -h127.0.0.1 -P%s -uroot %s\n", port, c.Database)
		if c.TLSCA != "" {
			fmt.Printf("  mariadb -h127.0.0.1 -P%s -uroot --ssl-ca=%s --ssl-verify-server-cert %s   (TLS)\n", port, c.TLSCA, c.Database)
		}
		if len(c.Coordinator.Shaped) > 0 {
			fmt.Printf("coordinators reaching the workers over shaped links (%s; shoal bench --via shaped|shaped-lz4):\n", c.Coordinator.Shape)
			for _, v := range []struct{ key, label string }{
				{localcluster.ShapedNone, "no IPC compression"}, {localcluster.ShapedLZ4, "lz4 IPC compression"},
			} {
				_, port, _ := strings.Cut(c.Coordinator.Shaped[v.key], ":")
				fmt.Printf("  mariadb -h127.0.0.1 -P%s -uroot %s   (%s)\n", port, c.Database, v.label)
			}
		}
	} else {
		_, port, _ := strings.Cut(c.Primary, ":")
		fmt.Printf("connect to the primary:\n  mariadb -h127.0.0.1 -P%s -uroot %s\n", port, c.Database)
	}
	fmt.Printf("stop:\n  %s local down --dir %s\n", selfCommand(), *dir)
	return nil
}

// selfCommand is how to run this binary again from the same directory: the
// path it was started by ("bin/shoal", "./shoal", an absolute path), or
// plain "shoal" when it was found on PATH (or by go run, whose binary is
// gone once it exits).
func selfCommand() string {
	arg0 := os.Args[0]
	if !strings.ContainsRune(arg0, os.PathSeparator) || strings.Contains(arg0, "go-build") {
		return "shoal"
	}
	return arg0
}

func runLocalDown(args []string) error {
	fs := flag.NewFlagSet("local down", flag.ContinueOnError)
	dir := fs.String("dir", localcluster.DefaultDir, "directory of the cluster to stop")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: shoal local down [--dir D]\n\nStop every process 'shoal local up' started in D; data and logs stay.\n\nflags:\n")
		fs.PrintDefaults()
	}
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if err := localcluster.Down(*dir); err != nil {
		return err
	}
	fmt.Printf("local cluster in %s stopped\n", *dir)
	return nil
}
