package sqlparse

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// Clauses are the byte offsets in a SELECT statement's own text of its
// top-level clause keywords (outside parentheses, quotes and comments), -1
// where the clause is absent, and End, the offset just past its last
// token (trailing blanks, semicolons and comments excluded). The engine
// uses them to describe the client's statement on a replica as written
// (a LIMIT 0 or a WHERE predicate spliced in) rather than a re-rendering
// of it: MariaDB's column definitions depend on the text (a literal's
// length, an introducer's charset).
type Clauses struct {
	Where, Group, Having, Window, Order, Limit int
	End                                        int
}

// SelectClauses scans q, a single SELECT (optionally WITH ...), and
// returns its top-level clauses; ok is false for a text it does not
// understand well enough to splice into: a top-level UNION, INTO,
// FOR UPDATE or LOCK IN SHARE MODE, unbalanced parentheses, a clause out
// of order or repeated.
func SelectClauses(q string) (c Clauses, ok bool) {
	c = Clauses{Where: -1, Group: -1, Having: -1, Window: -1, Order: -1, Limit: -1}
	depth := 0
	last := -1 // order of the last clause seen, to reject clauses out of order
	for i := 0; i < len(q); {
		ch := q[i]
		switch {
		case ch == '\'' || ch == '"' || ch == '`':
			i = SkipQuoted(q, i, ch, ch != '`')
			c.End = i
			continue
		case IsCommentStart(q, i):
			i = CommentEnd(q, i)
			continue
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == ';':
			i++
			continue
		case ch == '(':
			depth++
		case ch == ')':
			if depth--; depth < 0 {
				return c, false
			}
		case isWordByte(ch):
			j := i
			for j < len(q) && isWordByte(q[j]) {
				j++
			}
			word := q[i:j]
			if depth == 0 && (i == 0 || q[i-1] != '.') {
				slot, order := -1, 0
				switch {
				case strings.EqualFold(word, "WHERE"):
					slot, order = i, 1
				case strings.EqualFold(word, "GROUP") && followedBy(q, j, "BY"):
					slot, order = i, 2
				case strings.EqualFold(word, "HAVING"):
					slot, order = i, 3
				case strings.EqualFold(word, "WINDOW"):
					slot, order = i, 4
				case strings.EqualFold(word, "ORDER") && followedBy(q, j, "BY"):
					slot, order = i, 5
				case strings.EqualFold(word, "LIMIT"):
					slot, order = i, 6
				case strings.EqualFold(word, "UNION"), strings.EqualFold(word, "EXCEPT"), strings.EqualFold(word, "INTERSECT"),
					strings.EqualFold(word, "INTO"), strings.EqualFold(word, "FOR"), strings.EqualFold(word, "LOCK"),
					strings.EqualFold(word, "PROCEDURE"):
					return c, false
				}
				if slot >= 0 {
					if order <= last {
						return c, false
					}
					last = order
					switch order {
					case 1:
						c.Where = slot
					case 2:
						c.Group = slot
					case 3:
						c.Having = slot
					case 4:
						c.Window = slot
					case 5:
						c.Order = slot
					case 6:
						c.Limit = slot
					}
				}
			}
			i = j
			c.End = i
			continue
		}
		i++
		c.End = i
	}
	return c, depth == 0
}

// SelectListEnd returns the offset in q, a SELECT (optionally WITH …),
// where its top-level select list ends: its first top-level FROM or other
// clause keyword after the SELECT, or len(q).
func SelectListEnd(q string) int {
	depth, selected := 0, false
	for i := 0; i < len(q); {
		ch := q[i]
		switch {
		case ch == '\'' || ch == '"' || ch == '`':
			i = SkipQuoted(q, i, ch, ch != '`')
			continue
		case IsCommentStart(q, i):
			i = CommentEnd(q, i)
			continue
		case ch == '(':
			depth++
		case ch == ')':
			depth--
		case isWordByte(ch):
			j := i
			for j < len(q) && isWordByte(q[j]) {
				j++
			}
			if depth == 0 && (i == 0 || q[i-1] != '.') {
				switch w := strings.ToUpper(q[i:j]); {
				case w == "SELECT":
					selected = true
				case !selected:
				case w == "FROM", w == "WHERE", w == "HAVING", w == "WINDOW", w == "LIMIT", w == "UNION",
					w == "EXCEPT", w == "INTERSECT", w == "INTO", w == "FOR", w == "LOCK", w == "PROCEDURE",
					w == "GROUP" && followedBy(q, j, "BY"), w == "ORDER" && followedBy(q, j, "BY"):
					return i
				}
			}
			i = j
			continue
		}
		i++
	}
	return len(q)
}

// followedBy reports whether the next word of q after offset i (past
// blanks and comments) is word.
func followedBy(q string, i int, word string) bool {
	for i < len(q) {
		switch {
		case q[i] == ' ' || q[i] == '\t' || q[i] == '\n' || q[i] == '\r':
			i++
		case IsCommentStart(q, i):
			i = CommentEnd(q, i)
		default:
			return len(q) >= i+len(word) && strings.EqualFold(q[i:i+len(word)], word) &&
				(len(q) == i+len(word) || !isWordByte(q[i+len(word)]))
		}
	}
	return false
}

// after returns the first of offsets that is ≥ 0, else end.
func after(end int, offsets ...int) int {
	for _, o := range offsets {
		if o >= 0 {
			return o
		}
	}
	return end
}

// WithLimit0 returns q with its top-level LIMIT replaced by LIMIT 0, or
// LIMIT 0 appended (after a line break, which ends a line comment): the
// statement as written, answered with its column definitions and no rows.
func (c Clauses) WithLimit0(q string) string {
	if c.Limit >= 0 {
		return q[:c.Limit] + "\nLIMIT 0"
	}
	return q[:c.End] + "\nLIMIT 0"
}

// WithPredicate returns q with pred ANDed to its top-level WHERE clause
// (or a WHERE clause added), everything else as written.
func (c Clauses) WithPredicate(q, pred string) string {
	next := after(c.End, c.Group, c.Having, c.Window, c.Order, c.Limit)
	if c.Where >= 0 {
		w := c.Where + len("WHERE")
		return q[:w] + " (" + q[w:next] + "\n) AND " + pred + "\n" + q[next:c.End]
	}
	return q[:next] + "\nWHERE " + pred + "\n" + q[next:c.End]
}

// OnlySelectList reports whether sel is a plain SELECT of its select list
// alone: no FROM (FROM DUAL parses to none), WHERE, GROUP BY, HAVING,
// ORDER BY, LIMIT, WITH, window, INTO, locking or SQL_CALC_FOUND_ROWS,
// and at least one item. Such a statement reads no table.
func OnlySelectList(sel *ast.SelectStmt) bool {
	return sel.Kind == ast.SelectStmtKindSelect && sel.With == nil && sel.From == nil &&
		sel.Where == nil && sel.GroupBy == nil && sel.Having == nil && sel.OrderBy == nil &&
		sel.Limit == nil && len(sel.WindowSpecs) == 0 && sel.SelectIntoOpt == nil &&
		(sel.LockInfo == nil || sel.LockInfo.LockType == ast.SelectLockNone) &&
		(sel.SelectStmtOpts == nil || !sel.SelectStmtOpts.CalcFoundRows) &&
		sel.Fields != nil && len(sel.Fields.Fields) > 0
}
