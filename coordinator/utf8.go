package coordinator

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"vitess.io/vitess/go/mysql"

	"github.com/shoaldb/shoal/sqlerr"
)

// Invalid UTF-8 in statements.
//
// On a utf8mb4 (or utf8mb3) connection MariaDB keeps the bytes of a string
// literal as they are, whatever they are, but refuses a quoted identifier
// that is not valid in the connection's character set (error 1300) and an
// unquoted one as a syntax error (1064). Shoal's own paths would instead
// render the bytes into fragment and metadata SQL, where a replica
// connection turns them into '?' (a wrong "Unknown column '??'") or they
// come back as a column name. checkUTF8 gives MariaDB's answers before
// anything else reads the statement.

// errInvalidCharString is ER_INVALID_CHARACTER_STRING.
const errInvalidCharString = 1300

// utf8Conn says the client's character set, as negotiated at handshake and
// not changed since by SET NAMES or SET CHARACTER SET, is utf8mb4 or
// utf8mb3: only then are bytes outside literals checked.
func (s *Server) utf8Conn(c *mysql.Conn, ss *session) bool {
	for _, set := range ss.sets {
		if containsFold(set, "names") || containsFold(set, "character") {
			return false
		}
	}
	return strings.HasPrefix(s.vt.CollationEnv().LookupName(c.CharacterSet), "utf8")
}

// checkUTF8Conn is checkUTF8 for a statement of connection c: a valid
// statement, the usual case, costs one pass of utf8.ValidString and never
// reads the session.
func (s *Server) checkUTF8Conn(c *mysql.Conn, ss *session, query string) error {
	if utf8.ValidString(query) || !s.utf8Conn(c, ss) {
		return nil
	}
	return checkUTF8(query)
}

// checkUTF8 scans query outside string literals and comments: bytes that
// are not UTF-8 inside a back-quoted identifier get 1300, elsewhere 1064.
// Like MariaDB it accepts the three-byte encodings of UTF-16 surrogates.
func checkUTF8(query string) error {
	if utf8.ValidString(query) {
		return nil
	}
	for i := 0; i < len(query); {
		switch c := query[i]; {
		case c == '\'' || c == '"':
			i = skipQuoted(query, i, c, true)
		case c == '`':
			end := skipQuoted(query, i, '`', false)
			if id := query[i+1 : max(i+1, end-1)]; !validMB(id) {
				return sqlerr.New(errInvalidCharString, "HY000", "Invalid utf8mb4 character string: '%s'; identifiers must be valid in the connection's character set", escapeInvalid(id))
			}
			i = end
		case isCommentStart(query, i):
			i = commentEnd(query, i)
		case c < utf8.RuneSelf:
			i++
		default:
			n := mbLen(query[i:])
			if n == 0 {
				line := 1 + strings.Count(query[:i], "\n")
				return sqlerr.Parse(fmt.Sprintf("You have an error in your SQL syntax: bytes that are not utf8mb4 outside a string literal near '%s' at line %d", escapeInvalid(truncate(query[i:], 80)), line))
			}
			i += n
		}
	}
	return nil
}

// isCommentStart reports whether a comment (#, "-- ", /* */) starts at
// s[i]. The statement scanners (checkUTF8, lexDepth) skip comments alike.
func isCommentStart(s string, i int) bool {
	return s[i] == '#' || strings.HasPrefix(s[i:], "-- ") || strings.HasPrefix(s[i:], "/*")
}

// commentEnd returns the index just past the comment starting at s[i]
// (len(s) when it is not closed).
func commentEnd(s string, i int) int {
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

// skipQuoted returns the index just past the quoted text starting at i.
// A doubled quote stands for itself; in strings a backslash escapes the
// next byte.
func skipQuoted(s string, i int, q byte, backslash bool) int {
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

// mbLen is the length of the character at s[0], 0 if it is not one. A
// UTF-16 surrogate's three-byte encoding counts, as it does for MariaDB.
func mbLen(s string) int {
	if r, n := utf8.DecodeRuneInString(s); r != utf8.RuneError || n > 1 {
		return n
	}
	if len(s) >= 3 && s[0] == 0xed && s[1] >= 0xa0 && s[1] <= 0xbf && s[2] >= 0x80 && s[2] <= 0xbf {
		return 3
	}
	return 0
}

func validMB(s string) bool {
	for i := 0; i < len(s); {
		n := mbLen(s[i:])
		if n == 0 {
			return false
		}
		i += n
	}
	return true
}

// escapeInvalid writes bytes that are not characters as \xHH, as MariaDB's
// messages do.
func escapeInvalid(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if n := mbLen(s[i:]); n > 0 {
			b.WriteString(s[i : i+n])
			i += n
			continue
		}
		fmt.Fprintf(&b, `\x%02X`, s[i])
		i++
	}
	return b.String()
}
