package sqlparse

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// Lexical helpers for scanning statement text before (or instead of)
// parsing it: the UTF-8 gate and the depth estimate skip comments and
// quoted text alike.

// IsCommentStart reports whether a comment (#, "-- ", /* */) starts at
// s[i]. The statement scanners (checkUTF8, lexDepth) skip comments alike.
func IsCommentStart(s string, i int) bool {
	return s[i] == '#' || strings.HasPrefix(s[i:], "-- ") || strings.HasPrefix(s[i:], "/*")
}

// CommentEnd returns the index just past the comment starting at s[i]
// (len(s) when it is not closed).
func CommentEnd(s string, i int) int {
	if strings.HasPrefix(s[i:], "/*") {
		if j := strings.Index(s[i+2:], "*/"); j >= 0 {
			return i + j + 4
		}
		return len(s)
	}
	if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(s)
}

// SkipQuoted returns the index just past the quoted text starting at i.
// A doubled quote stands for itself; in strings a backslash escapes the
// next byte.
func SkipQuoted(s string, i int, q byte, backslash bool) int {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			if backslash {
				j++
			}
		case q:
			if j+1 < len(s) && s[j+1] == q {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(s)
}

// ContainsFold is an ASCII case-insensitive strings.Contains that does not
// allocate.
func ContainsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

// Truncate cuts s to at most n bytes (error messages quote the start of a
// statement).
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// Second is where the second of several statements in query begins, as a
// server that was not asked for multi statements reports it in its syntax
// error: the text from its first token on, and the 1-based line of that
// token. first is the first statement as Parse returned it (its Text
// ends with the semicolon).
func Second(query string, first ast.StmtNode) (near string, line int) {
	i := min(len(first.Text()), len(query))
	for i < len(query) {
		switch {
		case strings.IndexByte(" \t\r\n", query[i]) >= 0:
			i++
		case IsCommentStart(query, i) && !strings.HasPrefix(query[i:], "/*!"):
			i = CommentEnd(query, i)
		default:
			return query[i:], lineAt(query, i)
		}
	}
	return "", lineAt(query, len(query))
}

// lineAt is the 1-based line of query's offset i as the server counts it:
// from the first character that is not white space (MariaDB and MySQL
// drop a query's leading white space before they parse it: "\n selec x"
// fails at line 1, "/* c */\n selec x" at line 2).
func lineAt(query string, i int) int {
	lead := min(i, len(query)-len(strings.TrimLeft(query, " \t\r\n\f\v")))
	return 1 + strings.Count(query[lead:i], "\n")
}

// FirstToken is where query's first token begins, as a server reports a
// syntax error at it: the text from there on, and the 1-based line of
// that token (white space and comments before it skipped; a /*! … */
// comment is text the server reads).
func FirstToken(query string) (near string, line int) {
	for i := 0; i < len(query); {
		switch {
		case strings.IndexByte(" \t\r\n", query[i]) >= 0:
			i++
		case IsCommentStart(query, i) && !strings.HasPrefix(query[i:], "/*!") && !strings.HasPrefix(query[i:], "/*M!"):
			i = CommentEnd(query, i)
		default:
			return query[i:], lineAt(query, i)
		}
	}
	return "", lineAt(query, len(query))
}
