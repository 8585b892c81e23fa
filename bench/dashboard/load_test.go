package dashboard

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// fakeDriver answers every query with one row after a short sleep, or
// with an error chosen by the query text: "server error" as a MySQL error
// (the connection stays usable), "broken" as a dead connection.
type fakeDriver struct {
	opened, closed atomic.Int64
	queries        sync.Map // query text -> *atomic.Int64
}

func (d *fakeDriver) Open(string) (driver.Conn, error) {
	d.opened.Add(1)
	return &fakeConn{d: d}, nil
}

func (d *fakeDriver) count(q string) int64 {
	v, ok := d.queries.Load(q)
	if !ok {
		return 0
	}
	return v.(*atomic.Int64).Load()
}

type fakeConn struct {
	d      *fakeDriver
	broken bool
}

// IsValid keeps a broken connection out of the pool, as go-sql-driver's
// does after ErrInvalidConn.
func (c *fakeConn) IsValid() bool { return !c.broken }

func (c *fakeConn) Prepare(string) (driver.Stmt, error) { return nil, errors.New("not supported") }
func (c *fakeConn) Close() error                        { c.d.closed.Add(1); return nil }
func (c *fakeConn) Begin() (driver.Tx, error)           { return nil, errors.New("not supported") }

func (c *fakeConn) QueryContext(ctx context.Context, q string, _ []driver.NamedValue) (driver.Rows, error) {
	if c.broken {
		return nil, driver.ErrBadConn
	}
	v, _ := c.d.queries.LoadOrStore(q, new(atomic.Int64))
	v.(*atomic.Int64).Add(1)
	switch {
	case strings.Contains(q, "server error"):
		return nil, &mysql.MySQLError{Number: 1064, Message: "You have an error"}
	case strings.Contains(q, "broken"):
		c.broken = true
		return nil, mysql.ErrInvalidConn
	}
	sleep(ctx, time.Millisecond)
	return &fakeRows{left: 1}, nil
}

type fakeRows struct{ left int }

func (r *fakeRows) Columns() []string { return []string{"n"} }
func (r *fakeRows) Close() error      { return nil }
func (r *fakeRows) Next(dest []driver.Value) error {
	if r.left == 0 {
		return io.EOF
	}
	r.left--
	dest[0] = int64(1)
	return nil
}

type fakeConnector struct{ d *fakeDriver }

func (c fakeConnector) Connect(context.Context) (driver.Conn, error) { return c.d.Open("") }
func (c fakeConnector) Driver() driver.Driver                        { return c.d }

func fakeDB(t *testing.T, conns int) (*sql.DB, *fakeDriver) {
	d := &fakeDriver{}
	db := sql.OpenDB(fakeConnector{d})
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	t.Cleanup(func() { db.Close() })
	return db, d
}

func TestRunStepCyclesQueriesOnOwnConnections(t *testing.T) {
	db, d := fakeDB(t, 4)
	qs := []string{"q0", "q1", "q2"}
	r, err := RunStep(context.Background(), db, SideShoal, qs, 4, 200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if r.Side != SideShoal || r.Users != 4 || r.Errors != 0 || r.Success() != 1 {
		t.Errorf("got %+v", r)
	}
	if r.OK < 4*3 || r.Latency.N != r.OK {
		t.Errorf("%d queries in 200ms on 4 users (latencies %d), want at least 12", r.OK, r.Latency.N)
	}
	if r.Elapsed < 200*time.Millisecond || r.QPS() <= 0 {
		t.Errorf("elapsed %s, qps %f", r.Elapsed, r.QPS())
	}
	if got := d.opened.Load(); got != 4 {
		t.Errorf("%d connections opened, want one per user (4)", got)
	}
	var sum int64
	for _, q := range qs {
		n := d.count(q)
		sum += n
		if n < 4 {
			t.Errorf("%s ran %d times, want each user to have cycled through it", q, n)
		}
	}
	if sum != int64(r.OK) {
		t.Errorf("driver saw %d queries, step counted %d", sum, r.OK)
	}
	if r.Latency.P50 < time.Millisecond || r.Latency.Max < r.Latency.P99 || r.Latency.P99 < r.Latency.P95 {
		t.Errorf("latency %+v", r.Latency)
	}
}

func TestRunStepCountsErrorsAndReconnects(t *testing.T) {
	db, d := fakeDB(t, 2)
	qs := []string{"ok", "server error", "broken"}
	r, err := RunStep(context.Background(), db, SideDirect, qs, 2, 200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if r.Errors == 0 || r.OK == 0 || r.Errors < r.OK {
		t.Errorf("%d ok, %d errors: want two errors for each success", r.OK, r.Errors)
	}
	if got := r.Success(); got <= 0.2 || got >= 0.5 {
		t.Errorf("success %.2f, want about 1/3", got)
	}
	// A server error keeps the connection; a broken one is replaced. A user
	// reopens lazily, before its next query, so each of the two may stop at
	// the deadline right after a broken query without having reopened.
	broken, served, opened := d.count("broken"), d.count("server error"), d.opened.Load()
	if opened < broken || opened > 2+broken {
		t.Errorf("%d connections opened after %d broken ones, want between broken and 2 + broken", opened, broken)
	}
	if served <= 2 {
		t.Errorf("%d server errors: too few to tell whether they replace connections", served)
	}
	want := []string{"Error 1064: You have an error", mysql.ErrInvalidConn.Error()}
	if len(r.FirstErrors) != 2 || r.FirstErrors[0] != want[0] && r.FirstErrors[0] != want[1] {
		t.Errorf("first errors %q, want the two distinct messages %q", r.FirstErrors, want)
	}
}

func TestRunStepCancelled(t *testing.T) {
	db, _ := fakeDB(t, 2)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err := RunStep(ctx, db, SideShoal, []string{"q"}, 2, time.Minute)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("cancelled step took %s", time.Since(start))
	}
}
