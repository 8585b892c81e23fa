// Package literal places SQL literals the way MySQL compares them with
// a column: an integer, a DECIMAL among a column's scaled integers, a
// double, a DATE as days, a DATETIME as microseconds, an ASCII string.
//
// The in-memory engine's vectorized filters (package pinexec) turn
// `col op literal` into intervals of a column's stored values or codes.
// That is exact only when the literal is read with the rules MySQL
// applies to that comparison, which depend on both sides' types; each
// function here reads one literal form and refuses every other, so a
// statement whose literal it cannot place keeps the evaluated path.
// TemporalNumber reads a temporal value as the number SUM and the BIT_
// aggregates take. It imports vitess' parser and value types alone.
package literal

import (
	"bytes"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"vitess.io/vitess/go/sqltypes"
	"vitess.io/vitess/go/vt/sqlparser"
)

// MaxScaledDigits is the widest DECIMAL whose values, scaled to
// integers, always fit an int64: 10^18 - 1 < 2^63.
const MaxScaledDigits = 18

// ScaledBound is past every scaled value of a DECIMAL of at most
// MaxScaledDigits digits.
const ScaledBound = int64(1e18)

// Int is an integer literal, with an optional unary minus, as an int64.
func Int(e sqlparser.Expr) (int64, bool) {
	neg := false
	if u, ok := e.(*sqlparser.UnaryExpr); ok && u.Operator == sqlparser.UMinusOp {
		neg, e = true, u.Expr
	}
	l, ok := e.(*sqlparser.Literal)
	if !ok || l.Type != sqlparser.IntVal {
		return 0, false
	}
	v, err := strconv.ParseInt(l.Val, 10, 64)
	if err != nil || (neg && v < 0) {
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}

// Str is a string literal of ASCII bytes, plain or with a text
// character set introducer (not _binary: that compares bytes).
func Str(e sqlparser.Expr) ([]byte, bool) {
	if in, ok := e.(*sqlparser.IntroducerExpr); ok {
		switch strings.ToLower(strings.TrimPrefix(in.CharacterSet, "_")) {
		case "utf8mb4", "utf8mb3", "utf8", "latin1", "ascii":
		default:
			return nil, false
		}
		e = in.Expr
	}
	l, ok := e.(*sqlparser.Literal)
	if !ok || l.Type != sqlparser.StrVal {
		return nil, false
	}
	for i := 0; i < len(l.Val); i++ {
		if l.Val[i] >= 0x80 {
			return nil, false
		}
	}
	return []byte(l.Val), true
}

// temporalText is the text of a temporal literal of one of types (DATE
// '…', TIMESTAMP '…') or of a string literal (Str).
func temporalText(e sqlparser.Expr, types ...sqlparser.ValType) (string, bool) {
	if l, ok := e.(*sqlparser.Literal); ok && slices.Contains(types, l.Type) {
		return l.Val, true
	}
	if b, ok := Str(e); ok {
		return string(b), true
	}
	return "", false
}

var isoDate = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)

// Date is a 'YYYY-MM-DD' string or DATE literal of a valid date,
// as days since 1970-01-01.
func Date(e sqlparser.Expr) (int64, bool) {
	s, ok := temporalText(e, sqlparser.DateVal)
	if !ok || !isoDate.MatchString(s) {
		return 0, false
	}
	d, err := time.Parse("2006-01-02", s)
	if err != nil || d.Year() < 1000 {
		return 0, false
	}
	return d.Unix() / 86400, true
}

var isoDatetime = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}( [0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,6})?)?$`)

// Datetime is a DATE, TIMESTAMP or string literal of a valid
// 'YYYY-MM-DD[ hh:mm:ss[.ffffff]]', as microseconds since 1970-01-01
// 00:00:00: the DATETIME MySQL converts it to when it meets a DATETIME
// column.
func Datetime(e sqlparser.Expr) (int64, bool) {
	s, ok := temporalText(e, sqlparser.DateVal, sqlparser.TimestampVal)
	if !ok || !isoDatetime.MatchString(s) {
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

// numeric splits an integer, DECIMAL or float literal (with an
// optional unary minus) into its sign, text and type.
func numeric(e sqlparser.Expr) (neg bool, text string, typ sqlparser.ValType, ok bool) {
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

// Scaled places an integer or DECIMAL literal among the integers
// scaled by 10^scale: the literal is k when exact, else strictly between
// k and k+1. With clamp (a DECIMAL column of at most MaxScaledDigits),
// magnitudes of ScaledBound or more are clamped there, beyond every value
// of the column; without (a BIGINT, whose values reach 2^63), a literal
// past int64 is not placed.
func Scaled(e sqlparser.Expr, scale int32, clamp bool) (k int64, exact, ok bool) {
	neg, text, typ, ok := numeric(e)
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
	if clamp && len(digits) > MaxScaledDigits {
		mag, exact = ScaledBound, false
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

// Float is a numeric literal as the double MySQL compares a
// DOUBLE column with.
func Float(e sqlparser.Expr) (float64, bool) {
	neg, text, _, ok := numeric(e)
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

// TemporalNumber is a DATE, DATETIME, TIMESTAMP or TIME value as the
// number SUM, AVG and the BIT_ aggregates read (MariaDB sums DATE
// '1988-01-01' as 19880101 and TIME '-1:02:03' as -10203); other values
// are returned as they are. Without it a sum over a temporal column
// reached the partial's DECIMAL column as date text and failed.
func TemporalNumber(v sqltypes.Value) sqltypes.Value {
	switch v.Type() {
	case sqltypes.Date, sqltypes.Datetime, sqltypes.Timestamp, sqltypes.Time:
	default:
		return v
	}
	raw := v.Raw()
	neg := len(raw) > 0 && raw[0] == '-'
	digits := make([]byte, 0, len(raw)+1)
	for _, c := range raw {
		if c >= '0' && c <= '9' || c == '.' {
			digits = append(digits, c)
		}
	}
	for len(digits) > 1 && digits[0] == '0' && digits[1] != '.' {
		digits = digits[1:]
	}
	if len(digits) == 0 || digits[0] == '.' {
		digits = append([]byte{'0'}, digits...)
	}
	out := digits
	if neg {
		out = append([]byte{'-'}, digits...)
	}
	return sqltypes.MakeTrusted(sqltypes.Decimal, out)
}

// TemporalInteger is TemporalNumber for the BIT_ aggregates: the number's
// integer part, as an integer.
func TemporalInteger(v sqltypes.Value) sqltypes.Value {
	n := TemporalNumber(v)
	if n.Type() != sqltypes.Decimal {
		return v
	}
	raw := n.Raw()
	if i := bytes.IndexByte(raw, '.'); i >= 0 {
		raw = raw[:i]
	}
	return sqltypes.MakeTrusted(sqltypes.Int64, raw)
}
