// Package aggloop holds the inner loops of the in-memory engine's
// vectorized aggregates (package pinexec): COUNT(col), SUM, MIN and MAX
// of one batch's selected rows of a column, into per-group accumulators.
//
// Each loop takes the column's values at their stored width (a pinned
// TINYINT is one byte a row, not widened), the selection vector sel
// (ascending row numbers), the rows' group ids gid (nil: one group, 0,
// with no per-row indirection) and the column's validity bitmap. NULLs
// are handled a 64-row word at a time when every row is selected (the
// bitmap is read as words: all-valid words take the tight loop, all-NULL
// words are skipped) and branch-free per row otherwise, so a column with
// a few NULLs costs about what one without does.
//
// The accumulators' meaning is the caller's: cnt counts a group's
// non-NULL rows (MIN and MAX take a group's first value when its cnt is
// 0), integer sums are exact (a sum past int64 hands its running value
// to carry and restarts), and float sums add a group's values one at a
// time in row order, as a scalar loop would, so results do not depend
// on how the rows were split into words.
package aggloop

import (
	"encoding/binary"
	"math"
	"math/bits"
	"unsafe"
)

// Int is the stored integer types (and DECIMALs as scaled int64s).
type Int interface {
	~int8 | ~int16 | ~int32 | ~int64
}

// Valid is a batch column's validity: row r is non-NULL when bit Off+r
// of Bits (Arrow's bit order) is set. Nil Bits: every row is.
type Valid struct {
	Bits []byte
	Off  int
}

// bit is 1 when row r is valid, else 0.
func (v Valid) bit(r int32) int64 {
	j := int(r) + v.Off
	return int64(v.Bits[j>>3] >> (j & 7) & 1)
}

// words is how many whole 64-bit words of validity cover rows [0, n)
// when Off is byte-aligned (0 otherwise: every row goes the per-row way).
func (v Valid) words(n int) int {
	if v.Off&7 != 0 {
		return 0
	}
	w := n / 64
	if avail := (len(v.Bits) - v.Off>>3) / 8; avail < w {
		w = avail
	}
	return w
}

// word is the validity of rows 64w .. 64w+63.
func (v Valid) word(w int) uint64 {
	i := v.Off>>3 + w*8
	return binary.LittleEndian.Uint64(v.Bits[i : i+8])
}

// Carry receives group g's running sum a when adding to it would pass
// int64; the group's sum restarts from the value added.
type Carry func(g int32, a int64)

// add is sum + x, or x after carrying sum when that overflows.
func add(g int32, sum, x int64, carry Carry) int64 {
	s := sum + x
	if (s^sum)&(s^x) < 0 {
		carry(g, sum)
		return x
	}
	return s
}

// identity reports whether sel selects every one of n rows (sel is
// ascending and distinct, so its length says so).
func identity(sel []int32, n int) bool { return len(sel) == n }

// Count adds the selected rows that are valid to cnt (COUNT(col)).
func Count(n int, sel, gid []int32, v Valid, cnt []int64) {
	switch {
	case gid == nil && v.Bits == nil:
		cnt[0] += int64(len(sel))
	case gid == nil:
		var c int64
		i := 0
		if identity(sel, n) {
			for w := range v.words(n) {
				c += int64(bits.OnesCount64(v.word(w)))
			}
			i = v.words(n) * 64
		}
		for _, r := range sel[i:] {
			c += v.bit(r)
		}
		cnt[0] += c
	case v.Bits == nil:
		for _, g := range gid[:len(sel)] {
			cnt[g]++
		}
	default:
		gid = gid[:len(sel)]
		for i, r := range sel {
			cnt[gid[i]] += v.bit(r)
		}
	}
}

// Sum adds the selected valid values to sum and counts them in cnt.
func Sum[T Int](vals []T, sel, gid []int32, v Valid, cnt, sum []int64, carry Carry) {
	if gid == nil {
		sumOne(vals, sel, v, cnt, sum, carry)
		return
	}
	gid = gid[:len(sel)]
	if v.Bits == nil {
		for i, r := range sel {
			g := gid[i]
			cnt[g]++
			sum[g] = add(g, sum[g], int64(vals[r]), carry)
		}
		return
	}
	for i, r := range sel {
		g, m := gid[i], v.bit(r)
		cnt[g] += m
		sum[g] = add(g, sum[g], int64(vals[r])&-m, carry)
	}
}

// sumOne is Sum into the one group 0.
func sumOne[T Int](vals []T, sel []int32, v Valid, cnt, sum []int64, carry Carry) {
	var zero T
	if unsafe.Sizeof(zero) == 8 {
		// Wide values: every addition checks for overflow.
		s, c := sum[0], int64(0)
		if v.Bits == nil {
			for _, r := range sel {
				s = add(0, s, int64(vals[r]), carry)
			}
			c = int64(len(sel))
		} else {
			for _, r := range sel {
				m := v.bit(r)
				c += m
				s = add(0, s, int64(vals[r])&-m, carry)
			}
		}
		sum[0], cnt[0] = s, cnt[0]+c
		return
	}
	// Narrow values: a batch's sum fits an int64 (fewer than 2^32 rows
	// of under 2^31 each), added to the group's once.
	var s, c int64
	switch {
	case v.Bits == nil && identity(sel, len(vals)):
		for _, x := range vals {
			s += int64(x)
		}
		c = int64(len(vals))
	case v.Bits == nil:
		for _, r := range sel {
			s += int64(vals[r])
		}
		c = int64(len(sel))
	default:
		i := 0
		if identity(sel, len(vals)) {
			nw := v.words(len(vals))
			for w := range nw {
				word := v.word(w)
				blk := vals[w*64 : w*64+64]
				switch word {
				case math.MaxUint64:
					for _, x := range blk {
						s += int64(x)
					}
					c += 64
				case 0:
				default:
					for k, x := range blk {
						s += int64(x) & -int64(word>>k&1)
					}
					c += int64(bits.OnesCount64(word))
				}
			}
			i = nw * 64
		}
		for _, r := range sel[i:] {
			m := v.bit(r)
			c += m
			s += int64(vals[r]) & -m
		}
	}
	cnt[0] += c
	sum[0] = add(0, sum[0], s, carry)
}

// MinMax folds the selected valid values into mm, the groups' MIN
// (isMin) or MAX, counting them in cnt.
func MinMax[T Int](vals []T, sel, gid []int32, v Valid, cnt, mm []int64, isMin bool) {
	if gid == nil {
		minMaxOne(vals, sel, v, cnt, mm, isMin)
		return
	}
	gid = gid[:len(sel)]
	for i, r := range sel {
		if v.Bits != nil && v.bit(r) == 0 {
			continue
		}
		g, x := gid[i], int64(vals[r])
		if cnt[g] == 0 || (isMin && x < mm[g]) || (!isMin && x > mm[g]) {
			mm[g] = x
		}
		cnt[g]++
	}
}

// minMaxOne is MinMax into the one group 0.
func minMaxOne[T Int](vals []T, sel []int32, v Valid, cnt, mm []int64, isMin bool) {
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	var c int64
	switch {
	case v.Bits == nil && identity(sel, len(vals)):
		lo, hi = bounds(vals, lo, hi)
		c = int64(len(vals))
	case v.Bits == nil:
		for _, r := range sel {
			x := int64(vals[r])
			lo, hi = min(lo, x), max(hi, x)
		}
		c = int64(len(sel))
	default:
		i := 0
		if identity(sel, len(vals)) {
			nw := v.words(len(vals))
			for w := range nw {
				word := v.word(w)
				switch word {
				case math.MaxUint64:
					lo, hi = bounds(vals[w*64:w*64+64], lo, hi)
					c += 64
				case 0:
				default:
					for ; word != 0; word &= word - 1 {
						x := int64(vals[w*64+bits.TrailingZeros64(word)])
						lo, hi = min(lo, x), max(hi, x)
						c++
					}
				}
			}
			i = nw * 64
		}
		for _, r := range sel[i:] {
			if v.bit(r) != 0 {
				x := int64(vals[r])
				lo, hi = min(lo, x), max(hi, x)
				c++
			}
		}
	}
	if c == 0 {
		return
	}
	x := hi
	if isMin {
		x = lo
	}
	if cnt[0] == 0 || (isMin && x < mm[0]) || (!isMin && x > mm[0]) {
		mm[0] = x
	}
	cnt[0] += c
}

// bounds is lo and hi widened to rows' values.
func bounds[T Int](rows []T, lo, hi int64) (int64, int64) {
	for _, x := range rows {
		lo, hi = min(lo, int64(x)), max(hi, int64(x))
	}
	return lo, hi
}

// SumFloat adds the selected valid values to sum, one at a time in row
// order per group, counting them in cnt.
func SumFloat(vals []float64, sel, gid []int32, v Valid, cnt []int64, sum []float64) {
	if gid == nil {
		s, c := sum[0], int64(0)
		i := 0
		if v.Bits != nil && identity(sel, len(vals)) {
			nw := v.words(len(vals))
			for w := range nw {
				word := v.word(w)
				if word == math.MaxUint64 {
					for _, x := range vals[w*64 : w*64+64] {
						s += x
					}
					c += 64
					continue
				}
				for ; word != 0; word &= word - 1 {
					s += vals[w*64+bits.TrailingZeros64(word)]
					c++
				}
			}
			i = nw * 64
		}
		for _, r := range sel[i:] {
			if v.Bits == nil || v.bit(r) != 0 {
				s += vals[r]
				c++
			}
		}
		sum[0], cnt[0] = s, cnt[0]+c
		return
	}
	gid = gid[:len(sel)]
	for i, r := range sel {
		if v.Bits != nil && v.bit(r) == 0 {
			continue
		}
		g := gid[i]
		sum[g] += vals[r]
		cnt[g]++
	}
}

// MinMaxFloat folds the selected valid values into mm, the groups' MIN
// (isMin) or MAX, counting them in cnt.
func MinMaxFloat(vals []float64, sel, gid []int32, v Valid, cnt []int64, mm []float64, isMin bool) {
	if gid == nil {
		gid = zeros(len(sel))
	}
	gid = gid[:len(sel)]
	for i, r := range sel {
		if v.Bits != nil && v.bit(r) == 0 {
			continue
		}
		g, x := gid[i], vals[r]
		if cnt[g] == 0 || (isMin && x < mm[g]) || (!isMin && x > mm[g]) {
			mm[g] = x
		}
		cnt[g]++
	}
}

// zeroGids is group ids of one group, for the loops without a one-group
// form.
var zeroGids = make([]int32, 1<<16)

func zeros(n int) []int32 {
	if n <= len(zeroGids) {
		return zeroGids[:n]
	}
	return make([]int32, n)
}
