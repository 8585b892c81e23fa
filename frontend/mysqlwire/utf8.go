package mysqlwire

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"vitess.io/vitess/go/mysql"

	"github.com/shoaldb/shoal/router"
	"github.com/shoaldb/shoal/sqlerr"
	"github.com/shoaldb/shoal/sqlparse"
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

// utf8Conn says the client's character set, as negotiated at handshake and
// not changed since by SET NAMES or SET CHARACTER SET, is utf8mb4 or
// utf8mb3: only then are bytes outside literals checked.
func (h *handler) utf8Conn(c *mysql.Conn, ss *router.Session) bool {
	if ss.SetsChanged("names") || ss.SetsChanged("character") {
		return false
	}
	return strings.HasPrefix(h.vt.CollationEnv().LookupName(c.CharacterSet), "utf8")
}

// checkUTF8Conn is checkUTF8 for a statement of connection c: a valid
// statement, the usual case, costs one pass of utf8.ValidString and never
// reads the session.
func (h *handler) checkUTF8Conn(c *mysql.Conn, ss *router.Session, query string) error {
	if utf8.ValidString(query) || !h.utf8Conn(c, ss) {
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
			i = sqlparse.SkipQuoted(query, i, c, true)
		case c == '`':
			end := sqlparse.SkipQuoted(query, i, '`', false)
			if id := query[i+1 : max(i+1, end-1)]; !validMB(id) {
				return sqlerr.New(sqlerr.ErrInvalidCharString, "HY000", "Invalid utf8mb4 character string: '%s'; identifiers must be valid in the connection's character set", escapeInvalid(id))
			}
			i = end
		case sqlparse.IsCommentStart(query, i):
			i = sqlparse.CommentEnd(query, i)
		case c < utf8.RuneSelf:
			i++
		default:
			n := mbLen(query[i:])
			if n == 0 {
				line := 1 + strings.Count(query[:i], "\n")
				return sqlerr.Parse(fmt.Sprintf("You have an error in your SQL syntax: bytes that are not utf8mb4 outside a string literal near '%s' at line %d", escapeInvalid(sqlparse.Truncate(query[i:], 80)), line))
			}
			i += n
		}
	}
	return nil
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
