package pinexec

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"vitess.io/vitess/go/sqltypes"
	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shoaldb/shoal/pinned"
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

// maxScaledDigits is the widest DECIMAL a value filter or a column
// aggregate reads as int64: 10^18 - 1 < 2^63.
const maxScaledDigits = 18

// scaledBound is past every value of a column of at most maxScaledDigits.
const scaledBound = int64(1e18)

// valSpace is how a value filter reads a column: its kind, and for
// integers and decimals the scale (0 for integers).
type valSpace struct {
	kind  pinned.Kind
	scale int32
}

// valSpaceOf reports whether column c takes value filters.
func (p *Program) valSpaceOf(c int) (valSpace, bool) {
	col := p.t.Cols[c]
	switch col.Kind() {
	case pinned.KindInt:
		return valSpace{kind: pinned.KindInt}, plainInteger(col.Field.Type)
	case pinned.KindFloat:
		return valSpace{kind: pinned.KindFloat}, col.Field.Type == sqltypes.Float64
	case pinned.KindDecimal:
		if s, ok := decimalScale(p.t.Schema.Field(c).Type); ok {
			return valSpace{kind: pinned.KindDecimal, scale: s}, true
		}
	case pinned.KindTimestamp:
		// DATETIME only: a TIMESTAMP compares in the session's time zone.
		tt, ok := p.t.Schema.Field(c).Type.(*arrow.TimestampType)
		return valSpace{kind: pinned.KindTimestamp}, ok && tt.Unit == arrow.Microsecond && col.Field.Type == sqltypes.Datetime
	}
	return valSpace{}, false
}

var isoDatetime = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}( [0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,6})?)?$`)

// datetimeLiteral is a DATE, TIMESTAMP or string literal of a valid
// 'YYYY-MM-DD[ hh:mm:ss[.ffffff]]', as microseconds since 1970-01-01
// 00:00:00: the DATETIME MySQL converts it to when it meets a DATETIME
// column.
func datetimeLiteral(e sqlparser.Expr) (int64, bool) {
	var s string
	if l, ok := e.(*sqlparser.Literal); ok && (l.Type == sqlparser.DateVal || l.Type == sqlparser.TimestampVal) {
		s = l.Val
	} else if b, ok := strLiteral(e); ok {
		s = string(b)
	} else {
		return 0, false
	}
	if !isoDatetime.MatchString(s) {
		return 0, false
	}
	layout := "2006-01-02"
	if len(s) > len(layout) {
		layout = "2006-01-02 15:04:05.999999"
	}
	d, err := time.Parse(layout, s)
	if err != nil || d.Year() < 1000 {
		return 0, false
	}
	return d.UnixMicro(), true
}

// decimalScale is the scale of a DECIMAL column (of Arrow type t) whose
// values fit an int64 once scaled, or false.
func decimalScale(t arrow.DataType) (int32, bool) {
	dt, ok := t.(*arrow.Decimal128Type)
	if !ok || dt.Precision > maxScaledDigits || dt.Scale < 0 {
		return 0, false
	}
	return dt.Scale, true
}

// numericLiteral splits an integer, DECIMAL or float literal (with an
// optional unary minus) into its sign, text and type.
func numericLiteral(e sqlparser.Expr) (neg bool, text string, typ sqlparser.ValType, ok bool) {
	if u, isU := e.(*sqlparser.UnaryExpr); isU && u.Operator == sqlparser.UMinusOp {
		neg, e = true, u.Expr
	}
	l, isL := e.(*sqlparser.Literal)
	if !isL {
		return false, "", 0, false
	}
	switch l.Type {
	case sqlparser.IntVal, sqlparser.DecimalVal, sqlparser.FloatVal:
	default:
		return false, "", 0, false
	}
	text = l.Val
	if strings.HasPrefix(text, "-") {
		if neg {
			return false, "", 0, false
		}
		neg, text = true, text[1:]
	}
	return neg, text, l.Type, text != ""
}

// scaledLiteral places an integer or DECIMAL literal among the integers
// scaled by 10^scale: the literal is k when exact, else strictly between
// k and k+1. With clamp (a DECIMAL column of at most maxScaledDigits),
// magnitudes of scaledBound or more are clamped there, beyond every value
// of the column; without (a BIGINT, whose values reach 2^63), a literal
// past int64 is not placed.
func scaledLiteral(e sqlparser.Expr, scale int32, clamp bool) (k int64, exact, ok bool) {
	neg, text, typ, ok := numericLiteral(e)
	if !ok || typ == sqlparser.FloatVal {
		return 0, false, false
	}
	ip, fp, _ := strings.Cut(text, ".")
	for _, part := range []string{ip, fp} {
		for i := 0; i < len(part); i++ {
			if part[i] < '0' || part[i] > '9' {
				return 0, false, false
			}
		}
	}
	s := int(scale)
	rest := ""
	if len(fp) > s {
		fp, rest = fp[:s], fp[s:]
	}
	digits := strings.TrimLeft(ip+fp+strings.Repeat("0", s-len(fp)), "0")
	exact = strings.Trim(rest, "0") == ""
	var mag int64
	if clamp && len(digits) > maxScaledDigits {
		mag, exact = scaledBound, false
	} else if digits != "" {
		var err error
		if mag, err = strconv.ParseInt(digits, 10, 64); err != nil {
			return 0, false, false
		}
	}
	switch {
	case !neg:
		return mag, exact, true
	case exact:
		return -mag, true, true
	}
	return -mag - 1, false, true // -(mag + a fraction)
}

// floatLiteral is a numeric literal as the double MySQL compares a
// DOUBLE column with.
func floatLiteral(e sqlparser.Expr) (float64, bool) {
	neg, text, _, ok := numericLiteral(e)
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsInf(f, 0) {
		return 0, false
	}
	if neg {
		f = -f
	}
	return f, true
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
		f, ok := floatLiteral(e)
		return placed{f: f}, ok
	}
	if sp.kind == pinned.KindTimestamp {
		k, ok := datetimeLiteral(e)
		return placed{k: k, exact: true}, ok
	}
	k, exact, ok := scaledLiteral(e, sp.scale, sp.kind == pinned.KindDecimal)
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
	sp, ok := p.valSpaceOf(c)
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
	sp, ok := p.valSpaceOf(c)
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

// decimalInts reads a Decimal128 array of at most maxScaledDigits as its
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
