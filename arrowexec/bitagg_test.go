package arrowexec

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"vitess.io/vitess/go/mysql/collations"
)

func TestBitAggregates(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	env := collations.MySQL8()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "and", Type: arrow.PrimitiveTypes.Uint64, Nullable: true},
		{Name: "or", Type: arrow.PrimitiveTypes.Uint64, Nullable: true},
		{Name: "xor", Type: arrow.PrimitiveTypes.Uint64, Nullable: true},
	}, nil)
	batch := func(keys []int64, and, or, xor []uint64) arrow.RecordBatch {
		b := array.NewRecordBuilder(mem, schema)
		defer b.Release()
		b.Field(0).(*array.Int64Builder).AppendValues(keys, nil)
		b.Field(1).(*array.Uint64Builder).AppendValues(and, nil)
		b.Field(2).(*array.Uint64Builder).AppendValues(or, nil)
		b.Field(3).(*array.Uint64Builder).AppendValues(xor, nil)
		return b.NewRecordBatch()
	}
	h := NewHashAgg(mem, env, []KeySpec{{}}, []AggSpec{{Kind: AggBitAnd}, {Kind: AggBitOr}, {Kind: AggBitXor}}, 1<<20)
	defer h.Release()
	for _, rec := range []arrow.RecordBatch{
		batch([]int64{1, 2}, []uint64{0b1110, 0b1}, []uint64{0b0001, 0b1}, []uint64{0b0110, 0b1}),
		batch([]int64{1, 2}, []uint64{0b0111, 0b1}, []uint64{0b1000, 0b10}, []uint64{0b0011, 0b1}),
	} {
		if err := h.Add(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	rows, err := h.Rows()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][3]string{"1": {"6", "9", "5"}, "2": {"1", "3", "0"}}
	for _, r := range rows {
		w := want[r[0].ToString()]
		for i := 0; i < 3; i++ {
			if got := r[1+i].ToString(); got != w[i] {
				t.Errorf("key %s agg %d: got %s want %s", r[0].ToString(), i, got, w[i])
			}
		}
	}
	// No input and no keys: the neutral elements, as MySQL returns them.
	empty := NewHashAgg(mem, env, nil, []AggSpec{{Kind: AggBitAnd}, {Kind: AggBitOr}, {Kind: AggBitXor}}, 1<<20)
	defer empty.Release()
	rows, err = empty.Rows()
	if err != nil || len(rows) != 1 || rows[0][0].ToString() != "18446744073709551615" || rows[0][1].ToString() != "0" || rows[0][2].ToString() != "0" {
		t.Fatalf("empty: %v %v", rows, err)
	}
}
