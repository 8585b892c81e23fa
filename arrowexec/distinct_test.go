package arrowexec

import (
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"vitess.io/vitess/go/sqltypes"
)

// TestDistinctGroups: a batch marked as distinct groups for the merge's
// key collations merges to what the same batch unmarked does; a mark for
// other collations is ignored (the rows are hashed, and equal keys meet);
// after a marked batch no other input is taken.
func TestDistinctGroups(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{field("g", tInt, ""), field("k", tStr, ""), field("n", tInt, ""), field("s", tDec(12, 2), "")}, nil)
	keys := []KeySpec{{}, {Collation: generalCI}}
	aggs := []AggSpec{{Kind: AggCount}, {Kind: AggSum}}
	distinct := [][]sqltypes.Value{
		row(i64(1), str("a"), i64(3), dec("1.50")),
		row(i64(1), str("b"), i64(1), sqltypes.NULL),
		row(i64(2), str("a"), i64(2), dec("-0.25")),
		row(sqltypes.NULL, str("a"), i64(5), dec("10.00")),
		row(i64(1), sqltypes.NULL, i64(4), dec("0.01")),
	}
	// Distinct as bytes, not under utf8mb4_general_ci: 'a' and 'A ' meet.
	bytewise := append(slices.Clone(distinct), row(i64(1), str("A "), i64(7), dec("2.00")))

	merge := func(t *testing.T, rows [][]sqltypes.Value, markAs []KeySpec) ([]string, *HashAgg) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		t.Cleanup(func() { mem.AssertSize(t, 0) })
		h := NewHashAgg(mem, nil, keys, aggs, 0)
		t.Cleanup(h.Release)
		rec := batch(t, mem, schema, rows...)
		defer rec.Release()
		in := rec
		if markAs != nil {
			in = MarkDistinctGroups(rec, markAs)
			defer in.Release()
		}
		if err := h.AddRanked(in, 0); err != nil {
			t.Fatal(err)
		}
		got, err := h.Rows()
		if err != nil {
			t.Fatal(err)
		}
		return render(got), h
	}

	want, _ := merge(t, distinct, nil)
	got, h := merge(t, distinct, keys)
	if !slices.Equal(got, want) {
		t.Errorf("marked batch merged to\n  %s\nunmarked to\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	if !h.whole || len(h.groups) != 0 {
		t.Errorf("marked batch: whole=%v, %d map entries; want the groups opened without the map", h.whole, len(h.groups))
	}
	other := batch(t, memory.DefaultAllocator, schema, distinct[0])
	defer other.Release()
	if err := h.Add(other); err == nil || !strings.Contains(err.Error(), "whole input") {
		t.Errorf("input after a marked batch: %v, want an error", err)
	}

	// A mark for byte comparison does not match the merge's general_ci
	// key: ignored, so 'a' and 'A ' still form one group.
	wantMerged, _ := merge(t, bytewise, nil)
	gotMerged, h2 := merge(t, bytewise, []KeySpec{{}, {}})
	if !slices.Equal(gotMerged, wantMerged) || h2.whole {
		t.Errorf("mismatched mark: got\n  %s\nwant\n  %s (whole=%v)", strings.Join(gotMerged, "\n  "), strings.Join(wantMerged, "\n  "), h2.whole)
	}
	if len(wantMerged) != len(distinct) {
		t.Errorf("unmarked merge of %d rows gave %d groups, want %d ('a' and 'A ' meet)", len(bytewise), len(wantMerged), len(distinct))
	}
}
