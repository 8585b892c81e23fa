package pinexec

import (
	"slices"
	"strconv"

	"vitess.io/vitess/go/sqltypes"

	"github.com/shoaldb/shoal/arrowexec"
	"github.com/shoaldb/shoal/pinned"
)

// The code-indexed tables a pin version shares among its Programs
// (pinned.Table.Shared): each code's value, a dictionary's order under its
// collation, MIN/MAX order, and the merged order of two dictionaries.

// codeValues is each code's value of a coded column, typed as the column,
// NULL for the last code; shared per version.
func (p *Program) codeValues(src codeSrc) []sqltypes.Value {
	t := p.t
	return t.Shared("vals:"+strconv.Itoa(src.col), func() any {
		col := t.Cols[src.col]
		vals := make([]sqltypes.Value, src.size)
		switch src.kind {
		case pinned.KindDict:
			copy(vals, col.DictValues())
		case pinned.KindDate:
			for k := 0; k < src.size-1; k++ {
				vals[k] = sqltypes.MakeTrusted(col.Field.Type, []byte(dateString(src.min+int64(k))))
			}
		default:
			// One buffer for every value's digits.
			var buf []byte
			ends := make([]int, src.size-1)
			for k := range ends {
				buf = strconv.AppendInt(buf, src.min+int64(k), 10)
				ends[k] = len(buf)
			}
			start := 0
			for k, end := range ends {
				vals[k] = sqltypes.MakeTrusted(col.Field.Type, buf[start:end:end])
				start = end
			}
		}
		vals[src.size-1] = sqltypes.NULL
		return vals
	}).([]sqltypes.Value)
}

// dictOrder is a dictionary column's codes in the order of its
// collation: rank is each code's dense rank (codes equal under the
// collation share one; the NULL code has -1) and reps a value of each
// rank, ascending.
type dictOrder struct {
	coll *arrowexec.Collator
	rank []int32
	reps [][]byte
}

// orderOf is the shared dictOrder of dictionary column c, or nil when its
// collation is not supported.
func (p *Program) orderOf(c int) *dictOrder {
	t := p.t
	return t.Shared("order:"+strconv.Itoa(c), func() any {
		col := t.Cols[c]
		coll, err := arrowexec.NewCollator(p.env.Collations(), collationOf(col.Field))
		if err != nil {
			return (*dictOrder)(nil)
		}
		order := make([]int32, len(col.Dict))
		for i := range order {
			order[i] = int32(i)
		}
		slices.SortStableFunc(order, func(a, b int32) int { return coll.Compare([]byte(col.Dict[a]), []byte(col.Dict[b])) })
		o := &dictOrder{coll: coll, rank: make([]int32, len(col.Dict)+1)}
		for i, code := range order {
			v := []byte(col.Dict[code])
			if i == 0 || coll.Compare(o.reps[len(o.reps)-1], v) != 0 {
				o.reps = append(o.reps, v)
			}
			o.rank[code] = int32(len(o.reps) - 1)
		}
		o.rank[len(col.Dict)] = -1
		return o
	}).(*dictOrder)
}

// position places s among the ranks: 2r when s equals rank r under the
// collation, 2r-1 when it sorts between ranks r-1 and r.
func (o *dictOrder) position(s []byte) int64 {
	i, found := slices.BinarySearchFunc(o.reps, s, func(rep, s []byte) int { return o.coll.Compare(rep, s) })
	if found {
		return 2 * int64(i)
	}
	return 2*int64(i) - 1
}

// minMaxOrder is the order MIN and MAX of a dictionary column use: each
// code's position in the stable collation order and the code at each
// position; shared per version.
type minMaxOrder struct {
	rank   []int32
	byRank []int32
}

func (p *Program) minMaxOf(c int) *minMaxOrder {
	t := p.t
	return t.Shared("minmax:"+strconv.Itoa(c), func() any {
		col := t.Cols[c]
		coll, err := arrowexec.NewCollator(p.env.Collations(), collationOf(col.Field))
		if err != nil {
			return (*minMaxOrder)(nil)
		}
		n := len(col.Dict)
		order := make([]int32, n)
		for i := range order {
			order[i] = int32(i)
		}
		slices.SortStableFunc(order, func(a, b int32) int { return coll.Compare([]byte(col.Dict[a]), []byte(col.Dict[b])) })
		m := &minMaxOrder{rank: make([]int32, n+1), byRank: order}
		for r, code := range order {
			m.rank[code] = int32(r)
		}
		m.rank[n] = -1 // NULL
		return m
	}).(*minMaxOrder)
}

// pairOrder maps two dictionary columns compared under one collation
// onto one order: a and b are each column's per-code dense ranks in the
// merged order of both dictionaries (-1: NULL). Comparing two rows'
// ranks is comparing their values under the collation.
type pairOrder struct {
	a, b []int32
}

func (p *Program) pairOf(c1, c2 int) *pairOrder {
	t := p.t
	return t.Shared("pair:"+strconv.Itoa(c1)+":"+strconv.Itoa(c2), func() any {
		o1 := p.orderOf(c1)
		o2 := p.orderOf(c2)
		if o1 == nil || o2 == nil {
			return (*pairOrder)(nil)
		}
		coll := o1.coll
		// Merge the two ascending rank lists into one dense order.
		m1 := make([]int32, len(o1.reps))
		m2 := make([]int32, len(o2.reps))
		i, j, r := 0, 0, int32(-1)
		var last []byte
		for i < len(o1.reps) || j < len(o2.reps) {
			var v []byte
			take1 := j >= len(o2.reps) || (i < len(o1.reps) && coll.Compare(o1.reps[i], o2.reps[j]) <= 0)
			if take1 {
				v = o1.reps[i]
			} else {
				v = o2.reps[j]
			}
			if r < 0 || coll.Compare(last, v) != 0 {
				r++
				last = v
			}
			if take1 {
				m1[i] = r
				i++
			} else {
				m2[j] = r
				j++
			}
		}
		po := &pairOrder{a: make([]int32, len(o1.rank)), b: make([]int32, len(o2.rank))}
		for code, rk := range o1.rank {
			po.a[code] = -1
			if rk >= 0 {
				po.a[code] = m1[rk]
			}
		}
		for code, rk := range o2.rank {
			po.b[code] = -1
			if rk >= 0 {
				po.b[code] = m2[rk]
			}
		}
		return po
	}).(*pairOrder)
}
