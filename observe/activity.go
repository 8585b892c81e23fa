package observe

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"
)

// A statement's life as observe sees it: the front end (through the
// router) starts an Activity for every statement and puts it in the
// statement's context; the engine's scheduler counts fragments into it and
// records its plans and fragment attempts (TracePlan, TraceAttempt); SHOW
// PROCESSLIST and the status page read it while it runs, and Log.Remember
// copies it into the ring of recent statements and the slow log when it
// ends.

// Activity is one running statement. Its counters are bumped by the
// scheduler's slot goroutines while SHOW PROCESSLIST reads them.
type Activity struct {
	ID    uint64 // the statement's query id (QUERY_ID)
	Query string
	Start time.Time
	// Fragments scheduled and merged, and the rows and Arrow bytes their
	// merged attempts shipped (failed attempts are not counted).
	Total, Done atomic.Int64
	Rows, Bytes atomic.Int64
	// Sent counts rows sent to the client.
	Sent atomic.Int64
	// trace is the statement's executions and fragment attempts, for the
	// status page (querylog.go). Its mutex is the statement's own.
	trace trace
}

// activityKey carries the running statement's *Activity in its context,
// for the scheduler (progress) and the traces.
type activityKey struct{}

// QueryIDs numbers statements (QUERY_ID, shown by SHOW PROCESSLIST) and
// executions (the ids in fragment tickets and traces) from one sequence, so
// no two share an id. Safe for concurrent use.
type QueryIDs struct{ n atomic.Uint64 }

// Next returns a new id.
func (q *QueryIDs) Next() uint64 { return q.n.Add(1) }

// NewActivity starts the record of statement id, query, now.
func NewActivity(id uint64, query string) *Activity {
	return &Activity{ID: id, Query: query, Start: time.Now()}
}

// WithActivity returns ctx carrying act.
func WithActivity(ctx context.Context, act *Activity) context.Context {
	return context.WithValue(ctx, activityKey{}, act)
}

// ActivityFrom returns the statement activity ctx carries, if any.
func ActivityFrom(ctx context.Context) (*Activity, bool) {
	act, ok := ctx.Value(activityKey{}).(*Activity)
	return act, ok
}

// ProcRow is one line of the process list.
type ProcRow struct {
	ID      uint32
	User    string
	Host    string
	DB      string
	Command string // Connect, Sleep or Query
	Time    time.Duration
	State   string
	Info    string // the running statement, "" when none
	// Progress is the share of fragments done, 0–100; Fragments and Done
	// are 0 for a statement that is not distributed (yet).
	Progress        float64
	Fragments, Done int64
	// Examined is the rows the statement's fragments shipped so far;
	// QueryID its query id (the last statement's while the session sleeps).
	Examined int64
	QueryID  uint64
	// Act is the running statement, nil when none (the status page reads
	// its trace).
	Act *Activity
}

// TruncateRunes cuts s to at most n characters (not bytes, so a
// multi-byte character is never split).
func TruncateRunes(s string, n int) string {
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}

// Running fills r for a session running act: the statement, how long it
// has run, and for a distributed one its fragments done ("fragments 5/16
// done", the progress in percent).
func (r *ProcRow) Running(act *Activity, now time.Time) {
	r.Command, r.Time, r.State, r.Info = "Query", now.Sub(act.Start), "executing", act.Query
	r.QueryID, r.Examined, r.Act = act.ID, act.Rows.Load(), act
	if total := act.Total.Load(); total > 0 {
		done := min(act.Done.Load(), total)
		r.Fragments, r.Done = total, done
		r.State = fmt.Sprintf("fragments %d/%d done", done, total)
		r.Progress = 100 * float64(done) / float64(total)
	}
}
