package sqlparse

import (
	"strings"
	"unicode/utf8"
)

// Binding a prepared statement's values into its text, and naming its
// unaliased columns back from the text as prepared (with its `?`
// markers), as MySQL names them: shared by the binary protocol's
// COM_STMT_EXECUTE (frontend/mysqlwire) and SQL EXECUTE (router).

// bound is a named statement with its values bound.
type Bound struct {
	Orig  string   // as prepared, with markers
	Text  string   // with literals
	Spans [][2]int // each literal's [start, end) in text
	// listEnd is where Text's top-level select list ends (0: not yet
	// found), past which no column is named.
	listEnd int
}

// Bind replaces the marker at each offset in marks with lits[i].
func Bind(orig string, marks []int, lits []string) *Bound {
	b := &Bound{Orig: orig}
	var t strings.Builder
	last := 0
	for i, p := range marks {
		t.WriteString(orig[last:p])
		start := t.Len()
		t.WriteString(lits[i])
		b.Spans = append(b.Spans, [2]int{start, t.Len()})
		last = p + 1
	}
	t.WriteString(orig[last:])
	b.Text = t.String()
	return b
}

// OriginalName maps a column name taken from the bound text (an unaliased
// expression containing literals) back to the prepared text. The name is
// looked for from *at on, and *at moves past it, so equal names are told
// apart by their order. (Both COM_STMT_EXECUTE and SQL EXECUTE name their
// columns with it.)
func (b *Bound) OriginalName(name string, at *int) (string, bool) {
	if b.listEnd == 0 {
		b.listEnd = SelectListEnd(b.Text)
	}
	if name == "" || *at >= b.listEnd {
		return "", false
	}
	// A column is named by its whole select item: an occurrence of the
	// name inside another item (a literal '%Y-%m' holding an alias m) is
	// skipped; the first whole item decides. Only the select list names
	// columns: an alias k in GROUP BY a, k HAVING … looks like a whole
	// item there, and moving past it named no later column.
	for from := *at; from < b.listEnd; {
		i := strings.Index(b.Text[from:b.listEnd], name)
		if i < 0 {
			return "", false
		}
		lo, hi := from+i, from+i+len(name)
		from = lo + 1
		if selectItem(b.Text, lo, hi) {
			*at = hi
			return b.original(lo, hi)
		}
		for _, sp := range b.Spans {
			// A string literal named by its value.
			if sp[0] < lo && hi < sp[1] && hi-lo == sp[1]-sp[0]-2 && selectItem(b.Text, sp[0], sp[1]) {
				*at = sp[1]
				return "?", true
			}
		}
		// A name the server cut (a long bound value in the item): the
		// item it begins, as prepared, cut as the server cuts it.
		if len(name) >= maxNameBytes-3 {
			if end, ok := b.itemEnd(lo, hi); ok {
				if orig, ok := b.original(lo, end); ok {
					*at = end
					return CutName(orig), true
				}
			}
		}
	}
	return "", false
}

// maxNameBytes is the longest column name MariaDB sends: an unaliased
// item's text is cut to the whole characters of its first 255 bytes.
const maxNameBytes = 255

// CutName cuts a column name as MariaDB cuts an unaliased item's text.
func CutName(name string) string {
	if len(name) <= maxNameBytes {
		return name
	}
	cut := name[:maxNameBytes]
	for len(cut) > 0 && !utf8.ValidString(cut) {
		cut = cut[:len(cut)-1]
	}
	return cut
}

// itemEnd is where the select item that begins at lo and runs past hi
// ends: the first place after hi, outside bound literals and with its
// parentheses closed, that ends a select item.
func (b *Bound) itemEnd(lo, hi int) (int, bool) {
	if !selectStart(b.Text, lo) {
		return 0, false
	}
	depth := 0
	for i := lo; i < b.listEnd; i++ {
		if sp := b.spanAt(i); sp != nil {
			i = sp[1] - 1
			continue
		}
		switch b.Text[i] {
		case '(':
			depth++
		case ')':
			depth--
		}
		if i+1 > hi && depth == 0 && selectItem(b.Text, lo, i+1) {
			return i + 1, true
		}
	}
	return 0, false
}

// selectStart reports whether a select item begins at lo.
func selectStart(text string, lo int) bool {
	before := strings.ToLower(strings.TrimRight(text[:lo], " \t\r\n"))
	return strings.HasSuffix(before, ",") || endsWithWord(before, "select") || endsWithWord(before, "distinct") || endsWithWord(before, "all")
}

// spanAt is the bound literal that holds offset i, or nil.
func (b *Bound) spanAt(i int) *[2]int {
	for k := range b.Spans {
		if b.Spans[k][0] <= i && i < b.Spans[k][1] {
			return &b.Spans[k]
		}
	}
	return nil
}

// original maps text[lo:hi], an expression holding bound literals, back
// to the text as prepared.
func (b *Bound) original(lo, hi int) (string, bool) {
	covers := false
	olo, ohi := lo, hi
	for _, sp := range b.Spans {
		switch {
		case sp[1] <= lo: // before: shift both ends
			olo -= sp[1] - sp[0] - 1
			ohi -= sp[1] - sp[0] - 1
		case sp[0] >= hi: // after
		case sp[0] >= lo && sp[1] <= hi: // inside
			covers = true
			ohi -= sp[1] - sp[0] - 1
		default: // cut: not a whole expression
			return "", false
		}
	}
	if !covers {
		return "", false
	}
	return b.Orig[olo:ohi], true
}

// selectItem reports whether text[lo:hi] is a whole select item: after
// SELECT (or DISTINCT) or a comma, and before a comma, FROM or another
// clause, or the end (not before an alias).
func selectItem(text string, lo, hi int) bool {
	before := strings.ToLower(strings.TrimRight(text[:lo], " \t\r\n"))
	switch {
	case strings.HasSuffix(before, ","):
	case endsWithWord(before, "select"), endsWithWord(before, "distinct"), endsWithWord(before, "all"):
	default:
		return false
	}
	after := strings.ToLower(strings.TrimLeft(text[hi:], " \t\r\n"))
	if after == "" || after[0] == ',' || after[0] == ';' {
		return true
	}
	for _, kw := range []string{"from", "where", "group", "having", "order", "limit", "union", "into", "for", "lock", "window"} {
		if strings.HasPrefix(after, kw) && (len(after) == len(kw) || !isIdentByte(after[len(kw)])) {
			return true
		}
	}
	return false
}

func endsWithWord(s, w string) bool {
	return strings.HasSuffix(s, w) && (len(s) == len(w) || !isIdentByte(s[len(s)-len(w)-1]))
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// InLimit reports whether the marker at pos of a prepared statement is a
// LIMIT or OFFSET count (LIMIT ?, LIMIT n, ?, OFFSET ?), where the server
// takes a string parameter as the number it spells: bound as a quoted
// literal it would be a syntax error.
func InLimit(stmt string, pos int) bool {
	prev := func(end int) (string, int) {
		i := end
		for i > 0 && (stmt[i-1] == ' ' || stmt[i-1] == '\t' || stmt[i-1] == '\n' || stmt[i-1] == '\r') {
			i--
		}
		j := i
		for j > 0 && (isIdentByte(stmt[j-1]) || stmt[j-1] == '?') {
			j--
		}
		if j == i && i > 0 {
			j = i - 1 // one punctuation byte
		}
		return strings.ToLower(stmt[j:i]), j
	}
	tok, at := prev(pos)
	switch tok {
	case "limit", "offset":
		return true
	case ",":
		if n, at2 := prev(at); n == "?" || n != "" && strings.Trim(n, "0123456789") == "" {
			tok, _ = prev(at2)
			return tok == "limit"
		}
	}
	return false
}

// OrigOffset maps an offset in b.Text to the statement as prepared: an
// offset inside a bound literal is its marker's.
func (b *Bound) OrigOffset(p int) int {
	shift := 0
	for _, s := range b.Spans {
		if p < s[0] {
			break
		}
		if p < s[1] {
			return s[0] - shift
		}
		shift += s[1] - s[0] - 1
	}
	return max(0, min(p-shift, len(b.Orig)))
}
