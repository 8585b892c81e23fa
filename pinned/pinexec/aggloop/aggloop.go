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
	"slices"
	"unsafe"
)

// Int is the stored integer types (and DECIMALs as scaled int64s).
type Int interface {
	~int8 | ~int16 | ~int32 | ~int64
}

// Groups is the group of each selected row: Gid[i] is sel[i]'s, or,
// when Gid is nil, every row is in group One.
type Groups struct {
	Gid []int32
	One int32
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

// from is v for the rows from lo on.
func (v Valid) from(lo int) Valid {
	if v.Bits == nil {
		return v
	}
	return Valid{Bits: v.Bits, Off: v.Off + lo}
}

// words is how many whole 64-row words of validity word reads for rows
// [0, n): those the bitmap holds (word reads a word's bytes only).
func (v Valid) words(n int) int {
	return max(0, min(n/64, (8*len(v.Bits)-v.Off)/64))
}

// word is the validity of rows 64w .. 64w+63, at any bit offset.
func (v Valid) word(w int) uint64 {
	j := v.Off + w*64
	i, sh := j>>3, uint(j&7)
	x := binary.LittleEndian.Uint64(v.Bits[i:i+8]) >> sh
	if sh != 0 {
		x |= uint64(v.Bits[i+8]) << (64 - sh)
	}
	return x
}

// span reports whether sel is one run of consecutive rows, and its first.
// sel is ascending and distinct, so its ends say so: a whole batch, or a
// run of one group's rows, or what a range filter keeps of ordered data.
func span(sel []int32) (int, bool) {
	if len(sel) == 0 {
		return 0, false
	}
	lo := int(sel[0])
	return lo, int(sel[len(sel)-1])-lo == len(sel)-1
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

// Count adds the selected rows that are valid to cnt (COUNT(col)).
func Count(sel []int32, gs Groups, v Valid, cnt []int64) {
	if gs.Gid != nil {
		gid := gs.Gid[:len(sel)]
		if v.Bits == nil {
			for _, g := range gid {
				cnt[g]++
			}
			return
		}
		for i, r := range sel {
			cnt[gid[i]] += v.bit(r)
		}
		return
	}
	if v.Bits == nil {
		cnt[gs.One] += int64(len(sel))
		return
	}
	var c int64
	if lo, ok := span(sel); ok {
		v = v.from(lo)
		nw := v.words(len(sel))
		for w := range nw {
			c += int64(bits.OnesCount64(v.word(w)))
		}
		for k := nw * 64; k < len(sel); k++ {
			c += v.bit(int32(k))
		}
	} else {
		for _, r := range sel {
			c += v.bit(r)
		}
	}
	cnt[gs.One] += c
}

// Sum adds the selected valid values to sum and counts them in cnt.
func Sum[T Int](vals []T, sel []int32, gs Groups, v Valid, cnt, sum []int64, carry Carry) {
	if gs.Gid == nil {
		sumOne(vals, sel, gs.One, v, cnt, sum, carry)
		return
	}
	gid := gs.Gid[:len(sel)]
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

// sumOne is Sum into the one group g.
func sumOne[T Int](vals []T, sel []int32, g int32, v Valid, cnt, sum []int64, carry Carry) {
	var zero T
	if unsafe.Sizeof(zero) == 8 {
		// Wide values: every addition checks for overflow.
		s, c := sum[g], int64(0)
		if v.Bits == nil {
			for _, r := range sel {
				s = add(g, s, int64(vals[r]), carry)
			}
			c = int64(len(sel))
		} else {
			for _, r := range sel {
				m := v.bit(r)
				c += m
				s = add(g, s, int64(vals[r])&-m, carry)
			}
		}
		sum[g], cnt[g] = s, cnt[g]+c
		return
	}
	// Narrow values: a batch's sum fits an int64 (fewer than 2^32 rows
	// of under 2^31 each), added to the group's once.
	var s, c int64
	lo, run := span(sel)
	switch {
	case run && v.Bits == nil:
		s = total(vals[lo : lo+len(sel)])
		c = int64(len(sel))
	case run:
		vals, v = vals[lo:lo+len(sel)], v.from(lo)
		nw := v.words(len(vals))
		for w := range nw {
			word := v.word(w)
			blk := vals[w*64 : w*64+64]
			switch word {
			case math.MaxUint64:
				s += total(blk)
				c += 64
			case 0:
			default:
				for k, x := range blk {
					s += int64(x) & -int64(word>>k&1)
				}
				c += int64(bits.OnesCount64(word))
			}
		}
		for k := nw * 64; k < len(vals); k++ {
			m := v.bit(int32(k))
			c += m
			s += int64(vals[k]) & -m
		}
	case v.Bits == nil:
		for _, r := range sel {
			s += int64(vals[r])
		}
		c = int64(len(sel))
	default:
		for _, r := range sel {
			m := v.bit(r)
			c += m
			s += int64(vals[r]) & -m
		}
	}
	cnt[g] += c
	sum[g] = add(g, sum[g], s, carry)
}

// MinMax folds the selected valid values into mm, the groups' MIN
// (isMin) or MAX, counting them in cnt.
func MinMax[T Int](vals []T, sel []int32, gs Groups, v Valid, cnt, mm []int64, isMin bool) {
	if gs.Gid == nil {
		minMaxOne(vals, sel, gs.One, v, cnt, mm, isMin)
		return
	}
	gid := gs.Gid[:len(sel)]
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

// minMaxOne is MinMax into the one group g.
func minMaxOne[T Int](vals []T, sel []int32, g int32, v Valid, cnt, mm []int64, isMin bool) {
	// MIN is MAX of the values' complements (^x: order reversed, no
	// overflow); the rows' best starts below every value.
	var flip int64
	if isMin {
		flip = -1
	}
	best, c := int64(math.MinInt64), int64(0)
	first, run := span(sel)
	switch {
	case run && v.Bits == nil:
		best = highest(vals[first:first+len(sel)], flip, best)
		c = int64(len(sel))
	case run:
		vals, v = vals[first:first+len(sel)], v.from(first)
		nw := v.words(len(vals))
		for w := range nw {
			word := v.word(w)
			blk := vals[w*64 : w*64+64]
			switch word {
			case math.MaxUint64:
				best = highest(blk, flip, best)
				c += 64
			case 0:
			default:
				// Branch-free: a NULL row weighs MinInt64.
				for k, x := range blk {
					m := -int64(word >> k & 1)
					best = max(best, (int64(x)^flip)&m|math.MinInt64&^m)
				}
				c += int64(bits.OnesCount64(word))
			}
		}
		for k := nw * 64; k < len(vals); k++ {
			if v.bit(int32(k)) != 0 {
				best = max(best, int64(vals[k])^flip)
				c++
			}
		}
	default:
		for _, r := range sel {
			if v.Bits == nil || v.bit(r) != 0 {
				best = max(best, int64(vals[r])^flip)
				c++
			}
		}
	}
	if c == 0 {
		return
	}
	x := best ^ flip
	if cnt[g] == 0 || (isMin && x < mm[g]) || (!isMin && x > mm[g]) {
		mm[g] = x
	}
	cnt[g] += c
}

// highest is the largest of best and rows' values xor flip.
func highest[T Int](rows []T, flip, best int64) int64 {
	for _, x := range rows {
		best = max(best, int64(x)^flip)
	}
	return best
}

// total is the sum of rows, four at a time (fewer than 2^32 rows of
// narrow values: no overflow).
func total[T Int](rows []T) int64 {
	var s0, s1, s2, s3 int64
	i := 0
	for ; i+4 <= len(rows); i += 4 {
		r := rows[i : i+4 : i+4]
		s0 += int64(r[0])
		s1 += int64(r[1])
		s2 += int64(r[2])
		s3 += int64(r[3])
	}
	for ; i < len(rows); i++ {
		s0 += int64(rows[i])
	}
	return s0 + s1 + s2 + s3
}

// SumFloat adds the selected valid values to sum, one at a time in row
// order per group, counting them in cnt.
func SumFloat(vals []float64, sel []int32, gs Groups, v Valid, cnt []int64, sum []float64) {
	if gs.Gid != nil {
		gid := gs.Gid[:len(sel)]
		for i, r := range sel {
			if v.Bits != nil && v.bit(r) == 0 {
				continue
			}
			g := gid[i]
			sum[g] += vals[r]
			cnt[g]++
		}
		return
	}
	g := gs.One
	s, c := sum[g], int64(0)
	if first, run := span(sel); run && v.Bits != nil {
		vals, v = vals[first:first+len(sel)], v.from(first)
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
		for k := nw * 64; k < len(vals); k++ {
			if v.bit(int32(k)) != 0 {
				s += vals[k]
				c++
			}
		}
	} else {
		for _, r := range sel {
			if v.Bits == nil || v.bit(r) != 0 {
				s += vals[r]
				c++
			}
		}
	}
	sum[g], cnt[g] = s, cnt[g]+c
}

// MinMaxFloat folds the selected valid values into mm, the groups' MIN
// (isMin) or MAX, in row order, counting them in cnt.
func MinMaxFloat(vals []float64, sel []int32, gs Groups, v Valid, cnt []int64, mm []float64, isMin bool) {
	for i, r := range sel {
		if v.Bits != nil && v.bit(r) == 0 {
			continue
		}
		g := gs.One
		if gs.Gid != nil {
			g = gs.Gid[i]
		}
		x := vals[r]
		if cnt[g] == 0 || (isMin && x < mm[g]) || (!isMin && x > mm[g]) {
			mm[g] = x
		}
		cnt[g]++
	}
}

// Runs splits sel into runs of rows whose codes agree in every one of
// keys (each indexed by row): it returns the index in sel of each run's
// first row, then len(sel); nil when the runs average fewer than minRun
// rows (given up on early: rows change keys from the start). buf is
// reused. Data pinned in time order, grouped by year or month, comes in
// runs of thousands of rows, each aggregated as one group.
func Runs(keys [][]int32, sel []int32, minRun int, buf []int32) []int32 {
	limit := len(sel) / minRun
	runs := append(buf[:0], 0)
	first, whole := span(sel)
	for _, codes := range keys {
		if whole {
			cs := codes[first : first+len(sel)]
			for i := sameFrom(cs, 1); i < len(cs); i = sameFrom(cs, i+1) {
				if len(runs) > limit*len(keys) {
					return nil
				}
				runs = append(runs, int32(i))
			}
			continue
		}
		for i := 1; i < len(sel); i++ {
			if codes[sel[i]] != codes[sel[i-1]] {
				if len(runs) > limit*len(keys) {
					return nil
				}
				runs = append(runs, int32(i))
			}
		}
	}
	if len(keys) > 1 {
		slices.Sort(runs)
		runs = slices.Compact(runs)
	}
	if len(runs) > max(limit, 1) {
		return nil
	}
	return append(runs, int32(len(sel)))
}

// sameFrom is the first i' >= i where cs changes (cs[i'] != cs[i'-1]),
// or len(cs): the tight loop of Runs, eight codes at a time.
func sameFrom(cs []int32, i int) int {
	if i >= len(cs) {
		return len(cs)
	}
	v := cs[i-1]
	for ; i+8 <= len(cs); i += 8 {
		b := cs[i : i+8 : i+8]
		if (b[0]^v)|(b[1]^v)|(b[2]^v)|(b[3]^v)|(b[4]^v)|(b[5]^v)|(b[6]^v)|(b[7]^v) != 0 {
			break
		}
	}
	for ; i < len(cs); i++ {
		if cs[i] != v {
			break
		}
	}
	return i
}
