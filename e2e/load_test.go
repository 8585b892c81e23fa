package e2e

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/shoaldb/shoal/config"
)

// TestLoadMix drives a coordinator of its own with SHOAL_LOAD_CONNS
// client connections (default 150; 100 under the race detector) for
// SHOAL_LOAD_DURATION (default 40s; 15s under the race detector), each a
// seeded random walk (SHOAL_LOAD_SEED; the seed is logged) over a mix of
// statements, in the text protocol and in the binary one (go-sql-driver
// prepares a statement with arguments): distributed aggregates,
// passthrough statements, point lookups, statements over pins while other
// connections REFRESH, UNCACHE and CACHE the same names, statements that
// fail (unknown column or table, syntax, out of range, writes → 1290),
// session SETs checked by the session itself while every other session
// keeps checking it never sees them, KILL QUERY and KILL CONNECTION,
// clients that cancel mid-result, statement timeouts, prepared statements
// never closed (and one connection that prepares past the bound: 1461),
// big results read slowly, COM_RESET_CONNECTION.
//
// Every answer is checked against the primary's answer to the same
// statement in the same protocol under the same session setting (the data
// is static), or the error code against the primary's; where a race is
// inherent (a KILL or a timeout against a running statement) the verdict
// is one of two: the answer or the interruption's code. After every error
// the connection runs a probe of its session state: it must serve, and
// see its own settings only. No statement may get 1105.
//
// At the end, with every client gone: no session left in the
// coordinator's processlist, no statement left on the replicas and no
// more connections there than before the load, goroutines back near the
// count before the load, the heap back near its size before the load, and
// after the coordinator closes no goroutine of the test left (goleak).
//
//	SHOAL_LOAD_SEED=7 SHOAL_LOAD_CONNS=200 go test ./e2e -run TestLoadMix -count=1 -v
func TestLoadMix(t *testing.T) {
	checkLeaks(t)
	conns := envInt(t, "SHOAL_LOAD_CONNS", 150)
	dur := 40 * time.Second
	if raceEnabled {
		conns, dur = envInt(t, "SHOAL_LOAD_CONNS", 100), 15*time.Second
	}
	dur = envDuration(t, "SHOAL_LOAD_DURATION", dur)
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("SHOAL_LOAD_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("SHOAL_LOAD_SEED=%q: %v", s, err)
		}
		seed = n
	}
	t.Logf("load: seed %d (SHOAL_LOAD_SEED=%d reruns this mix), %d connections, %s", seed, seed, conns, dur)

	fs := startFaultShoal(t, func(c *config.Coordinator) { c.MaxConnections = 2*conns + 64 })
	lt := newLoadTest(t, fs, seed)
	lt.setup()

	// Baselines with the coordinator idle: its pools warmed by the setup.
	fs.db.SetMaxIdleConns(0)
	lt.settleSessions()
	baseRepl := lt.replicaConns()
	baseGo := runtime.NumGoroutine()
	baseHeap := heapLive()

	ctx, cancel := context.WithTimeout(context.Background(), dur)
	defer cancel()
	var wg sync.WaitGroup
	for i := range conns {
		wg.Go(func() { lt.client(ctx, i) })
	}
	for i := range 2 {
		wg.Go(func() { lt.churn(ctx, i) })
	}
	for i := range 4 {
		wg.Go(func() { lt.resetter(ctx, i) })
	}
	wg.Go(func() { lt.hoarder(ctx) })
	wg.Wait()
	lt.closePools()
	t.Logf("load: %d statements in %s; by kind: %s", lt.stmts.Load(), dur, lt.kinds())
	for _, k := range loadKinds {
		if lt.count(k) == 0 {
			t.Errorf("no %s statement ran: a longer SHOAL_LOAD_DURATION", k)
		}
	}

	// The end state: every session gone, the replicas as before, the
	// coordinator's goroutines and heap back.
	lt.settleSessions()
	settle(t, "replica connections", func() (bool, string) {
		now := lt.replicaConns()
		ok := true
		for i := range now {
			ok = ok && now[i].conns <= baseRepl[i].conns+replicaPoolIdle && now[i].running == 0
		}
		return ok, fmt.Sprintf("before %v, now %v\n%s", baseRepl, now, now[0].list+now[len(now)-1].list)
	})
	settle(t, "goroutines", func() (bool, string) {
		n := runtime.NumGoroutine()
		return n <= baseGo+10, fmt.Sprintf("%d before the load, %d now", baseGo, n)
	})
	lt.memo.Clear() // the expected answers are the test's, not the coordinator's
	settle(t, "heap", func() (bool, string) {
		h := heapLive()
		return h <= baseHeap+baseHeap/2+32<<20, fmt.Sprintf("%d MiB before the load, %d MiB now", baseHeap>>20, h>>20)
	})
}

// settle waits up to 30s for cond, then fails with its last description.
func settle(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	var desc string
	for deadline := time.Now().Add(30 * time.Second); ; {
		var ok bool
		if ok, desc = cond(); ok {
			t.Logf("%s: %s", what, desc)
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("%s did not settle in 30s: %s", what, desc)
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// heapLive is the Go heap's live objects after a full collection
// (HeapAlloc: HeapInuse also counts the spans a peak left half empty).
func heapLive() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// loadKinds are the statement kinds of the mix, counted as they run.
var loadKinds = []string{
	"aggregate", "passthrough", "point", "pinned", "error", "write", "session", "limit",
	"timeout", "kill-query", "kill-race", "kill-connection", "cancel", "slow-read",
	"prepare-leak", "prepare-hoard", "churn", "reset-connection",
}

// loadTest is the shared state of one run.
type loadTest struct {
	t     *testing.T
	fs    *faultShoal
	seed  uint64
	text  *sql.DB // through Shoal, clients
	admin *sql.DB // through Shoal, KILLs and processlist reads

	memo   sync.Map // loadKey → loadAnswer, the primary's answers
	direct *sql.DB

	stmts    atomic.Int64
	byKind   sync.Map // kind → *atomic.Int64
	failures atomic.Int64

	// killAnswer is what MariaDB answers a SELECT SLEEP killed by KILL
	// QUERY from another connection.
	killAnswer loadAnswer
	// The primary's global values, what a session that set nothing sees.
	globalGCML  int
	globalLimit string
}

// loadKey names one expected answer: the statement, the protocol and the
// session setting it runs under.
type loadKey struct {
	sql     string
	binary  bool
	setting string // "" or a SET STATEMENT assignment list
	tmpl    string // the binary protocol's template
}

// loadAnswer is a result as text (column names, then rows) or an error
// number.
type loadAnswer struct {
	rows  string
	errno uint16
}

func (a loadAnswer) String() string {
	if a.errno != 0 {
		return fmt.Sprintf("error %d", a.errno)
	}
	if len(a.rows) > 300 {
		return a.rows[:300] + "…"
	}
	return a.rows
}

func newLoadTest(t *testing.T, fs *faultShoal, seed uint64) *loadTest {
	lt := &loadTest{t: t, fs: fs, seed: seed, admin: fs.db}
	// KILLs and processlist reads share a few connections: with one per
	// client the coordinator would refuse them (1040).
	lt.admin.SetMaxOpenConns(48)
	var err error
	if lt.text, err = sql.Open("mysql", "root@tcp("+fs.co.Addr().String()+")/ontime"); err != nil {
		t.Fatal(err)
	}
	// A client's connection closes when it is done with it: reused from
	// the pool it would carry its session state to the next client.
	lt.text.SetMaxIdleConns(0)
	if lt.direct, err = sql.Open("mysql", env.cluster.DSN(env.cluster.Primary)); err != nil {
		t.Fatal(err)
	}
	lt.direct.SetMaxOpenConns(16)
	lt.direct.SetMaxIdleConns(16)
	t.Cleanup(func() { lt.closePools() })
	return lt
}

func (lt *loadTest) closePools() {
	lt.text.Close()
	lt.direct.Close()
	lt.admin.SetMaxIdleConns(0)
}

func (lt *loadTest) setup() {
	t := lt.t
	for _, q := range []string{
		"CACHE TABLE ontime.carriers",
		"CACHE TABLE ontime.load_recent AS SELECT * FROM ontime WHERE YearD >= 2015",
	} {
		if _, err := lt.admin.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for _, q := range []string{loadPinnedQueries[0], loadRecentQueries[0]} {
		if ex := explainOn(t, lt.admin, q); !strings.Contains(ex, "in memory") {
			t.Fatalf("%s does not run over the pinned table:\n%s", q, ex)
		}
	}
	if err := lt.direct.QueryRow("SELECT @@global.group_concat_max_len, @@global.sql_select_limit").Scan(&lt.globalGCML, &lt.globalLimit); err != nil {
		t.Fatal(err)
	}
	lt.killAnswer = lt.directKill()
	t.Logf("MariaDB answers a killed SELECT SLEEP with %s", lt.killAnswer)
}

// directKill runs a SELECT SLEEP on the primary and kills it from
// another connection: the answer Shoal's passthrough must give.
func (lt *loadTest) directKill() loadAnswer {
	t := lt.t
	ctx := context.Background()
	victim, err := lt.direct.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer victim.Close()
	var id int64
	if err := victim.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		t.Fatal(err)
	}
	ch := make(chan loadAnswer, 1)
	go func() { ch <- answerOf(rowsString2(victim.QueryContext(ctx, "SELECT SLEEP(30) AS load_kill_probe"))) }()
	lt.waitRunning(lt.direct, id, "load_kill_probe")
	if _, err := lt.direct.Exec("KILL QUERY " + itoa(id)); err != nil {
		t.Fatal(err)
	}
	return <-ch
}

// waitRunning waits until connection id of db's server runs a statement
// containing marker.
func (lt *loadTest) waitRunning(db *sql.DB, id int64, marker string) bool {
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
		var n int
		err := db.QueryRow("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = ? AND INFO LIKE ?", id, "%"+marker+"%").Scan(&n)
		if err == nil && n > 0 {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// answerOf turns a result into an answer: rows, or the MySQL error
// number (0 and the error text for one that is not a MySQL error).
func answerOf(rows string, err error) loadAnswer {
	var me *mysql.MySQLError
	switch {
	case err == nil:
		return loadAnswer{rows: rows}
	case errors.As(err, &me):
		return loadAnswer{errno: me.Number}
	default:
		return loadAnswer{rows: "non-MySQL error: " + err.Error()}
	}
}

// expect is the primary's answer to k, asked once.
func (lt *loadTest) expect(k loadKey, args []any) loadAnswer {
	if a, ok := lt.memo.Load(k); ok {
		return a.(loadAnswer)
	}
	q := k.sql
	if k.binary {
		q = k.tmpl
	}
	if k.setting != "" {
		q = "SET STATEMENT " + k.setting + " FOR " + q
	}
	var a loadAnswer
	if k.binary {
		a = answerOf(rowsString2(lt.direct.Query(q, args...)))
	} else {
		a = answerOf(rowsString2(lt.direct.Query(q)))
	}
	lt.memo.Store(k, a)
	return a
}

// rowsString2 is rowsString with the column names first.
func rowsString2(rows *sql.Rows, err error) (string, error) {
	if err != nil {
		return "", err
	}
	cols, err := rows.Columns()
	if err != nil {
		rows.Close()
		return "", err
	}
	s, err := rowsString(rows, nil)
	return strings.Join(cols, "|") + "\n" + s, err
}

func (lt *loadTest) ran(kind string) {
	lt.stmts.Add(1)
	c, _ := lt.byKind.LoadOrStore(kind, new(atomic.Int64))
	c.(*atomic.Int64).Add(1)
}

func (lt *loadTest) count(kind string) int64 {
	if c, ok := lt.byKind.Load(kind); ok {
		return c.(*atomic.Int64).Load()
	}
	return 0
}

func (lt *loadTest) kinds() string {
	var b strings.Builder
	for _, k := range loadKinds {
		fmt.Fprintf(&b, "%s %d, ", k, lt.count(k))
	}
	return strings.TrimSuffix(b.String(), ", ")
}

func (lt *loadTest) fail(format string, args ...any) {
	if lt.failures.Add(1) <= 20 {
		lt.t.Errorf(format, args...)
	}
}

// replicaLoad is one replica's processlist: connections of the root user
// (the coordinator's and the workers') and those running a statement.
type replicaLoad struct {
	conns, running int
	list           string
}

func (l replicaLoad) String() string {
	return fmt.Sprintf("%d connections, %d running", l.conns, l.running)
}

// replicaPoolIdle is how many idle connections the coordinator's pool
// keeps per replica (replica.Pool), beyond those before the load.
const replicaPoolIdle = 8

func (lt *loadTest) replicaConns() []replicaLoad {
	var out []replicaLoad
	for _, r := range env.cluster.Replicas {
		db, err := sql.Open("mysql", env.cluster.DSN(r.MySQL))
		if err != nil {
			lt.t.Fatal(err)
		}
		var l replicaLoad
		l.list, _ = rowsString(db.Query("SELECT ID, COMMAND, TIME, STATE, LEFT(INFO, 60) FROM information_schema.PROCESSLIST WHERE USER = ? AND ID <> CONNECTION_ID()", env.cluster.User))
		err = db.QueryRow(`SELECT COUNT(*), COALESCE(SUM(COMMAND = 'Query' AND ID <> CONNECTION_ID()), 0)
			FROM information_schema.PROCESSLIST WHERE USER = ? AND ID <> CONNECTION_ID()`, env.cluster.User).Scan(&l.conns, &l.running)
		db.Close()
		if err != nil {
			lt.t.Fatal(err)
		}
		out = append(out, l)
	}
	return out
}

// settleSessions waits until the coordinator's processlist holds only
// the connection that reads it.
func (lt *loadTest) settleSessions() {
	settle(lt.t, "coordinator sessions", func() (bool, string) {
		db, err := sql.Open("mysql", "root@tcp("+lt.fs.co.Addr().String()+")/ontime")
		if err != nil {
			lt.t.Fatal(err)
		}
		defer db.Close()
		r, err := rowsString(db.Query("SHOW PROCESSLIST"))
		if err != nil {
			return false, err.Error()
		}
		return strings.Count(r, "\n") == 1, r
	})
}
