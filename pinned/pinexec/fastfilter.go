package pinexec

import (
	"strings"

	"github.com/shoaldb/shoal/pinned"
	"github.com/shoaldb/shoal/pinned/pinexec/fold"
	"github.com/shoaldb/shoal/pinned/pinexec/literal"
	"github.com/shoaldb/shoal/pinned/pinexec/valrange"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
	"vitess.io/vitess/go/vt/sqlparser"
)

// Vectorized WHERE conjuncts.
//
// A conjunct over one coded column becomes, in general, a table of
// booleans indexed by code, filled by evaluating it once per code. That
// table is as large as the column's domain and depends on the literals,
// so each statement would build (and each cached plan keep) its own. The
// common shapes are recognized instead and compiled to a few integers:
//
//   - col op literal, col [NOT] BETWEEN lit AND lit, col [NOT] IN (lits),
//     for an integer column against integer literals, a DATE column
//     against 'YYYY-MM-DD' literals and a string dictionary column against
//     ASCII string literals (compared under the column's collation,
//     which MySQL's coercibility rules pick over a literal's): an interval
//     or a few points in the column's ordinal space (value − min for
//     integers and dates; the dense rank under the collation, shared per
//     pin version, for dictionaries);
//   - col op col, two dictionary columns of one collation (through both
//     dictionaries' ranks in their merged order, shared per pin version)
//     or two integer or two DATE columns (values compared directly).
//
// Everything else falls back to the evaluated table, which is exact by
// construction; the recognized shapes are tested against it.

type filterKind uint8

const (
	fTable  filterKind = iota // pass[code]
	fRange                    // lo <= ord <= hi, negated when neg
	fPoints                   // ord in points, negated when neg
	fPair                     // ord1 op ord2
	fVals                     // the column's values against vals (valfilter.go)
)

// maxPoints is the longest IN list kept as points; longer ones become a
// table of booleans over codes.
const maxPoints = 8

type fastFilter struct {
	kind filterKind
	col  int
	pass []bool
	// ord maps codes to ordinals (nil: the code is the ordinal); an
	// ordinal equal to null is NULL.
	ord    []int32
	null   int32
	lo, hi int32
	neg    bool
	points []int32
	// fPair: the second column, its ordinals, and the pass result for
	// ord1 <, = and > ord2. Unmapped ordinals compare as code + off.
	col2       int
	ord2       []int32
	null2      int32
	off1, off2 int64
	want       [3]bool
	vals       *valrange.Filter
	// all: every non-NULL value passes (fRange over the column's whole
	// domain), so a batch without NULLs in col is not filtered at all.
	all bool
}

func (ff *fastFilter) apply(c1, c2 []int32, sel []int32) []int32 {
	out := sel[:0]
	switch ff.kind {
	case fTable:
		// Branch-free, as fPair below: a filter that keeps 5 rows of 7
		// (DayOfWeek NOT IN (6, 7)) mispredicts a branch per row often
		// enough to be most of a scan's time. sel is compacted in place
		// (k never passes the row being read).
		pass := ff.pass
		k := 0
		for _, r := range sel {
			sel[k] = r
			k += int(b2i(pass[c1[r]]))
		}
		out = sel[:k]
	case fRange:
		lo, hi, null, neg := ff.lo, ff.hi, ff.null, ff.neg
		k := 0
		if ord := ff.ord; ord != nil {
			for _, r := range sel {
				o := ord[c1[r]]
				sel[k] = r
				k += int(b2i(o != null && (o >= lo && o <= hi) != neg))
			}
		} else {
			for _, r := range sel {
				o := c1[r]
				sel[k] = r
				k += int(b2i(o != null && (o >= lo && o <= hi) != neg))
			}
		}
		out = sel[:k]
	case fPoints:
		for _, r := range sel {
			o := c1[r]
			if ff.ord != nil {
				o = ff.ord[o]
			}
			if o == ff.null {
				continue
			}
			in := false
			for _, pt := range ff.points {
				if o == pt {
					in = true
					break
				}
			}
			if in != ff.neg {
				out = append(out, r)
			}
		}
	case fPair:
		// Branch-free: rows pass at random, so a branch per row would
		// mispredict about half the time.
		var want [3]int
		for i, w := range ff.want {
			if w {
				want[i] = 1
			}
		}
		k := 0
		if ff.ord != nil {
			a, b := ff.ord, ff.ord2
			for _, r := range sel {
				x, y := a[c1[r]], b[c2[r]]
				if x < 0 || y < 0 {
					continue
				}
				sel[k] = r
				k += want[1+cmp3(int64(x), int64(y))]
			}
		} else {
			n1, n2, off1, off2 := ff.null, ff.null2, ff.off1, ff.off2
			for _, r := range sel {
				cx, cy := c1[r], c2[r]
				if cx == n1 || cy == n2 {
					continue
				}
				sel[k] = r
				k += want[1+cmp3(int64(cx)+off1, int64(cy)+off2)]
			}
		}
		out = sel[:k]
	}
	return out
}

// cmp3 is -1, 0 or 1 as x <, = or > y, without branches.
func cmp3(x, y int64) int {
	return int(b2i(x > y)) - int(b2i(x < y))
}

func b2i(b bool) int64 {
	var i int64
	if b {
		i = 1
	}
	return i
}

// ordSpace is how a coded column's values are placed for the recognized
// shapes: n ordinals 0..n-1, the code→ordinal map (nil: identity) and
// the NULL ordinal, and how a literal is placed among them.
type ordSpace struct {
	n    int64
	ord  []int32
	null int32
	// place returns 2i when the literal equals ordinal i and 2i-1 when it
	// sorts between i-1 and i; false when the literal is not of a form
	// whose comparison with the column is known here.
	place func(sqlparser.Expr) (int64, bool)
}

// ordSpaceOf describes column c, or reports false.
func (p *Program) ordSpaceOf(c int) (ordSpace, bool) {
	src, ok := p.codeSource(c)
	if !ok {
		return ordSpace{}, false
	}
	col := p.t.Cols[c]
	switch src.kind {
	case pinned.KindInt:
		if !valrange.PlainInteger(col.Field.Type) {
			return ordSpace{}, false
		}
		return p.intSpace(src, literal.Int), true
	case pinned.KindDate:
		if col.Field.Type != sqltypes.Date {
			return ordSpace{}, false
		}
		return p.intSpace(src, literal.Date), true
	case pinned.KindDict:
		if !plainText(col.Field.Type) || !asciiCompatible(p, col) {
			return ordSpace{}, false
		}
		o := p.orderOf(c)
		if o == nil {
			return ordSpace{}, false
		}
		return ordSpace{n: int64(len(o.reps)), ord: o.rank, null: -1, place: func(e sqlparser.Expr) (int64, bool) {
			s, ok := literal.Str(e)
			if !ok {
				return 0, false
			}
			return o.position(s), true
		}}, true
	}
	return ordSpace{}, false
}

func (p *Program) intSpace(src codeSrc, lit func(sqlparser.Expr) (int64, bool)) ordSpace {
	n := int64(src.size - 1)
	return ordSpace{n: n, null: int32(src.size - 1), place: func(e sqlparser.Expr) (int64, bool) {
		v, ok := lit(e)
		if !ok {
			return 0, false
		}
		switch {
		case n == 0:
			return -1, true
		case v < src.min:
			return -1, true
		case v > src.min+n-1:
			return 2*n - 1, true
		}
		return 2 * (v - src.min), true
	}}
}

func plainText(t querypb.Type) bool {
	return t == sqltypes.VarChar || t == sqltypes.Char || t == sqltypes.Text
}

// asciiCompatible reports a column whose character set encodes ASCII as
// ASCII, so an ASCII literal has the same bytes in it.
func asciiCompatible(p *Program, col *pinned.Column) bool {
	name := p.env.Collations().LookupName(collationOf(col.Field))
	for _, cs := range []string{"utf8mb4_", "utf8mb3_", "utf8_", "latin1_", "ascii_"} {
		if strings.HasPrefix(name, cs) {
			return true
		}
	}
	return false
}

func floorDiv2(x int64) int64 {
	if x < 0 {
		return -((-x + 1) / 2)
	}
	return x / 2
}

func ceilDiv2(x int64) int64 { return -floorDiv2(-x) }

// interval is the ordinals 0..n-1 that satisfy `ord op literal` for a
// literal placed at pos; neg for <> (pass outside it).
func interval(op sqlparser.ComparisonExprOperator, pos, n int64) (lo, hi int64, neg, ok bool) {
	lo, hi = 0, n-1
	switch op {
	case sqlparser.EqualOp, sqlparser.NotEqualOp:
		if pos%2 != 0 {
			lo, hi = 1, 0
		} else {
			lo, hi = pos/2, pos/2
		}
		neg = op == sqlparser.NotEqualOp
	case sqlparser.LessThanOp:
		hi = ceilDiv2(pos) - 1
	case sqlparser.LessEqualOp:
		hi = floorDiv2(pos)
	case sqlparser.GreaterThanOp:
		lo = floorDiv2(pos) + 1
	case sqlparser.GreaterEqualOp:
		lo = ceilDiv2(pos)
	default:
		return 0, 0, false, false
	}
	return lo, hi, neg, true
}

// flip is op with its operands swapped (5 < col is col > 5).
func flip(op sqlparser.ComparisonExprOperator) sqlparser.ComparisonExprOperator {
	switch op {
	case sqlparser.LessThanOp:
		return sqlparser.GreaterThanOp
	case sqlparser.LessEqualOp:
		return sqlparser.GreaterEqualOp
	case sqlparser.GreaterThanOp:
		return sqlparser.LessThanOp
	case sqlparser.GreaterEqualOp:
		return sqlparser.LessEqualOp
	}
	return op
}

// recognize compiles a recognized conjunct shape, or reports false.
func (p *Program) recognize(w *expr) (*fastFilter, bool) {
	colOf := func(e sqlparser.Expr) (int, bool) {
		cn, ok := e.(*sqlparser.ColName)
		if !ok {
			return 0, false
		}
		cols, err := p.columns(cn)
		if err != nil || len(cols) != 1 {
			return 0, false
		}
		return cols[0], true
	}
	rangeOf := func(c int, sp ordSpace, lo, hi int64, neg bool) *fastFilter {
		lo, hi = max(lo, 0), min(hi, sp.n-1)
		if lo > hi {
			lo, hi = 1, 0
		}
		// On an integer or DATE column, the interval may hold every
		// value the column has (YearD >= 1988 over a pin of 1988 on).
		all := sp.ord == nil && ((!neg && lo == 0 && hi == sp.n-1) || (neg && lo > hi))
		return &fastFilter{kind: fRange, col: c, ord: sp.ord, null: sp.null, lo: int32(lo), hi: int32(hi), neg: neg, all: all}
	}
	switch e := w.ast.(type) {
	case *sqlparser.ComparisonExpr:
		if e.Escape != nil {
			return nil, false
		}
		op := e.Operator
		left, right := e.Left, e.Right
		c, ok := colOf(left)
		if !ok {
			if c, ok = colOf(right); !ok {
				return nil, false
			}
			left, right, op = right, left, flip(op)
		}
		if c2, ok := colOf(right); ok {
			return p.pairFilter(c, c2, op)
		}
		right = fold.Const(p.env, right)
		sp, ok := p.ordSpaceOf(c)
		if !ok {
			return p.valueFilter(c, op, right)
		}
		if op == sqlparser.InOp || op == sqlparser.NotInOp {
			tuple, ok := right.(sqlparser.ValTuple)
			if !ok || len(tuple) == 0 {
				return nil, false
			}
			var points []int32
			for _, x := range tuple {
				pos, ok := sp.place(fold.Const(p.env, x))
				if !ok {
					return p.valueFilter(c, op, right)
				}
				if pos%2 == 0 && pos >= 0 && pos/2 < sp.n {
					points = append(points, int32(pos/2))
				}
			}
			ff := &fastFilter{kind: fPoints, col: c, ord: sp.ord, null: sp.null, points: points, neg: op == sqlparser.NotInOp}
			if src, _ := p.codeSource(c); len(points) > maxPoints || src.size <= tableCodes {
				// A table lookup per row, without the scan of the
				// list and the branch on its outcome (a NOT IN that
				// keeps most rows was half of q1's time).
				ff = p.pointsTable(ff)
			}
			return ff, true
		}
		pos, ok := sp.place(right)
		if !ok {
			return p.valueFilter(c, op, right)
		}
		lo, hi, neg, ok := interval(op, pos, sp.n)
		if !ok {
			return nil, false
		}
		return rangeOf(c, sp, lo, hi, neg), true
	case *sqlparser.BetweenExpr:
		c, ok := colOf(e.Left)
		if !ok {
			return nil, false
		}
		efrom, eto := fold.Const(p.env, e.From), fold.Const(p.env, e.To)
		sp, ok := p.ordSpaceOf(c)
		if !ok {
			return p.valueBetween(c, efrom, eto, !e.IsBetween)
		}
		from, ok1 := sp.place(efrom)
		to, ok2 := sp.place(eto)
		if !ok1 || !ok2 {
			return p.valueBetween(c, efrom, eto, !e.IsBetween)
		}
		lo, _, _, _ := interval(sqlparser.GreaterEqualOp, from, sp.n)
		_, hi, _, _ := interval(sqlparser.LessEqualOp, to, sp.n)
		return rangeOf(c, sp, lo, hi, !e.IsBetween), true
	}
	return nil, false
}

// tableCodes is the largest code space an IN list of any length is
// compiled to a table over (one byte a code).
const tableCodes = 1 << 12

// pointsTable turns an IN list into a table of booleans over codes.
func (p *Program) pointsTable(ff *fastFilter) *fastFilter {
	src, _ := p.codeSource(ff.col)
	in := map[int32]bool{}
	for _, pt := range ff.points {
		in[pt] = true
	}
	pass := make([]bool, src.size)
	for c := range pass {
		o := int32(c)
		if ff.ord != nil {
			o = ff.ord[c]
		}
		pass[c] = o != ff.null && in[o] != ff.neg
	}
	return &fastFilter{kind: fTable, col: ff.col, pass: pass}
}

// pairFilter compiles `c1 op c2` for two columns of one comparable kind.
func (p *Program) pairFilter(c1, c2 int, op sqlparser.ComparisonExprOperator) (*fastFilter, bool) {
	var want [3]bool // ord1 <, =, > ord2
	switch op {
	case sqlparser.EqualOp:
		want = [3]bool{false, true, false}
	case sqlparser.NotEqualOp:
		want = [3]bool{true, false, true}
	case sqlparser.LessThanOp:
		want = [3]bool{true, false, false}
	case sqlparser.LessEqualOp:
		want = [3]bool{true, true, false}
	case sqlparser.GreaterThanOp:
		want = [3]bool{false, false, true}
	case sqlparser.GreaterEqualOp:
		want = [3]bool{false, true, true}
	default:
		return nil, false
	}
	s1, ok1 := p.codeSource(c1)
	s2, ok2 := p.codeSource(c2)
	if !ok1 || !ok2 || s1.kind != s2.kind {
		return nil, false
	}
	f1, f2 := p.t.Cols[c1].Field, p.t.Cols[c2].Field
	ff := &fastFilter{kind: fPair, col: c1, col2: c2, want: want}
	switch s1.kind {
	case pinned.KindInt:
		if !valrange.PlainInteger(f1.Type) || !valrange.PlainInteger(f2.Type) {
			return nil, false
		}
	case pinned.KindDate:
		if f1.Type != sqltypes.Date || f2.Type != sqltypes.Date {
			return nil, false
		}
	case pinned.KindDict:
		// One collation on both sides: MySQL compares under it. Mixed
		// collations (or an illegal mix) take the evaluated path.
		if !plainText(f1.Type) || !plainText(f2.Type) || f1.Charset != f2.Charset {
			return nil, false
		}
		po := p.pairOf(c1, c2)
		if po == nil {
			return nil, false
		}
		ff.ord, ff.ord2, ff.null, ff.null2 = po.a, po.b, -1, -1
		return ff, true
	default:
		return nil, false
	}
	ff.null, ff.null2 = int32(s1.size-1), int32(s2.size-1)
	ff.off1, ff.off2 = s1.min, s2.min
	return ff, true
}
