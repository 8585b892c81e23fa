package pinned

import (
	"slices"
	"strconv"
	"sync"

	"vitess.io/vitess/go/sqltypes"

	"github.com/shoaldb/shoal/arrowexec"
)

// Structures derived from a pin version alone.
//
// Compiling a statement for the vectorized path needs tables indexed by a
// column's codes: each code's value, a dictionary's order under its
// collation, a group key's dense group numbers. They depend on the table
// version, not on the statement, so they are built once per version, on
// first use, and shared by every Program over it: compiling a statement
// with a new literal allocates what the statement needs, not what the
// dictionary or the integer range holds (issue 15: 25,000 statements with
// distinct literals had built 976 MB of per-statement lookup tables).
//
// Tables over expressions (a group key FLOOR(Distance/250)*250, an
// aggregate argument IF(ArrDelayMinutes>15,1,0)) are shared by expression
// text up to sharedExprBudget bytes per version; past it they are built
// per Program, as before, so memory stays bounded whatever the traffic.

// sharedExprBudget bounds the bytes of expression tables one table version
// keeps for sharing.
const sharedExprBudget = 32 << 20

type derived struct {
	mu        sync.Mutex
	entries   map[string]*derivedEntry
	exprBytes int64
}

type derivedEntry struct {
	once sync.Once
	v    any
}

// shared returns the value built for key, building it with build once per
// table version; concurrent callers wait for the one build.
func (t *Table) shared(key string, build func() any) any {
	t.derived.mu.Lock()
	if t.derived.entries == nil {
		t.derived.entries = map[string]*derivedEntry{}
	}
	e := t.derived.entries[key]
	if e == nil {
		e = &derivedEntry{}
		t.derived.entries[key] = e
	}
	t.derived.mu.Unlock()
	e.once.Do(func() { e.v = build() })
	return e.v
}

// sharedExpr is shared for a table over an expression, estimated at size
// bytes: shared while the version's expression tables fit the budget,
// built privately (and not kept) past it.
func (t *Table) sharedExpr(key string, size int64, build func() any) any {
	t.derived.mu.Lock()
	_, ok := t.derived.entries[key]
	if !ok {
		if t.derived.exprBytes+size > sharedExprBudget {
			t.derived.mu.Unlock()
			return build()
		}
		t.derived.exprBytes += size
	}
	t.derived.mu.Unlock()
	return t.shared(key, build)
}

// SharedBytes is the estimated size of the expression tables the version
// keeps for sharing (for tests; not yet shown by SHOW CACHED TABLES).
func (t *Table) SharedBytes() int64 {
	t.derived.mu.Lock()
	defer t.derived.mu.Unlock()
	return t.derived.exprBytes
}

// codeValues is each code's value of a coded column, typed as the column,
// NULL for the last code; shared per version.
func (p *Program) codeValues(src codeSrc) []sqltypes.Value {
	t := p.t
	return t.shared("vals:"+strconv.Itoa(src.col), func() any {
		col := t.Cols[src.col]
		vals := make([]sqltypes.Value, src.size)
		switch src.kind {
		case kDict:
			copy(vals, col.dictVals)
		case kDate:
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
	return t.shared("order:"+strconv.Itoa(c), func() any {
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
	return t.shared("minmax:"+strconv.Itoa(c), func() any {
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
	return t.shared("pair:"+strconv.Itoa(c1)+":"+strconv.Itoa(c2), func() any {
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
