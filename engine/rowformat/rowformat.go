// Package rowformat writes a merged or evaluated value as MySQL sends it
// for a result column: the text protocol's DECIMAL scale, DOUBLE/FLOAT
// with the column's decimals or in shortest form, DATETIME/TIME
// fractional digits, integers without a fraction; and the binary
// protocol's full-precision fixed-decimals floats; the character set
// conversions and collations of result columns (charsets.go); and which
// protocol and client character set a statement's context asks for
// (output.go). It owns no state and imports only vitess' value,
// decimal and collation packages: the engine's result writer, derived
// tables and UNION ALL call it for every row.
package rowformat

import (
	"bytes"
	"math"
	"strconv"

	"vitess.io/vitess/go/mysql/decimal"
	"vitess.io/vitess/go/mysql/format"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// notFixedDec is the decimals of a floating-point column whose values are
// written in shortest form (MariaDB's NOT_FIXED_DEC, FLOATING_POINT_DECIMALS;
// MySQL 8 uses 39, also ≥ 31).
const notFixedDec = 31

// FixedFloats reports whether some result column is a floating-point
// column whose text loses what the binary protocol keeps: one with fixed
// decimals, or any FLOAT (the text protocol writes 6 significant digits,
// 2.33333, where the binary value is the float's, 2.3333333). A binary
// protocol client of such a statement gets it from the replica's own
// prepared statement.
func FixedFloats(fields []*querypb.Field) bool {
	for _, f := range fields {
		if sqltypes.IsFloat(f.Type) && (f.Decimals < notFixedDec || f.Type == sqltypes.Float32) {
			return true
		}
	}
	return false
}

// Binary is Text for a row sent in the binary protocol: a
// fixed-decimals float keeps every digit (its shortest exact text, which
// the protocol writer parses back to the same double).
func Binary(v sqltypes.Value, f *querypb.Field) sqltypes.Value {
	if sqltypes.IsFloat(f.Type) && f.Decimals < notFixedDec && !v.IsNull() {
		bits := 64
		if f.Type == sqltypes.Float32 {
			bits = 32
		}
		if fv, err := strconv.ParseFloat(string(v.Raw()), bits); err == nil {
			return sqltypes.MakeTrusted(f.Type, strconv.AppendFloat(nil, fv, 'g', -1, bits))
		}
	}
	return Text(v, f)
}

// Text formats a merged or evaluated value exactly as MySQL would send it
// for the result column f: DECIMAL with the column's scale, DOUBLE with
// the column's decimals or MySQL's shortest representation, DATETIME/TIME with the column's
// fractional digits, integers without a fraction.
func Text(v sqltypes.Value, f *querypb.Field) sqltypes.Value {
	if v.IsNull() {
		return sqltypes.NULL
	}
	raw := v.Raw()
	switch t := f.Type; {
	case t == sqltypes.Decimal:
		if fracDigits(raw) == int(f.Decimals) {
			return sqltypes.MakeTrusted(t, raw) // already at the column's scale
		}
		d, err := decimal.NewFromMySQL(raw)
		if err != nil {
			break
		}
		return sqltypes.MakeTrusted(t, d.FormatMySQL(int32(f.Decimals)))
	case sqltypes.IsFloat(t):
		if negativeZero(raw) {
			raw = []byte("0") // MariaDB never sends a negative zero (-STDDEV(x) of one row)
		}
		if f.Decimals < notFixedDec {
			// A DOUBLE/FLOAT result with fixed decimals (STDDEV, VARIANCE:
			// the argument's decimals + 4; a DOUBLE(M,D) column): MariaDB
			// writes it with exactly that many (String::set_real, my_fcvt).
			bits := 64
			if t == sqltypes.Float32 {
				bits = 32
			}
			fv, err := strconv.ParseFloat(string(raw), bits)
			if err != nil {
				break
			}
			return sqltypes.MakeTrusted(t, fixedFloat(fv, int(f.Decimals), bits))
		}
		if v.Type() == sqltypes.Float64 || v.Type() == sqltypes.Float32 {
			return sqltypes.MakeTrusted(t, raw)
		}
		fv, err := strconv.ParseFloat(string(raw), 64)
		if err != nil {
			break
		}
		return sqltypes.MakeTrusted(t, format.FormatFloat(fv))
	case sqltypes.IsIntegral(t):
		if sqltypes.IsDecimal(v.Type()) || sqltypes.IsFloat(v.Type()) {
			if d, err := decimal.NewFromMySQL(raw); err == nil {
				return sqltypes.MakeTrusted(t, d.FormatMySQL(0))
			}
		}
		return sqltypes.MakeTrusted(t, raw)
	case t == sqltypes.Datetime || t == sqltypes.Timestamp || t == sqltypes.Time:
		return sqltypes.MakeTrusted(t, fixFraction(raw, int(f.Decimals)))
	case t == sqltypes.Date:
		if len(raw) > 10 && v.Type() != sqltypes.Date {
			raw = raw[:10]
		}
		return sqltypes.MakeTrusted(t, raw)
	default:
		return sqltypes.MakeTrusted(t, raw)
	}
	return sqltypes.MakeTrusted(f.Type, raw)
}

// fixFraction pads or cuts the fractional seconds of a time value to fsp
// digits (MySQL's DATETIME(fsp) rendering).
func fixFraction(raw []byte, fsp int) []byte {
	dot := -1
	for i := len(raw) - 1; i >= 0 && raw[i] != ' ' && raw[i] != ':'; i-- {
		if raw[i] == '.' {
			dot = i
			break
		}
	}
	out := make([]byte, 0, len(raw)+7)
	if dot < 0 {
		out = append(out, raw...)
		if fsp > 0 {
			out = append(out, '.')
			for i := 0; i < fsp; i++ {
				out = append(out, '0')
			}
		}
		return out
	}
	out = append(out, raw[:dot]...)
	if fsp == 0 {
		return out
	}
	frac := raw[dot+1:]
	out = append(out, '.')
	for i := 0; i < fsp; i++ {
		if i < len(frac) {
			out = append(out, frac[i])
		} else {
			out = append(out, '0')
		}
	}
	return out
}

// fracDigits counts the digits after the decimal point of a number's text.
func fracDigits(raw []byte) int {
	for i := len(raw) - 1; i >= 0; i-- {
		if raw[i] == '.' {
			return len(raw) - 1 - i
		}
	}
	return 0
}

// fixedFloat writes v with dec decimals as MariaDB's my_fcvt does: its
// shortest round-trip digits (at most 17 significant), padded with zeros
// to dec decimals, or rounded to dec when it has more. So a VARIANCE of
// 1581649222897045504 is 1581649222897045500.0000 and ROUND(1e0 *
// 98765432109876.54321, 5) is 98765432109876.55000: the digits past the
// 17th (or the shortest form) are zeros, not the binary value's exact
// expansion (…045504.0000, …876.54688).
func fixedFloat(v float64, dec, bits int) []byte {
	short := strconv.AppendFloat(nil, v, 'f', -1, bits)
	frac := 0
	if i := bytes.IndexByte(short, '.'); i >= 0 {
		frac = len(short) - i - 1
	}
	if frac > dec || math.IsInf(v, 0) || math.IsNaN(v) {
		return strconv.AppendFloat(nil, v, 'f', dec, bits)
	}
	if frac == 0 && dec > 0 {
		short = append(short, '.')
	}
	for ; frac < dec; frac++ {
		short = append(short, '0')
	}
	return short
}

// Lines is a result of one VARCHAR column, name, with a row per line
// (EXPLAIN's plan).
func Lines(name string, lines []string) *sqltypes.Result {
	res := &sqltypes.Result{Fields: []*querypb.Field{{Name: name, Type: sqltypes.VarChar, Charset: 45, ColumnLength: 4096}}}
	for _, l := range lines {
		res.Rows = append(res.Rows, []sqltypes.Value{sqltypes.NewVarChar(l)})
	}
	return res
}

// negativeZero reports a number's text that is minus zero ("-0",
// "-0.000", "-0e0"): a scan of its digits, not a parse of every
// negative value sent.
func negativeZero(raw []byte) bool {
	if len(raw) < 2 || raw[0] != '-' {
		return false
	}
	for _, c := range raw[1:] {
		switch c {
		case '0', '.':
		case 'e', 'E':
			return true // a zero mantissa: zero whatever the exponent
		default:
			return false
		}
	}
	return true
}
