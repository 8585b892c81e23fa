package router

import (
	"context"
	"time"
)

// stmtContext is a running statement's context: it has the deadline of
// context.WithTimeout(parent, query_timeout) without WithTimeout's runtime
// timer. The router's clock (clock.go) cancels it when the deadline
// passes; KILL, a client that went away, the parent's end and the
// statement's own end cancel it too.
//
// Why not WithTimeout: inserting a timer that becomes its P's earliest
// wakes the network poller or another thread (runtime wakeNetPoller), and
// a statement's timer usually is the earliest: under one-connection point
// lookups that was about two of the coordinator's context switches per
// statement (perf stat, 2026-12-04).
//
// It is a context.WithCancelCause of the parent that reports the
// deadline: contexts derived from it register with that cancelCtx as
// with any other (no goroutine watches Done), and see the deadline. Its
// own Err is context.DeadlineExceeded once the deadline passed, as
// WithTimeout's is; contexts derived from it see context.Canceled with
// context.DeadlineExceeded as the cause (context.Cause). The router maps
// whatever error a statement ends with after its deadline to 3024 (Run),
// so clients see the same.
type stmtContext struct {
	context.Context // context.WithCancelCause(parent)
	cancel          context.CancelCauseFunc
	deadline        time.Time
}

// newStmtContext returns a statement context of parent due at deadline
// (or at the parent's own deadline if earlier: the parent then ends it).
func newStmtContext(parent context.Context, deadline time.Time) *stmtContext {
	ctx, cancel := context.WithCancelCause(parent)
	c := &stmtContext{Context: ctx, cancel: cancel, deadline: deadline}
	if d, ok := parent.Deadline(); ok && d.Before(deadline) {
		c.deadline = d
	}
	return c
}

func (c *stmtContext) Deadline() (time.Time, bool) { return c.deadline, true }

func (c *stmtContext) Err() error {
	err := c.Context.Err()
	if err != nil && context.Cause(c.Context) == context.DeadlineExceeded {
		return context.DeadlineExceeded
	}
	return err
}

// Cancel is the statement's cancel function: KILL's, the client
// watch's and the statement's end.
func (c *stmtContext) Cancel() { c.cancel(context.Canceled) }

// expire ends c as its deadline does.
func (c *stmtContext) expire() { c.cancel(context.DeadlineExceeded) }

func (c *stmtContext) String() string { return "router.stmtContext" }
