package schedule

import (
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
// other slot; past its byte limit (a fragment stuck on a slow replica
// while the others finish) it stops holding and forwards everything as
// it arrives, rows in arrival order, so memory stays bounded and no slot
// ever waits on another. An output of rank -1 has no place in the order
// and is forwarded as it comes.

// InOrder is a Sink wrapper that forwards outputs in rank order.
type InOrder struct {
	sink  Sink
	limit int64

	mu      sync.Mutex
	next    int                         // the rank forwarded next
	held    map[int][]arrow.RecordBatch // early outputs, retained
	bytes   int64                       // their recordBytes
	arrival bool                        // past limit: forward as they come
}

// NewInOrder returns the wrapper of sink that holds at most limit bytes of
// early outputs. sink is called with one output at a time.
func NewInOrder(limit int64, sink Sink) *InOrder {
	return &InOrder{sink: sink, limit: limit, held: map[int][]arrow.RecordBatch{}}
}

// Sink is the Sink to give the scheduler.
func (o *InOrder) Sink(rank int, batches []arrow.RecordBatch) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, dup := o.held[rank]; rank < o.next || dup {
		// No place in the order (an in-memory engine's groups: -1), or
		// one it has had: forwarded as it comes.
		return o.sink(rank, batches)
	}
	if !o.arrival && rank != o.next {
		n := batchesBytes(batches)
		if o.bytes+n <= o.limit {
			for _, b := range batches {
				b.Retain()
			}
			o.held[rank] = batches
			o.bytes += n
			return nil
		}
		// Holding more would grow with the table: from here on, arrival
		// order. What is held goes with this output, in rank order.
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
		delete(o.held, o.next)
		o.bytes -= batchesBytes(bs)
		err := o.sink(o.next, bs)
		release(bs)
		if err != nil {
			return err
		}
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
		bs := o.held[r]
		delete(o.held, r)
		o.bytes -= batchesBytes(bs)
		err := o.sink(r, bs)
		release(bs)
		if err != nil {
			return err
		}
	}
	return nil
}

// Release drops what is still held (an execution that ended early: a
// LIMIT met, an error, a cancel). Call it once Run has returned.
func (o *InOrder) Release() {
	o.mu.Lock()
	defer o.mu.Unlock()
	for r, bs := range o.held {
		release(bs)
		delete(o.held, r)
	}
	o.bytes = 0
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
