package pinexec

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"vitess.io/vitess/go/sqltypes"
	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shoaldb/shoal/pinned"
	"github.com/shoaldb/shoal/pinned/pinexec/literal"
)

// Value filters: comparisons of a numeric column that has no codes.
//
// Codes cover dictionaries and integers or dates of a narrow range. The
// columns reports filter most on are neither: amounts and prices
// (DECIMAL), measurements (DOUBLE), ids and counters (a wide BIGINT). A
// conjunct `col op literal`, `col [NOT] BETWEEN lit AND lit` or
// `col [NOT] IN (lits)` over such a column compiles to an interval (or a
// few points) of the column's own values, compared in place per batch:
//
//   - an integer column, or a DECIMAL of at most 18 digits (its Decimal128
//     values are integers scaled by 10^scale and fit an int64), against
//     integer and DECIMAL literals. MySQL compares those as decimals,
//     exactly, so the literal is placed in the column's scaled integers:
//     either on one (amount > 12.50 is amount > 1250 at scale 2) or
//     strictly between two (amount >= 12.505 is amount >= 1251).
//   - a DOUBLE column against integer, DECIMAL and float literals, which
//     MySQL compares as doubles: the interval's ends are doubles, open
//     ends moved to the next double.
//   - a DATETIME column against DATE, TIMESTAMP and 'YYYY-MM-DD[
//     hh:mm:ss[.ffffff]]' literals, which MySQL converts to DATETIME: in
//     microseconds, as the pin holds the column.
//
// Anything else (string literals, which compare with numbers as doubles;
// float literals against DECIMAL; FLOAT columns, which MySQL widens from
// single precision while the pin holds the text's double; unsigned and
// wider DECIMAL columns) keeps its old path.

// valSpace is how a value filter reads a column: its kind, and for
// integers and decimals the scale (0 for integers).
type valSpace struct {
	kind  pinned.Kind
	scale int32
}

// valSpaceOf reports whether column c of t takes value filters.
func valSpaceOf(t *pinned.Table, c int) (valSpace, bool) {
	col := t.Cols[c]
	switch col.Kind() {
	case pinned.KindInt:
		return valSpace{kind: pinned.KindInt}, plainInteger(col.Field.Type)
	case pinned.KindFloat:
		return valSpace{kind: pinned.KindFloat}, col.Field.Type == sqltypes.Float64
	case pinned.KindDecimal:
		if s, ok := decimalScale(t.Schema.Field(c).Type); ok {
			return valSpace{kind: pinned.KindDecimal, scale: s}, true
		}
	case pinned.KindTimestamp:
		// DATETIME only: a TIMESTAMP compares in the session's time zone.
		tt, ok := t.Schema.Field(c).Type.(*arrow.TimestampType)
		return valSpace{kind: pinned.KindTimestamp}, ok && tt.Unit == arrow.Microsecond && col.Field.Type == sqltypes.Datetime
	}
	return valSpace{}, false
}

// decimalScale is the scale of a DECIMAL column (of Arrow type t) whose
// values fit an int64 once scaled, or false.
func decimalScale(t arrow.DataType) (int32, bool) {
	dt, ok := t.(*arrow.Decimal128Type)
	if !ok || dt.Precision > literal.MaxScaledDigits || dt.Scale < 0 {
		return 0, false
	}
	return dt.Scale, true
}

// valFilter is a fastFilter's part for a value filter (kind fVals):
// values v with lo <= v <= hi (integers and scaled decimals) or flo <= v
// <= fhi (doubles), or among points, negated when neg; NULL never passes.
type valFilter struct {
	kind     pinned.Kind
	lo, hi   int64
	flo, fhi float64
	points   []int64
	fpoints  []float64
	isPoints bool
}

// placed is a literal placed in a value space: an integer k (exact, or a
// fraction above k) or a double.
type placed struct {
	k     int64
	exact bool
	f     float64
}

func (sp valSpace) place(e sqlparser.Expr) (placed, bool) {
	if sp.kind == pinned.KindFloat {
		f, ok := literal.Float(e)
		return placed{f: f}, ok
	}
	if sp.kind == pinned.KindTimestamp {
		k, ok := literal.Datetime(e)
		return placed{k: k, exact: true}, ok
	}
	k, exact, ok := literal.Scaled(e, sp.scale, sp.kind == pinned.KindDecimal)
	return placed{k: k, exact: exact}, ok
}

// bounds narrows vf's interval to the values satisfying `v op x`; neg
// is set for <>. The interval starts as everything.
func (vf *valFilter) bound(op sqlparser.ComparisonExprOperator, x placed) (neg, ok bool) {
	if vf.kind == pinned.KindFloat {
		switch op {
		case sqlparser.EqualOp, sqlparser.NotEqualOp:
			vf.flo, vf.fhi = max(vf.flo, x.f), min(vf.fhi, x.f)
			return op == sqlparser.NotEqualOp, true
		case sqlparser.LessThanOp:
			vf.fhi = min(vf.fhi, math.Nextafter(x.f, math.Inf(-1)))
		case sqlparser.LessEqualOp:
			vf.fhi = min(vf.fhi, x.f)
		case sqlparser.GreaterThanOp:
			vf.flo = max(vf.flo, math.Nextafter(x.f, math.Inf(1)))
		case sqlparser.GreaterEqualOp:
			vf.flo = max(vf.flo, x.f)
		default:
			return false, false
		}
		return false, true
	}
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	switch op {
	case sqlparser.EqualOp, sqlparser.NotEqualOp:
		if x.exact {
			lo, hi = x.k, x.k
		} else {
			lo, hi = 1, 0
		}
		neg = op == sqlparser.NotEqualOp
	case sqlparser.LessThanOp:
		if hi = x.k; x.exact {
			hi--
		}
	case sqlparser.LessEqualOp:
		hi = x.k
	case sqlparser.GreaterThanOp:
		lo = x.k + 1
	case sqlparser.GreaterEqualOp:
		if lo = x.k; !x.exact {
			lo++
		}
	default:
		return false, false
	}
	vf.lo, vf.hi = max(vf.lo, lo), min(vf.hi, hi)
	return neg, true
}

func newValFilter(kind pinned.Kind) *valFilter {
	return &valFilter{kind: kind, lo: math.MinInt64, hi: math.MaxInt64, flo: math.Inf(-1), fhi: math.Inf(1)}
}

// valueFilter compiles a comparison of column c, whose codes are not
// available, with a literal; right is the literal side (already
// folded), op as seen from the column.
func (p *Program) valueFilter(c int, op sqlparser.ComparisonExprOperator, right sqlparser.Expr) (*fastFilter, bool) {
	sp, ok := valSpaceOf(p.t, c)
	if !ok {
		return nil, false
	}
	vf := newValFilter(sp.kind)
	ff := &fastFilter{kind: fVals, col: c, vals: vf}
	if op == sqlparser.InOp || op == sqlparser.NotInOp {
		tuple, ok := right.(sqlparser.ValTuple)
		if !ok || len(tuple) == 0 || len(tuple) > maxPoints {
			return nil, false
		}
		vf.isPoints = true
		for _, e := range tuple {
			x, ok := sp.place(foldConst(p, e))
			if !ok {
				return nil, false
			}
			switch {
			case sp.kind == pinned.KindFloat:
				vf.fpoints = append(vf.fpoints, x.f)
			case x.exact:
				vf.points = append(vf.points, x.k)
			}
		}
		ff.neg = op == sqlparser.NotInOp
		return ff, true
	}
	x, ok := sp.place(right)
	if !ok {
		return nil, false
	}
	if ff.neg, ok = vf.bound(op, x); !ok {
		return nil, false
	}
	return ff, true
}

// valueBetween compiles `c [NOT] BETWEEN from AND to`.
func (p *Program) valueBetween(c int, from, to sqlparser.Expr, not bool) (*fastFilter, bool) {
	sp, ok := valSpaceOf(p.t, c)
	if !ok {
		return nil, false
	}
	x, ok1 := sp.place(from)
	y, ok2 := sp.place(to)
	if !ok1 || !ok2 {
		return nil, false
	}
	vf := newValFilter(sp.kind)
	vf.bound(sqlparser.GreaterEqualOp, x)
	vf.bound(sqlparser.LessEqualOp, y)
	return &fastFilter{kind: fVals, col: c, vals: vf, neg: not}, true
}

// applyVals narrows sel to the rows of arr that pass; wide is scratch
// for narrow integer columns.
func (ff *fastFilter) applyVals(arr arrow.Array, wide []int64, sel []int32) []int32 {
	vf := ff.vals
	var valid func(int32) bool
	if arr.NullN() > 0 {
		bits, off := arr.NullBitmapBytes(), arr.Data().Offset()
		valid = func(r int32) bool {
			j := off + int(r)
			return bits[j>>3]&(1<<(j&7)) != 0
		}
	}
	switch vf.kind {
	case pinned.KindFloat:
		return selectRows(arr.(*array.Float64).Float64Values(), sel, valid, ff.neg, vf.isPoints, vf.fpoints, vf.flo, vf.fhi)
	case pinned.KindDecimal:
		return selectRows(decimalInts(arr.(*array.Decimal128), wide), sel, valid, ff.neg, vf.isPoints, vf.points, vf.lo, vf.hi)
	case pinned.KindTimestamp:
		ts := arr.(*array.Timestamp).TimestampValues()
		if cap(wide) < len(ts) {
			wide = make([]int64, len(ts))
		}
		wide = wide[:len(ts)]
		for i, v := range ts {
			wide[i] = int64(v)
		}
		return selectRows(wide, sel, valid, ff.neg, vf.isPoints, vf.points, vf.lo, vf.hi)
	}
	return selectRows(pinned.IntValues(arr, wide), sel, valid, ff.neg, vf.isPoints, vf.points, vf.lo, vf.hi)
}

// decimalInts reads a Decimal128 array of at most literal.MaxScaledDigits as its
// scaled integers (the low 64 bits, which hold the value), into wide.
func decimalInts(a *array.Decimal128, wide []int64) []int64 {
	vals := a.Values()
	if cap(wide) < len(vals) {
		wide = make([]int64, len(vals))
	}
	wide = wide[:len(vals)]
	for i, v := range vals {
		wide[i] = int64(v.LowBits())
	}
	return wide
}

// selectRows keeps the rows of sel whose value is valid and passes; the
// loops are branch-free on the comparison (rows pass at random).
func selectRows[T int64 | float64](vals []T, sel []int32, valid func(int32) bool, neg, isPoints bool, points []T, lo, hi T) []int32 {
	k := 0
	pass := func(v T) bool {
		if isPoints {
			for _, p := range points {
				if v == p {
					return !neg
				}
			}
			return neg
		}
		return (v >= lo && v <= hi) != neg
	}
	if isPoints || valid != nil {
		for _, r := range sel {
			if (valid == nil || valid(r)) && pass(vals[r]) {
				sel[k] = r
				k++
			}
		}
		return sel[:k]
	}
	for _, r := range sel {
		v := vals[r]
		sel[k] = r
		k += int(b2i((v >= lo && v <= hi) != neg))
	}
	return sel[:k]
}
