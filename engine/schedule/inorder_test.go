package schedule

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestInOrder: outputs reach the sink in rank order whatever order they
// complete in; held outputs are retained until forwarded or released; an
// output past the hold limit waits for its turn instead of being held; a
// refused reservation or ToArrival gives order up (what is held first, in
// rank order); an error from the sink and the context's end are returned.
func TestInOrder(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	// out returns rank r's output: one batch of n int64 rows holding r
	// (10 rows are 80 bytes).
	out := func(r, n int) []arrow.RecordBatch {
		b := array.NewInt64Builder(mem)
		defer b.Release()
		for range n {
			b.Append(int64(r))
		}
		col := b.NewArray()
		defer col.Release()
		return []arrow.RecordBatch{array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil), []arrow.Array{col}, int64(n))}
	}
	// recorder is a sink that records the ranks it sees and checks each
	// output holds its rank's rows.
	type recorder struct {
		mu  sync.Mutex
		got []int
	}
	record := func(rec *recorder) Sink {
		return func(rank int, bs []arrow.RecordBatch) error {
			for _, b := range bs {
				if v := b.Column(0).(*array.Int64).Value(0); v != int64(rank) && rank >= 0 {
					t.Errorf("rank %d got rank %d's rows", rank, v)
				}
			}
			rec.mu.Lock()
			rec.got = append(rec.got, rank)
			rec.mu.Unlock()
			return nil
		}
	}
	// feed hands the outputs of ranks to o as the scheduler does: the
	// output is released once the sink returns.
	feed := func(o *InOrder, ranks ...int) error {
		for _, r := range ranks {
			bs := out(r, 10)
			err := o.Sink(r, bs)
			release(bs)
			if err != nil {
				return err
			}
		}
		return nil
	}
	// settle gives a goroutine time to reach its wait.
	settle := func() { time.Sleep(50 * time.Millisecond) }

	for _, tc := range []struct {
		name   string
		arrive []int // completion order of the ranks, one goroutine
		want   []int // ranks as the sink sees them
		held   int   // outputs still held at the end
	}{
		{"in order", []int{0, 1, 2, 3}, []int{0, 1, 2, 3}, 0},
		{"reversed", []int{3, 2, 1, 0}, []int{0, 1, 2, 3}, 0},
		{"interleaved", []int{1, 0, 3, 4, 2, 5}, []int{0, 1, 2, 3, 4, 5}, 0},
		{"missing first", []int{2, 1, 3}, nil, 3},
		{"no rank", []int{-1, 1, -1, 0, -1}, []int{-1, -1, 0, 1, -1}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{}
			o := NewInOrder(context.Background(), 1<<20, record(rec))
			if err := feed(o, tc.arrive...); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(rec.got, tc.want) {
				t.Errorf("sink saw %v, want %v", rec.got, tc.want)
			}
			if n, _ := o.Held(); n != tc.held {
				t.Errorf("%d held, want %d", n, tc.held)
			}
			o.Release()
			if n, b := o.Held(); n != 0 || b != 0 {
				t.Errorf("after Release: %d held, %d bytes", n, b)
			}
		})
	}

	// Past the hold limit an output waits for its turn (back-pressure):
	// with room for two outputs, rank 2 waits while 3 and 1 are held,
	// and goes once 0 and 1 have.
	t.Run("past the limit waits", func(t *testing.T) {
		rec := &recorder{}
		o := NewInOrder(context.Background(), 200, record(rec))
		defer o.Release()
		if err := feed(o, 3, 1); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- feed(o, 2) }()
		settle()
		select {
		case err := <-done:
			t.Fatalf("rank 2 did not wait: %v", err)
		default:
		}
		if err := feed(o, 0); err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(rec.got, []int{0, 1, 2, 3}) {
			t.Errorf("sink saw %v", rec.got)
		}
	})

	t.Run("waiting ends with the context", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		o := NewInOrder(ctx, 50, record(&recorder{}))
		defer o.Release()
		done := make(chan error, 1)
		go func() { done <- feed(o, 1) }()
		settle()
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("waiting output ended with %v", err)
		}
	})

	// Accounted: held bytes are reserved and given back; ToArrival
	// forwards what is held in rank order; a refused reservation gives
	// order up.
	t.Run("accounted", func(t *testing.T) {
		var mu sync.Mutex
		var used int64
		room := int64(1 << 20)
		account := func(o *InOrder) {
			o.Account(func(n int64) bool {
				mu.Lock()
				defer mu.Unlock()
				if used+n > room {
					return false
				}
				used += n
				return true
			}, func(n int64) {
				mu.Lock()
				used -= n
				mu.Unlock()
			})
		}
		rec := &recorder{}
		o := NewInOrder(context.Background(), 1<<20, record(rec))
		account(o)
		if err := feed(o, 2, 1); err != nil {
			t.Fatal(err)
		}
		if _, b := o.Held(); used != b || b == 0 {
			t.Errorf("held %d bytes, %d reserved", b, used)
		}
		o.ToArrival()
		if used != 0 || !slices.Equal(rec.got, []int{1, 2}) {
			t.Errorf("after ToArrival: %d reserved, sink saw %v", used, rec.got)
		}
		if err := feed(o, 4, 0, 3); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(rec.got, []int{1, 2, 4, 0, 3}) {
			t.Errorf("in arrival order: sink saw %v", rec.got)
		}
		o.Release()

		rec = &recorder{}
		used, room = 0, 100 // one output of 80 bytes fits
		o = NewInOrder(context.Background(), 1<<20, record(rec))
		account(o)
		if err := feed(o, 1, 2, 0, 3); err != nil {
			t.Fatal(err)
		}
		if used != 0 || !slices.Equal(rec.got, []int{1, 2, 0, 3}) {
			t.Errorf("budget for one output: %d reserved, sink saw %v", used, rec.got)
		}
		o.Release()
	})

	t.Run("sink error", func(t *testing.T) {
		stop := errors.New("client gone")
		o := NewInOrder(context.Background(), 1<<20, func(rank int, _ []arrow.RecordBatch) error {
			if rank == 1 {
				return stop
			}
			return nil
		})
		defer o.Release()
		if err := feed(o, 2, 1); err != nil {
			t.Fatal(err)
		}
		if err := feed(o, 0); !errors.Is(err, stop) {
			t.Errorf("the held rank 1's error was lost: %v", err)
		}
		if err := feed(o, 3); !errors.Is(err, stop) {
			t.Errorf("an output after the error: %v", err)
		}
		if n, _ := o.Held(); n != 0 {
			t.Errorf("%d outputs held after the error", n)
		}
	})
}
