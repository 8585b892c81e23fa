package arrowexec

import (
	"fmt"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"vitess.io/vitess/go/mysql/format"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// Field metadata keys set by workers on every column.
const (
	MetaMySQLType = "mysql.type"      // e.g. "DECIMAL", "DATETIME", "VARCHAR"
	MetaScale     = "mysql.scale"     // decimal scale or fractional-second precision
	MetaPrecision = "mysql.precision" // decimal precision
)

// Value converts element i of arr to a MySQL value. The result does not
// share memory with arr. Int64 becomes BIGINT, Uint64 BIGINT UNSIGNED,
// decimals DECIMAL with exactly the type's scale ("12.30", "-0.50"),
// Float64 DOUBLE formatted as MySQL prints it, Date32 DATE, timestamps
// DATETIME ("YYYY-MM-DD HH:MM:SS", plus ".ffffff" only when the microseconds
// are not zero), String VARCHAR and Binary VARBINARY. Types that need field
// metadata to be told apart (YEAR, TIME, TIMESTAMP) come out as their Arrow
// carrier's type here; RecordRows applies the metadata. Arrow types workers
// never send are rendered as text.
func Value(arr arrow.Array, i int) sqltypes.Value {
	if arr.IsNull(i) || arr.DataType().ID() == arrow.NULL {
		return sqltypes.NULL // a Null array's IsNull reports false
	}
	switch a := arr.(type) {
	case *array.Int64:
		return sqltypes.NewInt64(a.Value(i))
	case *array.Uint64:
		return sqltypes.NewUint64(a.Value(i))
	case *array.Float64:
		return sqltypes.MakeTrusted(sqltypes.Float64, format.FormatFloat(a.Value(i)))
	case *array.Decimal128:
		scale := a.DataType().(*arrow.Decimal128Type).Scale
		return sqltypes.MakeTrusted(sqltypes.Decimal, appendDecimal(nil, decimal256.FromDecimal128(a.Value(i)), scale))
	case *array.Decimal256:
		scale := a.DataType().(*arrow.Decimal256Type).Scale
		return sqltypes.MakeTrusted(sqltypes.Decimal, appendDecimal(nil, a.Value(i), scale))
	case *array.Date32:
		return sqltypes.MakeTrusted(sqltypes.Date, appendDate(nil, int32(a.Value(i))))
	case *array.Timestamp:
		us := toMicros(int64(a.Value(i)), a.DataType().(*arrow.TimestampType).Unit)
		return sqltypes.MakeTrusted(sqltypes.Datetime, appendDatetime(nil, us))
	case *array.String:
		return sqltypes.MakeTrusted(sqltypes.VarChar, []byte(a.Value(i)))
	case *array.LargeString:
		return sqltypes.MakeTrusted(sqltypes.VarChar, []byte(a.Value(i)))
	case *array.Binary:
		return sqltypes.MakeTrusted(sqltypes.VarBinary, clone(a.Value(i)))
	case *array.LargeBinary:
		return sqltypes.MakeTrusted(sqltypes.VarBinary, clone(a.Value(i)))
	}
	return sqltypes.MakeTrusted(sqltypes.VarChar, []byte(arr.ValueStr(i)))
}

// RecordRows converts every row of rec to MySQL values that outlive rec.
// A field's "mysql.type" metadata refines the Arrow type: YEAR (Int64) gives
// sqltypes.Year, TIME (String) sqltypes.Time and TIMESTAMP (Timestamp)
// sqltypes.Timestamp.
func RecordRows(rec arrow.RecordBatch) [][]sqltypes.Value {
	n, cols := int(rec.NumRows()), int(rec.NumCols())
	retype := make([]querypb.Type, cols)
	frac := make([]int, cols)
	for c := range cols {
		retype[c] = metaType(rec.Schema().Field(c))
		frac[c] = fracDigitsOf(rec.Schema().Field(c))
	}
	rows := make([][]sqltypes.Value, n)
	flat := make([]sqltypes.Value, n*cols)
	for r := range rows {
		rows[r] = flat[r*cols : (r+1)*cols : (r+1)*cols]
	}
	// One arena holds the text of every value: values share a few large
	// allocations instead of one each. A slice taken before the arena grows
	// keeps pointing at the old (still live) array, so growth is safe.
	var size int
	for _, col := range rec.Columns() {
		for _, b := range col.Data().Buffers() {
			if b != nil {
				size += b.Len()
			}
		}
	}
	arena := make([]byte, 0, size+size/2+64)
	for c := range cols {
		col := rec.Column(c)
		for r := range n {
			var v sqltypes.Value
			if frac[c] >= 0 && col.IsValid(r) {
				// A DATETIME(3) value is "…00.000" to MySQL, in every
				// expression over it (CONCAT, CAST AS CHAR, LENGTH).
				start := len(arena)
				arena = appendTimestamp(arena, col, r, frac[c])
				v = sqltypes.MakeTrusted(sqltypes.Datetime, arena[start:len(arena):len(arena)])
			} else {
				v, arena = valueInto(arena, col, r)
			}
			if retype[c] != 0 && !v.IsNull() {
				v = retyped(retype[c], v)
			}
			rows[r][c] = v
		}
	}
	return rows
}

// valueInto is Value with the text appended to arena.
func valueInto(arena []byte, arr arrow.Array, i int) (sqltypes.Value, []byte) {
	if arr.IsNull(i) || arr.DataType().ID() == arrow.NULL {
		return sqltypes.NULL, arena
	}
	start := len(arena)
	var t querypb.Type
	switch a := arr.(type) {
	case *array.Int64:
		t, arena = sqltypes.Int64, strconv.AppendInt(arena, a.Value(i), 10)
	case *array.Uint64:
		t, arena = sqltypes.Uint64, strconv.AppendUint(arena, a.Value(i), 10)
	case *array.Decimal128:
		scale := a.DataType().(*arrow.Decimal128Type).Scale
		t, arena = sqltypes.Decimal, appendDecimal(arena, decimal256.FromDecimal128(a.Value(i)), scale)
	case *array.Decimal256:
		t, arena = sqltypes.Decimal, appendDecimal(arena, a.Value(i), a.DataType().(*arrow.Decimal256Type).Scale)
	case *array.Date32:
		t, arena = sqltypes.Date, appendDate(arena, int32(a.Value(i)))
	case *array.Timestamp:
		us := toMicros(int64(a.Value(i)), a.DataType().(*arrow.TimestampType).Unit)
		t, arena = sqltypes.Datetime, appendDatetime(arena, us)
	case *array.String:
		t, arena = sqltypes.VarChar, append(arena, a.Value(i)...)
	case *array.Binary:
		t, arena = sqltypes.VarBinary, append(arena, a.Value(i)...)
	default:
		return Value(arr, i), arena
	}
	return sqltypes.MakeTrusted(t, arena[start:len(arena):len(arena)]), arena
}

// fieldValue is Value, with a TIMESTAMP column's values printed with the
// fractional digits its field metadata declares.
func fieldValue(arr arrow.Array, f arrow.Field, i int) sqltypes.Value {
	if d := fracDigitsOf(f); d >= 0 && arr.IsValid(i) {
		return sqltypes.MakeTrusted(sqltypes.Datetime, appendTimestamp(nil, arr, i, d))
	}
	return Value(arr, i)
}

// appendTimestamp appends row i of a timestamp array with digits
// fractional digits (AppendDatetime).
func appendTimestamp(dst []byte, arr arrow.Array, i, digits int) []byte {
	ts := arr.(*array.Timestamp)
	return AppendDatetime(dst, int64(ts.Value(i)), ts.DataType().(*arrow.TimestampType).Unit, digits)
}

// fracDigitsOf is the fractional-second digits a TIMESTAMP column's
// metadata declares (DATETIME(3): 3), or -1 for another column or none
// declared.
func fracDigitsOf(f arrow.Field) int {
	if f.Type.ID() != arrow.TIMESTAMP {
		return -1
	}
	s, ok := f.Metadata.GetValue(MetaScale)
	if !ok {
		return -1
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 6 {
		return -1
	}
	return n
}

// metaType returns the sqltypes type that the field's metadata asks for in
// place of its Arrow carrier's, or 0.
func metaType(f arrow.Field) querypb.Type {
	t, ok := f.Metadata.GetValue(MetaMySQLType)
	if !ok {
		return 0
	}
	switch {
	case t == "YEAR" && f.Type.ID() == arrow.INT64:
		return sqltypes.Year
	case t == "TIME" && (f.Type.ID() == arrow.STRING || f.Type.ID() == arrow.LARGE_STRING):
		return sqltypes.Time
	case t == "TIMESTAMP" && f.Type.ID() == arrow.TIMESTAMP:
		return sqltypes.Timestamp
	}
	return 0
}

// retyped gives v, a non-NULL value of a field's Arrow carrier, the type
// the field's metadata asks for (metaType), written as MariaDB writes
// it: YEAR 0 is 0000.
func retyped(t querypb.Type, v sqltypes.Value) sqltypes.Value {
	if t == sqltypes.Year && len(v.Raw()) < 4 {
		n, err := v.ToInt64()
		if err == nil {
			return sqltypes.MakeTrusted(t, fmt.Appendf(nil, "%04d", n))
		}
	}
	return sqltypes.MakeTrusted(t, v.Raw())
}

func clone(b []byte) []byte { return append([]byte(nil), b...) }

func toMicros(v int64, unit arrow.TimeUnit) int64 {
	switch unit {
	case arrow.Second:
		return v * 1e6
	case arrow.Millisecond:
		return v * 1e3
	case arrow.Nanosecond:
		return v / 1e3
	}
	return v
}

// appendDecimal appends n/10^scale with exactly scale fraction digits.
func appendDecimal(dst []byte, n decimal256.Num, scale int32) []byte {
	var digits []byte
	var scratch [24]byte
	neg := n.Sign() < 0
	if w := n.Array(); fitsInt64(w) {
		v := int64(w[0])
		u := uint64(v)
		if neg {
			u = uint64(-v) // also right for MinInt64
		}
		digits = strconv.AppendUint(scratch[:0], u, 10)
	} else {
		s := n.Abs().BigInt().String()
		digits = []byte(s)
	}
	if neg {
		dst = append(dst, '-')
	}
	if scale <= 0 {
		dst = append(dst, digits...)
		for range -scale {
			dst = append(dst, '0')
		}
		return dst
	}
	places := int(scale)
	if len(digits) <= places {
		dst = append(dst, '0', '.')
		for range places - len(digits) {
			dst = append(dst, '0')
		}
		return append(dst, digits...)
	}
	at := len(digits) - places
	dst = append(dst, digits[:at]...)
	dst = append(dst, '.')
	return append(dst, digits[at:]...)
}

// fitsInt64 reports whether a 256-bit two's complement value (little-endian
// words) is a sign extension of its lowest word.
func fitsInt64(w [4]uint64) bool {
	ext := uint64(int64(w[0]) >> 63)
	return w[1] == ext && w[2] == ext && w[3] == ext
}

// appendDate appends a Date32 (days since 1970-01-01) as YYYY-MM-DD.
func appendDate(dst []byte, days int32) []byte {
	t := time.Unix(int64(days)*86400, 0).UTC()
	y, m, d := t.Date()
	dst = appendPadded(dst, y, 4)
	dst = append(dst, '-')
	dst = appendPadded(dst, int(m), 2)
	dst = append(dst, '-')
	return appendPadded(dst, d, 2)
}

// appendDatetime appends microseconds since the epoch as
// YYYY-MM-DD HH:MM:SS[.ffffff].
func appendDatetime(dst []byte, us int64) []byte {
	sec, frac := us/1e6, us%1e6
	if frac < 0 {
		sec, frac = sec-1, frac+1e6
	}
	t := time.Unix(sec, 0).UTC()
	y, m, d := t.Date()
	hh, mm, ss := t.Clock()
	dst = appendPadded(dst, y, 4)
	dst = append(dst, '-')
	dst = appendPadded(dst, int(m), 2)
	dst = append(dst, '-')
	dst = appendPadded(dst, d, 2)
	dst = append(dst, ' ')
	dst = appendPadded(dst, hh, 2)
	dst = append(dst, ':')
	dst = appendPadded(dst, mm, 2)
	dst = append(dst, ':')
	dst = appendPadded(dst, ss, 2)
	if frac != 0 {
		dst = append(dst, '.')
		dst = appendPadded(dst, int(frac), 6)
	}
	return dst
}

// AppendDatetime appends a timestamp array's value v (in unit) as MySQL
// prints a DATETIME(digits) value ("2008-06-10 08:00:00.000" for 3), or
// with microseconds only when they are not zero for digits < 0.
func AppendDatetime(dst []byte, v int64, unit arrow.TimeUnit, digits int) []byte {
	us := toMicros(v, unit)
	if digits < 0 || digits > 6 {
		return appendDatetime(dst, us)
	}
	return appendDatetimeFrac(dst, us, digits)
}

// appendDatetimeFrac is appendDatetime with exactly digits fractional
// digits (0: none), as MySQL prints a DATETIME(digits) value. The value
// is truncated, never rounded: it came from a column of that precision.
func appendDatetimeFrac(dst []byte, us int64, digits int) []byte {
	sec, frac := us/1e6, us%1e6
	if frac < 0 {
		sec, frac = sec-1, frac+1e6
	}
	dst = appendDatetime(dst, sec*1e6)
	if digits > 0 {
		dst = append(dst, '.')
		for range 6 - digits {
			frac /= 10
		}
		dst = appendPadded(dst, int(frac), digits)
	}
	return dst
}

func appendPadded(dst []byte, v, width int) []byte {
	if v < 0 {
		dst = append(dst, '-')
		v = -v
	}
	var buf [20]byte
	s := strconv.AppendUint(buf[:0], uint64(v), 10)
	for i := len(s); i < width; i++ {
		dst = append(dst, '0')
	}
	return append(dst, s...)
}
