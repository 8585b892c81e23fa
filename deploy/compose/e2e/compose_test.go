//go:build unix

// Package e2e is the compose cluster's end-to-end test: answers through
// the coordinator container compared exactly with the primary's, then
// faults across containers (a replica and a worker killed mid-query, a
// worker cut off the network mid-query). scripts/compose-test.sh builds the
// images, brings the MariaDB flavour up under a project name of its own,
// runs this with SHOAL_COMPOSE=1 and takes it down; plain `go test ./...`
// skips it.
//
// Environment (set by the script):
//
//	SHOAL_COMPOSE=1
//	COMPOSE_PROJECT_NAME       the cluster's project (containers are found by its label)
//	SHOAL_COMPOSE_COORDINATOR  host:port of the coordinator's MySQL port
//	SHOAL_COMPOSE_HTTP         host:port of its HTTP port (/healthz, /metrics)
//	SHOAL_COMPOSE_PRIMARY      host:port of the primary
package e2e

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
)

// queries are compared exactly (every row, in order) through the
// coordinator and on the primary: distributed aggregates, a join with a
// dimension table, DISTINCT and a filtered count.
var queries = []string{
	"select count(*) from ontime",
	"select count(*), sum(Distance), min(FlightDate), max(FlightDate), sum(Cancelled) from ontime",
	"select Carrier, count(*), sum(Distance), max(ArrDelayMinutes), min(DepDelayMinutes) from ontime group by Carrier order by Carrier",
	"select YearD, MonthD, count(*), sum(Cancelled), avg(DepDelayMinutes) from ontime group by YearD, MonthD order by YearD, MonthD",
	"select DayOfWeek, count(*) from ontime where DepDelayMinutes > 10 group by DayOfWeek order by DayOfWeek",
	"select Origin, count(distinct Dest) from ontime group by Origin order by Origin",
	"select c.name, count(*), sum(o.Diverted) from ontime o join carriers c on c.code = o.Carrier group by c.name order by c.name",
}

// faultQ is the query the faults hit: distributed, totally ordered.
const faultQ = "select Carrier, count(*), sum(Distance), max(ArrDelayMinutes) from ontime group by Carrier order by Carrier"

type cluster struct {
	t        *testing.T
	project  string
	shoal    *sql.DB
	primary  *sql.DB
	httpAddr string
}

func setup(t *testing.T) *cluster {
	if os.Getenv("SHOAL_COMPOSE") != "1" {
		t.Skip("the compose end-to-end test needs a running compose cluster: run scripts/compose-test.sh (it sets SHOAL_COMPOSE=1)")
	}
	c := &cluster{t: t, project: mustEnv(t, "COMPOSE_PROJECT_NAME"), httpAddr: mustEnv(t, "SHOAL_COMPOSE_HTTP")}
	var err error
	if c.shoal, err = sql.Open("mysql", "root@tcp("+mustEnv(t, "SHOAL_COMPOSE_COORDINATOR")+")/ontime?timeout=5s"); err != nil {
		t.Fatal(err)
	}
	if c.primary, err = sql.Open("mysql", "root@tcp("+mustEnv(t, "SHOAL_COMPOSE_PRIMARY")+")/ontime?timeout=5s"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.shoal.Close(); c.primary.Close() })
	return c
}

func mustEnv(t *testing.T, k string) string {
	v := os.Getenv(k)
	if v == "" {
		t.Fatalf("%s is not set (scripts/compose-test.sh sets it)", k)
	}
	return v
}

// run runs a command and returns its trimmed output, failing the test on
// error.
func (c *cluster) run(name string, args ...string) string {
	c.t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		c.t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// container is the ID of service's container, found by the labels Compose
// puts on it (any compose version, from any directory).
func (c *cluster) container(service string) string {
	c.t.Helper()
	id := c.run("docker", "ps", "-aq", "--filter", "label=com.docker.compose.project="+c.project,
		"--filter", "label=com.docker.compose.service="+service)
	if id == "" || strings.Contains(id, "\n") {
		c.t.Fatalf("want one container for %s in project %s, have %q", service, c.project, id)
	}
	return id
}

// freeze stops service's main process with SIGSTOP from the host (inside
// its PID namespace the process is init, which ignores it): the server
// hangs with its connections open, so fragments sent to it stay in flight.
// It returns the SIGCONT.
func (c *cluster) freeze(service string) (thaw func()) {
	c.t.Helper()
	pid, err := strconv.Atoi(c.run("docker", "inspect", "-f", "{{.State.Pid}}", c.container(service)))
	if err != nil || pid <= 0 {
		c.t.Fatalf("%s: no host PID (%v)", service, err)
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		c.t.Fatalf("SIGSTOP %s (pid %d): %v", service, pid, err)
	}
	thawed := false
	thaw = func() {
		if !thawed {
			thawed = true
			_ = syscall.Kill(pid, syscall.SIGCONT)
		}
	}
	c.t.Cleanup(thaw) // never leave it frozen, whatever fails
	return thaw
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

type result struct {
	rows []string
	err  error
	took time.Duration
}

func query(ctx context.Context, db *sql.DB, q string) result {
	start := time.Now()
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return result{err: err, took: time.Since(start)}
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return result{err: err}
		}
		var f []string
		for _, v := range vals {
			if v.Valid {
				f = append(f, v.String)
			} else {
				f = append(f, "NULL")
			}
		}
		out = append(out, strings.Join(f, "\t"))
	}
	return result{rows: out, err: rows.Err(), took: time.Since(start)}
}

// want is q's answer on the primary.
func (c *cluster) want(q string) []string {
	c.t.Helper()
	r := query(context.Background(), c.primary, q)
	if r.err != nil {
		c.t.Fatalf("primary: %s: %v", q, r.err)
	}
	return r.rows
}

func (c *cluster) same(what, q string, got result) {
	c.t.Helper()
	if got.err != nil {
		c.t.Fatalf("%s: %s: %v", what, q, got.err)
	}
	want := c.want(q)
	if strings.Join(got.rows, "\n") != strings.Join(want, "\n") {
		c.t.Fatalf("%s: %s\nshoal   (%d rows) %v\nprimary (%d rows) %v", what, q, len(got.rows), got.rows, len(want), want)
	}
}

// async runs q through the coordinator in the background.
func (c *cluster) async(q string) <-chan result {
	ch := make(chan result, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		ch <- query(ctx, c.shoal, q)
	}()
	return ch
}

// inFlight waits until ch's query has a fragment attempt running on
// replica (the coordinator's /status/queries.json), and checks the query
// has not ended: the fault that follows hits it mid-query.
func (c *cluster) inFlight(ch <-chan result, replica string) {
	c.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		select {
		case r := <-ch:
			c.t.Fatalf("the query ended before the fault (err %v): nothing held it in flight", r.err)
		default:
		}
		if c.attemptRunning(replica) {
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("no fragment attempt running on %s after 20 s", replica)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// attemptRunning reports whether a running statement has a fragment
// attempt in progress on replica.
func (c *cluster) attemptRunning(replica string) bool {
	cl := http.Client{Timeout: 3 * time.Second}
	resp, err := cl.Get("http://" + c.httpAddr + "/status/queries.json")
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	var body struct {
		Running []struct {
			Attempts []struct {
				Worker  string `json:"worker"`
				Outcome string `json:"outcome"`
			} `json:"attempts"`
		} `json:"running"`
	}
	if json.NewDecoder(resp.Body).Decode(&body) != nil {
		return false
	}
	for _, q := range body.Running {
		for _, a := range q.Attempts {
			if a.Worker == replica && a.Outcome == "running" {
				return true
			}
		}
	}
	return false
}

func await(t *testing.T, ch <-chan result, timeout time.Duration) result {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(timeout):
		t.Fatalf("query still running after %s", timeout)
	}
	return result{}
}

// health is the coordinator's /healthz.
type health struct {
	OK      bool `json:"ok"`
	Catalog bool `json:"catalog"`
	Workers []struct {
		Name    string `json:"name"`
		Healthy bool   `json:"healthy"`
	} `json:"workers"`
}

func (c *cluster) health() (health, error) {
	var h health
	cl := http.Client{Timeout: 3 * time.Second}
	resp, err := cl.Get("http://" + c.httpAddr + "/healthz")
	if err != nil {
		return h, err
	}
	defer resp.Body.Close()
	err = json.NewDecoder(resp.Body).Decode(&h)
	return h, err
}

// allHealthy waits until the coordinator sees every worker healthy.
func (c *cluster) allHealthy(timeout time.Duration) {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	var h health
	var err error
	for time.Now().Before(deadline) {
		if h, err = c.health(); err == nil && h.OK && len(h.Workers) == 2 && h.Workers[0].Healthy && h.Workers[1].Healthy {
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
	c.t.Fatalf("workers not all healthy after %s: %+v %v", timeout, h, err)
}

// metric reads one counter of the coordinator's /metrics.
func (c *cluster) metric(name string) float64 {
	c.t.Helper()
	cl := http.Client{Timeout: 3 * time.Second}
	resp, err := cl.Get("http://" + c.httpAddr + "/metrics")
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == name {
			v, _ := strconv.ParseFloat(f[1], 64)
			return v
		}
	}
	c.t.Fatalf("/metrics has no %s", name)
	return 0
}

// TestCompose runs in order on one cluster: each fault leaves it healthy
// for the next.
func TestCompose(t *testing.T) {
	c := setup(t)
	c.allHealthy(time.Minute)
	var rows int64
	if err := c.primary.QueryRow("select count(*) from ontime").Scan(&rows); err != nil || rows == 0 {
		t.Fatalf("primary has %d ontime rows (%v): the loader did not run", rows, err)
	}
	t.Logf("ontime rows: %d", rows)

	t.Run("differential", func(t *testing.T) {
		c.t = t
		before := c.metric("shoal_fragments_total")
		for _, q := range queries {
			r := query(context.Background(), c.shoal, q)
			c.same("through the coordinator", q, r)
			t.Logf("%4d rows in %6.1f ms  %s", len(r.rows), float64(r.took.Microseconds())/1000, q)
		}
		if n := c.metric("shoal_fragments_total") - before; n < float64(len(queries)) {
			t.Fatalf("only %.0f fragments ran for %d queries: they were not distributed", n, len(queries))
		} else {
			t.Logf("%.0f fragments on the workers", n)
		}
	})

	// docker kill of replica1 while its worker's fragments are on it: they
	// fail (the connection is gone) and are rerun on replica2.
	t.Run("replica killed mid-query", func(t *testing.T) {
		c.t = t
		retries := c.metric("shoal_fragment_retries_total")
		// Planned and its metadata cached while all is well: the fault is
		// to hit fragments, not the planner's metadata read.
		c.same("before the fault", faultQ, query(context.Background(), c.shoal, faultQ))
		thaw := c.freeze("replica1")
		ch := c.async(faultQ)
		c.inFlight(ch, "replica1")
		c.run("docker", "kill", c.container("replica1")) // SIGKILL ends a stopped process too
		thaw()                                           // at once, so that the Cleanup never signals a reused PID
		r := await(t, ch, time.Minute)
		c.same("after docker kill of replica1", faultQ, r)
		t.Logf("exact answer in %s; %.0f fragment retries", r.took.Round(time.Millisecond), c.metric("shoal_fragment_retries_total")-retries)
		if c.metric("shoal_fragment_retries_total") == retries {
			t.Fatal("no fragment was retried: the kill did not hit the query")
		}
		c.run("docker", "start", c.container("replica1"))
		c.allHealthy(2 * time.Minute)
		c.same("after replica1 restarted", faultQ, query(context.Background(), c.shoal, faultQ))
	})

	// docker kill of worker1 while its fragments are in flight (held by
	// its frozen replica): the streams break and the fragments are rerun
	// on worker2. The restart policy brings the worker back.
	t.Run("worker killed mid-query", func(t *testing.T) {
		c.t = t
		retries := c.metric("shoal_fragment_retries_total")
		// Planned and its metadata cached while all is well: the fault is
		// to hit fragments, not the planner's metadata read.
		c.same("before the fault", faultQ, query(context.Background(), c.shoal, faultQ))
		thaw := c.freeze("replica1")
		ch := c.async(faultQ)
		c.inFlight(ch, "replica1")
		c.run("docker", "kill", c.container("worker1"))
		r := await(t, ch, time.Minute)
		thaw()
		c.same("after docker kill of worker1", faultQ, r)
		t.Logf("exact answer in %s; %.0f fragment retries", r.took.Round(time.Millisecond), c.metric("shoal_fragment_retries_total")-retries)
		if c.metric("shoal_fragment_retries_total") == retries {
			t.Fatal("no fragment was retried: the kill did not hit the query")
		}
		id := c.container("worker1")
		if st := c.run("docker", "inspect", "-f", "{{.State.Status}}", id); st != "running" {
			t.Logf("worker1 is %s after docker kill (the restart policy does not restart a killed container); starting it", st)
			c.run("docker", "start", id)
		}
		c.allHealthy(2 * time.Minute)
		c.same("after worker1 came back", faultQ, query(context.Background(), c.shoal, faultQ))
	})

	// worker1 cut off the compose network while its fragments are in
	// flight: no error comes back, the attempts stall until
	// fragment_timeout (10 s, deploy/compose/e2e/coordinator.yaml) and run
	// on worker2.
	t.Run("worker disconnected mid-query", func(t *testing.T) {
		c.t = t
		const fragmentTimeout = 10 * time.Second
		network := c.run("docker", "inspect", "-f", "{{range $k, $v := .NetworkSettings.Networks}}{{$k}} {{end}}", c.container("worker1"))
		if f := strings.Fields(network); len(f) != 1 {
			t.Fatalf("worker1 is on networks %q, want one", network)
		} else {
			network = f[0]
		}
		// Planned and its metadata cached while all is well: the fault is
		// to hit fragments, not the planner's metadata read.
		c.same("before the fault", faultQ, query(context.Background(), c.shoal, faultQ))
		thaw := c.freeze("replica1")
		ch := c.async(faultQ)
		c.inFlight(ch, "replica1")
		c.run("docker", "network", "disconnect", network, c.container("worker1"))
		thaw()
		r := await(t, ch, fragmentTimeout+time.Minute)
		c.same("with worker1 disconnected", faultQ, r)
		if r.took > fragmentTimeout+15*time.Second {
			t.Fatalf("the query took %s: not bounded by fragment_timeout %s", r.took, fragmentTimeout)
		}
		t.Logf("exact answer in %s (fragment_timeout %s)", r.took.Round(time.Millisecond), fragmentTimeout)
		// While it is cut off, the others serve.
		c.same("worker1 still disconnected", faultQ, query(context.Background(), c.shoal, faultQ))
		c.run("docker", "network", "connect", "--alias", "worker1", network, c.container("worker1"))
		c.allHealthy(2 * time.Minute)
		c.same("after worker1 reconnected", faultQ, query(context.Background(), c.shoal, faultQ))
	})
	// worker2's process dies from outside Docker (a crash: SIGKILL from
	// the host, not docker kill, which Docker treats as a deliberate stop):
	// the restart policy brings it back and the coordinator uses it again.
	t.Run("worker crash restarts", func(t *testing.T) {
		c.t = t
		id := c.container("worker2")
		restarts := c.run("docker", "inspect", "-f", "{{.RestartCount}}", id)
		pid, err := strconv.Atoi(c.run("docker", "inspect", "-f", "{{.State.Pid}}", id))
		if err != nil || pid <= 0 {
			t.Fatalf("worker2: no host PID (%v)", err)
		}
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(time.Minute)
		for c.run("docker", "inspect", "-f", "{{.RestartCount}} {{.State.Status}}", id) != fmt.Sprintf("%d running", atoi(restarts)+1) {
			if time.Now().After(deadline) {
				t.Fatalf("worker2 not restarted after a minute: %s", c.run("docker", "inspect", "-f", "{{.RestartCount}} {{.State.Status}}", id))
			}
			time.Sleep(200 * time.Millisecond)
		}
		c.allHealthy(2 * time.Minute)
		c.same("after worker2 restarted", faultQ, query(context.Background(), c.shoal, faultQ))
		t.Logf("worker2 restarted by its restart policy (restart count %d)", atoi(restarts)+1)
	})
	if !t.Failed() {
		fmt.Fprintln(os.Stderr, "compose e2e: differential and container faults passed")
	}
}
