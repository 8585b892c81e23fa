package e2e

import (
	"context"
	"database/sql"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/shoaldb/shoal/config"
)

// The global query memory budget (query_memory_limit, coordinator
// membudget.go) end to end, on coordinators of their own: a query too big
// for the budget fails with 1041 and leaves its connection usable; queries
// that fit one at a time but not together wait for each other and all
// answer right.

const (
	// bigGroupBy returns a group per row: every fragment ships far more
	// than the tiny budget.
	bigGroupBy = "SELECT id, COUNT(*), SUM(Distance) FROM ontime GROUP BY id"
	smallQuery = "SELECT Carrier, COUNT(*) FROM ontime GROUP BY Carrier"
)

// memShoal starts a coordinator (and workers: 2 × 2 slots) with perSlot
// fragments per worker slot, and returns it with its metrics URL.
func memShoal(t *testing.T, limit int64, wait time.Duration, perSlot int) (*faultShoal, string) {
	t.Helper()
	fs := startFaultShoal(t, func(c *config.Coordinator) {
		c.HTTPListen = new("127.0.0.1:0")
		c.FragmentsPerSlot = perSlot
		c.QueryMemoryLimit = limit
		c.QueryMemoryWait = config.Duration(wait)
		c.StatusInterval = config.Duration(time.Second)
	})
	return fs, "http://" + fs.co.HTTPAddr().String() + "/metrics"
}

// TestQueryMemoryLimitRefuses: a query whose fragments alone need more
// than query_memory_limit fails at once with 1041 (tooBig, membudget.go),
// without waiting query_memory_wait, and its connection still answers.
// Without the limit check in reserve the query answers all its rows;
// without tooBig it fails only after the wait, with the "waited" message:
// either way this fails.
func TestQueryMemoryLimitRefuses(t *testing.T) {
	checkLeaks(t)
	const limit = 64 << 10
	fs, metrics := memShoal(t, limit, 2*time.Second, 1)
	ctx := context.Background()
	conn, err := fs.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	r, err := queryArgs(conn, bigGroupBy)
	if err != nil {
		t.Fatal(err)
	}
	if r.err == nil || r.err.Number != 1041 {
		t.Fatalf("%s under a %d-byte query_memory_limit: got %v (%d rows), want error 1041", bigGroupBy, limit, r.err, len(r.rows))
	}
	if !strings.Contains(r.err.Message, "query_memory_limit") {
		t.Errorf("the message does not name the limit to raise: %s", r.err.Message)
	}
	// Alone on its coordinator it could never fit: refused at once, not
	// after waiting query_memory_wait for memory no query holds.
	if strings.Contains(r.err.Message, "waited") {
		t.Errorf("refused only after waiting, want at once: %s", r.err.Message)
	}
	if w := scrapeURL(t, metrics)["shoal_query_memory_waits_total"]; w != 0 {
		t.Errorf("shoal_query_memory_waits_total %v for a query that cannot fit even alone, want 0", w)
	}
	// The same connection still answers, right.
	got, err := queryArgs(conn, smallQuery)
	if err != nil {
		t.Fatal(err)
	}
	want, err := query(env.direct, smallQuery)
	if err != nil {
		t.Fatal(err)
	}
	compare(t, smallQuery, got, want, false)
	m := scrapeURL(t, metrics)
	if m["shoal_query_memory_bytes"] != 0 {
		t.Errorf("shoal_query_memory_bytes %v after the queries ended, want 0", m["shoal_query_memory_bytes"])
	}
	if m["shoal_query_memory_refused_total"] < 1 {
		t.Errorf("shoal_query_memory_refused_total %v, want ≥ 1", m["shoal_query_memory_refused_total"])
	}
	if p := m["shoal_query_memory_peak_bytes"]; p <= 0 || p > limit {
		t.Errorf("shoal_query_memory_peak_bytes %v, want in (0, %d]", p, limit)
	}
}

// TestQueryMemoryLimitWaits: a budget that holds one copy of a query's
// in-flight fragments but not two. The first copy's client reads one row
// and pauses (a slow client), so its four slots' fragments stay blocked
// holding their batches; the second copy waits (its streams paused, or
// its attempts yielding) instead of failing, and both answer right once
// the first client reads on. Without the wait (waitFor, membudget.go,
// failing at once) this fails: the second query ends with 1041 while the
// first holds the budget.
func TestQueryMemoryLimitWaits(t *testing.T) {
	checkLeaks(t)
	ctx := context.Background()
	// 32 fragments (2 workers × 2 slots × 8), at most 4 in flight.
	const perSlot, frags = 8, 32
	meas, measMetrics := memShoal(t, -1, time.Second, perSlot)
	want, err := query(env.direct, rowsQuery)
	if err != nil || want.err != nil {
		t.Fatal(err, want.err)
	}
	got, err := query(meas.db, rowsQuery)
	if err != nil {
		t.Fatal(err)
	}
	compare(t, rowsQuery, got, want, false)
	one := int64(scrapeURL(t, measMetrics)["shoal_bytes_shipped_total"])
	// Room for the in-flight fragments of one query (with slack for
	// uneven ranges), not for a fragment more while they are held.
	limit := one * 11 / (2 * frags) // 5.5 fragments' worth
	fs, metrics := memShoal(t, limit, time.Minute, perSlot)

	slow, widen := slowReader(t, fs)
	c1, err := slow.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c1.Close()
	rows1, err := c1.QueryContext(ctx, rowsQuery)
	if err != nil {
		t.Fatal(err)
	}
	defer rows1.Close()
	if !rows1.Next() {
		t.Fatalf("no first row: %v", rows1.Err())
	}
	held := waitSteady(t, metrics, "shoal_query_memory_bytes")
	if held < float64(limit)/2 {
		t.Fatalf("the paused query holds only %v bytes of the %d-byte budget: the test cannot fill it", held, limit)
	}
	t.Logf("first query paused holding %v of %d bytes (budget %d)", held, one, limit)

	second := make(chan *result, 1)
	go func() {
		r, err := query(fs.db, rowsQuery)
		if err != nil {
			r = &result{err: &mysql.MySQLError{Number: 2013, Message: err.Error()}}
		}
		second <- r
	}()
	var early *result // the second query, if it ended instead of waiting
	waitMetricFunc(t, metrics, "a wait or a yield", func(m metricValues) bool {
		select {
		case early = <-second:
			return true
		default:
		}
		return m["shoal_query_memory_waits_total"]+m["shoal_query_memory_yields_total"] > 0
	})
	if early == nil {
		select {
		case early = <-second:
		default:
		}
	}
	if early != nil {
		t.Fatalf("the second query ended while the first held the budget: %v", early.err)
	}
	// The first client reads on: its query ends, the second gets the memory.
	widen()
	first, err := readRest(rows1, want.cols)
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != len(want.rows) {
		t.Errorf("first query: %d rows, want %d", len(first), len(want.rows))
	}
	r2 := <-second
	compare(t, rowsQuery+" (second, waited)", r2, want, false)

	m := scrapeURL(t, metrics)
	t.Logf("waits %v, yields %v, peak %v of %d", m["shoal_query_memory_waits_total"], m["shoal_query_memory_yields_total"], m["shoal_query_memory_peak_bytes"], limit)
	if m["shoal_query_memory_bytes"] != 0 || m["shoal_query_memory_waiting"] != 0 {
		t.Errorf("after the queries: %v bytes held, %v waiting; want 0, 0", m["shoal_query_memory_bytes"], m["shoal_query_memory_waiting"])
	}
	if p := m["shoal_query_memory_peak_bytes"]; p > float64(limit) {
		t.Errorf("peak %v over the limit %d", p, limit)
	}
	if m["shoal_query_memory_refused_total"] != 0 {
		t.Errorf("%v queries refused, want none", m["shoal_query_memory_refused_total"])
	}
}

// rowsQuery streams every row, padded so that its result (~25 MB) is far
// more than the kernel's socket buffers take in: its fragments' batches
// are held until the client has read them.
const rowsQuery = "SELECT id, REPEAT(Carrier, 200) AS pad FROM ontime"

var (
	slowDialOnce sync.Once
	slowMu       sync.Mutex
	slowConns    []*net.TCPConn // dialed by the shoal-slowreader network
)

// slowReader is a client pool whose connections have a 128 KB receive
// buffer (no autotuning), so a client that stops reading soon holds up
// the coordinator. widen gives them a normal buffer again.
func slowReader(t *testing.T, fs *faultShoal) (db *sql.DB, widen func()) {
	t.Helper()
	slowDialOnce.Do(func() {
		mysql.RegisterDialContext("shoal-slowreader", func(ctx context.Context, addr string) (net.Conn, error) {
			var d net.Dialer
			c, err := d.DialContext(ctx, "tcp", addr)
			if err != nil {
				return nil, err
			}
			tc := c.(*net.TCPConn)
			if err := tc.SetReadBuffer(64 << 10); err != nil {
				c.Close()
				return nil, err
			}
			slowMu.Lock()
			slowConns = append(slowConns, tc)
			slowMu.Unlock()
			return c, nil
		})
	})
	db, err := sql.Open("mysql", "root@shoal-slowreader("+fs.co.Addr().String()+")/ontime")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, func() {
		slowMu.Lock()
		defer slowMu.Unlock()
		for _, c := range slowConns {
			_ = c.SetReadBuffer(4 << 20)
		}
		slowConns = nil
	}
}

// readRest reads the remaining rows (the current one included) as strings.
func readRest(rows *sql.Rows, cols []string) ([][]string, error) {
	vals := make([]sql.RawBytes, len(cols))
	ptrs := make([]any, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var out [][]string
	for ok := true; ok; ok = rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make([]string, len(vals))
		for i, v := range vals {
			row[i] = string(v)
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

// waitSteady waits until the metric is above 0 and the same in five
// scrapes 100 ms apart, and returns it.
func waitSteady(t *testing.T, url, name string) float64 {
	t.Helper()
	last, same := -1.0, 0
	waitMetricFunc(t, url, "a steady "+name, func(m metricValues) bool {
		time.Sleep(80 * time.Millisecond)
		if v := m[name]; v > 0 && v == last {
			same++
		} else {
			last, same = v, 0
		}
		return same >= 4
	})
	return last
}

func waitMetricFunc(t *testing.T, url, what string, ok func(metricValues) bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if ok(scrapeURL(t, url)) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("never saw %s", what)
		}
	}
}
