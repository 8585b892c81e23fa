package dashboard

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/shoaldb/shoal/bench/measure"
)

// StepResult is one concurrency step of a closed-loop workload on one
// side (Shoal or direct).
type StepResult struct {
	Side  string
	Users int
	// Duration is the step's planned length; Elapsed runs from the start
	// until the last user's last query ended (users start no query after
	// Duration, and finish the one they are in).
	Duration, Elapsed time.Duration
	OK, Errors        int
	// Latency is over the successful queries, each from sending the query
	// to having read its last row.
	Latency measure.Latency
	// FirstErrors are the first distinct error messages (at most
	// maxErrorSamples), for the report.
	FirstErrors []string
}

// QPS is successful queries per second of Elapsed.
func (r StepResult) QPS() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.OK) / r.Elapsed.Seconds()
}

// Success is the share of queries that succeeded, from 0 to 1 (1 when
// none ran).
func (r StepResult) Success() float64 {
	if r.OK+r.Errors == 0 {
		return 1
	}
	return float64(r.OK) / float64(r.OK+r.Errors)
}

const maxErrorSamples = 5

// reconnectPause is how long a user waits after failing to get a
// connection, so a refused server is not hammered in a tight loop.
const reconnectPause = 50 * time.Millisecond

// RunStep runs one step of a closed loop: users virtual users, each on one
// connection of db (a *sql.Conn of its own), each sending queries in turn
// (user u starts at queries[u % len]) and the next as soon as it has read
// the previous answer, until d has passed. db must allow users open
// connections.
//
// Connections are opened before the clock starts. Each user records its
// latencies and errors in its own slice, so the hot path takes no shared
// lock; the slices are merged and sorted when the step ends. A query that
// fails with a server error (the server answered) keeps its connection;
// any other error replaces the connection, and failing to get one counts
// as an error too.
//
// RunStep returns early, with ctx's error, when ctx is cancelled.
func RunStep(ctx context.Context, db *sql.DB, side string, queries []string, users int, d time.Duration) (StepResult, error) {
	return RunStepWith(ctx, db, side, func(user, seq int) string { return queries[(user+seq)%len(queries)] }, users, d)
}

// RunStepWith is RunStep with each user's queries from gen: user u's
// seq-th query (from 0) is gen(u, seq). gen is called from the users'
// goroutines and must be safe for concurrent use.
func RunStepWith(ctx context.Context, db *sql.DB, side string, gen func(user, seq int) string, users int, d time.Duration) (StepResult, error) {
	return runStep(ctx, db, side, gen, users, d, 0)
}

// runStep is RunStepWith; with per > 0 each user stops after per queries
// (d <= 0: no time bound).
func runStep(ctx context.Context, db *sql.DB, side string, gen func(user, seq int) string, users int, d time.Duration, per int) (StepResult, error) {
	us := make([]*vuser, users)
	for i := range us {
		us[i] = &vuser{db: db, gen: gen, user: i, limit: per, lat: make([]time.Duration, 0, 256)}
		if c, err := db.Conn(ctx); err == nil {
			us[i].conn = c
		} else {
			us[i].fail(err)
		}
	}
	defer func() {
		for _, u := range us {
			if u.conn != nil {
				u.conn.Close()
			}
		}
	}()
	start := time.Now()
	deadline := start.Add(d)
	if d <= 0 {
		deadline = start.Add(100 * 365 * 24 * time.Hour)
	}
	var wg sync.WaitGroup
	for _, u := range us {
		wg.Go(func() { u.loop(ctx, deadline) })
	}
	wg.Wait()
	r := StepResult{Side: side, Users: users, Duration: d, Elapsed: time.Since(start)}
	if err := ctx.Err(); err != nil {
		return r, err
	}
	var all []time.Duration
	for _, u := range us {
		all = append(all, u.lat...)
		r.Errors += u.errs
		for _, m := range u.samples {
			if len(r.FirstErrors) < maxErrorSamples && !slices.Contains(r.FirstErrors, m) {
				r.FirstErrors = append(r.FirstErrors, m)
			}
		}
	}
	r.OK = len(all)
	r.Latency = measure.Summarize(all)
	return r, nil
}

// vuser is one virtual user. Only its own goroutine touches it until the
// step ends.
type vuser struct {
	db    *sql.DB
	conn  *sql.Conn
	gen   func(user, seq int) string
	user  int
	seq   int
	limit int // > 0: stop after this many queries

	lat     []time.Duration
	errs    int
	samples []string
}

func (u *vuser) loop(ctx context.Context, deadline time.Time) {
	for ctx.Err() == nil && time.Now().Before(deadline) && (u.limit <= 0 || u.seq < u.limit) {
		if u.conn == nil {
			c, err := u.db.Conn(ctx)
			if err != nil {
				u.fail(err)
				sleep(ctx, reconnectPause)
				continue
			}
			u.conn = c
		}
		q := u.gen(u.user, u.seq)
		u.seq++
		t := time.Now()
		err := measure.Drain(ctx, u.conn, q)
		if err == nil {
			u.lat = append(u.lat, time.Since(t))
			continue
		}
		if ctx.Err() != nil {
			return
		}
		u.fail(err)
		var me *mysql.MySQLError
		if !errors.As(err, &me) {
			u.conn.Close()
			u.conn = nil
		}
	}
}

func (u *vuser) fail(err error) {
	u.errs++
	if len(u.samples) < maxErrorSamples {
		u.samples = append(u.samples, err.Error())
	}
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
