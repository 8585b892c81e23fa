package e2e

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/worker"
)

// TestReplicaCredentialsNeverShown: the replica account's password (the
// workers' and the coordinator's) appears nowhere a client, an operator or
// the network between coordinator and workers can see it: not in result
// sets or errors (also of fragments that fail on the replica, and of a
// worker whose password is wrong), EXPLAIN and EXPLAIN ANALYZE, SHOW SHOAL
// REPLICAS, SHOW PROCESSLIST, the status page, /metrics, the logs, or the
// bytes of the Flight calls (tickets included), which a recording proxy
// between the coordinator and each worker captures.
//
// Checked to fail: a worker log line that carries user:password (as a
// DSN in a log or an error would) makes it report the canary in the logs.
func TestReplicaCredentialsNeverShown(t *testing.T) {
	checkLeaks(t)
	const user = "shoal_canary"
	canary := fmt.Sprintf("Canary-%d-pw", time.Now().UnixNano())
	wrong := canary + "-wrong"
	for _, q := range []string{
		"CREATE USER '" + user + "'@'127.0.0.1' IDENTIFIED BY '" + canary + "'",
		"GRANT SELECT, PROCESS, SLAVE MONITOR, BINLOG MONITOR ON *.* TO '" + user + "'@'127.0.0.1'",
	} {
		if _, err := env.direct.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() { env.direct.Exec("DROP USER IF EXISTS '" + user + "'@'127.0.0.1'") })
	replicasCaughtUp(t)

	// Every log line of this test's coordinator and workers.
	var logs lockedBuffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	defer slog.SetDefault(prev)

	// Workers: replica 1's with the right password, replica 2's with a
	// wrong one (its fragments and status fail, naming the account).
	secret := "cred-" + canary
	var wire []*lockedBuffer
	var reps []config.Replica
	for i, r := range env.cluster.Replicas {
		pw := canary
		if i == 1 {
			pw = wrong
		}
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		w, err := worker.New(config.Worker{Listen: lis.Addr().String(), MySQL: r.MySQL, User: user, Password: pw, Slots: 2, ClusterSecret: secret})
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- w.Serve(lis) }()
		t.Cleanup(func() { w.Abort(); <-done })
		rec := &lockedBuffer{}
		wire = append(wire, rec)
		proxy := recordingProxy(t, lis.Addr().String(), rec)
		reps = append(reps, config.Replica{Name: fmt.Sprintf("replica%d", i+1), MySQL: r.MySQL, Worker: proxy})
	}
	slowLog := filepath.Join(t.TempDir(), "slow.log")
	co, db := serveCoordinator(t, config.Coordinator{
		Listen: "127.0.0.1:0", HTTPListen: new("127.0.0.1:0"), Replicas: reps, MinRowsPerFragment: 1000,
		ClusterSecret: secret, ReplicaUser: user, ReplicaPassword: canary,
		StatusInterval: config.Duration(300 * time.Millisecond), SlowQueryLog: slowLog, LongQueryTime: new(config.Duration(0)),
	}, slog.Default())

	var seen strings.Builder // everything a client or an operator saw
	see := func(q string) {
		r, err := query(db, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		fmt.Fprintln(&seen, q, r.err, r.cols, r.rows)
	}
	for range 3 { // distributed, so fragments reach both workers
		see(faultQ)
	}
	see("SELECT Carrier, COUNT(*) FROM ontime WHERE nosuch = 1 GROUP BY Carrier") // a fragment error from the replica
	see("EXPLAIN " + faultQ)
	see("EXPLAIN ANALYZE " + faultQ)
	see("SHOW SHOAL REPLICAS")
	see("SHOW PROCESSLIST")
	see("SELECT code FROM carriers ORDER BY code LIMIT 2") // passthrough with the coordinator's account
	base := "http://" + co.HTTPAddr().String()
	for _, p := range []string{"/", "/status/queries.json", "/metrics"} {
		seen.WriteString(httpGet(t, base+p))
	}
	// The wrong password (the canary plus a suffix) must have been tried
	// and its error reported, or the test proves nothing about errors.
	if !strings.Contains(seen.String(), "Access denied for user '"+user+"'") {
		t.Fatalf("SHOW SHOAL REPLICAS does not report replica2's refused login: the wrong password was never tried\n%s", seen.String())
	}
	if !strings.Contains(wire[0].String(), "ontime") {
		t.Fatal("the recording proxy saw no fragment SQL: it records nothing")
	}
	slow, err := os.ReadFile(slowLog)
	if err != nil || !bytes.Contains(slow, []byte("ontime")) {
		t.Fatalf("slow query log: %v\n%s", err, slow)
	}
	for name, text := range map[string]string{
		"slow query log":        string(slow),
		"client-visible output": seen.String(),
		"logs":                  logs.String(),
		"worker 1 traffic":      wire[0].String(),
		"worker 2 traffic":      wire[1].String(),
	} {
		if i := strings.Index(text, canary); i >= 0 {
			t.Errorf("%s shows the replica password: …%s…", name, text[max(0, i-200):min(len(text), i+len(canary)+50)])
		}
	}
}

// lockedBuffer is a bytes.Buffer safe for concurrent writers.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// recordingProxy forwards connections to target, copying the bytes of both
// directions into rec, and returns its address. It stops with the test.
func recordingProxy(t *testing.T, target string, rec io.Writer) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Go(func() {
		for {
			c, err := lis.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, c, u)
			mu.Unlock()
			wg.Go(func() { io.Copy(io.MultiWriter(u, rec), c); u.Close() })
			wg.Go(func() { io.Copy(io.MultiWriter(c, rec), u); c.Close() })
		}
	})
	t.Cleanup(func() {
		lis.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return lis.Addr().String()
}
