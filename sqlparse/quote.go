package sqlparse

import "strings"

// QuoteID back-quotes a MySQL identifier (a database, table, column or
// partition name), doubling any back quote inside it. It is the one way
// Shoal writes a name into SQL it sends to a replica.
func QuoteID(name string) string {
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

// QuoteString renders s as a single-quoted string literal with MySQL's backslash
// escapes (mysql_real_escape_string's set).
func QuoteString(s []byte) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('\'')
	for _, c := range s {
		switch c {
		case 0:
			b.WriteString(`\0`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case 0x1a:
			b.WriteString(`\Z`)
		case '\\':
			b.WriteString(`\\`)
		case '\'':
			b.WriteString(`\'`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
	return b.String()
}
