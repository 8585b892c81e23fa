package arrowexec

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"vitess.io/vitess/go/mysql/collations"
)

func TestConcatAggregate(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "v", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 1, 1, 2, 3}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"b", "C", "a", "", "x"}, []bool{true, true, true, false, true})
	rec := b.NewRecordBatch()
	defer rec.Release()
	cases := []struct {
		spec AggSpec
		want map[string]string
	}{
		{AggSpec{Kind: AggConcat, Collation: 45, Sep: ","}, map[string]string{"1": "a,b,C", "2": "NULL", "3": "x"}},
		{AggSpec{Kind: AggConcat, Collation: 45, Sep: "|", Desc: true}, map[string]string{"1": "C|b|a", "2": "NULL", "3": "x"}},
		{AggSpec{Kind: AggConcat, Sep: ","}, map[string]string{"1": "C,a,b", "2": "NULL", "3": "x"}}, // binary order
		{AggSpec{Kind: AggConcat, Collation: 45, Sep: ",", MaxLen: 3}, map[string]string{"1": "a,b", "2": "NULL", "3": "x"}},
	}
	for _, c := range cases {
		h := NewHashAgg(mem, collations.MySQL8(), []KeySpec{{}}, []AggSpec{c.spec}, 1<<20)
		if err := h.Add(rec); err != nil {
			t.Fatal(err)
		}
		rows, err := h.Rows()
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			got := r[1].ToString()
			if r[1].IsNull() {
				got = "NULL"
			}
			if w := c.want[r[0].ToString()]; got != w {
				t.Errorf("%+v key %s: got %q want %q", c.spec, r[0].ToString(), got, w)
			}
		}
		h.Release()
	}
}
