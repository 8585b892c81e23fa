package arrowexec

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/mysql/format"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// accumulator is the merge state of one aggregate column across groups.
type accumulator interface {
	// update merges the partial column arr: row r goes to group grp[r].
	// It returns the state bytes it added beyond groupBytes per group.
	update(arr arrow.Array, f arrow.Field, grp []int32) (grown int64, err error)
	// grow makes room for n groups.
	grow(n int)
	// groupBytes is the fixed state size of one group.
	groupBytes() int64
	// result is the final value of group g.
	result(g int) sqltypes.Value
}

// unknowner is an accumulator that may be unable to compute some groups'
// values (their result is a NULL placeholder): unknown says why, or nil;
// anyUnknown, in O(1), whether there is any such group.
type unknowner interface {
	unknown(g int) error
	anyUnknown() bool
}

func newAccumulator(env *collations.Environment, spec AggSpec) (accumulator, error) {
	switch spec.Kind {
	case AggCount:
		return &countAcc{}, nil
	case AggSum:
		return &sumAcc{}, nil
	case AggMin, AggMax:
		c, err := newCollator(env, spec.Collation)
		return &minmaxAcc{max: spec.Kind == AggMax, coll: c}, err
	case AggBitAnd, AggBitOr, AggBitXor:
		return &bitAcc{kind: spec.Kind}, nil
	case AggConcat:
		c, err := newCollator(env, spec.Collation)
		return &concatAcc{spec: spec, coll: c, utf8: isUTF8(env, spec.Collation)}, err
	case AggConcatPartial, AggJSONArray, AggJSONObject:
		return newPartialConcat(env, spec), nil
	}
	return &countAcc{}, fmt.Errorf("arrowexec: unknown aggregate kind %d", spec.Kind)
}

func growTo[T any](s []T, n int) []T {
	l := len(s)
	if n <= l {
		return s
	}
	s = slices.Grow(s, n-l)[:n]
	clear(s[l:])
	return s
}

// countAcc adds partial counts.
type countAcc struct{ n []int64 }

func (a *countAcc) grow(n int)                  { a.n = growTo(a.n, n) }
func (a *countAcc) groupBytes() int64           { return 8 }
func (a *countAcc) result(g int) sqltypes.Value { return sqltypes.NewInt64(a.n[g]) }

func (a *countAcc) update(arr arrow.Array, _ arrow.Field, grp []int32) (int64, error) {
	nulls := arr.NullN() > 0
	switch c := arr.(type) {
	case *array.Null:
	case *array.Int64:
		vals := c.Int64Values()
		for r, g := range grp {
			if !nulls || c.IsValid(r) {
				a.n[g] += vals[r]
			}
		}
	case *array.Uint64:
		vals := c.Uint64Values()
		for r, g := range grp {
			if !nulls || c.IsValid(r) {
				a.n[g] += int64(vals[r])
			}
		}
	default:
		return 0, fmt.Errorf("COUNT partials must be integers, got %s", arr.DataType())
	}
	return 0, nil
}

const (
	sumNone uint8 = iota
	sumFloat
	sumDecimal
)

// sumAcc adds partial sums: exactly, in 256-bit integers at a common scale,
// for DECIMAL and integer partials; in float64 for DOUBLE partials.
type sumAcc struct {
	mode  uint8
	valid []bool
	f     []float64
	d     []decimal256.Num
	scale int32
}

func (a *sumAcc) grow(n int) {
	a.valid = growTo(a.valid, n)
	switch a.mode {
	case sumFloat:
		a.f = growTo(a.f, n)
	case sumDecimal:
		a.d = growTo(a.d, n)
	}
}

func (a *sumAcc) groupBytes() int64 { return 33 }

func (a *sumAcc) result(g int) sqltypes.Value {
	if !a.valid[g] {
		return sqltypes.NULL
	}
	if a.mode == sumFloat {
		return sqltypes.MakeTrusted(sqltypes.Float64, format.FormatFloat(a.f[g]))
	}
	return sqltypes.MakeTrusted(sqltypes.Decimal, appendDecimal(nil, a.d[g], a.scale))
}

func (a *sumAcc) update(arr arrow.Array, _ arrow.Field, grp []int32) (int64, error) {
	nulls := arr.NullN() > 0
	switch c := arr.(type) {
	case *array.Null:
	case *array.Float64:
		if a.mode == sumDecimal {
			return 0, fmt.Errorf("SUM partials mix DOUBLE with DECIMAL or integers")
		}
		a.mode = sumFloat
		a.grow(len(a.valid))
		vals := c.Float64Values()
		for r, g := range grp {
			if !nulls || c.IsValid(r) {
				a.f[g] += vals[r]
				a.valid[g] = true
			}
		}
	case *array.Int64:
		mul, err := a.toDecimal(0)
		if err != nil {
			return 0, err
		}
		vals := c.Int64Values()
		for r, g := range grp {
			if !nulls || c.IsValid(r) {
				if err := a.add(g, decimal256.FromI64(vals[r]), mul); err != nil {
					return 0, err
				}
			}
		}
	case *array.Uint64:
		mul, err := a.toDecimal(0)
		if err != nil {
			return 0, err
		}
		vals := c.Uint64Values()
		for r, g := range grp {
			if !nulls || c.IsValid(r) {
				if err := a.add(g, decimal256.FromU64(vals[r]), mul); err != nil {
					return 0, err
				}
			}
		}
	case *array.Decimal128:
		mul, err := a.toDecimal(c.DataType().(*arrow.Decimal128Type).Scale)
		if err != nil {
			return 0, err
		}
		vals := c.Values()
		for r, g := range grp {
			if !nulls || c.IsValid(r) {
				if err := a.add(g, decimal256.FromDecimal128(vals[r]), mul); err != nil {
					return 0, err
				}
			}
		}
	case *array.Decimal256:
		mul, err := a.toDecimal(c.DataType().(*arrow.Decimal256Type).Scale)
		if err != nil {
			return 0, err
		}
		vals := c.Values()
		for r, g := range grp {
			if !nulls || c.IsValid(r) {
				if err := a.add(g, vals[r], mul); err != nil {
					return 0, err
				}
			}
		}
	default:
		return 0, fmt.Errorf("SUM partials of type %s are not supported", arr.DataType())
	}
	return 0, nil
}

// toDecimal switches the state to exact mode for partials of the given
// scale. Sums keep the largest scale seen; it returns the multiplier that
// brings a partial of this scale to the state's scale (zero Num: none).
func (a *sumAcc) toDecimal(scale int32) (decimal256.Num, error) {
	switch a.mode {
	case sumFloat:
		return decimal256.Num{}, fmt.Errorf("SUM partials mix DOUBLE with DECIMAL or integers")
	case sumNone:
		a.mode, a.scale = sumDecimal, scale
	}
	a.grow(len(a.valid))
	if scale > a.scale {
		m := decimal256.GetScaleMultiplier(int(scale - a.scale))
		for i := range a.d {
			a.d[i] = a.d[i].Mul(m)
		}
		a.scale = scale
	}
	if scale < a.scale {
		return decimal256.GetScaleMultiplier(int(a.scale - scale)), nil
	}
	return decimal256.Num{}, nil
}

func (a *sumAcc) add(g int32, v, mul decimal256.Num) error {
	if mul != (decimal256.Num{}) {
		v = v.Mul(mul)
	}
	old := a.d[g]
	sum := old.Add(v)
	if neg(old) == neg(v) && neg(sum) != neg(old) {
		return fmt.Errorf("SUM overflows 76 decimal digits")
	}
	a.d[g] = sum
	a.valid[g] = true
	return nil
}

func neg(n decimal256.Num) bool { return n.Array()[3]>>63 != 0 }

type mmKind uint8

const (
	mmNone mmKind = iota
	mmInt
	mmUint
	mmFloat
	mmDecimal
	mmDate     // days in i64
	mmDatetime // microseconds in i64
	mmString
	mmTime // TIME as text, compared by value
	mmBinary
)

// minmaxAcc keeps the smallest or largest partial per group. Of equal
// values (under the collation) the first one seen is kept.
type minmaxAcc struct {
	max    bool
	coll   collator
	kind   mmKind
	scale  int32
	retype querypb.Type
	frac   int // a DATETIME(n) column's fractional digits, -1 unknown (fracDigitsOf)
	valid  []bool
	i64    []int64
	u64    []uint64
	f64    []float64
	dec    []decimal256.Num
	b      [][]byte
	w      [][]byte // collation keys of b, for strings under a collation
	// ranked: the input has a rank (setRank); of equal strings under the
	// collation the one of the lowest rank is kept (ranks per group).
	ranked  bool
	rank    int
	ranks   []int
	kbuf    []byte
	scratch []int64
}

func (a *minmaxAcc) grow(n int) {
	a.valid = growTo(a.valid, n)
	switch a.kind {
	case mmInt, mmDate, mmDatetime, mmTime:
		a.i64 = growTo(a.i64, n)
	case mmUint:
		a.u64 = growTo(a.u64, n)
	case mmFloat:
		a.f64 = growTo(a.f64, n)
	case mmDecimal:
		a.dec = growTo(a.dec, n)
	}
	if a.kind == mmString || a.kind == mmTime || a.kind == mmBinary {
		a.b = growTo(a.b, n)
	}
	if a.kind == mmString && a.coll.coll != nil {
		a.w = growTo(a.w, n)
	}
}

func (a *minmaxAcc) groupBytes() int64 { return 33 }

// keyed reports whether string states carry collation keys.
func (a *minmaxAcc) keyed() bool { return a.kind == mmString && a.coll.coll != nil }

// setKind fixes the state's type on the first typed partial column and
// rejects a later column of another type.
func (a *minmaxAcc) setKind(k mmKind, scale int32, f arrow.Field) error {
	if a.kind == mmNone {
		a.kind, a.scale, a.retype, a.frac = k, scale, metaType(f), fracDigitsOf(f)
		if a.retype == sqltypes.Time {
			a.kind = mmTime
		}
		a.grow(len(a.valid))
		return nil
	}
	if a.kind == mmTime && k == mmString {
		return nil
	}
	if a.kind != k || a.scale != scale {
		return fmt.Errorf("MIN/MAX partials changed type to %s", f.Type)
	}
	return nil
}

func (a *minmaxAcc) update(arr arrow.Array, f arrow.Field, grp []int32) (int64, error) {
	var k mmKind
	var scale int32
	switch c := arr.(type) {
	case *array.Null:
		return 0, nil
	case *array.Int64:
		k = mmInt
	case *array.Uint64:
		k = mmUint
	case *array.Float64:
		k = mmFloat
	case *array.Decimal128:
		k, scale = mmDecimal, c.DataType().(*arrow.Decimal128Type).Scale
	case *array.Decimal256:
		k, scale = mmDecimal, c.DataType().(*arrow.Decimal256Type).Scale
	case *array.Date32:
		k = mmDate
	case *array.Timestamp:
		k = mmDatetime
	case *array.String:
		k = mmString
	case *array.Binary:
		k = mmBinary
	default:
		return 0, fmt.Errorf("MIN/MAX partials of type %s are not supported", arr.DataType())
	}
	if err := a.setKind(k, scale, f); err != nil {
		return 0, err
	}
	switch c := arr.(type) {
	case *array.Int64:
		mergeOrdered(a, c.Int64Values(), arr, grp, a.i64)
	case *array.Uint64:
		mergeOrdered(a, c.Uint64Values(), arr, grp, a.u64)
	case *array.Float64:
		mergeOrdered(a, c.Float64Values(), arr, grp, a.f64)
	case *array.Date32:
		a.scratch = a.scratch[:0]
		for _, v := range c.Date32Values() {
			a.scratch = append(a.scratch, int64(v))
		}
		mergeOrdered(a, a.scratch, arr, grp, a.i64)
	case *array.Timestamp:
		unit := c.DataType().(*arrow.TimestampType).Unit
		a.scratch = a.scratch[:0]
		for _, v := range c.TimestampValues() {
			a.scratch = append(a.scratch, toMicros(int64(v), unit))
		}
		mergeOrdered(a, a.scratch, arr, grp, a.i64)
	case *array.Decimal128:
		vals := c.Values()
		a.mergeFunc(arr, grp, func(r int, g int32) int {
			return decimal256.FromDecimal128(vals[r]).Cmp(a.dec[g])
		}, func(r int, g int32) { a.dec[g] = decimal256.FromDecimal128(vals[r]) })
	case *array.Decimal256:
		vals := c.Values()
		a.mergeFunc(arr, grp, func(r int, g int32) int { return vals[r].Cmp(a.dec[g]) },
			func(r int, g int32) { a.dec[g] = vals[r] })
	case *array.String:
		return a.mergeBytes(arr, grp, newStrCol(c).at)
	case *array.Binary:
		return a.mergeBytes(arr, grp, c.Value)
	}
	return 0, nil
}

func (a *minmaxAcc) better(c int) bool { return (a.max && c > 0) || (!a.max && c < 0) }

// setRank says the next update's input has rank rank (HashAgg.AddRanked).
func (a *minmaxAcc) setRank(rank int) { a.ranked, a.rank = true, rank }

func mergeOrdered[T cmp.Ordered](a *minmaxAcc, vals []T, arr arrow.Array, grp []int32, state []T) {
	nulls := arr.NullN() > 0
	for r, g := range grp {
		if nulls && arr.IsNull(r) {
			continue
		}
		v := vals[r]
		if !a.valid[g] || (a.max && v > state[g]) || (!a.max && v < state[g]) {
			state[g] = v
			a.valid[g] = true
		}
	}
}

func (a *minmaxAcc) mergeFunc(arr arrow.Array, grp []int32, compare func(r int, g int32) int, set func(r int, g int32)) {
	nulls := arr.NullN() > 0
	for r, g := range grp {
		if nulls && arr.IsNull(r) {
			continue
		}
		if !a.valid[g] || a.better(compare(r, g)) {
			set(r, g)
			a.valid[g] = true
		}
	}
}

func (a *minmaxAcc) mergeBytes(arr arrow.Array, grp []int32, at func(int) []byte) (int64, error) {
	nulls := arr.NullN() > 0
	var grown int64
	for r, g := range grp {
		if nulls && arr.IsNull(r) {
			continue
		}
		v := at(r)
		var c int
		switch {
		case !a.valid[g]:
			c = 0
		case a.kind == mmTime:
			t, ok := parseTime(v)
			if !ok {
				return grown, fmt.Errorf("bad TIME value %q", v)
			}
			c = cmp.Compare(t, a.i64[g])
		case a.keyed():
			a.kbuf = a.coll.appendKey(a.kbuf[:0], v)
			c = a.coll.compareKeys(a.kbuf, a.w[g])
		default:
			c = bytes.Compare(v, a.b[g])
		}
		if a.ranked {
			a.ranks = growTo(a.ranks, len(a.valid))
		}
		// Equal under the collation ('AA', 'aa'): the spelling of the
		// lowest-ranked input, the one the server read first.
		tie := a.ranked && a.valid[g] && c == 0 && a.rank < a.ranks[g]
		if a.valid[g] && !a.better(c) && !tie {
			continue
		}
		if a.ranked {
			a.ranks[g] = a.rank
		}
		switch {
		case a.kind == mmTime:
			a.i64[g], _ = parseTime(v)
		case a.keyed():
			if !a.valid[g] {
				a.kbuf = a.coll.appendKey(a.kbuf[:0], v)
			}
			before := cap(a.w[g])
			a.w[g] = append(a.w[g][:0], a.kbuf...)
			grown += int64(cap(a.w[g]) - before)
		}
		before := cap(a.b[g])
		a.b[g] = append(a.b[g][:0], v...)
		grown += int64(cap(a.b[g]) - before)
		a.valid[g] = true
	}
	return grown, nil
}

func (a *minmaxAcc) result(g int) sqltypes.Value {
	if !a.valid[g] {
		return sqltypes.NULL
	}
	var v sqltypes.Value
	switch a.kind {
	case mmInt:
		v = sqltypes.NewInt64(a.i64[g])
	case mmUint:
		v = sqltypes.NewUint64(a.u64[g])
	case mmFloat:
		v = sqltypes.MakeTrusted(sqltypes.Float64, format.FormatFloat(a.f64[g]))
	case mmDecimal:
		v = sqltypes.MakeTrusted(sqltypes.Decimal, appendDecimal(nil, a.dec[g], a.scale))
	case mmDate:
		v = sqltypes.MakeTrusted(sqltypes.Date, appendDate(nil, int32(a.i64[g])))
	case mmDatetime:
		if a.frac >= 0 {
			v = sqltypes.MakeTrusted(sqltypes.Datetime, appendDatetimeFrac(nil, a.i64[g], a.frac))
		} else {
			v = sqltypes.MakeTrusted(sqltypes.Datetime, appendDatetime(nil, a.i64[g]))
		}
	case mmString, mmTime:
		v = sqltypes.MakeTrusted(sqltypes.VarChar, clone(a.b[g]))
	case mmBinary:
		v = sqltypes.MakeTrusted(sqltypes.VarBinary, clone(a.b[g]))
	}
	if a.retype != 0 && !v.IsNull() {
		v = retyped(a.retype, v)
	}
	return v
}
