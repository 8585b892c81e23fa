package pushdown

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSplitCoversEveryKey checks that every key, including keys outside the
// planning bounds, falls into exactly one range: for key-width splits,
// for splits at arbitrary (even unsorted or repeated) cuts and for splits
// at a sample's quantiles.
func TestSplitCoversEveryKey(t *testing.T) {
	cases := []struct {
		min, max int64
		n        int
	}{
		{1, 100, 7}, {1, 1, 4}, {-50, 50, 3}, {0, 5, 10}, {10, 2, 3}, {1, 1 << 40, 16},
		{-1 << 62, 1 << 62, 5}, {math.MinInt64, math.MaxInt64, 9},
	}
	for _, c := range cases {
		rs := Split(c.min, c.max, c.n, false)
		checkCovers(t, fmt.Sprintf("Split%v", c), rs, c.min, c.max)
		if len(rs) > c.n {
			t.Errorf("Split%v: %d ranges, want at most %d", c, len(rs), c.n)
		}
		// A sample with holes and dense spots over the same bounds.
		rng := rand.New(rand.NewPCG(uint64(c.n), 7))
		if ps := Probes(c.min, c.max, 32); ps != nil {
			s := &KeySample{Bounds: ps, Rows: make([]float64, len(ps)-1)}
			for i := range s.Rows {
				if rng.IntN(4) > 0 {
					s.Rows[i] = float64(rng.IntN(1000))
				}
			}
			checkCovers(t, fmt.Sprintf("SplitSample%v", c), SplitSample(s, c.n, false), c.min, c.max)
		}
	}
	// Random cuts: unsorted, repeated, at the extremes of int64.
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 500 {
		cuts := make([]int64, rng.IntN(12))
		for i := range cuts {
			switch rng.IntN(6) {
			case 0:
				cuts[i] = math.MinInt64 + rng.Int64N(3)
			case 1:
				cuts[i] = math.MaxInt64 - rng.Int64N(3)
			case 2:
				if i > 0 {
					cuts[i] = cuts[i-1] // repeated
					break
				}
				fallthrough
			default:
				cuts[i] = rng.Int64N(200) - 100
			}
		}
		if iter%2 == 0 {
			slices.Sort(cuts)
		}
		rs := SplitAt(cuts, iter%3 == 0)
		checkCovers(t, fmt.Sprintf("SplitAt(%v)", cuts), rs, -100, 100)
		if iter%3 == 0 && !rs[len(rs)-1].Null {
			t.Errorf("SplitAt(%v, nullable): no NULL range last", cuts)
		}
	}
}

// checkCovers probes keys around the bounds, every range boundary and the
// ends of int64: each must be in exactly one non-NULL range, and at most
// one NULL range may exist.
func checkCovers(t *testing.T, what string, rs []Range, min, max int64) {
	t.Helper()
	if len(rs) < 1 {
		t.Fatalf("%s: no ranges", what)
	}
	probe := []int64{min - 1000, min - 1, min, min + 1, max - 1, max, max + 1, max + 1000, min/2 + max/2,
		math.MinInt64, math.MinInt64 + 1, math.MaxInt64, math.MaxInt64 - 1}
	nulls := 0
	for _, r := range rs {
		if r.Null {
			nulls++
			continue
		}
		if r.Lo != nil {
			probe = append(probe, *r.Lo-1, *r.Lo, *r.Lo+1)
		}
		if r.Lo != nil && r.Hi != nil && *r.Lo >= *r.Hi {
			t.Errorf("%s: empty range %v", what, r)
		}
	}
	if nulls > 1 {
		t.Errorf("%s: %d NULL ranges", what, nulls)
	}
	for _, k := range probe {
		hits := 0
		for _, r := range rs {
			if !r.Null && (r.Lo == nil || k >= *r.Lo) && (r.Hi == nil || k < *r.Hi) {
				hits++
			}
		}
		if hits != 1 {
			t.Errorf("%s: key %d in %d ranges (%v)", what, k, hits, rs)
		}
	}
}

func TestPredicate(t *testing.T) {
	lo, hi := int64(10), int64(20)
	cases := []struct {
		r    Range
		want string
	}{
		{Range{Lo: &lo, Hi: &hi}, "(`t`.`id` >= 10 AND `t`.`id` < 20)"},
		{Range{Hi: &hi}, "(`t`.`id` < 20)"},
		{Range{Lo: &lo}, "(`t`.`id` >= 10)"},
		{Range{}, "(`t`.`id` IS NOT NULL)"},
		{Range{Null: true}, "(`t`.`id` IS NULL)"},
	}
	for _, c := range cases {
		if got := Predicate("`t`.`id`", c.r); got != c.want {
			t.Errorf("%v: got %s want %s", c.r, got, c.want)
		}
	}
}
