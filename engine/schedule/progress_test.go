package schedule

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/shoaldb/shoal/observe"
)

// TestProgress: the scheduler's sink, wrapped, counts each fragment once
// its output is merged, with its rows and bytes; an output the merge
// refused is not counted; without an activity the sink is left alone.
func TestProgress(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	batch := func(n int) arrow.RecordBatch {
		b := array.NewInt64Builder(mem)
		defer b.Release()
		for i := range n {
			b.Append(int64(i))
		}
		col := b.NewArray()
		defer col.Release()
		return array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil), []arrow.Array{col}, int64(n))
	}
	b1, b2 := batch(10), batch(5)
	defer b1.Release()
	defer b2.Release()

	act := observe.NewActivity(1, "q")
	ctx := observe.WithActivity(context.Background(), act)
	refuse := errors.New("merge memory limit")
	calls := 0
	sink := progress(ctx, 8, func(_ int, bs []arrow.RecordBatch) error {
		calls++
		if calls == 2 {
			return refuse
		}
		return nil
	})
	if err := sink(0, []arrow.RecordBatch{b1, b2}); err != nil {
		t.Fatal(err)
	}
	if err := sink(0, []arrow.RecordBatch{b1}); !errors.Is(err, refuse) {
		t.Fatalf("the merge's error was lost: %v", err)
	}
	if act.Total.Load() != 8 || act.Done.Load() != 1 || act.Rows.Load() != 15 || act.Bytes.Load() < 15*8 {
		t.Errorf("total %d done %d rows %d bytes %d", act.Total.Load(), act.Done.Load(), act.Rows.Load(), act.Bytes.Load())
	}

	plain := 0
	bare := progress(context.Background(), 8, func(int, []arrow.RecordBatch) error { plain++; return nil })
	if err := bare(0, nil); err != nil || plain != 1 {
		t.Errorf("sink without an activity: %v, %d calls", err, plain)
	}
}
