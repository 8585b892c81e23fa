package evalexpr

import (
	"strings"

	"vitess.io/vitess/go/sqltypes"
	"vitess.io/vitess/go/vt/sqlparser"
)

// Text converted to a number by CAST or CONVERT.
//
// MariaDB warns when CAST(x AS SIGNED | UNSIGNED | DECIMAL | DOUBLE) reads
// text that is not wholly a number of that kind — 1292 "Truncated
// incorrect INTEGER value: '12abc'" for '12abc', '', '12 ', '1.5' or '1e3'
// as SIGNED, a negative as UNSIGNED, more digits than a DECIMAL(M,D)
// holds — and the client sees the warning count; vitess' evaluator
// converts the same values silently. So such a conversion the final stage
// makes on every row is recorded with the divisions (divzero.go), and
// DividesByZero reports a row whose text castWarns says MariaDB would warn
// about: the replica answers the statement then, with its warnings (a
// PHP client was told 0 warnings for SELECT CAST('12abc' AS SIGNED),
// COUNT(*) FROM ontime, where MariaDB says 1). castWarns errs towards
// warning: a value it is not sure of goes to the replica, which is never
// wrong.

// numberType is the kind of number t converts to: "signed", "unsigned",
// "decimal", "double", or "" for other types.
func numberType(t *sqlparser.ConvertType) string {
	if t == nil {
		return ""
	}
	switch n := strings.ToLower(t.Type); {
	case strings.Contains(n, "unsigned"):
		return "unsigned"
	case strings.Contains(n, "signed"), strings.HasPrefix(n, "int"):
		return "signed"
	case n == "decimal", n == "dec", n == "numeric", n == "fixed":
		return "decimal"
	case n == "double", n == "float", n == "real":
		return "double"
	}
	return ""
}

// castWarns reports whether MariaDB warns converting v to t: v is text
// (a number converts without one) and not, after leading spaces and tabs,
// wholly a number that t holds.
func castWarns(v sqltypes.Value, t *sqlparser.ConvertType) bool {
	if v.IsNull() || !(v.IsText() || v.IsBinary()) {
		return false
	}
	s := strings.TrimLeft(v.ToString(), " \t")
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	intDigits := leadDigits(s)
	s = s[intDigits:]
	fracDigits, hasFrac := 0, false
	if s != "" && s[0] == '.' {
		hasFrac = true
		fracDigits = leadDigits(s[1:])
		s = s[1+fracDigits:]
	}
	hasExp := false
	if s != "" && (s[0] == 'e' || s[0] == 'E') {
		r := strings.TrimLeft(s[1:], "+-")
		if len(r) < len(s)-2 || leadDigits(r) == 0 {
			return true
		}
		hasExp = true
		s = r[leadDigits(r):]
	}
	if s != "" || intDigits+fracDigits == 0 {
		return true // text after the number, or no number
	}
	switch numberType(t) {
	case "signed":
		return hasFrac || hasExp || intDigits > 18
	case "unsigned":
		return neg || hasFrac || hasExp || intDigits > 19
	case "decimal":
		m, d := 10, 0
		if t.Length != nil {
			m = *t.Length
		}
		if t.Scale != nil {
			d = *t.Scale
		}
		return hasExp || fracDigits > d || intDigits > m-d
	}
	return false // a DOUBLE takes every such number
}

// leadDigits is the length of s's leading run of ASCII digits.
func leadDigits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}
