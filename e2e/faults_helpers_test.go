package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/coordinator"
	"github.com/shoaldb/shoal/deploy/localcluster"
	"github.com/shoaldb/shoal/worker"
)

// Fault tests run their own coordinator and workers (with short timeouts
// and their own cluster secret) against the shared cluster's replicas, and
// put every replica back as they found it: restarted, running, replicating
// and seen healthy by the shared coordinator. Each ends goroutine-clean.

// faultShoal is a coordinator with one in-process worker per replica.
type faultShoal struct {
	t       *testing.T
	secret  string
	co      *coordinator.Server
	workers []*worker.Server
	addrs   []string // worker addresses
	served  []chan error
	db      *sql.DB
}

// checkLeaks registers, first, a cleanup that runs last: every goroutine
// the test started has ended.
func checkLeaks(t *testing.T) {
	t.Helper()
	opts := append(leakOptions(), goleak.IgnoreCurrent(),
		// The shared workers' database/sql pools start and stop their
		// cleaner as the killed replica's connections come and go.
		goleak.IgnoreAnyFunction("database/sql.(*DB).connectionCleaner"))
	t.Cleanup(func() { goleak.VerifyNone(t, opts...) })
}

func startFaultShoal(t *testing.T, mod func(*config.Coordinator)) *faultShoal {
	t.Helper()
	fs := &faultShoal{t: t, secret: "fault-" + strconv.FormatInt(time.Now().UnixNano(), 36)}
	var reps []config.Replica
	for i, r := range env.cluster.Replicas {
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		fs.addrs = append(fs.addrs, lis.Addr().String())
		fs.workers = append(fs.workers, nil)
		fs.served = append(fs.served, nil)
		fs.serveWorker(i, lis)
		reps = append(reps, config.Replica{Name: fmt.Sprintf("replica%d", i+1), MySQL: r.MySQL, Worker: lis.Addr().String()})
	}
	cfg := config.Coordinator{
		Listen: "127.0.0.1:0", Replicas: reps, MinRowsPerFragment: 1000, ClusterSecret: fs.secret,
		RouteSmallRows:      -1,                         // fault tests need fragments, small or not
		RouteBusyStatements: -1,                         // and under load too
		StatusInterval:      config.Duration(time.Hour), // tests that want polling set it
	}
	if mod != nil {
		mod(&cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	co, err := coordinator.New(ctx, cfg, slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})))
	if err != nil {
		fs.stopWorkers()
		t.Fatal(err)
	}
	fs.co = co
	go co.Serve()
	if fs.db, err = sql.Open("mysql", "root@tcp("+co.Addr().String()+")/ontime"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		fs.db.Close()
		fs.co.Close()
		fs.stopWorkers()
	})
	return fs
}

// serveCoordinator starts a coordinator with cfg (logging to log, or
// errors to stderr when nil) and a client pool on it, both closed when the
// test ends.
func serveCoordinator(t testing.TB, cfg config.Coordinator, log *slog.Logger) (*coordinator.Server, *sql.DB) {
	t.Helper()
	if log == nil {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	co, err := coordinator.New(ctx, cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	go co.Serve()
	db, err := sql.Open("mysql", "root@tcp("+co.Addr().String()+")/ontime")
	if err != nil {
		co.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		db.Close()
		co.Close()
	})
	return co, db
}

// primaryWrite makes the primary take a write (a row in
// shoal_fault.tick), for tests that watch replicas follow or fall behind.
func primaryWrite(t *testing.T) {
	t.Helper()
	for _, s := range []string{
		"CREATE DATABASE IF NOT EXISTS shoal_fault",
		"CREATE TABLE IF NOT EXISTS shoal_fault.tick (id INT PRIMARY KEY AUTO_INCREMENT, at DATETIME(6))",
		"INSERT INTO shoal_fault.tick (at) VALUES (NOW(6))",
	} {
		if _, err := env.direct.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
}

// serveWorker starts worker i on lis.
func (fs *faultShoal) serveWorker(i int, lis net.Listener) {
	w, err := worker.New(config.Worker{Listen: lis.Addr().String(), MySQL: env.cluster.Replicas[i].MySQL, User: "root", Slots: 2, ClusterSecret: fs.secret})
	if err != nil {
		fs.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- w.Serve(lis) }()
	fs.workers[i], fs.served[i] = w, done
}

// killWorker stops worker i abruptly (connections dropped, fragments
// cancelled), as a crash would.
func (fs *faultShoal) killWorker(i int) {
	fs.workers[i].Abort()
	<-fs.served[i]
	fs.workers[i] = nil
}

// restartWorker starts worker i again on its old address.
func (fs *faultShoal) restartWorker(i int) {
	var lis net.Listener
	var err error
	for range 50 {
		if lis, err = net.Listen("tcp", fs.addrs[i]); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		fs.t.Fatalf("rebinding worker %d: %v", i, err)
	}
	fs.serveWorker(i, lis)
}

func (fs *faultShoal) stopWorkers() {
	for i, w := range fs.workers {
		if w != nil {
			w.Stop()
			<-fs.served[i]
			fs.workers[i] = nil
		}
	}
}

// waitRunning waits until worker i runs at least one fragment.
func (fs *faultShoal) waitRunning(i int, timeout time.Duration) {
	fs.t.Helper()
	deadline := time.Now().Add(timeout)
	for fs.workers[i].Running() == 0 {
		if time.Now().After(deadline) {
			fs.t.Fatalf("worker %d never started a fragment", i)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// replicaRow is one row of SHOW SHOAL REPLICAS.
type replicaRow struct {
	name, mysql, worker string
	healthy             bool
	lag                 sql.NullFloat64
	io, sqlRunning      sql.NullBool
	gtid                sql.NullString
	slots, running      sql.NullInt64
	lastErr             sql.NullString
	checked             sql.NullString
}

func showReplicas(t *testing.T, db *sql.DB) []replicaRow {
	t.Helper()
	rows, err := db.Query("show   shoal\n replicas")
	if err != nil {
		t.Fatalf("SHOW SHOAL REPLICAS: %v", err)
	}
	defer rows.Close()
	var out []replicaRow
	for rows.Next() {
		var r replicaRow
		if err := rows.Scan(&r.name, &r.mysql, &r.worker, &r.healthy, &r.lag, &r.io, &r.sqlRunning, &r.gtid, &r.slots, &r.running, &r.lastErr, &r.checked); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// waitReplica waits until SHOW SHOAL REPLICAS on db says replica i (0-based)
// satisfies cond.
func waitReplica(t *testing.T, db *sql.DB, i int, timeout time.Duration, what string, cond func(replicaRow) bool) replicaRow {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		rs := showReplicas(t, db)
		if cond(rs[i]) {
			return rs[i]
		}
		if time.Now().After(deadline) {
			t.Fatalf("replica%d not %s after %s: %+v", i+1, what, timeout, rs[i])
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func healthy(r replicaRow) bool   { return r.healthy }
func unhealthy(r replicaRow) bool { return !r.healthy }

// replicaDir is the directory of replica i (0-based) in the cluster.
func replicaDir(i int) string {
	return filepath.Join(env.cluster.Dir, fmt.Sprintf("replica%d", i+1))
}

// replicaPid reads replica i's mariadbd pid file.
func replicaPid(t *testing.T, i int) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(replicaDir(i), "mysqld.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 1 {
		t.Fatalf("replica%d pid file: %q", i+1, b)
	}
	return pid
}

// stopReplica SIGSTOPs replica i and makes sure it is continued when the
// test ends, whatever happens.
func stopReplica(t *testing.T, i int) (cont func()) {
	t.Helper()
	pid := replicaPid(t, i)
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	done := false
	cont = func() {
		if !done {
			done = true
			_ = syscall.Kill(pid, syscall.SIGCONT)
		}
	}
	t.Cleanup(cont)
	return cont
}

// crashReplica kill -9s replica i's server and returns a function that
// starts it again (localcluster.CrashReplica) and waits until it serves
// and replicates again; the test's cleanup calls it if the test did not.
func crashReplica(t *testing.T, i int) (restart func()) {
	t.Helper()
	start, err := localcluster.CrashReplica(env.cluster.Dir, i)
	if err != nil {
		t.Fatal(err)
	}
	started := false
	restart = func() {
		if started {
			return
		}
		started = true
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := start(ctx); err != nil {
			t.Error(err)
		}
	}
	t.Cleanup(restart)
	return restart
}

// sharedHealthy waits until the shared coordinator sees every replica
// healthy again, so later tests find the cluster as it was.
func sharedHealthy(t *testing.T) {
	t.Helper()
	// Its own client pool, closed here: the leak check sees no connection
	// of this test left open.
	db, err := sql.Open("mysql", "root@tcp("+env.coord.Addr().String()+")/ontime")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for i := range env.cluster.Replicas {
		waitReplica(t, db, i, time.Minute, "healthy in the shared coordinator", healthy)
	}
}

// sameAnswer runs q through db and on the primary and compares rows.
func sameAnswer(t *testing.T, db *sql.DB, q string) {
	t.Helper()
	got, err := query(db, q)
	if err != nil {
		t.Fatalf("shoal: %v", err)
	}
	if got.err != nil {
		t.Fatalf("shoal: %s: %v", q, got.err)
	}
	want, err := query(env.direct, q)
	if err != nil || want.err != nil {
		t.Fatalf("direct: %v %v", err, want.err)
	}
	g, w := fmt.Sprint(got.rows), fmt.Sprint(want.rows)
	if g != w {
		t.Fatalf("%s:\nshoal  %s\ndirect %s", q, g, w)
	}
	if len(got.rows) == 0 {
		t.Fatalf("%s: no rows", q)
	}
}

// fragmentWorkers returns the workers EXPLAIN ANALYZE says ran q's
// fragments.
func fragmentWorkers(t *testing.T, db *sql.DB, q string) map[string]int {
	t.Helper()
	r, err := query(db, "EXPLAIN ANALYZE "+q)
	if err != nil || r.err != nil {
		t.Fatalf("EXPLAIN ANALYZE: %v %v", err, r.err)
	}
	out := map[string]int{}
	for _, row := range r.rows {
		if _, rest, ok := strings.Cut(row[0], ": worker "); ok {
			name, _, _ := strings.Cut(rest, ",")
			out[name]++
		}
	}
	return out
}
