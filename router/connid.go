package router

import (
	"slices"
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/shoaldb/shoal/sqlparse"
)

// bindConnectionID writes the session's id in place of each CONNECTION_ID()
// call of query, so that every statement (SELECT CONNECTION_ID() AS id,
// CONNECTION_ID() + 0, SET @me = CONNECTION_ID(), ...) names the id KILL
// and SHOW PROCESSLIST use, not the thread of the replica connection or
// worker that runs it. A select-list item without an alias that contains
// a call keeps its column name: it is aliased with its text as written,
// which is the name MariaDB gives it. Calls inside string literals,
// quoted identifiers and comments are left alone. The bare SELECT
// CONNECTION_ID() is answered before this (connectionID).
func bindConnectionID(query string, id uint32) string {
	if !sqlparse.ContainsFold(query, "CONNECTION_ID") {
		return query
	}
	calls := connIDCalls(query)
	if len(calls) == 0 {
		return query
	}
	type edit struct {
		at, end int
		text    string
	}
	lit := strconv.FormatUint(uint64(id), 10)
	var edits []edit
	for _, c := range calls {
		edits = append(edits, edit{c[0], c[1], lit})
	}
	if fields := firstSelectFields(query); fields != nil {
		for _, f := range fields {
			text := f.Text()
			end := f.Offset + len(text)
			if f.AsName.O != "" || f.Offset < 0 || end > len(query) || query[f.Offset:end] != text || len(text) > 256 || strings.Contains(text, "*/") {
				continue
			}
			if slices.ContainsFunc(calls, func(c [2]int) bool { return c[0] >= f.Offset && c[1] <= end }) {
				edits = append(edits, edit{end, end, " AS " + sqlparse.QuoteID(text)})
			}
		}
	}
	// Apply from the end so that earlier offsets hold; an alias after a
	// call ending at the same place goes after it.
	slices.SortStableFunc(edits, func(a, b edit) int { return b.at - a.at })
	out := query
	for _, e := range edits {
		out = out[:e.at] + e.text + out[e.end:]
	}
	return out
}

// firstSelectFields are the select list that names the result's columns,
// or nil when query is not a SELECT (or a UNION of them) the parser reads.
func firstSelectFields(query string) []*ast.SelectField {
	stmt, err := sqlparse.ParseOne(query)
	if err != nil {
		return nil
	}
	var n ast.Node = stmt
	for {
		switch s := n.(type) {
		case *ast.SelectStmt:
			if s.Fields == nil {
				return nil
			}
			return s.Fields.Fields
		case *ast.SetOprStmt:
			if s.SelectList == nil || len(s.SelectList.Selects) == 0 {
				return nil
			}
			n = s.SelectList.Selects[0]
		default:
			return nil
		}
	}
}

// connIDCalls are the byte spans of the CONNECTION_ID ( ) calls of query
// outside string literals, quoted identifiers and comments (MariaDB's
// executable comments, /*! and /*M!, are read as code).
func connIDCalls(q string) [][2]int {
	var out [][2]int
	const name = "connection_id"
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			i = skipQuoted(q, i)
		case c == '#' || (c == '-' && strings.HasPrefix(q[i:], "-- ")):
			for i < len(q) && q[i] != '\n' {
				i++
			}
		case c == '/' && strings.HasPrefix(q[i:], "/*"):
			if strings.HasPrefix(q[i:], "/*!") || strings.HasPrefix(q[i:], "/*M!") {
				i += 2
				continue
			}
			if end := strings.Index(q[i+2:], "*/"); end >= 0 {
				i += end + 4
			} else {
				i = len(q)
			}
		case identByte(c):
			start := i
			for i < len(q) && identByte(q[i]) {
				i++
			}
			if !strings.EqualFold(q[start:i], name) || (start > 0 && q[start-1] == '.') {
				continue
			}
			j := skipSpace(q, i)
			if j >= len(q) || q[j] != '(' {
				continue
			}
			j = skipSpace(q, j+1)
			if j >= len(q) || q[j] != ')' {
				continue
			}
			out = append(out, [2]int{start, j + 1})
			i = j + 1
		default:
			i++
		}
	}
	return out
}

// skipQuoted returns the index after the quoted text starting at q[i]
// (a doubled quote, or a backslash in a string, escapes).
func skipQuoted(q string, i int) int {
	quote := q[i]
	for i++; i < len(q); i++ {
		switch {
		case q[i] == '\\' && quote != '`':
			i++
		case q[i] == quote:
			if i+1 < len(q) && q[i+1] == quote {
				i++
				continue
			}
			return i + 1
		}
	}
	return len(q)
}

func skipSpace(q string, i int) int {
	for i < len(q) && strings.IndexByte(" \t\r\n\f", q[i]) >= 0 {
		i++
	}
	return i
}

func identByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}
