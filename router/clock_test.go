package router

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// gone is a Watcher whose client goes away when told.
type gone struct{ away atomic.Bool }

func (g *gone) Gone() bool { return g.away.Load() }

// TestStatementClock: the clock ends a statement at its deadline (with
// DeadlineExceeded, seen by a derived context as its cause), or when its
// client goes away, or on KILL, and leaves a statement alone otherwise.
func TestStatementClock(t *testing.T) {
	cases := []struct {
		name    string
		timeout time.Duration
		act     func(ss *Session, w *gone)
		wantErr error // of the statement's context; nil: still running
		within  time.Duration
	}{
		{"deadline shorter than a tick", 30 * time.Millisecond, nil, context.DeadlineExceeded, 300 * time.Millisecond},
		{"deadline after a few ticks", 250 * time.Millisecond, nil, context.DeadlineExceeded, 600 * time.Millisecond},
		{"client goes away", time.Hour, func(_ *Session, w *gone) { w.away.Store(true) }, context.Canceled, 500 * time.Millisecond},
		{"kill", time.Hour, func(ss *Session, _ *gone) { ss.kill() }, context.Canceled, 100 * time.Millisecond},
		{"nothing happens", time.Hour, nil, nil, 350 * time.Millisecond},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, stop := context.WithCancel(t.Context())
			s := &Router{ctx: ctx, clockDone: make(chan struct{})}
			go s.runClock(ctx)
			defer func() { stop(); s.Wait() }()
			ss := s.Open(1, nil)
			w := &gone{}
			start := time.Now()
			sctx := newStmtContext(ctx, start.Add(c.timeout))
			ss.begin(sctx, start, w)
			child, cancelChild := context.WithCancel(sctx)
			defer cancelChild()
			if c.act != nil {
				c.act(ss, w)
			}
			select {
			case <-sctx.Done():
				if c.wantErr == nil {
					t.Fatalf("ended after %v with %v; want it running", time.Since(start), sctx.Err())
				}
			case <-time.After(c.within):
				if c.wantErr != nil {
					t.Fatalf("still running after %v; want %v", c.within, c.wantErr)
				}
			}
			if got := sctx.Err(); !errors.Is(got, c.wantErr) && !(got == nil && c.wantErr == nil) {
				t.Errorf("Err = %v, want %v", got, c.wantErr)
			}
			if c.wantErr == context.DeadlineExceeded {
				if time.Since(start) < c.timeout {
					t.Errorf("ended after %v, before its deadline %v", time.Since(start), c.timeout)
				}
				<-child.Done()
				if context.Cause(child) != context.DeadlineExceeded {
					t.Errorf("derived context's cause %v, want the deadline", context.Cause(child))
				}
			}
			if dl, ok := child.Deadline(); !ok || !dl.Equal(start.Add(c.timeout)) {
				t.Errorf("derived context's deadline %v %v, want %v", dl, ok, start.Add(c.timeout))
			}
			ss.end()
			if sctx.Err() == nil || child.Err() == nil {
				t.Error("the statement's end did not cancel its context")
			}
		})
	}
}

// TestStmtContextParent: a statement context ends with its parent, and
// takes the parent's deadline when it is earlier.
func TestStmtContextParent(t *testing.T) {
	parent, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	pdl, _ := parent.Deadline()
	c := newStmtContext(parent, time.Now().Add(time.Hour))
	if dl, _ := c.Deadline(); !dl.Equal(pdl) {
		t.Errorf("deadline %v, want the parent's %v", dl, pdl)
	}
	select {
	case <-c.Done():
	case <-time.After(time.Second):
		t.Fatal("not ended with its parent")
	}
	if c.Err() != context.DeadlineExceeded {
		t.Errorf("Err = %v, want the parent's deadline", c.Err())
	}
}

// BenchmarkStatementContext: a statement's context, begun and ended, with
// one derived context (what a passthrough statement makes): no timer.
func BenchmarkStatementContext(b *testing.B) {
	ctx, stop := context.WithCancel(b.Context())
	defer stop()
	ss := &Session{}
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		sctx := newStmtContext(ctx, start.Add(time.Hour))
		ss.begin(sctx, start, nil)
		c, cancel := context.WithCancel(sctx)
		_ = c.Err()
		cancel()
		ss.end()
	}
}
