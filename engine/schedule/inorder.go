package schedule

import (
	"context"
	"slices"
	"sync"

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

// InOrder is a Sink wrapper that forwards outputs in rank order.
type InOrder struct {
	sink  Sink
	limit int64
	// reserve and release account the held bytes (Account); nil: not
	// accounted.
	reserve func(int64) bool
	release func(int64)

	mu      sync.Mutex
	next    int                         // the rank forwarded next
	held    map[int][]arrow.RecordBatch // early outputs, retained
	bytes   int64                       // their recordBytes
	arrival bool                        // forward as they come
	err     error                       // a forward by ToArrival failed
}

// NewInOrder returns the wrapper of sink that holds at most limit bytes of
// early outputs. sink is called with one output at a time.
func NewInOrder(limit int64, sink Sink) *InOrder {
	return &InOrder{sink: sink, limit: limit, held: map[int][]arrow.RecordBatch{}}
}

// Account has the held bytes reserved with reserve (an output is held
// only if it returns true) and given back with release.
func (o *InOrder) Account(reserve func(int64) bool, release func(int64)) {
	o.reserve, o.release = reserve, release
}

// Sink is the Sink to give the runner.
func (o *InOrder) Sink(rank int, batches []arrow.RecordBatch) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err != nil {
		return o.err
	}
	if _, dup := o.held[rank]; rank < o.next || dup {
		// No place in the order (an in-memory engine's groups: -1), or
		// one it has had: forwarded as it comes.
		return o.sink(rank, batches)
	}
	if !o.arrival && rank != o.next {
		n := batchesBytes(batches)
		if o.bytes+n <= o.limit && (o.reserve == nil || o.reserve(n)) {
			for _, b := range batches {
				b.Retain()
			}
			o.held[rank] = batches
			o.bytes += n
			return nil
		}
		// Holding more would grow with the table, or the memory is
		// wanted: from here on, arrival order. What is held goes with
		// this output, in rank order.
		o.arrival = true
		if err := o.flushHeld(func(r int) bool { return r < rank }); err != nil {
			return err
		}
		if err := o.sink(rank, batches); err != nil {
			return err
		}
		return o.flushHeld(func(int) bool { return true })
	}
	if err := o.sink(rank, batches); err != nil {
		return err
	}
	if o.arrival {
		return nil
	}
	for o.next++; ; o.next++ {
		bs, ok := o.held[o.next]
		if !ok {
			return nil
		}
		if err := o.forward(o.next, bs); err != nil {
			return err
		}
	}
}

// ToArrival stops holding: what is held is forwarded now, in rank order,
// and later outputs as they come. A forward's error is the next Sink
// call's.
func (o *InOrder) ToArrival() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.arrival || o.err != nil {
		return
	}
	o.arrival = true
	if err := o.flushHeld(func(int) bool { return true }); err != nil {
		o.err = err
		o.drop()
	}
}

// flushHeld forwards the held outputs whose rank is picked, in rank order.
func (o *InOrder) flushHeld(pick func(rank int) bool) error {
	ranks := make([]int, 0, len(o.held))
	for r := range o.held {
		if pick(r) {
			ranks = append(ranks, r)
		}
	}
	slices.Sort(ranks)
	for _, r := range ranks {
		if err := o.forward(r, o.held[r]); err != nil {
			return err
		}
	}
	return nil
}

// forward hands the held output of rank r on and lets it go.
func (o *InOrder) forward(r int, bs []arrow.RecordBatch) error {
	delete(o.held, r)
	n := batchesBytes(bs)
	o.bytes -= n
	err := o.sink(r, bs)
	release(bs)
	if o.release != nil {
		o.release(n)
	}
	return err
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
