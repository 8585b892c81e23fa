package pushdown

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

func TestProbes(t *testing.T) {
	cases := []struct {
		min, max int64
		k        int
		want     []int64
	}{
		{1, 100, 4, []int64{1, 26, 51, 76, 101}},
		{1, 1, 4, []int64{1, 2}},
		{0, 2, 8, []int64{0, 1, 2, 3}},
		{5, 4, 4, nil},
		{1, 100, 0, nil},
		{math.MaxInt64, math.MaxInt64, 3, nil},
	}
	for _, c := range cases {
		if got := Probes(c.min, c.max, c.k); !slices.Equal(got, c.want) {
			t.Errorf("Probes(%d, %d, %d) = %v, want %v", c.min, c.max, c.k, got, c.want)
		}
	}
	ps := Probes(math.MinInt64, math.MaxInt64, 7)
	if len(ps) != 8 || ps[0] != math.MinInt64 || ps[7] != math.MaxInt64 || !slices.IsSorted(ps) {
		t.Errorf("Probes over all of int64: %v", ps)
	}
}

func TestKeySampleValid(t *testing.T) {
	cases := []struct {
		s    *KeySample
		want bool
	}{
		{nil, false},
		{&KeySample{Bounds: []int64{1, 5}, Rows: []float64{3}}, true},
		{&KeySample{Bounds: []int64{1, 5}, Rows: []float64{0}}, false},
		{&KeySample{Bounds: []int64{1, 5, 5}, Rows: []float64{1, 1}}, false},
		{&KeySample{Bounds: []int64{1, 5, 9}, Rows: []float64{1}}, false},
		{&KeySample{Bounds: []int64{1, 5}, Rows: []float64{math.NaN()}}, false},
		{&KeySample{Bounds: []int64{1, 5}, Rows: []float64{-1}}, false},
	}
	for i, c := range cases {
		if got := c.s.Valid(); got != c.want {
			t.Errorf("case %d: Valid = %v", i, got)
		}
		if !c.want && len(SplitSample(c.s, 8, false)) != 1 {
			t.Errorf("case %d: an invalid sample must give one range", i)
		}
	}
}

func TestCutsInterpolate(t *testing.T) {
	// 100 rows evenly in [0, 100), none in [100, 1000), 100 in [1000, 1100).
	s := &KeySample{Bounds: []int64{0, 100, 1000, 1100}, Rows: []float64{100, 0, 100}}
	if got, want := s.Cuts(4), []int64{50, 100, 1050}; !slices.Equal(got, want) {
		t.Errorf("Cuts(4) = %v, want %v", got, want)
	}
	// More parts than keys: coinciding cuts are dropped.
	s = &KeySample{Bounds: []int64{10, 12}, Rows: []float64{5}}
	if got, want := s.Cuts(8), []int64{11, 12}; !slices.Equal(got, want) {
		t.Errorf("Cuts(8) over two keys = %v, want %v", got, want)
	}
}

// gappedKeys makes n increasing keys the way gen/rows.go lays out ontime's
// ids: runs of up to 2000 rows, dense or with small or large skips, and now
// and then a big hole between runs.
func gappedKeys(n int, seed uint64) []int64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	keys := make([]int64, 0, n)
	id, left, step := int64(0), 0, 1
	for len(keys) < n {
		if left == 0 {
			left = 1 + rng.IntN(2000)
			switch r := rng.IntN(100); {
			case r < 55:
				step = 1
			case r < 90:
				step = 6
			default:
				step = 50
			}
			if rng.IntN(8) == 0 {
				id += 1000 + rng.Int64N(50_000)
			}
		}
		left--
		id += int64(1 + rng.IntN(step))
		keys = append(keys, id)
	}
	return keys
}

// countIn returns the rows of each range.
func countIn(keys []int64, rs []Range) []int {
	out := make([]int, len(rs))
	for i, r := range rs {
		lo, hi := 0, len(keys)
		if r.Lo != nil {
			lo = sort.Search(len(keys), func(j int) bool { return keys[j] >= *r.Lo })
		}
		if r.Hi != nil {
			hi = sort.Search(len(keys), func(j int) bool { return keys[j] >= *r.Hi })
		}
		out[i] = hi - lo
	}
	return out
}

// exactEstimator counts keys per interval, scaled and disturbed the way
// InnoDB's range estimates are: about 2x the rows, ±15% noise per
// interval, small ranges estimated lower than large ones, and no range
// estimated above half the table.
func exactEstimator(keys []int64, seed uint64, calls, intervals *int) Estimator {
	rng := rand.New(rand.NewPCG(seed, 9))
	return func(iv [][2]int64) ([]float64, error) {
		*calls++
		*intervals += len(iv)
		out := make([]float64, len(iv))
		for i, r := range iv {
			lo := sort.Search(len(keys), func(j int) bool { return keys[j] >= r[0] })
			hi := sort.Search(len(keys), func(j int) bool { return keys[j] >= r[1] })
			n := float64(hi - lo)
			scale := 2.1
			if n < 5000 {
				scale = 1.6 // a few pages: read, not extrapolated
			}
			out[i] = scale * n * (0.85 + 0.3*rng.Float64())
			out[i] = min(out[i], float64(len(keys))/2) // InnoDB's cap: half the table's rows
		}
		return out, nil
	}
}

// TestSplitSampleBalancesGappedKeys: on ontime-like gapped keys, ranges cut
// at a sample's quantiles hold about equal rows, where equal key widths do
// not, with estimates that are only proportional to rows, noisy, and not
// on the same scale for small and large ranges.
func TestSplitSampleBalancesGappedKeys(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		keys := gappedKeys(1_000_000, seed)
		min, max := keys[0], keys[len(keys)-1]
		for _, n := range []int{4, 16, 64} {
			var calls, intervals int
			o := OptionsFor(n)
			s, err := Sample(min, max, o, exactEstimator(keys, seed, &calls, &intervals))
			if err != nil {
				t.Fatal(err)
			}
			if intervals > o.Budget || calls > o.Rounds {
				t.Errorf("seed %d: %d intervals in %d calls, budget %d in %d", seed, intervals, calls, o.Budget, o.Rounds)
			}
			width := skew(countIn(keys, Split(min, max, n, false)))
			sampled := skew(countIn(keys, SplitSample(s, n, false)))
			t.Logf("seed %d, %d ranges: max/median rows %.2f by key width, %.2f by sample (%d intervals in %d calls)",
				seed, n, width, sampled, intervals, calls)
			if sampled > 1.3 {
				t.Errorf("seed %d, %d ranges: max/median rows %.2f by sample, want <= 1.3", seed, n, sampled)
			}
		}
	}
}

// TestSampleFindsConcentratedKeys: nearly all rows in a sliver of the key
// space (ids that jumped by a billion once) still give equal ranges:
// refining rounds spend the probes where the rows are.
func TestSampleFindsConcentratedKeys(t *testing.T) {
	keys := gappedKeys(200_000, 5)
	for i := 1000; i < len(keys); i++ {
		keys[i] += 1 << 40
	}
	var calls, intervals int
	s, err := Sample(keys[0], keys[len(keys)-1], OptionsFor(16), exactEstimator(keys, 5, &calls, &intervals))
	if err != nil {
		t.Fatal(err)
	}
	counts := countIn(keys, SplitSample(s, 16, false))
	if sk := skew(counts); sk > 1.3 || len(counts) < 15 {
		t.Errorf("concentrated keys: %d ranges, max/median %.2f (%v)", len(counts), sk, counts)
	}
}

func TestSampleSmallAndEmpty(t *testing.T) {
	var calls, intervals int
	keys := []int64{5, 6, 7}
	s, err := Sample(5, 7, SampleOptions{}, exactEstimator(keys, 1, &calls, &intervals))
	if err != nil || !s.Valid() || len(s.Rows) != 3 {
		t.Fatalf("three keys: %+v, %v", s, err)
	}
	if s, err := Sample(7, 5, SampleOptions{}, exactEstimator(keys, 1, &calls, &intervals)); s != nil || err != nil {
		t.Errorf("max < min: %+v, %v", s, err)
	}
	bad := func([][2]int64) ([]float64, error) { return []float64{1}, nil }
	if _, err := Sample(1, 100, SampleOptions{}, bad); err == nil {
		t.Error("an estimator answering the wrong number of intervals must fail the sample")
	}
}

// skew is the largest count over the median: the fragment-time p100/p50 a
// scan of these ranges would show.
func skew(counts []int) float64 {
	s := slices.Sorted(slices.Values(counts))
	return float64(s[len(s)-1]) / float64(max(s[len(s)/2], 1))
}

func TestKeySampleClip(t *testing.T) {
	s := &KeySample{Bounds: []int64{0, 100, 200, 1000}, Rows: []float64{50, 0, 800}}
	for _, tc := range []struct {
		lo, hi int64
		bounds []int64
		rows   []float64
		valid  bool
	}{
		{-10, 5000, []int64{0, 100, 200, 1000}, []float64{50, 0, 800}, true},
		{50, 149, []int64{50, 100, 150}, []float64{25, 0}, true},
		{100, 199, []int64{100, 200}, []float64{0}, false}, // a hole
		{600, 999, []int64{600, 1000}, []float64{400}, true},
		{2000, 3000, nil, nil, false},
		{10, 5, nil, nil, false},
	} {
		c := s.Clip(tc.lo, tc.hi)
		if !slices.Equal(c.Bounds, tc.bounds) || !slices.Equal(c.Rows, tc.rows) || c.Valid() != tc.valid {
			t.Errorf("Clip(%d, %d) = %v %v valid %v; want %v %v valid %v", tc.lo, tc.hi, c.Bounds, c.Rows, c.Valid(), tc.bounds, tc.rows, tc.valid)
		}
	}
	// Cuts of a clipped sample stay inside the window.
	for _, c := range s.Clip(600, 999).Cuts(4) {
		if c <= 600 || c > 999 {
			t.Errorf("cut %d outside [600, 999]", c)
		}
	}
}
