package e2e

import (
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"vitess.io/vitess/go/vt/sqlparser"
)

// Placeholders for the generated statements in the binary protocol: the
// literals an application binds (numbers and strings compared in WHERE,
// ON and HAVING and inside a selected aggregate's argument —
// COUNT(IF(Carrier = ?, 1, NULL)) —, in IN lists and BETWEEN, LIMIT and
// OFFSET) replaced by `?`, each bound to a typed value as some driver
// sends it. Literals MariaDB refuses as parameters, or whose meaning a
// parameter would change, stay literals: GROUP BY and ORDER BY ordinals
// and expressions, select items, function arguments (ROUND's places, SUBSTRING's
// positions, INTERVAL counts, ESCAPE characters), literals with a
// character set introducer or COLLATE.

// litSlot is one literal of a statement that may become a placeholder.
type litSlot struct {
	start, end int    // the literal's bytes in the statement (with a minus sign)
	kind       int    // sqlparser.INTEGRAL, DECIMAL, FLOAT or STRING
	val        string // a number's text (with its sign), a string's value
	limit      bool   // in LIMIT or OFFSET
}

// clause of a statement a token is in.
const (
	clNone = iota
	clSelect
	clFrom
	clOn
	clWhere
	clGroup
	clHaving
	clOrder
	clLimit
)

// literalSlots returns the literals of q a client may bind, in order.
func literalSlots(q string) []litSlot {
	type frame struct {
		clause  int
		inList  bool // the parentheses of IN (…)
		between bool // a BETWEEN waits for its AND
		agg     bool // inside an aggregate's arguments
	}
	stack := []frame{{}}
	type tok struct {
		typ        int
		val        string
		start, end int
	}
	var toks []tok
	tkn := sqlparser.NewTestParser().NewStringTokenizer(q)
	for {
		from := tkn.Pos
		typ, val := tkn.Scan()
		if typ == 0 || typ == sqlparser.LEX_ERROR {
			break
		}
		start := from + len(q[from:]) - len(strings.TrimLeft(q[from:], " \t\r\n"))
		toks = append(toks, tok{typ, val, start, tkn.Pos})
	}
	var slots []litSlot
	andOfBetween := make([]bool, len(toks)) // the AND of a BETWEEN
	for i, t := range toks {
		top := &stack[len(stack)-1]
		prev, next := 0, 0
		if i > 0 {
			prev = toks[i-1].typ
		}
		if i+1 < len(toks) {
			next = toks[i+1].typ
		}
		switch t.typ {
		case sqlparser.SELECT:
			top.clause = clSelect
		case sqlparser.FROM:
			top.clause = clFrom
		case sqlparser.ON:
			top.clause = clOn
		case sqlparser.WHERE:
			top.clause = clWhere
		case sqlparser.GROUP:
			top.clause = clGroup
		case sqlparser.HAVING:
			top.clause = clHaving
		case sqlparser.ORDER:
			top.clause = clOrder
		case sqlparser.LIMIT:
			top.clause = clLimit
		case sqlparser.BETWEEN:
			top.between = true
		case sqlparser.AND:
			if top.between {
				top.between, andOfBetween[i] = false, true
			}
		case '(':
			agg := top.agg
			switch prev {
			case sqlparser.COUNT, sqlparser.SUM, sqlparser.AVG, sqlparser.MIN, sqlparser.MAX:
				agg = true
			}
			stack = append(stack, frame{clause: top.clause, inList: prev == sqlparser.IN, agg: agg})
		case ')':
			if len(stack) > 1 {
				stack = stack[:len(stack)-1]
			}
		case sqlparser.INTEGRAL, sqlparser.DECIMAL, sqlparser.FLOAT, sqlparser.STRING:
			if next == sqlparser.COLLATE || next == '.' {
				continue
			}
			start, val, at := t.start, t.val, i-1 // at: the token before the operand
			if prev == '-' && t.typ != sqlparser.STRING {
				// A negative number: the minus is the literal's where an
				// operand starts.
				start, val, at = toks[i-1].start, "-"+t.val, i-2
			}
			before := 0
			if at >= 0 {
				before = toks[at].typ
			}
			switch top.clause {
			case clLimit:
				if t.typ == sqlparser.INTEGRAL && prev != '-' && (before == sqlparser.LIMIT || before == sqlparser.OFFSET || before == ',') {
					slots = append(slots, litSlot{start: start, end: t.end, kind: t.typ, val: val, limit: true})
				}
			case clWhere, clOn, clHaving, clSelect:
				if top.clause == clSelect && !top.agg {
					continue // a select item's literal names and types its column
				}
				operand := false
				switch before {
				case '=', '<', '>', sqlparser.LE, sqlparser.GE, sqlparser.NE, sqlparser.NULL_SAFE_EQUAL, sqlparser.LIKE, sqlparser.BETWEEN:
					operand = true
				case sqlparser.AND:
					operand = andOfBetween[at]
				case '(', ',':
					operand = top.inList
				}
				if operand {
					slots = append(slots, litSlot{start: start, end: t.end, kind: t.typ, val: val})
				}
			}
		}
	}
	return slots
}

// bindings is a statement with some literals made placeholders, and two
// sets of typed values for them (the same values, other types: a
// statement executed twice by different drivers).
type bindings struct {
	sql       string
	args, alt []bindValue
}

// placeholders chooses some literals of q to bind, by r.
func placeholders(q string, r *rand.Rand) bindings {
	var b bindings
	var sb strings.Builder
	at := 0
	for _, s := range literalSlots(q) {
		if r.IntN(100) >= 75 {
			continue
		}
		a, ok := bindAs(s, r, true)
		if !ok {
			continue
		}
		alt, _ := bindAs(s, r, false)
		sb.WriteString(q[at:s.start])
		sb.WriteByte('?')
		at = s.end
		b.args = append(b.args, a)
		b.alt = append(b.alt, alt)
	}
	sb.WriteString(q[at:])
	b.sql = sb.String()
	return b
}

// isoDate is a string literal a driver could bind as a DATE.
var isoDate = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)

// bindAs returns a typed value for s as some driver binds it: integers
// as int64 (uint64 with the unsigned flag when not negative, as
// go-sql-driver sends a uint64), as the number's text (drivers that bind
// everything as strings), as a DOUBLE or a DECIMAL; decimals as text, a
// DECIMAL or a DOUBLE; strings as STRING, VAR_STRING or BLOB, dates also
// as a DATE or DATETIME; sometimes NULL
// where the literal was an operand (nullOK). LIMIT takes integers and
// their text only.
func bindAs(s litSlot, r *rand.Rand, nullOK bool) (bindValue, bool) {
	n := r.IntN(100)
	if nullOK && !s.limit && n < 3 {
		return bindValue{null: true}, true
	}
	switch s.kind {
	case sqlparser.INTEGRAL:
		i, err := strconv.ParseInt(s.val, 10, 64)
		if err != nil {
			return bindValue{typ: ptString, s: s.val}, true
		}
		switch {
		case n < 45:
			return bindValue{typ: ptLongLong, i: i}, true
		case n < 60 && i >= 0:
			return bindValue{typ: ptLongLong, i: i, unsigned: true}, true
		case n < 80 || s.limit:
			return bindValue{typ: ptString, s: s.val}, true
		case n < 92:
			return bindValue{typ: ptDouble, f: float64(i)}, true
		default:
			return bindValue{typ: ptDecimal, s: s.val}, true
		}
	case sqlparser.DECIMAL, sqlparser.FLOAT:
		f, err := strconv.ParseFloat(s.val, 64)
		switch {
		case err != nil:
			return bindValue{}, false
		case n < 40:
			return bindValue{typ: ptString, s: s.val}, true
		case n < 70 && s.kind == sqlparser.DECIMAL:
			return bindValue{typ: ptDecimal, s: s.val}, true
		default:
			return bindValue{typ: ptDouble, f: f}, true
		}
	case sqlparser.STRING:
		switch {
		case n < 40 && isoDate.MatchString(s.val):
			// A date as Connector/J's setDate or a Python date binds it:
			// the binary protocol's DATE (or DATETIME) structure.
			if n < 30 {
				return bindValue{typ: ptDate, s: s.val}, true
			}
			return bindValue{typ: ptDatetime, s: s.val + " 00:00:00"}, true
		case n < 80:
			return bindValue{typ: ptString, s: s.val}, true
		case n < 92:
			return bindValue{typ: ptVarString, s: s.val}, true
		}
		return bindValue{typ: ptBlob, s: s.val}, true
	}
	return bindValue{}, false
}

// TestPlaceholderSlots: which literals of a statement the binary suite
// binds (no server needed; it runs with the package).
func TestPlaceholderSlots(t *testing.T) {
	q := "SELECT k, COUNT(IF(Carrier = 'AA', 1, NULL)), SUBSTRING(Origin, 1, 1) FROM ontime WHERE (Distance BETWEEN -5 AND 70 OR Dest IN ('SFO', 'LAX')) " +
		"AND DATE_FORMAT(FlightDate, '%Y') = '2004' AND TailNum LIKE 'N1%' ESCAPE '!' AND Origin = 'ab' COLLATE utf8mb4_bin " +
		"GROUP BY 1, SUBSTRING(Origin, 1, 1) HAVING SUM(Distance / 3) >= 0.5 ORDER BY 2 LIMIT 5, 10"
	var got []string
	for _, s := range literalSlots(q) {
		got = append(got, q[s.start:s.end])
	}
	want := []string{"'AA'", "-5", "70", "'SFO'", "'LAX'", "'2004'", "'N1%'", "0.5", "5", "10"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("slots %q, want %q", got, want)
	}
}
