package sqlparse

import "strings"

// Binding a prepared statement's values into its text, and naming its
// unaliased columns back from the text as prepared (with its `?`
// markers), as MySQL names them: shared by the binary protocol's
// COM_STMT_EXECUTE (frontend/mysqlwire) and SQL EXECUTE (router).

// bound is a named statement with its values bound.
type Bound struct {
	Orig  string   // as prepared, with markers
	Text  string   // with literals
	Spans [][2]int // each literal's [start, end) in text
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
	if name == "" || *at >= len(b.Text) {
		return "", false
	}
	i := strings.Index(b.Text[*at:], name)
	if i < 0 {
		return "", false
	}
	lo, hi := *at+i, *at+i+len(name)
	*at = hi
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
		case sp[0] <= lo && hi <= sp[1]: // a string literal named by its value
			*at = sp[1]
			return "?", true
		default: // cut: not a whole expression
			return "", false
		}
	}
	if !covers {
		return "", false
	}
	return b.Orig[olo:ohi], true
}
