package worker

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/shoaldb/shoal/sqlerr"
	"github.com/shoaldb/shoal/ticket"
)

func TestLimitStatement(t *testing.T) {
	for _, c := range []struct {
		query   string
		mariadb bool
		d       time.Duration
		stmt    string
		pre     string
	}{
		{"SELECT 1", true, 1500 * time.Millisecond, "SET STATEMENT max_statement_time=1.500 FOR SELECT 1", ""},
		{"(SELECT 1) UNION (SELECT 2)", true, time.Second, "SET STATEMENT max_statement_time=1.000 FOR (SELECT 1) UNION (SELECT 2)", ""},
		{"SELECT `a` FROM `t`", false, 2500 * time.Millisecond, "SELECT /*+ MAX_EXECUTION_TIME(2500) */ `a` FROM `t`", ""},
		{"WITH `c` AS (SELECT 1) SELECT * FROM `c`", false, time.Second, "WITH `c` AS (SELECT 1) SELECT * FROM `c`", "SET SESSION max_execution_time=1000"},
		{"SELECT 1", false, time.Microsecond, "SELECT /*+ MAX_EXECUTION_TIME(1) */ 1", ""},
	} {
		stmt, pre := limitStatement(c.query, c.mariadb, c.d)
		if stmt != c.stmt || pre != c.pre {
			t.Errorf("limitStatement(%q, mariadb=%v, %s) = %q, %q; want %q, %q", c.query, c.mariadb, c.d, stmt, pre, c.stmt, c.pre)
		}
	}
	// The statement's clock (ticket.Timestamp): inside MariaDB's SET
	// STATEMENT, set and reset around it elsewhere.
	for _, c := range []struct {
		stmt               string
		mariadb            bool
		clock              int64
		out, set, resetSQL string
	}{
		{"SET STATEMENT max_statement_time=1.500 FOR SELECT NOW()", true, 1700000000000042,
			"SET STATEMENT timestamp=1700000000.000042, max_statement_time=1.500 FOR SELECT NOW()", "", ""},
		{"SELECT /*+ MAX_EXECUTION_TIME(1) */ NOW()", false, 1700000000500000,
			"SELECT /*+ MAX_EXECUTION_TIME(1) */ NOW()", "SET SESSION timestamp=1700000000.500000", "SET SESSION timestamp=DEFAULT"},
		{"SET STATEMENT max_statement_time=1.500 FOR SELECT 1", true, 0, "SET STATEMENT max_statement_time=1.500 FOR SELECT 1", "", ""},
	} {
		out, set, reset := clockStatement(c.stmt, c.mariadb, c.clock)
		if out != c.out || set != c.set || reset != c.resetSQL {
			t.Errorf("clockStatement(%q, %v, %d) = %q, %q, %q", c.stmt, c.mariadb, c.clock, out, set, reset)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if d := statementLimit(ctx, time.Second); d < 2500*time.Millisecond || d > 3*time.Second {
		t.Errorf("statementLimit: %s, want about 3s", d)
	}
	if d := statementLimit(context.Background(), time.Second); d != maxLimit {
		t.Errorf("statementLimit without a deadline: %s", d)
	}
}

// killMarked kills, through the admin connection, every statement still
// running with marker: a failed test must not leave a 30 s SLEEP behind.
func killMarked(t *testing.T, marker string) {
	rows, err := admin.Query("SELECT ID FROM information_schema.PROCESSLIST WHERE INFO LIKE CONCAT('%', ?, ?, '%')", marker[:3], marker[3:])
	if err != nil {
		t.Log(err)
		return
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if rows.Scan(&id) == nil {
			ids = append(ids, id)
		}
	}
	rows.Close()
	for _, id := range ids {
		_, _ = admin.Exec("KILL QUERY ?", id)
	}
}

// TestReplicaStopsRunawayFragment: the worker's KILL QUERY is lost (the
// side connection "fails"), yet the fragment's statement — CPU-bound, the
// kind that never notices its client went away — ends on the replica
// shortly after the deadline, because the replica enforces the limit the
// worker wrote into the statement. Drop the limit (limitStatement
// returning the query as is) and it runs on: this fails.
func TestReplicaStopsRunawayFragment(t *testing.T) {
	ts := startServer(t, nil)
	var lost atomic.Int32
	ts.srv.killQuery = func(uint64) error { lost.Add(1); return nil } // the cancel never reaches the replica
	const marker = "shoal_runaway_marker"
	t.Cleanup(func() { killMarked(t, marker) })
	deadline := time.Now().Add(500 * time.Millisecond)
	tkt := ticket.Ticket{SQL: "SELECT BENCHMARK(100000000000, CRC32('x')) AS " + marker, Deadline: deadline.UnixMilli()}
	errc := make(chan error, 1)
	go func() {
		_, recs, err := fetch(context.Background(), ts, tkt)
		releaseAll(recs)
		errc <- err
	}()
	waitFor(t, 2*time.Second, "query visible in PROCESSLIST", func() bool { return running(t, marker) == 1 })
	if err := <-errc; status.Code(err) != codes.DeadlineExceeded {
		t.Errorf("err = %v, want DeadlineExceeded", err)
	}
	waitFor(t, 2*time.Second, "the worker's KILL (lost)", func() bool { return lost.Load() == 1 })
	waitFor(t, limitMargin+3*time.Second, "replica ends the statement by itself", func() bool { return running(t, marker) == 0 })
	gone := time.Since(deadline)
	t.Logf("statement ended on the replica %s after the deadline (margin %s)", gone.Round(time.Millisecond), limitMargin)
	if gone < limitMargin/2 {
		t.Errorf("ended %s after the deadline: before the margin, so not by the replica's limit", gone)
	}
}

// TestReplicaLimitError: when the replica's limit fires first (here with a
// negative margin), the fragment fails with the replica's own error, 1969
// on MariaDB, as a DeadlineExceeded status the coordinator treats like a
// stalled fragment. Without the limit the SLEEP runs to the worker's
// deadline and the error is the worker's, not 1969: this fails.
func TestReplicaLimitError(t *testing.T) {
	ts := startServer(t, nil)
	ts.srv.limitMargin = -1200 * time.Millisecond
	const marker = "shoal_limit_marker"
	t.Cleanup(func() { killMarked(t, marker) })
	start := time.Now()
	tkt := ticket.Ticket{SQL: "SELECT SLEEP(30) AS " + marker, Deadline: start.Add(2 * time.Second).UnixMilli()}
	_, recs, err := fetch(context.Background(), ts, tkt)
	releaseAll(recs)
	se, ok := sqlerr.As(err)
	if !ok || se.Num != sqlerr.ErrStatementTimeout || status.Code(err) != codes.DeadlineExceeded {
		t.Fatalf("err = %v (%+v), want errno %d with DeadlineExceeded", err, se, sqlerr.ErrStatementTimeout)
	}
	if el := time.Since(start); el > 1800*time.Millisecond {
		t.Errorf("took %s: the worker's deadline (2s), not the replica's limit (0.8s), ended it", el)
	}
}

// TestFloorWait: a fragment whose ticket carries a GTID position the
// replica has not applied waits at most the ticket's wait, then fails with
// 3781 (Unavailable) without running its SELECT. Skip the wait and the
// fragment answers: this fails.
func TestFloorWait(t *testing.T) {
	ts := startServer(t, nil)
	// A domain this test server never replicates, far ahead.
	tkt := ticket.Ticket{SQL: "SELECT COUNT(*) FROM " + testDB + ".victim", MinGTID: "77-1-999999999", GTIDWait: 300}
	start := time.Now()
	_, recs, err := fetch(context.Background(), ts, tkt)
	n := len(recs)
	releaseAll(recs)
	el := time.Since(start)
	se, ok := sqlerr.As(err)
	if !ok || se.Num != sqlerr.ErrReplicaBehind || status.Code(err) != codes.Unavailable || n != 0 {
		t.Fatalf("err = %v (%+v), %d batches; want errno %d, Unavailable, no rows", err, se, n, sqlerr.ErrReplicaBehind)
	}
	if !strings.Contains(se.Message, "77-1-999999999") || el < 250*time.Millisecond || el > 3*time.Second {
		t.Errorf("after %s: %q", el, se.Message)
	}

	// The wait never outlives the fragment's deadline.
	tkt.GTIDWait = 0
	tkt.Deadline = time.Now().Add(400 * time.Millisecond).UnixMilli()
	start = time.Now()
	_, recs, err = fetch(context.Background(), ts, tkt)
	releaseAll(recs)
	if status.Code(err) != codes.DeadlineExceeded && !errors.Is(err, context.DeadlineExceeded) {
		if se, ok := sqlerr.As(err); !ok || se.Num != sqlerr.ErrReplicaBehind {
			t.Errorf("wait bounded by the deadline: err = %v", err)
		}
	}
	if el := time.Since(start); el > 3*time.Second {
		t.Errorf("wait bounded by a 400ms deadline took %s", el)
	}

	// A malformed position is the replica's own error, not a wait.
	tkt = ticket.Ticket{SQL: "SELECT 1", MinGTID: "not a gtid", GTIDWait: 5000}
	_, recs, err = fetch(context.Background(), ts, tkt)
	releaseAll(recs)
	var me *mysql.MySQLError
	if se, ok := sqlerr.As(err); !ok || se.Num == sqlerr.ErrReplicaBehind || errors.As(err, &me) {
		t.Errorf("malformed position: %v", err)
	}
}
