package evalexpr

import (
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"
)

// Constant date functions BI tools put in their filters, which vitess'
// evalengine does not evaluate (the statement would pass through, or run
// on the replicas instead of over a pin): Metabase's and Tableau's
// TIMESTAMP('2015-01-01 00:00:00'), Superset's
// STR_TO_DATE('2016-12-30 00:00:00.000000', '%Y-%m-%d %H:%i:%s.%f').
// Over literals they are the DATE or DATETIME literal MariaDB computes;
// anything else (a column, a format or text this does not read exactly)
// is left as it is.

// constDateCall is the literal the call n stands for, or nil.
func constDateCall(n *sqlparser.FuncExpr) sqlparser.Expr {
	if !n.Qualifier.IsEmpty() {
		return nil
	}
	switch n.Name.Lowered() {
	case "timestamp":
		if len(n.Exprs) != 1 {
			return nil
		}
		switch l := dateLiteral(n.Exprs[0]).(type) {
		case *sqlparser.NullVal:
			return l
		case *sqlparser.Literal:
			switch l.Type {
			case sqlparser.DateVal: // a DATETIME at midnight
				return &sqlparser.Literal{Type: sqlparser.TimestampVal, Val: l.Val + " 00:00:00"}
			case sqlparser.TimestampVal:
				return l
			}
		}
	case "str_to_date":
		if len(n.Exprs) != 2 {
			return nil
		}
		text, ok1 := strLiteral(n.Exprs[0])
		format, ok2 := strLiteral(n.Exprs[1])
		if ok1 && ok2 {
			return strToDate(text, format)
		}
	}
	return nil
}

// strLiteral is e's text when e is a text literal (perhaps with a
// character set introducer).
func strLiteral(e sqlparser.Expr) (string, bool) {
	if in, ok := e.(*sqlparser.IntroducerExpr); ok {
		e = in.Expr
	}
	l, ok := e.(*sqlparser.Literal)
	if !ok || l.Type != sqlparser.StrVal {
		return "", false
	}
	return l.Val, true
}

// strToDate reads text by format when format has only %Y (four digits),
// %m %d %H %i %s (two) and %f (one to six) and other characters that text
// repeats: MariaDB's answer is then a DATE (no time part in the format),
// a DATETIME, or a DATETIME(6) (with %f). Otherwise, or for no real
// date, nil.
func strToDate(text, format string) sqlparser.Expr {
	var t dateText
	frac := false
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			if text == "" || text[0] != c {
				return nil
			}
			text = text[1:]
			continue
		}
		if i++; i == len(format) {
			return nil
		}
		width, dst := 2, (*int)(nil)
		switch format[i] {
		case 'Y':
			width, dst = 4, &t.y
		case 'm':
			dst = &t.mo
		case 'd':
			dst = &t.d
		case 'H':
			dst, t.hasTime = &t.h, true
		case 'i':
			dst, t.hasTime = &t.mi, true
		case 's':
			dst, t.hasTime = &t.s, true
		case 'f':
			n := 0
			for n < len(text) && n < 6 && text[n] >= '0' && text[n] <= '9' {
				n++
			}
			if n == 0 {
				return nil
			}
			us, _ := strconv.Atoi(text[:n] + strings.Repeat("0", 6-n))
			t.us, frac, t.hasTime, text = us, true, true, text[n:]
			continue
		default:
			return nil
		}
		if len(text) < width {
			return nil
		}
		v, err := strconv.Atoi(text[:width])
		if err != nil || v < 0 {
			return nil
		}
		*dst, text = v, text[width:]
	}
	if text != "" || !t.real() || t.h > 23 || t.mi > 59 || t.s > 59 {
		return nil
	}
	s := strconv.Itoa(10000 + t.y)[1:] + "-" + two(t.mo) + "-" + two(t.d)
	if !t.hasTime {
		return &sqlparser.Literal{Type: sqlparser.DateVal, Val: s}
	}
	s += " " + two(t.h) + ":" + two(t.mi) + ":" + two(t.s)
	if frac {
		s += "." + strconv.Itoa(1000000 + t.us)[1:]
	}
	return &sqlparser.Literal{Type: sqlparser.TimestampVal, Val: s}
}
