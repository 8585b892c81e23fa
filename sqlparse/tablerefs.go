package sqlparse

import "strings"

// ReplaceTableRefs returns q with every table reference of its FROM
// clauses that def knows (FROM, JOIN and FROM's comma list, in
// subqueries, derived tables and CTE bodies too) replaced by def's
// statement as a derived table under the reference's name or alias:
// `FROM recent r` becomes `FROM (SELECT … ) r`, `FROM db.recent` becomes
// `FROM (SELECT …) AS recent`. Only those references change, byte for
// byte the rest stays as the client wrote it, so a replica names the
// result's columns as it would have named the client's own statement's.
// n is the number of references replaced.
//
// Why text, not the parser's AST: the statements this is for are the
// ones Shoal passes to a replica, some of which TiDB's parser does not
// read (MariaDB-only syntax), and restoring an AST rewrites every
// unaliased expression's column name.
//
// A name in another place (a column, a function argument such as
// EXTRACT(YEAR FROM d)) is left alone: FROM and JOIN count only at the
// statement's level or in a parenthesis that opens a query.
func ReplaceTableRefs(q, db string, def func(db, name string) (string, bool)) (out string, n int) {
	toks := tokens(q)
	if toks == nil {
		return q, 0
	}
	type level struct{ query, from bool }
	stack := []level{{query: true}}
	expect := false // the next name is a table reference
	var b strings.Builder
	last := 0 // q[:last] is written
	for k := 0; k < len(toks); k++ {
		t := toks[k]
		top := &stack[len(stack)-1]
		switch {
		case t.text == "(":
			// A parenthesis opens a query when SELECT, WITH or another
			// parenthesis follows, or where a table reference is due (a
			// derived table, a parenthesized join).
			next := ""
			if k+1 < len(toks) {
				next = strings.ToUpper(toks[k+1].text)
			}
			q := expect || next == "SELECT" || next == "WITH" || next == "("
			stack = append(stack, level{query: q, from: expect})
			continue // expect carries into a parenthesized join
		case t.text == ")":
			if len(stack) > 1 {
				stack = stack[:len(stack)-1]
			}
			expect = false
		case t.text == ",":
			expect = top.query && top.from
			continue
		case t.word && top.query:
			switch strings.ToUpper(t.text) {
			case "FROM", "JOIN", "STRAIGHT_JOIN":
				top.from, expect = true, true
				continue
			case "SELECT", "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "ON", "USING", "UNION",
				"INTERSECT", "EXCEPT", "WINDOW", "INTO", "FOR", "LOCK", "PROCEDURE", "RETURNING":
				top.from, expect = false, false
				continue
			}
		}
		if !expect || !t.name() {
			expect = false
			continue
		}
		expect = false
		// A table name: name or schema.name.
		schema, name, end := db, t.ident(), k
		if k+2 < len(toks) && toks[k+1].text == "." && toks[k+2].name() {
			schema, name, end = name, toks[k+2].ident(), k+2
		}
		src, ok := def(schema, name)
		if !ok {
			k = end
			continue
		}
		b.WriteString(q[last:t.start])
		b.WriteString("(" + src + ")")
		// PARTITION (…) and index hints name a base table's partitions
		// and indexes; a derived table has neither, and MariaDB refuses
		// them after one (1064). They choose no rows, so they go.
		p := skipGroup(toks, end+1, "PARTITION")
		if aliased(toks, p) {
			a := p
			if toks[a].word && strings.EqualFold(toks[a].text, "AS") && a+1 < len(toks) {
				a++
			}
			b.WriteString(" " + q[toks[p].start:toks[a].end])
			p = a + 1
		} else {
			b.WriteString(" AS " + QuoteID(name))
		}
		for h := indexHint(toks, p); h > p; h = indexHint(toks, p) {
			p = h
		}
		last, end = toks[p-1].end, p-1
		n++
		k = end
	}
	if n == 0 {
		return q, 0
	}
	b.WriteString(q[last:])
	return b.String(), n
}

// skipGroup returns the index after `word (…)` starting at toks[k], or k
// when toks[k] is not word followed by a parenthesis.
func skipGroup(toks []token, k int, word string) int {
	if k+1 >= len(toks) || !toks[k].word || !strings.EqualFold(toks[k].text, word) || toks[k+1].text != "(" {
		return k
	}
	depth := 0
	for i := k + 1; i < len(toks); i++ {
		switch toks[i].text {
		case "(":
			depth++
		case ")":
			if depth--; depth == 0 {
				return i + 1
			}
		}
	}
	return k
}

// indexHint returns the index after the index hint starting at toks[k]
// ({USE|IGNORE|FORCE} {INDEX|KEY} [FOR JOIN|ORDER BY|GROUP BY] (…), and a
// comma before the next), or k when none starts there.
func indexHint(toks []token, k int) int {
	if k < len(toks) && toks[k].text == "," && k+1 < len(toks) {
		if h := indexHint(toks, k+1); h > k+1 {
			return h
		}
		return k
	}
	if k+2 >= len(toks) || !toks[k].word || !toks[k+1].word {
		return k
	}
	switch strings.ToUpper(toks[k].text) {
	case "USE", "IGNORE", "FORCE":
	default:
		return k
	}
	if u := strings.ToUpper(toks[k+1].text); u != "INDEX" && u != "KEY" {
		return k
	}
	i := k + 2
	if toks[i].word && strings.EqualFold(toks[i].text, "FOR") {
		for i < len(toks) && toks[i].text != "(" {
			i++
		}
	}
	if i >= len(toks) || toks[i].text != "(" {
		return k
	}
	for ; i < len(toks); i++ {
		if toks[i].text == ")" {
			return i + 1
		}
	}
	return k
}

// aliased reports whether the table reference ending before toks[k] has
// an alias: AS, or a name that is not a keyword that may follow a table.
func aliased(toks []token, k int) bool {
	if k >= len(toks) || !toks[k].name() {
		return false
	}
	if toks[k].word {
		switch strings.ToUpper(toks[k].text) {
		case "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "ON", "USING", "JOIN", "STRAIGHT_JOIN",
			"INNER", "CROSS", "LEFT", "RIGHT", "NATURAL", "FULL", "UNION", "INTERSECT", "EXCEPT",
			"WINDOW", "INTO", "FOR", "LOCK", "PROCEDURE", "USE", "IGNORE", "FORCE", "PARTITION", "RETURNING":
			return false
		}
	}
	return true
}

// token is one lexical unit of a statement: a word (keyword or bare
// name), a backquoted name, a string or number, or one punctuation byte.
type token struct {
	text       string
	start, end int
	word       bool // a bare word
	quoted     bool // a backquoted name
}

func (t token) name() bool { return t.word || t.quoted }

// ident is the name t spells: a backquoted name unquoted.
func (t token) ident() string {
	if !t.quoted {
		return t.text
	}
	return strings.ReplaceAll(t.text[1:len(t.text)-1], "``", "`")
}

// tokens splits q, skipping white space and comments; nil when q holds
// an executable comment (/*! */), whose text a server may or may not
// read as SQL.
func tokens(q string) []token {
	var out []token
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		case IsCommentStart(q, i):
			if strings.HasPrefix(q[i:], "/*!") || strings.HasPrefix(q[i:], "/*M!") {
				return nil
			}
			i = CommentEnd(q, i)
		case c == '\'' || c == '"':
			j := SkipQuoted(q, i, c, true)
			out = append(out, token{text: q[i:j], start: i, end: j})
			i = j
		case c == '`':
			j := SkipQuoted(q, i, '`', false)
			out = append(out, token{text: q[i:j], start: i, end: j, quoted: j-i >= 2 && q[j-1] == '`'})
			i = j
		case isWordByte(c) || c >= 0x80:
			j := i
			for j < len(q) && (isWordByte(q[j]) || q[j] >= 0x80) {
				j++
			}
			w := q[i:j]
			digit := c >= '0' && c <= '9'
			out = append(out, token{text: w, start: i, end: j, word: !digit || strings.IndexFunc(w, func(r rune) bool { return r < '0' || r > '9' }) >= 0})
			i = j
		default:
			out = append(out, token{text: q[i : i+1], start: i, end: i + 1})
			i++
		}
	}
	return out
}
