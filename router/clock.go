package router

import (
	"context"
	"time"
)

// The statement clock.
//
// Every statement has a deadline (query_timeout) and, from the MySQL front
// end, a client that may go away while it runs. Both used to be runtime
// timers armed and stopped per statement (context.WithTimeout's, and the
// client watcher's), and a timer insertion that becomes its P's earliest
// wakes the network poller or another thread: under one-connection point
// lookups those two were about two of the coordinator's context switches
// per statement. Statements are short and their deadlines far, so one
// goroutine per router ticks every clockTick and looks at the running
// statements instead:
//
//   - a statement past its deadline is canceled (stmtContext.expire);
//   - one due within the next tick gets an exact timer of its own, so a
//     deadline still ends a statement on time (only statements that run
//     that long pay for a timer);
//   - one that has run for a tick or more has its client checked
//     (Watcher.Gone), every tick: a client that went away cancels it.

// clockTick is how often the clock looks at the running statements.
const clockTick = 100 * time.Millisecond

// Watcher tells whether a statement's client went away: the MySQL front
// end peeks at its socket. The clock calls Gone from its own goroutine,
// while the statement runs and concurrently with the session's reads and
// writes, once per tick for statements that have run a tick or more.
type Watcher interface {
	Gone() bool
}

// stmtRun is the statement of a session that the clock watches; the
// zero value is none. Under the session's mu.
type stmtRun struct {
	ctx   *stmtContext
	start time.Time
	watch Watcher
	// exact is the statement's own deadline timer, armed by the clock
	// within a tick of the deadline.
	exact *time.Timer
}

// runClock ticks until ctx ends; clockDone is closed when it returns.
func (s *Router) runClock(ctx context.Context) {
	defer close(s.clockDone)
	t := time.NewTicker(clockTick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			s.sessions.Range(func(_, v any) bool {
				v.(*Session).tick(now)
				return true
			})
			s.loose.Range(func(k, _ any) bool {
				k.(*Session).tick(now)
				return true
			})
		}
	}
}

// Wait returns when the router's clock has stopped (after the context
// New was given ends).
func (s *Router) Wait() { <-s.clockDone }

// begin makes ctx the session's running statement, watched by watch
// (nil: no client to watch), started at start.
func (ss *Session) begin(ctx *stmtContext, start time.Time, watch Watcher) {
	ss.mu.Lock()
	ss.run = stmtRun{ctx: ctx, start: start, watch: watch}
	ss.mu.Unlock()
	if left := ctx.deadline.Sub(start); left < clockTick {
		// A query_timeout shorter than a tick, or a parent due soon.
		ss.tick(start)
	}
}

// end forgets the session's running statement and cancels its context.
func (ss *Session) end() {
	ss.mu.Lock()
	r := ss.run
	ss.run = stmtRun{}
	ss.mu.Unlock()
	if r.exact != nil {
		r.exact.Stop()
	}
	r.ctx.Cancel()
}

// tick is one look of the clock at the session at now.
func (ss *Session) tick(now time.Time) {
	ss.mu.Lock()
	r := &ss.run
	ctx, watch := r.ctx, r.watch
	if ctx == nil {
		ss.mu.Unlock()
		return
	}
	left := ctx.deadline.Sub(now)
	if left > 0 && left <= clockTick && r.exact == nil {
		r.exact = time.AfterFunc(left, ctx.expire)
	}
	long := now.Sub(r.start) >= clockTick
	ss.mu.Unlock()
	if left <= 0 {
		ctx.expire()
		return
	}
	if long && watch != nil && watch.Gone() {
		ctx.Cancel()
	}
}

// kill cancels the session's running statement (KILL, shutdown).
func (ss *Session) kill() {
	ss.mu.Lock()
	ctx := ss.run.ctx
	ss.mu.Unlock()
	if ctx != nil {
		ctx.Cancel()
	}
}
