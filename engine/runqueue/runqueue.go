// Package runqueue is the coordinator's admission control for in-memory
// work (inmemory_concurrency): a bounded number of run slots, by default
// one per core; statements over pinned tables take one and the rest wait
// in arrival order.
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
// A statement's parallelism follows the load (Extra): alone it also takes
// the idle slots and runs one partition per core; while others wait it
// runs in one partition, because splitting it would only add the cost of
// merging per-partition partial results (and their allocations) without
// making the queue move faster.
//
// The queue is on every in-memory statement's path, so while nobody waits
// Acquire and Release are one compare-and-swap on a word holding the
// running and waiting counts; the mutex is taken only to join, leave or
// hand over the FIFO list, which exists only when all slots are busy.
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
//
// state packs the running count (high 32 bits) and the waiting count (low
// 32 bits). Invariant: waiting > 0 implies running == slots, because a
// Release with waiters hands its slot over instead of freeing it, and a
// caller joins the list only when every slot is busy or others wait.
// Changes to waiting happen only under mu, together with the list.
type Queue struct {
	slots   int
	maxWait time.Duration

	state atomic.Uint64

	mu      sync.Mutex
	waiting list.List // of *waiter, oldest first

	admitted atomic.Int64 // Acquire calls that got a slot
	queued   atomic.Int64 // of which waited first
	refused  atomic.Int64 // waits that ended in an error
	waitNs   atomic.Int64 // total time spent waiting
}

func pack(running, waiting int) uint64 { return uint64(running)<<32 | uint64(uint32(waiting)) }

func unpack(s uint64) (running, waiting int) { return int(s >> 32), int(uint32(s)) }

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
	r, w := unpack(q.state.Load())
	s := Stats{Slots: q.slots, Running: r, Waiting: w}
	s.Admitted, s.Queued, s.Refused = q.admitted.Load(), q.queued.Load(), q.refused.Load()
	s.Wait = time.Duration(q.waitNs.Load())
	return s
}

// tryFast takes a slot when one is free and nobody waits.
func (q *Queue) tryFast() bool {
	for {
		s := q.state.Load()
		r, w := unpack(s)
		if w != 0 || r >= q.slots {
			return false
		}
		if q.state.CompareAndSwap(s, pack(r+1, 0)) {
			return true
		}
	}
}

// Extra takes up to n more slots for a holder, without waiting and only
// while nobody waits, and reports how many it took: a statement alone
// runs on the idle cores too, one under load on its own slot. Each slot
// taken is given back with Release.
func (q *Queue) Extra(n int) int {
	for n > 0 {
		s := q.state.Load()
		r, w := unpack(s)
		k := min(n, q.slots-r)
		if w != 0 || k <= 0 {
			return 0
		}
		if q.state.CompareAndSwap(s, pack(r+k, 0)) {
			return k
		}
	}
	return 0
}

// Acquire waits for a slot: at once when one is free and nobody waits,
// else behind every earlier caller. Each successful Acquire must be
// followed by one Release. It fails with a MySQL error: 1040 when the
// queue wait passes, 3024 when ctx's deadline does, 1317 when ctx is
// cancelled.
func (q *Queue) Acquire(ctx context.Context) error { return q.acquire(ctx, false) }

// AcquireFirst is Acquire ahead of every waiter: for short work that
// others wait on, such as building a live pin's next version, which
// every reader of the pin waits for and which, queued behind the
// statements over it, would only make the pin staler. Its callers give
// up with ctx and carry on without a slot, so its failures are not
// counted as refusals in Stats.
func (q *Queue) AcquireFirst(ctx context.Context) error { return q.acquire(ctx, true) }

func (q *Queue) acquire(ctx context.Context, first bool) error {
	if q.tryFast() {
		q.admitted.Add(1)
		return nil
	}
	q.mu.Lock()
	var el *list.Element
	var w *waiter
	for {
		s := q.state.Load()
		r, n := unpack(s)
		if r < q.slots && n == 0 {
			// Freed since the fast path looked.
			if q.state.CompareAndSwap(s, pack(r+1, 0)) {
				q.mu.Unlock()
				q.admitted.Add(1)
				return nil
			}
			continue
		}
		if q.state.CompareAndSwap(s, pack(r, n+1)) {
			w = &waiter{ready: make(chan struct{})}
			if first {
				el = q.waiting.PushFront(w)
			} else {
				el = q.waiting.PushBack(w)
			}
			break
		}
	}
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
		q.state.Add(^uint64(0)) // waiting - 1; running stays at slots
		q.mu.Unlock()
	}
	if !first { // AcquireFirst's callers go on without a slot
		q.refused.Add(1)
	}
	return err
}

// Ahead takes a slot with AcquireFirst, waiting at most wait, and returns
// its release; without a slot in time (or on a nil queue: no limit) it
// returns a release that does nothing, and the caller goes on anyway.
func (q *Queue) Ahead(ctx context.Context, wait time.Duration) (release func()) {
	if q == nil {
		return func() {}
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	if q.AcquireFirst(ctx) != nil {
		return func() {}
	}
	return q.Release
}

// AcquireUpTo is Acquire followed by Extra(n-1): it reports how many
// slots (1..n) the caller holds and gives back with ReleaseN.
func (q *Queue) AcquireUpTo(ctx context.Context, n int) (int, error) {
	if err := q.Acquire(ctx); err != nil {
		return 0, err
	}
	return 1 + q.Extra(n-1), nil
}

// ReleaseN gives n slots back, each as Release does.
func (q *Queue) ReleaseN(n int) {
	for range n {
		q.Release()
	}
}

// Release gives one slot back: to the oldest waiter, if any.
func (q *Queue) Release() {
	for {
		s := q.state.Load()
		r, w := unpack(s)
		if r <= 0 {
			panic("runqueue: Release without Acquire")
		}
		if w != 0 {
			break
		}
		if q.state.CompareAndSwap(s, pack(r-1, 0)) {
			return
		}
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	for {
		s := q.state.Load()
		r, w := unpack(s)
		if w == 0 {
			// The waiters gave up meanwhile: free the slot.
			if q.state.CompareAndSwap(s, pack(r-1, 0)) {
				return
			}
			continue
		}
		// Under mu the list holds exactly w waiters.
		if q.state.CompareAndSwap(s, pack(r, w-1)) {
			front := q.waiting.Front()
			q.waiting.Remove(front)
			close(front.Value.(*waiter).ready) // the slot changes hands
			return
		}
	}
}
