package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
	"go.uber.org/goleak"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/coordinator"
	"github.com/shoaldb/shoal/deploy/localcluster"
	"github.com/shoaldb/shoal/worker"
)

// env is the shared test cluster.
var env struct {
	cluster *localcluster.Cluster
	coord   *coordinator.Server
	workers []*worker.Server
	shoal   *sql.DB // through the coordinator
	direct  *sql.DB // the primary
	// replicas are the coordinator's replica and worker addresses, for
	// tests that start a coordinator of their own.
	replicas []config.Replica
	rows     int64
}

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if spec := os.Getenv(workerProcessEnv); spec != "" {
		return serveWorkerProcess(spec) // TestFaultWorkerProcessKilled's worker
	}
	rows := int64(60000)
	if s := os.Getenv("SHOAL_E2E_ROWS"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			fmt.Fprintln(os.Stderr, "SHOAL_E2E_ROWS:", err)
			return 2
		}
		rows = n
	}
	env.rows = rows
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var c *localcluster.Cluster
	var err error
	if dir := os.Getenv("SHOAL_E2E_CLUSTER"); dir != "" {
		// Reuse a running local cluster (shoal local up), e.g. the 10M-row
		// one for the long randomized run: only its primary and replicas
		// are used. Do not run the fault tests against it: they kill
		// servers.
		if c, err = localcluster.Load(dir); err != nil {
			fmt.Fprintln(os.Stderr, "SHOAL_E2E_CLUSTER:", err)
			return 2
		}
		db, err := sql.Open("mysql", c.DSN(c.Primary))
		if err == nil {
			err = db.QueryRow("select count(*) from ontime").Scan(&env.rows)
			db.Close()
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "SHOAL_E2E_CLUSTER:", err)
			return 2
		}
	} else {
		dir, err := os.MkdirTemp("", "shoal-e2e-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		defer os.RemoveAll(dir)
		c, err = localcluster.Up(ctx, localcluster.Options{Dir: dir, Replicas: 2, Rows: rows, Seed: 42, NoShoal: true, Log: os.Stderr})
		if err != nil {
			fmt.Fprintln(os.Stderr, "starting the local cluster:", err)
			return 1
		}
		defer localcluster.Down(dir)
	}
	env.cluster = c
	code := func() int {
		if err := startShoal(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "starting shoal:", err)
			return 1
		}
		defer stopShoal()
		return m.Run()
	}()
	if code == 0 {
		if err := goleak.Find(leakOptions()...); err != nil {
			fmt.Fprintln(os.Stderr, "goroutine leak:", err)
			return 1
		}
	}
	return code
}

func leakOptions() []goleak.Option {
	return []goleak.Option{
		// go-sql-driver's and vitess' process-wide helpers.
		goleak.IgnoreTopFunction("github.com/go-sql-driver/mysql.(*mysqlConn).startWatcher.func1"),
		goleak.IgnoreAnyFunction("vitess.io/vitess/go/stats.(*Rates).track"),
		goleak.IgnoreAnyFunction("github.com/golang/glog.(*fileSink).flushDaemon"),
		goleak.IgnoreAnyFunction("vitess.io/vitess/go/vt/log.init.func1"),
		goleak.IgnoreAnyFunction("github.com/golang/glog.(*loggingT).flushDaemon"),
		goleak.IgnoreAnyFunction("vitess.io/vitess/go/mysql.(*AuthServerStatic).installSignalHandlers.func1"),
		goleak.IgnoreAnyFunction("os/signal.loop"),
	}
}

func startShoal(ctx context.Context) error {
	if err := createMixedCharsets(ctx); err != nil {
		return fmt.Errorf("creating %s: %w", mixedTable, err)
	}
	var reps []config.Replica
	for i, r := range env.cluster.Replicas {
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		w, err := worker.New(config.Worker{Listen: lis.Addr().String(), MySQL: r.MySQL, User: "root", Slots: 2})
		if err != nil {
			return err
		}
		go w.Serve(lis)
		env.workers = append(env.workers, w)
		reps = append(reps, config.Replica{Name: fmt.Sprintf("replica%d", i+1), MySQL: r.MySQL, Worker: lis.Addr().String()})
	}
	co, err := coordinator.New(ctx, config.Coordinator{
		Listen: "127.0.0.1:0", HTTPListen: new("127.0.0.1:0"), Replicas: reps, MinRowsPerFragment: 1000,
		// The shared coordinator distributes what it can, small or not:
		// the tests here check distributed answers. routing_test.go runs
		// one that routes by cost.
		RouteSmallRows: -1,
		// Concurrent tests (the soak, the churn) check distributed answers.
		RouteBusyStatements: -1,
		Users:               []config.User{{Name: "root"}, {Name: "alice", Password: "s3cret"}},
		// Known for live pins that follow the primary (consistency
		// stays none).
		Primary: env.cluster.Primary,
	}, slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if err != nil {
		return err
	}
	go co.Serve()
	env.coord = co
	env.replicas = reps
	if env.shoal, err = sql.Open("mysql", "root@tcp("+co.Addr().String()+")/ontime"); err != nil {
		return err
	}
	if env.direct, err = sql.Open("mysql", env.cluster.DSN(env.cluster.Primary)); err != nil {
		return err
	}
	if rawShoal, err = newRawSide(co.Addr().String(), "root", "", "ontime"); err != nil {
		return err
	}
	rawDirect, err = newRawSide(env.cluster.Primary, env.cluster.User, env.cluster.Password, env.cluster.Database)
	return err
}

func stopShoal() {
	rawShoal.close()
	rawDirect.close()
	if env.shoal != nil {
		env.shoal.Close()
	}
	if env.direct != nil {
		env.direct.Close()
	}
	if env.coord != nil {
		env.coord.Close()
	}
	for _, w := range env.workers {
		w.Stop()
	}
}

func createMixedCharsets(ctx context.Context) error {
	db, err := sql.Open("mysql", env.cluster.DSN(env.cluster.Primary))
	if err != nil {
		return err
	}
	defer db.Close()
	for _, q := range []string{
		"CREATE TABLE IF NOT EXISTS " + mixedTable + ` (
		  id INT NOT NULL PRIMARY KEY,
		  l1 VARCHAR(20) CHARACTER SET latin1 NOT NULL,
		  u8 VARCHAR(20) CHARACTER SET utf8mb4 NULL,
		  n  INT NULL,
		  d  DOUBLE NOT NULL,
		  amount DECIMAL(10,2) NOT NULL,
		  day DATE NOT NULL
		) ENGINE=InnoDB DEFAULT CHARSET=latin1`,
		"INSERT IGNORE INTO " + mixedTable + ` SELECT id,
		  ELT(id % 6 + 1, 'Zürich', 'ÅLAND', 'straße', 'Ærø', 'abc', 'ÉCOLE'),
		  IF(id % 11 = 0, NULL, ELT(id % 7 + 1, 'Ωμέγα', 'ǅemal', 'ﬀ-liga', 'İstanbul', 'DŽ', '𐐀deseret', 'Résumé')),
		  ArrDelayMinutes, Distance / 7, Distance / 3, FlightDate
		FROM ontime`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	// The replicas must have it before the coordinator reads its catalog.
	var pos string
	if err := db.QueryRowContext(ctx, "SELECT @@gtid_binlog_pos").Scan(&pos); err != nil {
		return err
	}
	for _, r := range env.cluster.Replicas {
		rdb, err := sql.Open("mysql", env.cluster.DSN(r.MySQL))
		if err != nil {
			return err
		}
		var res sql.NullInt64
		err = rdb.QueryRowContext(ctx, "SELECT MASTER_GTID_WAIT(?, 60)", pos).Scan(&res)
		rdb.Close()
		if err != nil {
			return err
		}
		if !res.Valid || res.Int64 != 0 {
			return fmt.Errorf("replica %s did not reach %s", r.MySQL, pos)
		}
	}
	return nil
}
