// Package querymem is the coordinator's global query memory budget
// (query_memory_limit): distributed queries reserve the Arrow bytes their
// fragment streams hold, wait (back-pressure) or yield when it is full, and
// fail with 1041 when they cannot fit. The engine's scheduler uses it; it
// imports only sqlerr and Prometheus.
package querymem

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/shoaldb/shoal/sqlerr"
)

// The global query memory budget (query_memory_limit).
//
// What it counts: the Arrow batches a distributed query has received from
// its fragment streams and not yet released. A fragment's output is held
// until the fragment completes (so a failed attempt is never half-merged),
// which makes these batches the coordinator memory that grows with data
// and concurrency. They are counted by their buffer sizes after decoding,
// not through the Arrow allocator: Flight decodes batches zero-copy over
// gRPC's message bytes, so an allocator would never see them. The merge
// state built from them (hash aggregate groups) is bounded per query by
// merge_memory_limit.
//
//	fragment stream ──Next──▶ batch ──reserve(n)──▶ held by the attempt ──▶ sink
//	                   ▲                 │ over budget                      │
//	                   └── not called ◀──┘ wait / yield / 1041      release(held)
//
// Back-pressure: while a reservation waits, its stream is not read, so the
// Flight stream's flow-control window fills and the worker stops sending.
// Reservations are atomic adds (a CAS loop) on the hot path; the mutex
// only guards the channel waiters sleep on, and is touched only by
// waiters and by releases while someone waits.
//
// Deadlock: two queries that each hold part of the budget and each wait
// for more would wait for each other. So only the oldest running query
// may wait while its attempt holds batches; a younger query's attempt
// that holds some and does not fit yields: it drops its batches, waits
// for as much room as it had, and runs the fragment again (fragments are
// reads). The oldest query thus always progresses, and a query that would
// not fit even alone fails at once instead of waiting.
type Budget struct {
	limit int64 // bytes; <= 0: unlimited (still counted)
	wait  time.Duration

	used    atomic.Int64
	peak    atomic.Int64
	waiters atomic.Int64
	seq     atomic.Uint64

	// Counters for metrics.
	waits   atomic.Int64 // reservations that had to wait
	yields  atomic.Int64 // attempts that dropped their batches to make room
	refused atomic.Int64 // reservations failed with 1041

	queries sync.Map // seq → *Query: running distributed queries

	mu    sync.Mutex
	freed chan struct{} // closed (and replaced) by a release while someone waits
}

func New(limit int64, wait time.Duration) *Budget {
	return &Budget{limit: limit, wait: wait, freed: make(chan struct{})}
}

// Query is one distributed query's account in the budget. Its methods
// are safe for concurrent use by the query's fragment goroutines.
type Query struct {
	b    *Budget
	seq  uint64 // lower is older
	used atomic.Int64
	// held is the part of used the query holds beyond its attempts
	// (TryHold): outputs waiting for their turn to reach the client,
	// freed as it reads. A query is not too big for what it holds so.
	held atomic.Int64
	// pressure drops what the query holds beyond its attempts
	// (OnPressure); nil: nothing.
	pressure func()
}

// TryHold accounts n more bytes to the query if they fit now, without
// waiting: for what the query holds beyond its attempts' batches (the
// outputs schedule.InOrder holds back, which it can as well not hold).
// Give them back with Unhold.
func (q *Query) TryHold(n int64) bool {
	if q.b.limit > 0 && !q.b.tryTake(q, n) {
		return false
	}
	if q.b.limit <= 0 {
		q.take(n)
	}
	q.held.Add(n)
	return true
}

// Unhold gives back n bytes of TryHold.
func (q *Query) Unhold(n int64) {
	q.held.Add(-n)
	q.Release(n)
}

// OnPressure sets f, called (from any of the query's goroutines, maybe
// more than once) when one of its reservations does not fit at once,
// before it waits, yields or fails: f stops the query holding more
// through TryHold and hands what it holds on (freed as the client
// reads). Set it before the attempts start.
func (q *Query) OnPressure(f func()) { q.pressure = f }

// open starts a query's account; close must be called when the query's
// fragments have all ended.
func (b *Budget) Open() *Query {
	q := &Query{b: b, seq: b.seq.Add(1)}
	b.queries.Store(q.seq, q)
	return q
}

// close ends the account. Every attempt releases what it reserved, so
// nothing should be left; anything that is goes back to the budget rather
// than shrinking it forever.
func (q *Query) Close() (leaked int64) {
	q.b.queries.Delete(q.seq)
	if n := q.used.Load(); n != 0 {
		q.Release(n)
		return n
	}
	return 0
}

// Yield asks a fragment attempt to drop its batches, wait until need
// bytes are free (awaitRoom) and run again.
type Yield struct{ Need int64 }

func (y *Yield) Error() string {
	return fmt.Sprintf("query memory: yielding %d bytes to an older query", y.Need)
}

// reserve accounts n more bytes to the query, for a batch an attempt has
// just decoded; held is what that attempt already holds. It returns nil
// (reserved), a *Yield, a 1041 error, or the context's error.
func (q *Query) Reserve(ctx context.Context, n, held int64) error {
	b := q.b
	if b.limit <= 0 {
		q.take(n)
		return nil
	}
	if b.tryTake(q, n) {
		return nil
	}
	if q.pressure != nil {
		q.pressure()
		if b.tryTake(q, n) {
			return nil
		}
	}
	if err := q.tooBig(n); err != nil {
		return err
	}
	if held > 0 && !q.oldest() {
		b.yields.Add(1)
		return &Yield{Need: held + n}
	}
	return q.waitFor(ctx, n, true)
}

// awaitRoom waits until need bytes of the budget are free, without
// reserving them: a yielded attempt's signal to run again.
func (q *Query) AwaitRoom(ctx context.Context, need int64) error {
	if err := q.tooBig(need); err != nil {
		return err
	}
	return q.waitFor(ctx, need, false)
}

// release gives back n bytes reserved by the query.
func (q *Query) Release(n int64) {
	if n == 0 {
		return
	}
	q.used.Add(-n)
	q.b.used.Add(-n)
	if q.b.waiters.Load() > 0 {
		q.b.mu.Lock()
		close(q.b.freed)
		q.b.freed = make(chan struct{})
		q.b.mu.Unlock()
	}
}

// take reserves n bytes unconditionally.
func (q *Query) take(n int64) {
	q.used.Add(n)
	q.b.notePeak(q.b.used.Add(n))
}

// tryTake reserves n bytes if they fit under the limit.
func (b *Budget) tryTake(q *Query, n int64) bool {
	for {
		u := b.used.Load()
		if u+n > b.limit {
			return false
		}
		if b.used.CompareAndSwap(u, u+n) {
			q.used.Add(n)
			b.notePeak(u + n)
			return true
		}
	}
}

func (b *Budget) notePeak(u int64) {
	for {
		p := b.peak.Load()
		if u <= p || b.peak.CompareAndSwap(p, u) {
			return
		}
	}
}

// tooBig fails a query that would not fit even if it ran alone.
func (q *Query) tooBig(n int64) error {
	// What the query holds for its client (TryHold) is freed as the
	// client reads: the query waits for it as for other queries' bytes.
	own := q.used.Load() - q.held.Load()
	if own+n <= q.b.limit {
		return nil
	}
	q.b.refused.Add(1)
	return sqlerr.New(sqlerr.ErrOutOfResources, "HY000",
		"Out of resources: this query holds %d bytes of fragment results and needs %d more, over query_memory_limit (%d bytes, for all running queries together); raise query_memory_limit, or make each fragment return less (a more selective WHERE, fewer GROUP BY groups, a LIMIT)",
		own, n, q.b.limit)
}

// oldest reports whether no running query started before q.
func (q *Query) oldest() bool {
	old := true
	q.b.queries.Range(func(k, _ any) bool {
		if k.(uint64) < q.seq {
			old = false
		}
		return old
	})
	return old
}

// waitFor waits, up to the budget's wait, until n bytes fit; with take it
// also reserves them.
func (q *Query) waitFor(ctx context.Context, n int64, take bool) error {
	b := q.b
	b.waits.Add(1)
	b.waiters.Add(1)
	defer b.waiters.Add(-1)
	timer := time.NewTimer(b.wait)
	defer timer.Stop()
	for {
		// Take the channel before checking: a release after the check
		// closes this channel, so no wake-up is lost.
		b.mu.Lock()
		freed := b.freed
		b.mu.Unlock()
		if take && b.tryTake(q, n) {
			return nil
		}
		if !take && b.used.Load()+n <= b.limit {
			return nil
		}
		if err := q.tooBig(n); err != nil {
			return err
		}
		select {
		case <-freed:
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
			b.refused.Add(1)
			return sqlerr.New(sqlerr.ErrOutOfResources, "HY000",
				"Out of resources: waited %s (query_memory_wait) for %d bytes of query_memory_limit (%d bytes); other running queries hold %d bytes. Retry when fewer large queries run, or raise query_memory_limit",
				b.wait, n, b.limit, b.used.Load()-q.used.Load())
		}
	}
}

// Register adds the budget's gauges and counters to reg. Every value is
// read from the budget's atomics at scrape time, so the query path pays
// nothing for them.
func (b *Budget) Register(reg prometheus.Registerer) {
	gauge := func(name, help string, f func() int64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, func() float64 { return float64(f()) })
	}
	counter := func(name, help string, f func() int64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help}, func() float64 { return float64(f()) })
	}
	reg.MustRegister(
		gauge("shoal_query_memory_bytes", "Fragment results (Arrow batches) held by running queries now, counted against query_memory_limit.", b.used.Load),
		gauge("shoal_query_memory_peak_bytes", "Highest shoal_query_memory_bytes since the coordinator started.", b.peak.Load),
		gauge("shoal_query_memory_limit_bytes", "query_memory_limit (0 or less: unlimited).", func() int64 { return b.limit }),
		gauge("shoal_query_memory_waiting", "Fragment streams paused now, waiting for query memory.", b.waiters.Load),
		counter("shoal_query_memory_waits_total", "Fragment streams that paused for query memory (back-pressure).", b.waits.Load),
		counter("shoal_query_memory_yields_total", "Fragment attempts that dropped their batches for an older query and ran again.", b.yields.Load),
		counter("shoal_query_memory_refused_total", "Queries failed with 1041 by query_memory_limit (too big alone, or waited query_memory_wait).", b.refused.Load),
	)
}
