// Package valrange compiles a comparison of a numeric or DATETIME column
// with literals into an interval (or a few points) of the column's own
// stored values, and selects a batch's rows in it: the value filters of
// the in-memory engine (package pinexec), for columns that have no codes.
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
//
// Package pinexec decides which columns take value filters (its
// valSpaceOf) and which conjuncts are such comparisons; this package places
// the literals (with package literal: MySQL's comparison rules) and
// scans the values. It is its own package because intervals over Arrow
// arrays know nothing of statements or Programs. It imports pinned (the
// column kinds and integer widths), package literal, Arrow and vitess'
// parser.
package valrange

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shoaldb/shoal/pinned"
	"github.com/shoaldb/shoal/pinned/pinexec/literal"
)

// Space is how a value filter reads a column: its kind, and for
// integers and decimals the scale (0 for integers).
type Space struct {
	Kind  pinned.Kind
	Scale int32
}

// DecimalScale is the scale of a DECIMAL column (of Arrow type t) whose
// values fit an int64 once scaled, or false.
func DecimalScale(t arrow.DataType) (int32, bool) {
	dt, ok := t.(*arrow.Decimal128Type)
	if !ok || dt.Precision > literal.MaxScaledDigits || dt.Scale < 0 {
		return 0, false
	}
	return dt.Scale, true
}

// Filter is a value filter (pinexec's fastFilter of kind fVals): values
// v with lo <= v <= hi (integers and scaled decimals) or flo <= v <= fhi
// (doubles), or among points, negated by Select's neg; NULL never passes.
type Filter struct {
	kind     pinned.Kind
	lo, hi   int64
	flo, fhi float64
	points   []int64
	fpoints  []float64
	isPoints bool
}

// Placed is a literal placed in a value space: an integer k (exact, or a
// fraction above k) or a double.
type Placed struct {
	k     int64
	exact bool
	f     float64
}

// Place places the literal e in the space, by MySQL's comparison rules
// for the column's type; false when it cannot (the filter does not apply).
func (sp Space) Place(e sqlparser.Expr) (Placed, bool) {
	if sp.Kind == pinned.KindFloat {
		f, ok := literal.Float(e)
		return Placed{f: f}, ok
	}
	if sp.Kind == pinned.KindTimestamp {
		k, ok := literal.Datetime(e)
		return Placed{k: k, exact: true}, ok
	}
	k, exact, ok := literal.Scaled(e, sp.Scale, sp.Kind == pinned.KindDecimal)
	return Placed{k: k, exact: exact}, ok
}

// Bound narrows vf's interval to the values satisfying `v op x`; neg
// is set for <>. The interval starts as everything.
func (vf *Filter) Bound(op sqlparser.ComparisonExprOperator, x Placed) (neg, ok bool) {
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

// New is the filter of a column of kind that passes every value but NULL.
func New(kind pinned.Kind) *Filter {
	return &Filter{kind: kind, lo: math.MinInt64, hi: math.MaxInt64, flo: math.Inf(-1), fhi: math.Inf(1)}
}

// AddPoint makes vf a list of points (an IN list) and adds x to it; a
// literal between two of an integer space's values adds nothing.
func (vf *Filter) AddPoint(x Placed) {
	vf.isPoints = true
	switch {
	case vf.kind == pinned.KindFloat:
		vf.fpoints = append(vf.fpoints, x.f)
	case x.exact:
		vf.points = append(vf.points, x.k)
	}
}

// Points is the number of points vf lists.
func (vf *Filter) Points() int { return len(vf.points) + len(vf.fpoints) }

// Select narrows sel to the rows of arr that pass vf (fail it when neg);
// wide is scratch for narrow integer columns.
func (vf *Filter) Select(arr arrow.Array, wide []int64, sel []int32, neg bool) []int32 {
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
		return selectRows(arr.(*array.Float64).Float64Values(), sel, valid, neg, vf.isPoints, vf.fpoints, vf.flo, vf.fhi)
	case pinned.KindDecimal:
		if vf.isPoints || valid != nil {
			return selectRows(DecimalInts(arr.(*array.Decimal128), sel, wide), sel, valid, neg, vf.isPoints, vf.points, vf.lo, vf.hi)
		}
		vals := arr.(*array.Decimal128).Values()
		// The range test on the values' low bits as they lie: a copy of
		// every row's scaled integer first took 6x the test's own time
		// (bench live's dashboards: 14% of the coordinator's CPU).
		k := 0
		for _, r := range sel {
			v := int64(vals[r].LowBits())
			sel[k] = r
			k += int(b2i((v >= vf.lo && v <= vf.hi) != neg))
		}
		return sel[:k]
	case pinned.KindTimestamp:
		ts := arr.(*array.Timestamp).TimestampValues()
		if cap(wide) < len(ts) {
			wide = make([]int64, len(ts))
		}
		wide = wide[:len(ts)]
		for i, v := range ts {
			wide[i] = int64(v)
		}
		return selectRows(wide, sel, valid, neg, vf.isPoints, vf.points, vf.lo, vf.hi)
	}
	return selectRows(pinned.IntValues(arr, wide), sel, valid, neg, vf.isPoints, vf.points, vf.lo, vf.hi)
}

// DecimalInts reads the rows sel of a Decimal128 array of at most
// literal.MaxScaledDigits as their scaled integers (the low 64 bits,
// which hold the value), into wide at the same indexes; sel nil reads
// every row. The other indexes of the result hold stale values: read
// only those of sel.
func DecimalInts(a *array.Decimal128, sel []int32, wide []int64) []int64 {
	vals := a.Values()
	if cap(wide) < len(vals) {
		wide = make([]int64, len(vals))
	}
	wide = wide[:len(vals)]
	if sel == nil {
		for i, v := range vals {
			wide[i] = int64(v.LowBits())
		}
		return wide
	}
	for _, r := range sel {
		wide[r] = int64(vals[r].LowBits())
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

func b2i(b bool) int64 {
	var i int64
	if b {
		i = 1
	}
	return i
}

// SpaceOf is the space of column c of t's values, and whether it takes
// value filters (pinexec's valfilter.go).
func SpaceOf(t *pinned.Table, c int) (Space, bool) {
	col := t.Cols[c]
	switch col.Kind() {
	case pinned.KindInt:
		return Space{Kind: pinned.KindInt}, PlainInteger(col.Field.Type)
	case pinned.KindFloat:
		return Space{Kind: pinned.KindFloat}, col.Field.Type == sqltypes.Float64
	case pinned.KindDecimal:
		if s, ok := DecimalScale(t.Schema.Field(c).Type); ok {
			return Space{Kind: pinned.KindDecimal, Scale: s}, true
		}
	case pinned.KindTimestamp:
		// DATETIME only: a TIMESTAMP compares in the session's time zone.
		tt, ok := t.Schema.Field(c).Type.(*arrow.TimestampType)
		return Space{Kind: pinned.KindTimestamp}, ok && tt.Unit == arrow.Microsecond && col.Field.Type == sqltypes.Datetime
	}
	return Space{}, false
}

// PlainInteger reports an integer type whose values an int64 holds.
func PlainInteger(t querypb.Type) bool {
	switch t {
	case sqltypes.Int8, sqltypes.Uint8, sqltypes.Int16, sqltypes.Uint16, sqltypes.Int24, sqltypes.Uint24,
		sqltypes.Int32, sqltypes.Uint32, sqltypes.Int64:
		return true
	}
	return false
}
