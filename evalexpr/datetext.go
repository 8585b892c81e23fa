package evalexpr

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"strings"
	"time"

	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/sqltypes"
	"vitess.io/vitess/go/vt/sqlparser"
	"vitess.io/vitess/go/vt/vtgate/evalengine"
)

// Text and numbers met as dates.
//
// MariaDB compares a DATE, DATETIME or TIMESTAMP with text or a number as
// DATETIMEs, reading the other side with str_to_datetime (text) or
// number_to_datetime (numbers), leniently: leading white space, any
// punctuation between the parts, a time of one or two parts
// ('2016-12-30 10:00', '2016-12-31 10'), a 'T' after the day, trailing
// garbage ignored ('2016-12-30x'), the digits-only forms YYMMDD,
// YYYYMMDD, YYMMDDhhmmss and YYYYMMDDhhmmss, two-digit years (70-99 are
// 19xx), and, in a comparison, impossible days ('2016-02-31',
// '2016-12-00': compared as they are). Text or a number it cannot read as
// a date compares as the zero date, below every date (not NULL).
// vitess' evalengine reads only the canonical forms and answers otherwise
// for the rest, so every =, <>, <, <=, >, >=, <=>, [NOT] IN (list) and
// [NOT] BETWEEN with a temporal operand (not TIME) and a text or number
// operand is computed here (hostCmp with date set), over the datetimes
// packed as MariaDB packs them.
//
// The date functions that take text (TO_DAYS, and so DATEDIFF; DATE_ADD,
// DATE_SUB, ADDDATE, SUBDATE and ± INTERVAL) read it the same way but
// without impossible dates: a text literal there is replaced by the DATE
// or DATETIME literal MariaDB reads it as (DATETIME when it has a time,
// with the fraction digits it has), or NULL (dateLiterals).

// dateText is a datetime read from text or a number.
type dateText struct {
	y, mo, d, h, mi, s, us int
	// hasTime: the text had a time part; frac: its fraction digits.
	hasTime bool
	frac    int
}

// packed orders datetimes as MariaDB's packed DATETIME does.
func (t dateText) packed() uint64 {
	v := uint64(((t.y*13+t.mo)*32+t.d)*24 + t.h)
	v = (v*60+uint64(t.mi))*60 + uint64(t.s)
	return v*1000000 + uint64(t.us)
}

// real reports a date the date functions accept: no zero month or day,
// no day past the month's end.
func (t dateText) real() bool {
	return t.mo >= 1 && t.d >= 1 && t.d <= daysIn(t.y, t.mo)
}

// daysIn is the length of month m of year y in the proleptic Gregorian
// calendar (year 0 is a leap year, as in MariaDB).
func daysIn(y, m int) int { return time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day() }

func isPunct(c byte) bool {
	return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') || (c >= '{' && c <= '~')
}

// textDate reads text as MariaDB's str_to_datetime does for a
// comparison; ok is false when it is no date (MariaDB: the zero date,
// with a warning).
func textDate(b []byte) (t dateText, ok bool) {
	i := 0
	for i < len(b) && isSpaceByte(b[i]) {
		i++
	}
	if i < len(b) && b[i] == '+' {
		i++
	}
	b = b[i:]
	// The digits-only form: digits (and 'T') to the end or to a '.'.
	n := 0
	for n < len(b) && (isDigit(b[n]) || b[n] == 'T') {
		n++
	}
	internal := n == len(b) || b[n] == '.'
	digits := n
	var f [7]int
	var flen [7]int
	fields := 0
	pos := 0
	width := 2
	if internal {
		if digits == 4 || digits == 8 || digits >= 14 {
			width = 4
		}
	}
	for fields < 7 && pos < len(b) && isDigit(b[pos]) {
		start := pos
		v := 0
		limit := 0 // no limit
		if internal || fields == 6 {
			limit = width
		}
		for pos < len(b) && isDigit(b[pos]) && (limit == 0 || pos-start < limit) {
			v = v*10 + int(b[pos]-'0')
			pos++
			if v > 999999 {
				return dateText{}, false
			}
		}
		f[fields], flen[fields] = v, pos-start
		fields++
		width = 2
		if pos == len(b) {
			break
		}
		if isDigit(b[pos]) {
			continue // the digits-only form: the next part follows at once
		}
		if fields == 3 && b[pos] == 'T' {
			pos++
			continue
		}
		if fields == 6 {
			if b[pos] == '.' {
				pos++
				width = 6
				continue
			}
			break
		}
		if fields == 7 {
			break
		}
		switch {
		case fields < 3:
			// exactly one punctuation mark between date parts
			if !isPunct(b[pos]) {
				goto done
			}
			pos++
			if pos < len(b) && !isDigit(b[pos]) {
				return dateText{}, false
			}
		case fields == 3:
			// white space, or one punctuation mark, before the time
			if isSpaceByte(b[pos]) {
				for pos < len(b) && isSpaceByte(b[pos]) {
					pos++
				}
			} else if isPunct(b[pos]) {
				pos++
			} else {
				goto done
			}
		default:
			if !isPunct(b[pos]) {
				goto done
			}
			for pos < len(b) && isPunct(b[pos]) {
				pos++
			}
		}
	}
done:
	if fields < 3 {
		return dateText{}, false
	}
	t = dateText{y: f[0], mo: f[1], d: f[2], h: f[3], mi: f[4], s: f[5], hasTime: fields > 3}
	if fields == 7 {
		t.frac = flen[6]
		t.us = f[6]
		for k := flen[6]; k < 6; k++ {
			t.us *= 10
		}
	}
	if flen[0] == 2 && (t.y != 0 || t.mo != 0 || t.d != 0) {
		if t.y < 70 {
			t.y += 2000
		} else {
			t.y += 1900
		}
	}
	if t.y > 9999 || t.mo > 12 || t.d > 31 || t.h > 23 || t.mi > 59 || t.s > 59 {
		return dateText{}, false
	}
	if t.y == 0 && t.mo == 0 && t.d == 0 && (t.h|t.mi|t.s|t.us) != 0 {
		return dateText{}, false
	}
	return t, true
}

// numberDate reads a number (its decimal text) as MariaDB's
// number_to_datetime does: YYMMDD, YYYYMMDD, YYMMDDhhmmss or
// YYYYMMDDhhmmss, a fraction as microseconds (dropped from the two
// forms without a time: 20161231.5 is 2016-12-31).
func numberDate(s string) (t dateText, ok bool) {
	if strings.HasPrefix(s, "-") {
		return dateText{}, false
	}
	intPart, frac, _ := strings.Cut(s, ".")
	nr, err := strconv.ParseUint(intPart, 10, 64)
	if err != nil {
		return dateText{}, false
	}
	dateOnly := nr < 101000000 // YYMMDD, YYYYMMDD: a DATE, its fraction dropped
	switch {
	case nr == 0:
		return dateText{}, false
	case nr >= 10000101000000:
	case nr < 101:
		return dateText{}, false
	case nr <= 691231:
		nr = (nr + 20000000) * 1000000
	case nr < 700101:
		return dateText{}, false
	case nr <= 991231:
		nr = (nr + 19000000) * 1000000
	case nr < 10000101:
		return dateText{}, false
	case nr <= 99991231:
		nr *= 1000000
	case nr < 101000000:
		return dateText{}, false
	case nr <= 691231235959:
		nr += 20000000000000
	case nr < 700101000000:
		return dateText{}, false
	case nr <= 991231235959:
		nr += 19000000000000
	default:
		return dateText{}, false
	}
	if nr > 99991231235959 {
		return dateText{}, false
	}
	day, tm := nr/1000000, nr%1000000
	t = dateText{y: int(day / 10000), mo: int(day / 100 % 100), d: int(day % 100),
		h: int(tm / 10000), mi: int(tm / 100 % 100), s: int(tm % 100)}
	if len(frac) > 6 {
		frac = frac[:6]
	}
	if dateOnly {
		frac = ""
	}
	t.hasTime, t.frac = !dateOnly, len(frac)
	for k := 0; k < 6; k++ {
		t.us *= 10
		if k < len(frac) && isDigit(frac[k]) {
			t.us += int(frac[k] - '0')
		}
	}
	if t.mo > 12 || t.d > 31 || t.h > 23 || t.mi > 59 || t.s > 59 {
		return dateText{}, false
	}
	return t, true
}

// isTemporal reports DATE, DATETIME and TIMESTAMP (not TIME).
func isTemporal(t evalengine.Type) bool {
	switch t.Type() {
	case sqltypes.Date, sqltypes.Datetime, sqltypes.Timestamp:
		return true
	}
	return false
}

// dateKey is the comparison key of a value met as a datetime: the
// zero date for text or a number that is no date.
func dateKey(v sqltypes.Value) []byte {
	var t dateText
	var ok bool
	switch typ := v.Type(); {
	case sqltypes.IsFloat(typ):
		f, err := v.ToFloat64()
		if err == nil {
			t, ok = numberDate(strconv.FormatFloat(f, 'f', -1, 64))
		}
	case sqltypes.IsNumber(typ):
		t, ok = numberDate(v.ToString())
	default: // text, and the temporal operands' own text
		t, ok = textDate(v.Raw())
	}
	if !ok {
		t = dateText{}
	}
	return binary.BigEndian.AppendUint64(nil, t.packed())
}

// dateCompare reports whether a comparison's operands are met as
// datetimes: one is a DATE, DATETIME or TIMESTAMP, another is text or a
// number, and none is anything else.
func (h *hoister) dateCompare(args []sqlparser.Expr) bool {
	temporal, other := false, false
	for _, a := range args {
		_, t, ok := h.translate(a)
		switch {
		case !ok:
			return false
		case isTemporal(t):
			temporal = true
		case sqltypes.IsText(t.Type()) || sqltypes.IsBinary(t.Type()) || sqltypes.IsNumber(t.Type()):
			if t.Type() == sqltypes.Enum || t.Type() == sqltypes.Set || t.Type() == sqltypes.TypeJSON {
				return false
			}
			other = true
		case !isNull(t):
			return false
		}
	}
	return temporal && other
}

// cmp compares two operands' keys.
func (hc *hostCmp) cmp(a, b []byte) int {
	if hc.date {
		return bytes.Compare(a, b)
	}
	return hc.c.Compare(a, b)
}

// dateFuncs are the date functions whose first argument (all of them:
// -1) is read as a date.
var dateFuncs = map[string]int{
	"to_days": 1, "datediff": -1, "date_add": 1, "date_sub": 1, "adddate": 1, "subdate": 1,
}

// dateLiterals replaces the text literals the date functions read with
// the DATE or DATETIME literal MariaDB reads them as, or NULL, and the
// constant calls of datefuncs.go with their value.
func dateLiterals(e sqlparser.Expr) sqlparser.Expr {
	return sqlparser.Rewrite(e, nil, func(c *sqlparser.Cursor) bool {
		switch n := c.Node().(type) {
		case *sqlparser.FuncExpr:
			if l := constDateCall(n); l != nil { // datefuncs.go
				c.Replace(l)
				return true
			}
			k, ok := dateFuncs[n.Name.Lowered()]
			if !ok || !n.Qualifier.IsEmpty() {
				return true
			}
			for i := range n.Exprs {
				if k < 0 || i < k {
					n.Exprs[i] = dateLiteral(n.Exprs[i])
				}
			}
		case *sqlparser.IntervalDateExpr:
			n.Date = dateLiteral(n.Date)
		}
		return true
	}).(sqlparser.Expr)
}

// dateLiteral is e, or the temporal literal (or NULL) a text or number
// literal e (text perhaps with a character set introducer) is read as.
func dateLiteral(e sqlparser.Expr) sqlparser.Expr {
	if in, ok := e.(*sqlparser.IntroducerExpr); ok {
		if l, ok := in.Expr.(*sqlparser.Literal); ok && l.Type == sqlparser.StrVal {
			e = l
		}
	}
	l, ok := e.(*sqlparser.Literal)
	if !ok {
		return e
	}
	var t dateText
	switch l.Type {
	case sqlparser.StrVal:
		t, ok = textDate([]byte(l.Val))
	case sqlparser.IntVal, sqlparser.DecimalVal:
		t, ok = numberDate(l.Val)
	default:
		return e
	}
	if !ok || !t.real() {
		return &sqlparser.NullVal{}
	}
	s := strconv.Itoa(10000 + t.y)[1:] + "-" + two(t.mo) + "-" + two(t.d)
	if !t.hasTime {
		return &sqlparser.Literal{Type: sqlparser.DateVal, Val: s}
	}
	s += " " + two(t.h) + ":" + two(t.mi) + ":" + two(t.s)
	if t.frac > 0 {
		s += "." + strconv.Itoa(1000000 + t.us)[1:1+t.frac]
	}
	return &sqlparser.Literal{Type: sqlparser.TimestampVal, Val: s}
}

func two(v int) string { return strconv.Itoa(100 + v)[1:] }

// dateCmp hosts a comparison whose operands are met as datetimes.
func (h *hoister) dateCmp(hc *hostCmp, args []sqlparser.Expr) sqlparser.Expr {
	hc.date = true
	nullable := false
	for _, a := range args {
		ex, t, ok := h.translate(a)
		if !ok {
			return nil
		}
		nullable = nullable || t.Nullable() || isNull(t)
		hc.args = append(hc.args, ex)
	}
	return h.add(hc, boolType(nullable && hc.op != sqlparser.NullSafeEqualOp))
}

// dateText evaluates argument i as the key of the datetime it is met as.
func (hc *hostCmp) dateText(env *evalengine.ExpressionEnv, i int) (b []byte, null bool, err error) {
	r, err := env.Evaluate(hc.args[i])
	if err != nil {
		return nil, false, err
	}
	v := r.Value(collations.CollationUtf8mb4ID)
	if v.IsNull() {
		return nil, true, nil
	}
	return dateKey(v), false, nil
}
