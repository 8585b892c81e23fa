package schedule

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// Key order of streamed rows. A statement without ORDER BY leaves its
// row order to the server, and MariaDB's scan of an InnoDB table meets
// the rows in primary key order, which clients, tests and tools that
// compare outputs come to rely on (a table browser, a diff of two
// exports). Fragments complete in any order, so a streaming row plan that
// forwarded each as it came returned the same rows in another order.
// InOrder hands the fragments' outputs on in rank order (the split key's,
// fragments.go) and holds the ones that complete early. Slots pull
// fragments in rank order, so what is held is about one fragment per
// other slot. It stops holding, and forwards everything as it arrives
// (rows in arrival order, memory bounded, no slot ever waiting on
// another), when the held outputs would pass KeyOrderHold (a fragment
// stuck on a slow replica while the others finish) or when the query
// memory budget runs short: the held bytes are counted in the query's
// account (querymem), and a reservation of the query that does not fit
// first makes InOrder give them back (Query.OnPressure), so they never
// make the query wait on itself. An output of rank -1 has no place in
// the order and is forwarded as it comes.
//
// A caller asks for key order with WithKeyOrder on the execution's
// context; the runner (Scheduler.Run, the in-memory engine) wraps its
// sink.

// KeyOrderHold bounds the Arrow bytes one execution holds back for key
// order: about two fragments of a wide export.
const KeyOrderHold = 64 << 20

type keyOrderKey struct{}

// WithKeyOrder returns ctx asking the executions run under it to hand
// their outputs on in rank order (InOrder).
func WithKeyOrder(ctx context.Context) context.Context {
	return context.WithValue(ctx, keyOrderKey{}, true)
}

// KeyOrdered reports whether ctx asks for key order (WithKeyOrder).
func KeyOrdered(ctx context.Context) bool {
	on, _ := ctx.Value(keyOrderKey{}).(bool)
	return on
}

// stallWait is how long an output over the hold limit waits for the
// order to move (the next rank forwarded) while nothing is being
// forwarded, before InOrder gives up order: a breaker for a next rank
// that no slot will run (the scheduler also gives up order itself on a
// retry or a worker lost, ToArrival).
const stallWait = 10 * time.Second

// Ordered wraps sink in an InOrder, without accounting, when ctx asks for
// key order (WithKeyOrder): for a runner whose held outputs are few and
// small (the in-memory engine: a few batches of one pin). release drops
// what is held once the runner has returned.
func Ordered(ctx context.Context, sink Sink) (_ Sink, release func()) {
	if !KeyOrdered(ctx) {
		return sink, func() {}
	}
	o := NewInOrder(ctx, KeyOrderHold, sink)
	return o.Sink, o.Release
}

// InOrder is a Sink wrapper that forwards outputs in rank order.
//
// Concurrency: Sink is called from the runner's goroutines. The output
// of the next rank is forwarded by the goroutine that brings it, which
// then forwards the held outputs that follow (the forwarder; one at a
// time), without the mutex: an output arriving meanwhile is held, or,
// past the hold limit, waits for the order to move (back-pressure, as a
// slow client blocks every slot without InOrder). The wrapped sink gets
// one output at a time in order, several at once only in arrival order.
type InOrder struct {
	ctx   context.Context
	sink  Sink
	limit int64
	// reserve and release account the held bytes (Account); nil: not
	// accounted.
	reserve func(int64) bool
	release func(int64)

	mu         sync.Mutex
	next       int                         // the rank forwarded next
	held       map[int][]arrow.RecordBatch // early outputs, retained
	bytes      int64                       // their recordBytes
	arrival    bool                        // forward as they come
	forwarding bool                        // the forwarder is at work
	moved      chan struct{}               // closed when next moves or arrival starts
	err        error                       // a forward failed: the execution's end
}

// NewInOrder returns the wrapper of sink that holds at most limit bytes of
// early outputs; ctx is the execution's (a wait for the order ends with
// it).
func NewInOrder(ctx context.Context, limit int64, sink Sink) *InOrder {
	return &InOrder{ctx: ctx, sink: sink, limit: limit, held: map[int][]arrow.RecordBatch{}, moved: make(chan struct{})}
}

// Account has the held bytes reserved with reserve (an output is held
// only if it returns true) and given back with release.
func (o *InOrder) Account(reserve func(int64) bool, release func(int64)) {
	o.reserve, o.release = reserve, release
}

// Sink is the Sink to give the runner.
func (o *InOrder) Sink(rank int, batches []arrow.RecordBatch) error {
	o.mu.Lock()
	for {
		if o.err != nil {
			o.mu.Unlock()
			return o.err
		}
		if _, dup := o.held[rank]; o.arrival || rank < o.next || dup {
			// Arrival order, no place in the order (an in-memory
			// engine's groups: -1), or one it has had: as it comes.
			o.mu.Unlock()
			return o.sink(rank, batches)
		}
		if rank == o.next && !o.forwarding {
			break // this goroutine forwards
		}
		n := batchesBytes(batches)
		if o.bytes+n <= o.limit {
			if o.reserve == nil || o.reserve(n) {
				for _, b := range batches {
					b.Retain()
				}
				o.held[rank] = batches
				o.bytes += n
				o.mu.Unlock()
				return nil
			}
			// The query's memory is short: no holding for order.
			o.toArrival()
			continue
		}
		// Over the hold limit: wait until the order moves.
		if err := o.wait(); err != nil {
			o.mu.Unlock()
			return err
		}
	}
	o.forwarding = true
	o.mu.Unlock()
	err := o.sink(rank, batches)
	o.mu.Lock()
	for err == nil {
		o.next++
		o.signal()
		bs, ok := o.held[o.next]
		if !ok {
			break
		}
		r := o.next
		n := o.take(r)
		o.mu.Unlock()
		err = o.forward(r, bs, n)
		o.mu.Lock()
	}
	o.forwarding = false
	if err != nil && o.err == nil {
		o.err = err
		o.drop()
		o.signal()
	}
	o.mu.Unlock()
	return err
}

// wait waits, with the mutex released, until the order moves: nil to look
// again; the execution's error when it ends. After stallWait without the
// order moving and with nothing being forwarded, it gives order up.
func (o *InOrder) wait() error {
	moved := o.moved
	o.mu.Unlock()
	t := time.NewTimer(stallWait)
	defer t.Stop()
	for {
		select {
		case <-moved:
			o.mu.Lock()
			return nil
		case <-o.ctx.Done():
			o.mu.Lock()
			return o.ctx.Err()
		case <-t.C:
			o.mu.Lock()
			if moved != o.moved {
				return nil
			}
			if !o.forwarding {
				o.toArrival() // stalled
				return nil
			}
			o.mu.Unlock()
			t.Reset(stallWait) // a slow client: wait on
		}
	}
}

// signal wakes the outputs waiting for the order to move.
func (o *InOrder) signal() {
	close(o.moved)
	o.moved = make(chan struct{})
}

// take removes rank r's held output from the account and returns its
// bytes; the caller forwards it.
func (o *InOrder) take(r int) int64 {
	n := batchesBytes(o.held[r])
	delete(o.held, r)
	o.bytes -= n
	return n
}

// forward hands a held output on and lets it go.
func (o *InOrder) forward(r int, bs []arrow.RecordBatch, n int64) error {
	err := o.sink(r, bs)
	release(bs)
	if o.release != nil {
		o.release(n)
	}
	return err
}

// ToArrival stops holding: what is held is forwarded now, in rank order,
// and later outputs as they come. The runner calls it where the next rank
// may not run soon (a retry, a worker lost), the query memory budget when
// the query is short of memory (querymem.Query.OnPressure).
func (o *InOrder) ToArrival() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.toArrival()
}

// toArrival is ToArrival with the mutex held; it forwards the held
// outputs without it.
func (o *InOrder) toArrival() {
	if o.arrival || o.err != nil {
		return
	}
	o.arrival = true
	o.signal()
	ranks := make([]int, 0, len(o.held))
	for r := range o.held {
		ranks = append(ranks, r)
	}
	slices.Sort(ranks)
	outs := make([][]arrow.RecordBatch, len(ranks))
	sizes := make([]int64, len(ranks))
	for i, r := range ranks {
		outs[i] = o.held[r]
		sizes[i] = o.take(r)
	}
	o.mu.Unlock()
	var err error
	for i, r := range ranks {
		if err == nil {
			err = o.forward(r, outs[i], sizes[i])
			continue
		}
		release(outs[i])
		if o.release != nil {
			o.release(sizes[i])
		}
	}
	o.mu.Lock()
	if err != nil && o.err == nil {
		o.err = err
	}
}

// drop lets every held output go.
func (o *InOrder) drop() {
	for r, bs := range o.held {
		release(bs)
		delete(o.held, r)
	}
	if o.release != nil && o.bytes > 0 {
		o.release(o.bytes)
	}
	o.bytes = 0
}

// Release drops what is still held (an execution that ended early: a
// LIMIT met, an error, a cancel). Call it once the runner has returned.
func (o *InOrder) Release() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.drop()
}

// Held reports how many outputs are held and their bytes.
func (o *InOrder) Held() (int, int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.held), o.bytes
}

func batchesBytes(bs []arrow.RecordBatch) int64 {
	var n int64
	for _, b := range bs {
		n += recordBytes(b)
	}
	return n
}

func release(bs []arrow.RecordBatch) {
	for _, b := range bs {
		b.Release()
	}
}
