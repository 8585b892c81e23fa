package schedule

import (
	"errors"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestInOrder: outputs reach the sink in rank order whatever order they
// complete in; held outputs are retained until forwarded or released;
// past the byte limit everything is forwarded as it arrives, the held
// outputs first in rank order; an error from the sink is returned.
func TestInOrder(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	// out returns rank r's output: one batch of n int64 rows holding r.
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
	for _, tc := range []struct {
		name   string
		limit  int64
		arrive []int // completion order of the ranks
		want   []int // ranks as the sink sees them
		held   int   // outputs still held at the end
	}{
		{"in order", 1 << 20, []int{0, 1, 2, 3}, []int{0, 1, 2, 3}, 0},
		{"reversed", 1 << 20, []int{3, 2, 1, 0}, []int{0, 1, 2, 3}, 0},
		{"interleaved", 1 << 20, []int{1, 0, 3, 4, 2, 5}, []int{0, 1, 2, 3, 4, 5}, 0},
		{"missing first", 1 << 20, []int{2, 1, 3}, nil, 3},
		// 10 rows of int64 are 80 bytes: two held outputs fit in 200, the
		// third does not.
		{"past the limit", 200, []int{3, 1, 2, 4, 0, 5}, []int{1, 2, 3, 4, 0, 5}, 0},
		{"one too large", 50, []int{1, 0, 2}, []int{1, 0, 2}, 0},
		{"no rank", 1 << 20, []int{-1, 1, -1, 0, -1}, []int{-1, -1, 0, 1, -1}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []int
			o := NewInOrder(tc.limit, func(rank int, bs []arrow.RecordBatch) error {
				for _, b := range bs {
					if v := b.Column(0).(*array.Int64).Value(0); v != int64(rank) && rank >= 0 {
						t.Errorf("rank %d got rank %d's rows", rank, v)
					}
				}
				got = append(got, rank)
				return nil
			})
			for _, r := range tc.arrive {
				bs := out(r, 10)
				if err := o.Sink(r, bs); err != nil {
					t.Fatal(err)
				}
				release(bs) // the scheduler's release after the sink returns
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("sink saw %v, want %v", got, tc.want)
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

	// Accounted: held bytes are reserved and given back; a refused
	// reservation forwards instead of holding; ToArrival (the budget's
	// pressure) forwards what is held in rank order.
	t.Run("accounted", func(t *testing.T) {
		var got []int
		var used int64
		room := int64(1 << 20)
		o := NewInOrder(1<<20, func(rank int, _ []arrow.RecordBatch) error {
			got = append(got, rank)
			return nil
		})
		o.Account(func(n int64) bool {
			if used+n > room {
				return false
			}
			used += n
			return true
		}, func(n int64) { used -= n })
		feed := func(ranks ...int) {
			for _, r := range ranks {
				bs := out(r, 10)
				if err := o.Sink(r, bs); err != nil {
					t.Fatal(err)
				}
				release(bs)
			}
		}
		feed(2, 1)
		if _, b := o.Held(); used != b || b == 0 {
			t.Errorf("held %d bytes, %d reserved", b, used)
		}
		o.ToArrival()
		if used != 0 || !slices.Equal(got, []int{1, 2}) {
			t.Errorf("after ToArrival: %d reserved, sink saw %v", used, got)
		}
		feed(4, 0, 3)
		if !slices.Equal(got, []int{1, 2, 4, 0, 3}) {
			t.Errorf("in arrival order: sink saw %v", got)
		}

		got, used, room = nil, 0, 100 // one output of 80 bytes fits
		o = NewInOrder(1<<20, func(rank int, _ []arrow.RecordBatch) error {
			got = append(got, rank)
			return nil
		})
		o.Account(func(n int64) bool {
			if used+n > room {
				return false
			}
			used += n
			return true
		}, func(n int64) { used -= n })
		feed(1, 2, 0, 3)
		if used != 0 || !slices.Equal(got, []int{1, 2, 0, 3}) {
			t.Errorf("budget for one output: %d reserved, sink saw %v", used, got)
		}
		o.Release()
	})

	t.Run("sink error", func(t *testing.T) {
		stop := errors.New("client gone")
		o := NewInOrder(1<<20, func(rank int, _ []arrow.RecordBatch) error {
			if rank == 1 {
				return stop
			}
			return nil
		})
		defer o.Release()
		for _, r := range []int{2, 1, 0} {
			bs := out(r, 3)
			err := o.Sink(r, bs)
			release(bs)
			if r == 0 && !errors.Is(err, stop) {
				t.Errorf("the held rank 1's error was lost: %v", err)
			}
		}
	})
}
