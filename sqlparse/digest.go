package sqlparse

import "strings"

// Digest returns the shape of a SELECT: its text with comments dropped,
// whitespace collapsed and the literals of its WHERE clause (subqueries
// included) and of its LIMIT and OFFSET replaced by typed markers — ?i an
// integer, ?d a decimal, ?f a double, ?s a string — as
// performance_schema's digests do, but narrower: literals anywhere else
// (the select list, GROUP BY, HAVING, ORDER BY 1) stay, because they
// decide the result's columns and their types, and the marker's type
// keeps 5 and '5' apart. Two statements with one digest differ only in
// the values they filter with and how many rows they keep.
//
// ok is false for what it does not read that way: not a SELECT (WITH,
// UNION, several statements), parameter markers, executable comments
// (/*! */), double-quoted strings (identifiers under ANSI_QUOTES) and
// strings with a backslash (read differently under
// NO_BACKSLASH_ESCAPES).
func Digest(q string) (string, bool) {
	d, _, ok := digest(q, false)
	return d, ok
}

// DigestLiterals is Digest with the literals its markers replaced, in
// order, as written (a string with its quotes).
func DigestLiterals(q string) (string, []string, bool) {
	return digest(q, true)
}

func digest(q string, keep bool) (string, []string, bool) {
	var lits []string
	var b strings.Builder
	b.Grow(len(q))
	const (
		other = iota
		where
		limit
	)
	region, depth := other, 0
	first := true // the first word must be SELECT
	space := false
	emit := func(s string) {
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteString(s)
	}
	mask := func(lit, marker string) {
		if region != other {
			emit(marker)
			if keep {
				lits = append(lits, lit)
			}
		} else {
			emit(lit)
		}
	}
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			space = true
			i++
		case IsCommentStart(q, i):
			if strings.HasPrefix(q[i:], "/*!") || strings.HasPrefix(q[i:], "/*M!") {
				return "", nil, false
			}
			i = CommentEnd(q, i)
			space = true
		case c == '\'':
			j := SkipQuoted(q, i, '\'', true)
			lit := q[i:j]
			if strings.IndexByte(lit, '\\') >= 0 || len(lit) < 2 || lit[len(lit)-1] != '\'' {
				return "", nil, false
			}
			mask(lit, "?s")
			i = j
		case c == '"' || c == '?' || c == ';':
			return "", nil, false
		case c == '`':
			j := SkipQuoted(q, i, '`', false)
			emit(q[i:j])
			i = j
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(q) && q[i+1] >= '0' && q[i+1] <= '9':
			j := i
			for j < len(q) && (isWordByte(q[j]) || q[j] == '.' ||
				(q[j] == '+' || q[j] == '-') && j > i && (q[j-1] == 'e' || q[j-1] == 'E') && !strings.ContainsAny(q[i:j-1], "xXbB")) {
				j++
			}
			lit := q[i:j]
			switch kind := numberKind(lit); kind {
			case "":
				emit(lit) // 0x1F, 0b101, or a name starting with a digit
			default:
				mask(lit, kind)
			}
			i = j
		case isWordByte(c):
			j := i
			for j < len(q) && isWordByte(q[j]) {
				j++
			}
			w := q[i:j]
			if j < len(q) && q[j] == '\'' && (len(w) == 1 && strings.ContainsAny(w, "xXbBnN")) {
				// x'1F', b'101': kept; N'…': a string.
				k := SkipQuoted(q, j, '\'', true)
				if len(w) == 1 && (w == "n" || w == "N") {
					mask(q[i:k], "?s")
				} else {
					emit(q[i:k])
				}
				i = k
				continue
			}
			if first {
				if !strings.EqualFold(w, "select") {
					return "", nil, false
				}
				first = false
			}
			if depth == 0 {
				switch strings.ToUpper(w) {
				case "WHERE":
					region = where
				case "LIMIT":
					region = limit
				case "GROUP", "HAVING", "ORDER", "WINDOW", "FOR", "LOCK", "INTO", "PROCEDURE":
					region = other
				case "UNION", "INTERSECT", "EXCEPT":
					return "", nil, false
				}
			}
			emit(w)
			i = j
		default:
			switch c {
			case '(':
				depth++
			case ')':
				depth--
			}
			emit(q[i : i+1])
			i++
		}
	}
	if first {
		return "", nil, false
	}
	return b.String(), lits, true
}

// numberKind is the marker of a numeric literal, "" when lit is not one.
func numberKind(lit string) string {
	if len(lit) > 1 && lit[0] == '0' && (lit[1] == 'x' || lit[1] == 'b') {
		return ""
	}
	dot, exp := false, false
	for i := 0; i < len(lit); i++ {
		switch c := lit[i]; {
		case c >= '0' && c <= '9':
		case c == '.' && !dot && !exp:
			dot = true
		case (c == 'e' || c == 'E') && !exp && i > 0:
			exp = true
			if i+1 < len(lit) && (lit[i+1] == '+' || lit[i+1] == '-') {
				i++
			}
			if i+1 >= len(lit) {
				return ""
			}
		default:
			return ""
		}
	}
	switch {
	case exp:
		return "?f"
	case dot:
		return "?d"
	}
	return "?i"
}
