// Package bitarg reads the argument of a BIT_AND, BIT_OR or BIT_XOR
// partial as MariaDB reads it: the in-memory engine (package pinexec)
// decides once, at compile time, how an argument is read (a Read), and
// hands each row's value to Integer. It is a package of its own because
// these are MariaDB's val_int conversions, not the engine's: rounding,
// clamping and text prefixes that hold for any caller. It imports vitess'
// value types and package literal (temporal values as numbers) alone.
//
// The BIT_AND, BIT_OR and BIT_XOR partials are BIGINT UNSIGNED: MariaDB's
// Item_sum_bit adds (ulonglong) args[0]->val_int(), its argument read as
// a signed 64-bit integer and taken as its two's complement bits. How an
// argument becomes that integer depends on what it is (checked against
// MariaDB 10.11 by pinexec.TestBitArgumentsAgainstMariaDB):
//
//   - an integer: itself; a negative one is its two's complement
//     (BIT_OR(-1) is 18446744073709551615), BIGINT UNSIGNED as it is;
//   - a DECIMAL: rounded half away from zero (BIT_OR(-1.5) is -2),
//     clamped to BIGINT's range, or to BIGINT UNSIGNED's for a bare
//     DECIMAL UNSIGNED column;
//   - a DOUBLE or FLOAT: rounded half to even (rint: 2.5e0 is 2), clamped
//     to BIGINT's range, unsigned columns too;
//   - text, or any value of an expression typed text (IF(c, v, 1.5)
//     reads 1.5 as '1.5'): its leading integer ('9E' is 9, '10.9' 10,
//     '1e1' 1, non-numeric 0) after whitespace and one sign. A text column
//     (Field_str::val_int) clamps to BIGINT's range; a text expression
//     (Item_str_func::val_int, my_strtoll10) reads up to BIGINT UNSIGNED's
//     maximum ('18446744073709551615' is all ones) and clamps there;
//   - a DATE, DATETIME, TIMESTAMP or TIME: its number without fractional
//     seconds (19880101, literal.TemporalInteger);
//   - a hexadecimal or bit number (0x41, b'1000001'): its last eight
//     bytes as a big-endian number (65), where X'41' is text (0).
//
// ENUM and SET columns, read as their member numbers, are refused at
// compile time (package pinexec).
package bitarg

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/pinned/pinexec/literal"
)

// Read says how a BIT_ aggregate's argument is read as an integer.
type Read uint8

const (
	Expr            Read = iota // by the type of each value
	TextColumn                  // a bare text column: clamped to BIGINT
	UnsignedDecimal             // a bare DECIMAL UNSIGNED column
	Hybrid                      // a 0x… or b'…' literal: its bytes
	TextExpr                    // an expression typed text: its text
)

// ColumnRead is how a bare column of field f is read; ok false for an
// ENUM or SET, which MariaDB reads as its member numbers.
func ColumnRead(f *querypb.Field) (r Read, ok bool) {
	switch {
	case f.Type == sqltypes.Enum || f.Type == sqltypes.Set:
		return 0, false
	case sqltypes.IsText(f.Type) || sqltypes.IsBinary(f.Type):
		return TextColumn, true
	case f.Type == sqltypes.Decimal && f.Flags&uint32(querypb.MySqlFlag_UNSIGNED_FLAG) != 0:
		return UnsignedDecimal, true
	}
	return Expr, true
}

// Integer is v as a BIT_ aggregate adds it: BIGINT UNSIGNED, or NULL.
func Integer(v sqltypes.Value, how Read) sqltypes.Value {
	if v.IsNull() {
		return v
	}
	switch v.Type() {
	case sqltypes.Date, sqltypes.Datetime, sqltypes.Timestamp, sqltypes.Time:
		v = literal.TemporalInteger(v)
	}
	raw := v.Raw()
	var n uint64
	switch t := v.Type(); {
	case how == TextExpr:
		n = textBits(raw, false)
	case t == sqltypes.Uint64:
		n, _ = strconv.ParseUint(string(raw), 10, 64)
	case sqltypes.IsIntegral(t):
		i, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil {
			u, _ := strconv.ParseUint(string(raw), 10, 64)
			i = int64(u)
		}
		n = uint64(i)
	case t == sqltypes.Decimal:
		n = decimalBits(string(raw), how == UnsignedDecimal)
	case sqltypes.IsFloat(t):
		n = floatBits(string(raw))
	case how == Hybrid:
		for _, b := range raw[max(len(raw)-8, 0):] {
			n = n<<8 | uint64(b)
		}
	default:
		n = textBits(raw, how == TextColumn)
	}
	return sqltypes.NewUint64(n)
}

var (
	maxInt64  = new(big.Int).SetInt64(math.MaxInt64)
	minInt64  = new(big.Int).SetInt64(math.MinInt64)
	maxUint64 = new(big.Int).SetUint64(math.MaxUint64)
)

// decimalBits rounds a DECIMAL's text half away from zero and clamps it
// to BIGINT's range (BIGINT UNSIGNED's when unsigned).
func decimalBits(s string, unsigned bool) uint64 {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimLeft(s, "+-")
	whole, frac, _ := strings.Cut(s, ".")
	m, ok := new(big.Int).SetString("0"+whole, 10)
	if !ok {
		return 0
	}
	if frac != "" && frac[0] >= '5' {
		m.Add(m, big.NewInt(1))
	}
	if neg {
		m.Neg(m)
	}
	return clamp(m, unsigned)
}

// clamp is m in BIGINT's range (BIGINT UNSIGNED's when unsigned), as the
// bits MariaDB adds.
func clamp(m *big.Int, unsigned bool) uint64 {
	if unsigned {
		switch {
		case m.Sign() < 0:
			return 0
		case m.Cmp(maxUint64) > 0:
			return math.MaxUint64
		}
		return m.Uint64()
	}
	switch {
	case m.Cmp(minInt64) < 0:
		return 1 << 63
	case m.Cmp(maxInt64) > 0:
		return math.MaxInt64
	}
	return uint64(m.Int64())
}

// floatBits rounds a DOUBLE half to even and clamps it to BIGINT's
// range, as MariaDB's Converter_double_to_longlong does.
func floatBits(s string) uint64 {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && f == 0 {
		return 0
	}
	f = math.RoundToEven(f)
	switch {
	case f <= math.MinInt64:
		return 1 << 63
	case f >= math.MaxInt64: // 2^63 as a double
		return math.MaxInt64
	}
	return uint64(int64(f))
}

// textBits reads text's leading integer: whitespace, one sign, digits.
// A column's value is clamped to BIGINT's range; an expression's reads up
// to BIGINT UNSIGNED's maximum when positive.
func textBits(s []byte, column bool) uint64 {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] >= '\t' && s[i] <= '\r') {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == start {
		return 0
	}
	m, _ := new(big.Int).SetString(string(s[start:i]), 10)
	if neg {
		m.Neg(m)
	}
	return clamp(m, !column && !neg)
}
