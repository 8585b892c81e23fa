package arrowexec

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"vitess.io/vitess/go/mysql/collations"
)

// TestAddRankedKeepsLowestRankSpelling: keys equal under a
// case-insensitive collation show the spelling of the lowest-ranked
// input (the first fragment in key order), whatever order the fragments
// arrive in; their partial counts still merge into one group.
func TestAddRankedKeepsLowestRankSpelling(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.BinaryTypes.String}, {Name: "n", Type: arrow.PrimitiveTypes.Int64}}, nil)
	batch := func(key string, n int64) arrow.RecordBatch {
		b := array.NewRecordBuilder(mem, schema)
		defer b.Release()
		b.Field(0).(*array.StringBuilder).Append(key)
		b.Field(1).(*array.Int64Builder).Append(n)
		return b.NewRecordBatch()
	}
	for _, order := range [][]int{{0, 1, 2}, {2, 1, 0}, {1, 2, 0}, {2, 0, 1}} {
		spell := []string{"Alice", "ALICE", "alice"} // by rank
		h := NewHashAgg(mem, nil, []KeySpec{{Collation: collations.ID(45)}}, []AggSpec{{Kind: AggCount}}, 0)
		for _, rank := range order {
			rec := batch(spell[rank], int64(rank+1))
			if err := h.AddRanked(rec, rank); err != nil {
				t.Fatal(err)
			}
			rec.Release()
		}
		rows, err := h.Rows()
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 1 || rows[0][0].ToString() != "Alice" || rows[0][1].ToString() != "6" {
			t.Errorf("arrival order %v: %v, want [Alice 6]", order, rows)
		}
		h.Release()
	}
}

// TestAddRankedMinMaxTies: MIN and MAX of strings equal under the
// collation keep the lowest-ranked input's spelling.
func TestAddRankedMinMaxTies(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{{Name: "min", Type: arrow.BinaryTypes.String}, {Name: "max", Type: arrow.BinaryTypes.String}}, nil)
	for _, order := range [][]int{{0, 1, 2}, {2, 1, 0}, {1, 0, 2}} {
		spell := []string{"ab", "AB", "Ab"}
		h := NewHashAgg(mem, nil, nil, []AggSpec{{Kind: AggMin, Collation: 45}, {Kind: AggMax, Collation: 45}}, 0)
		for _, rank := range order {
			b := array.NewRecordBuilder(mem, schema)
			b.Field(0).(*array.StringBuilder).Append(spell[rank])
			b.Field(1).(*array.StringBuilder).Append(spell[rank])
			rec := b.NewRecordBatch()
			b.Release()
			if err := h.AddRanked(rec, rank); err != nil {
				t.Fatal(err)
			}
			rec.Release()
		}
		rows, err := h.Rows()
		if err != nil {
			t.Fatal(err)
		}
		if got := rows[0][0].ToString() + " " + rows[0][1].ToString(); got != "ab ab" {
			t.Errorf("arrival order %v: MIN, MAX = %s, want ab ab", order, got)
		}
		h.Release()
	}
}
