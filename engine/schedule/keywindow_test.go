package schedule

import (
	"testing"

	"github.com/shoaldb/shoal/planner"
	"github.com/shoaldb/shoal/pushdown"
)

func TestClipToKeys(t *testing.T) {
	i64 := func(v int64) *int64 { return &v }
	tbl := &planner.Table{Min: 1, Max: 1000, Rows: 2000}
	// Half the rows are in [1, 100], the rest spread over (100, 1000].
	sample := &pushdown.KeySample{Bounds: []int64{1, 101, 1001}, Rows: []float64{1000, 1000}}
	for _, tc := range []struct {
		name     string
		lo, hi   *int64
		s        *pushdown.KeySample
		wlo, whi int64
		rows     int64
		sampled  bool
	}{
		{"width, both bounds", i64(101), i64(550), nil, 101, 550, 900, false},
		{"width, open above", i64(901), nil, nil, 901, 1000, 200, false},
		{"bounds beyond the table", i64(-50), i64(5000), nil, 1, 1000, 2000, false},
		{"sample, dense part", i64(1), i64(50), sample, 1, 50, 500, true},
		{"sample, sparse part", i64(101), i64(550), sample, 101, 550, 500, true},
		{"empty window", i64(2000), i64(3000), nil, 1, 1000, 0, false},
		{"inverted", i64(10), i64(5), sample, 1, 1000, 0, false},
	} {
		w := clipToKeys(&planner.Plan{KeyLo: tc.lo, KeyHi: tc.hi}, tbl, tc.s)
		if w.lo != tc.wlo || w.hi != tc.whi || w.rows != tc.rows || (w.sample != nil) != tc.sampled {
			t.Errorf("%s: window [%d, %d] rows %d sampled %v; want [%d, %d] rows %d sampled %v",
				tc.name, w.lo, w.hi, w.rows, w.sample != nil, tc.wlo, tc.whi, tc.rows, tc.sampled)
		}
	}
}

func TestKeyWindowBoundsRangesForAffinity(t *testing.T) {
	w := &keyWindow{lo: 100, hi: 199}
	ranges := pushdown.Split(w.lo, w.hi, 4, true)
	for _, r := range ranges {
		b := w.bounded(r)
		if r.Null {
			if !b.Null || b.Lo != nil || b.Hi != nil {
				t.Errorf("NULL range became %v", b)
			}
			continue
		}
		if b.Lo == nil || b.Hi == nil || *b.Lo < 100 || *b.Hi > 200 {
			t.Errorf("range %v bounded to %v, want within [100, 200)", r, b)
		}
	}
	if r := (*keyWindow)(nil).bounded(ranges[0]); r.Lo != nil {
		t.Errorf("a nil window changed %v", r)
	}
}
