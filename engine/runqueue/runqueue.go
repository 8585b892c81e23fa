// Package runqueue is the coordinator's admission control for in-memory
// work (inmemory_concurrency): a bounded number of statements over pinned
// tables run at once and the rest wait in arrival order.
//
// Without it every connection's statement starts at once and each splits
// into one partition per core: at 300 connections the cores time-slice
// thousands of goroutines, caches thrash and every statement takes as long
// as the slowest share, so throughput falls as connections grow and p99
// follows the number of connections. With a run queue as wide as the
// machine, each admitted statement runs at full speed; throughput stays at
// its peak and latency grows with the queue alone, FIFO, so no statement
// starves. A statement that waits longer than the queue wait fails with
// error 1040 (too busy) rather than waiting without bound; one whose own
// deadline passes while queued fails with 3024, one killed with 1317.
//
// Only sqlerr is imported, so the engine and tests can use it alone.
package runqueue

import (
	"container/list"
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shoaldb/shoal/sqlerr"
)

// Queue admits at most Slots holders at once; the others wait FIFO.
type Queue struct {
	slots   int
	maxWait time.Duration

	mu      sync.Mutex
	running int
	waiting list.List // of *waiter, oldest first

	admitted atomic.Int64 // Acquire calls that got a slot
	queued   atomic.Int64 // of which waited first
	refused  atomic.Int64 // waits that ended in an error
	waitNs   atomic.Int64 // total time spent waiting
}

type waiter struct {
	ready chan struct{} // closed (under mu) when the slot is handed over
}

// New returns a queue of slots concurrent holders (at least 1) whose
// waiters give up after maxWait (<= 0: wait for the context alone).
func New(slots int, maxWait time.Duration) *Queue {
	return &Queue{slots: max(slots, 1), maxWait: maxWait}
}

// Slots is the number of concurrent holders.
func (q *Queue) Slots() int { return q.slots }

// Stats is a snapshot of the queue for metrics and the status page.
type Stats struct {
	Slots, Running, Waiting   int
	Admitted, Queued, Refused int64
	Wait                      time.Duration // total time admitted and refused callers waited
}

// Stats reports the queue's state.
func (q *Queue) Stats() Stats {
	q.mu.Lock()
	s := Stats{Slots: q.slots, Running: q.running, Waiting: q.waiting.Len()}
	q.mu.Unlock()
	s.Admitted, s.Queued, s.Refused = q.admitted.Load(), q.queued.Load(), q.refused.Load()
	s.Wait = time.Duration(q.waitNs.Load())
	return s
}

// Acquire waits for a slot: at once when one is free and nobody waits,
// else behind every earlier caller. Each successful Acquire must be
// followed by one Release. It fails with a MySQL error: 1040 when the
// queue wait passes, 3024 when ctx's deadline does, 1317 when ctx is
// cancelled.
func (q *Queue) Acquire(ctx context.Context) error {
	q.mu.Lock()
	if q.running < q.slots && q.waiting.Len() == 0 {
		q.running++
		q.mu.Unlock()
		q.admitted.Add(1)
		return nil
	}
	w := &waiter{ready: make(chan struct{})}
	el := q.waiting.PushBack(w)
	q.mu.Unlock()
	q.queued.Add(1)
	start := time.Now()
	var expired <-chan time.Time
	if q.maxWait > 0 {
		t := time.NewTimer(q.maxWait)
		defer t.Stop()
		expired = t.C
	}
	var err error
	select {
	case <-w.ready:
	case <-ctx.Done():
		err = sqlerr.ToMySQL(ctx.Err())
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = sqlerr.New(sqlerr.ErrQueryTimeout, "HY000",
				"Query execution was interrupted, maximum statement execution time exceeded while queued for an in-memory run slot (%d busy, inmemory_concurrency)", q.slots)
		}
	case <-expired:
		err = sqlerr.New(sqlerr.ErrTooManyConns, "08004",
			"Too many connections: waited %s for one of %d in-memory run slots (inmemory_concurrency, inmemory_queue_wait); retry later", q.maxWait, q.slots)
	}
	q.waitNs.Add(int64(time.Since(start)))
	if err == nil {
		q.admitted.Add(1)
		return nil
	}
	q.mu.Lock()
	select {
	case <-w.ready:
		// The slot was handed over as the wait ended: pass it on.
		q.mu.Unlock()
		q.Release()
	default:
		q.waiting.Remove(el)
		q.mu.Unlock()
	}
	q.refused.Add(1)
	return err
}

// Release gives the slot back: to the oldest waiter, if any.
func (q *Queue) Release() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if front := q.waiting.Front(); front != nil {
		q.waiting.Remove(front)
		close(front.Value.(*waiter).ready) // the slot changes hands
		return
	}
	if q.running <= 0 {
		panic("runqueue: Release without Acquire")
	}
	q.running--
}
