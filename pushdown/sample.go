package pushdown

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// KeySample estimates how a table's rows spread over its split key: about
// Rows[i] rows have a key in [Bounds[i], Bounds[i+1]). Only proportions
// matter, so Rows may be any estimate that is proportional to row counts
// (InnoDB's range estimates are; see engine/catalog/sample.go). A key range
// with no rows (a hole in the keys) has a zero or tiny weight, a densely
// filled one a large weight, so cutting at the sample's quantiles gives
// fragments of about equal rows whatever the key density.
//
// A KeySample is immutable once built; share it freely.
type KeySample struct {
	Bounds []int64
	Rows   []float64
}

// Probes returns the interval bounds to sample [min, max] at: k+1
// increasing points from min to max+1, evenly spaced (fewer when the key
// space holds fewer than k keys). Nil when max < min or k < 1.
func Probes(min, max int64, k int) []int64 {
	if max < min || k < 1 {
		return nil
	}
	if max == math.MaxInt64 {
		max-- // max+1 must exist; the last key is in the open last range anyway
		if max < min {
			return nil
		}
	}
	width := uint64(max-min) + 1 // keys in [min, max]: at most 2^64-1
	if uint64(k) > width {
		k = int(width)
	}
	out := make([]int64, 0, k+1)
	for i := 0; i <= k; i++ {
		// min + width*i/k without overflowing: width < 2^64, i <= k.
		q := mulDiv(width, uint64(i), uint64(k))
		out = append(out, min+int64(q))
	}
	return out
}

// Valid reports whether s can place cuts: bounds increasing, one weight
// per interval, no negative or NaN weight, and some rows.
func (s *KeySample) Valid() bool {
	if s == nil || len(s.Bounds) < 2 || len(s.Rows) != len(s.Bounds)-1 {
		return false
	}
	total := 0.0
	for i, r := range s.Rows {
		if !(r >= 0) || math.IsInf(r, 0) || s.Bounds[i+1] <= s.Bounds[i] {
			return false
		}
		total += r
	}
	return total > 0
}

// Total is the estimated row count of the sample (in its units).
func (s *KeySample) Total() float64 {
	t := 0.0
	for _, r := range s.Rows {
		t += r
	}
	return t
}

// Cuts returns up to n-1 increasing boundaries that divide the sampled
// rows into n parts of about equal weight, assuming rows spread evenly
// inside each sampled interval. Boundaries that would coincide are
// dropped, so fewer parts come back when the key space is too narrow. Nil
// for an invalid sample or n < 2.
func (s *KeySample) Cuts(n int) []int64 {
	if n < 2 || !s.Valid() {
		return nil
	}
	total := s.Total()
	cuts := make([]int64, 0, n-1)
	i, before := 0, 0.0 // interval i and the weight of the intervals before it
	for j := 1; j < n; j++ {
		target := total * float64(j) / float64(n)
		for i < len(s.Rows)-1 && before+s.Rows[i] < target {
			before += s.Rows[i]
			i++
		}
		lo, hi := s.Bounds[i], s.Bounds[i+1]
		frac := 1.0
		if s.Rows[i] > 0 {
			frac = min(max((target-before)/s.Rows[i], 0), 1)
		}
		width := uint64(hi - lo)
		off := uint64(math.Round(frac * float64(width)))
		off = min(off, width)
		c := lo + int64(off)
		if c <= s.Bounds[0] || len(cuts) > 0 && c <= cuts[len(cuts)-1] {
			continue
		}
		cuts = append(cuts, c)
	}
	return cuts
}

// SplitSample cuts the key space into about n ranges of equal estimated
// rows (Cuts), the first open below and the last open above; with an
// invalid sample it returns one range. When nullable is true a NULL range
// is added.
func SplitSample(s *KeySample, n int, nullable bool) []Range {
	return SplitAt(s.Cuts(n), nullable)
}

// mulDiv returns a*b/c for b <= c, c > 0, without overflow.
func mulDiv(a, b, c uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	q, _ := bits.Div64(hi, lo, c)
	return q
}

// Estimator returns, for each interval [bounds[i], bounds[i+1]), a number
// proportional to the rows with a key in it. It is the sampler's only
// access to the data (engine/catalog/sample.go asks InnoDB).
type Estimator func(bounds [][2]int64) ([]float64, error)

// SampleOptions bounds the work of Sample.
type SampleOptions struct {
	// Initial is the number of evenly spaced intervals of the first round
	// (default 64).
	Initial int
	// Budget is the most intervals estimated in all (default 512).
	Budget int
	// Finest is the share of all rows an interval may hold before it is
	// halved (default 1/512): the resolution of the cuts.
	Finest float64
	// Rounds bounds the rounds, each one Estimator call (default 12).
	Rounds int
}

// OptionsFor sizes a sample for cutting up to fragments ranges: about 8
// sampled intervals per range (at least 128 and at most 2048 in all), the
// budget twice that.
func OptionsFor(fragments int) SampleOptions {
	k := min(max(8*fragments, 128), 2048)
	return SampleOptions{Initial: 64, Budget: 2 * k, Finest: 1 / float64(k), Rounds: 12}
}

func (o *SampleOptions) defaults() {
	if o.Initial <= 0 {
		o.Initial = 64
	}
	if o.Budget <= 0 {
		o.Budget = 512
	}
	if o.Finest <= 0 {
		o.Finest = 1.0 / 512
	}
	if o.Rounds <= 0 {
		o.Rounds = 12
	}
}

// Sample builds a KeySample of the keys in [lo, hi] from an estimator.
// The first round estimates Initial evenly spaced intervals; each further
// round cuts every interval holding more than Finest of the rows into as
// many equal-width parts as its weight asks for (heaviest first, within
// the budget), so the probes go where the rows are: a hole costs one
// interval, a dense run is cut finely, and the sample's resolution is a
// share of the rows rather than of the key width.
//
// The parts of a cut interval share its estimate, in the proportion they
// were estimated, so an estimator whose scale drifts with the size of the
// range still compares like with like.
func Sample(lo, hi int64, o SampleOptions, est Estimator) (*KeySample, error) {
	o.defaults()
	bounds := Probes(lo, hi, min(o.Initial, o.Budget))
	if bounds == nil {
		return nil, nil
	}
	iv := make([][2]int64, len(bounds)-1)
	for i := range iv {
		iv[i] = [2]int64{bounds[i], bounds[i+1]}
	}
	rows, err := estimate(est, iv)
	if err != nil {
		return nil, err
	}
	s := &KeySample{Bounds: bounds, Rows: rows}
	used := len(iv)
	for round := 1; round < o.Rounds && used+2 <= o.Budget; round++ {
		parts := s.partsWanted(s.Total()*o.Finest, o.Budget-used)
		if parts == nil {
			break
		}
		var sub [][2]int64
		for i, p := range parts {
			if p > 1 {
				for _, b := range pairs(Probes(s.Bounds[i], s.Bounds[i+1]-1, p)) {
					sub = append(sub, b)
				}
			}
		}
		sr, err := estimate(est, sub)
		if err != nil {
			return nil, err
		}
		used += len(sub)
		s = s.refine(parts, sub, sr)
	}
	return s, nil
}

// partsWanted returns, per interval, how many parts to cut it into so that
// none holds more than limit rows (1: leave it), with at most avail parts
// in all; nil when nothing is to be cut. When the budget is short the
// heaviest intervals are served first.
func (s *KeySample) partsWanted(limit float64, avail int) []int {
	type want struct{ i, p int }
	var ws []want
	for i, r := range s.Rows {
		width := uint64(s.Bounds[i+1] - s.Bounds[i])
		if r <= limit || width < 2 {
			continue
		}
		// At most maxParts per round: where rows crowd into a sliver of
		// the interval, the parts that find them are cut again next round
		// instead of spending the budget on empty parts now.
		p := math.Ceil(r / limit)
		p = min(p, maxParts, float64(width), float64(avail))
		ws = append(ws, want{i, int(p)})
	}
	if len(ws) == 0 {
		return nil
	}
	slices.SortStableFunc(ws, func(a, b want) int { return cmp.Compare(s.Rows[b.i], s.Rows[a.i]) })
	need := 0
	for _, w := range ws {
		need += w.p
	}
	if need > avail {
		// Scale every request down, then drop the lightest until it fits.
		f := float64(avail) / float64(need)
		need = 0
		for k := range ws {
			ws[k].p = max(2, int(float64(ws[k].p)*f))
			need += ws[k].p
		}
		for need > avail && len(ws) > 0 {
			need -= ws[len(ws)-1].p
			ws = ws[:len(ws)-1]
		}
		if len(ws) == 0 {
			return nil
		}
	}
	parts := make([]int, len(s.Rows))
	for i := range parts {
		parts[i] = 1
	}
	for _, w := range ws {
		parts[w.i] = w.p
	}
	return parts
}

// maxParts bounds the parts one interval is cut into per round.
const maxParts = 16

// pairs turns increasing points into the intervals between them.
func pairs(ps []int64) [][2]int64 {
	out := make([][2]int64, 0, len(ps))
	for i := 1; i < len(ps); i++ {
		out = append(out, [2]int64{ps[i-1], ps[i]})
	}
	return out
}

// refine returns s with each interval i cut into parts[i] sub-intervals,
// taken in order from sub with their estimates sr, and weighted in
// proportion to those estimates within the interval's own weight.
func (s *KeySample) refine(parts []int, sub [][2]int64, sr []float64) *KeySample {
	out := &KeySample{Bounds: make([]int64, 0, len(s.Bounds)+len(sub)), Rows: make([]float64, 0, len(s.Rows)+len(sub))}
	k := 0
	for i, r := range s.Rows {
		p := parts[i]
		if p <= 1 {
			out.Bounds = append(out.Bounds, s.Bounds[i])
			out.Rows = append(out.Rows, r)
			continue
		}
		// Probes may give fewer parts than asked on a narrow interval: take
		// the sub-intervals that start inside this one.
		start := k
		for k < len(sub) && sub[k][0] < s.Bounds[i+1] {
			k++
		}
		sum := 0.0
		for _, e := range sr[start:k] {
			sum += e
		}
		// The parts share the interval's weight, unless they add up to
		// far more: the interval's own estimate was capped (InnoDB
		// answers at most half the table's rows for one range).
		total := r
		if sum > 1.5*r {
			total = sum
		}
		for j := start; j < k; j++ {
			share := 1 / float64(k-start)
			if sum > 0 {
				share = sr[j] / sum
			}
			out.Bounds = append(out.Bounds, sub[j][0])
			out.Rows = append(out.Rows, total*share)
		}
	}
	out.Bounds = append(out.Bounds, s.Bounds[len(s.Bounds)-1])
	return out
}

// estimate calls est and checks its answer.
func estimate(est Estimator, iv [][2]int64) ([]float64, error) {
	rows, err := est(iv)
	if err != nil {
		return nil, err
	}
	if len(rows) != len(iv) {
		return nil, fmt.Errorf("pushdown: estimator returned %d estimates for %d intervals", len(rows), len(iv))
	}
	for i, r := range rows {
		if !(r >= 0) || math.IsInf(r, 0) {
			return nil, fmt.Errorf("pushdown: estimate %v for [%d, %d)", r, iv[i][0], iv[i][1])
		}
	}
	return rows, nil
}

// Clip returns the sample restricted to the keys in [lo, hi] (inclusive):
// intervals outside are dropped, the ones cut by a bound keep the share of
// their weight that their remaining width holds (rows are assumed spread
// evenly inside an interval, as Cuts assumes). The result may be invalid
// (no estimated rows in [lo, hi]); the caller then cuts by key width.
func (s *KeySample) Clip(lo, hi int64) *KeySample {
	if !s.Valid() || hi < lo {
		return &KeySample{}
	}
	end := hi + 1 // exclusive; hi == MaxInt64 cannot be within Bounds anyway
	if hi == math.MaxInt64 {
		end = hi
	}
	out := &KeySample{}
	for i, w := range s.Rows {
		a, b := s.Bounds[i], s.Bounds[i+1]
		ca, cb := max(a, lo), min(b, end)
		if cb <= ca {
			continue
		}
		if len(out.Bounds) == 0 {
			out.Bounds = append(out.Bounds, ca)
		}
		out.Bounds = append(out.Bounds, cb)
		out.Rows = append(out.Rows, w*float64(uint64(cb-ca))/float64(uint64(b-a)))
	}
	return out
}
