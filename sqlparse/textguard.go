package sqlparse

import "strings"

// TextWrites names a clause of sql's text that writes or locks on the
// server that runs it, "" when there is none. It reads the text as
// MariaDB does, not as the TiDB parser does, because a passthrough sends
// the text: words outside quotes and comments, with an executable
// comment's content (/*! … */, /*M! … */) read as code. The TiDB parser
// takes /*M! INTO OUTFILE '…' */ for a comment, and it cannot read
// MariaDB's SELECT … INTO OUTFILE '…' FROM t (the INTO before FROM) at
// all, so both would reach a replica and write a file on its host.
//
// Found: INTO OUTFILE / DUMPFILE; FOR UPDATE and LOCK IN SHARE MODE (row
// locks that block the replica's replication thread); NEXTVAL(, SETVAL(
// and NEXT VALUE FOR (they advance a sequence, a write the replica's
// read-only transaction refuses with 1792, which does not say why). The
// words are reserved, so an unquoted identifier cannot look like them.
func TextWrites(sql string) string {
	var prev, prev2 string
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case strings.HasPrefix(sql[i:], "/*!"), strings.HasPrefix(sql[i:], "/*M!"):
			i += strings.IndexByte(sql[i:], '!') + 1
			for i < len(sql) && sql[i] >= '0' && sql[i] <= '9' { // the version
				i++
			}
		case strings.HasPrefix(sql[i:], "*/"): // an executable comment's end
			i += 2
		case IsCommentStart(sql, i):
			i = CommentEnd(sql, i)
		case c == '\'' || c == '"':
			i = SkipQuoted(sql, i, c, true)
			prev, prev2 = "", ""
		case c == '`':
			i = SkipQuoted(sql, i, c, false)
			prev, prev2 = "", ""
		case isWordByte(c):
			j := i + 1
			for j < len(sql) && isWordByte(sql[j]) {
				j++
			}
			w := sql[i:j]
			switch {
			case strings.EqualFold(prev, "INTO") && (strings.EqualFold(w, "OUTFILE") || strings.EqualFold(w, "DUMPFILE")):
				return "SELECT ... INTO " + strings.ToUpper(w)
			case strings.EqualFold(prev, "FOR") && strings.EqualFold(w, "UPDATE"):
				return "SELECT ... FOR UPDATE"
			case strings.EqualFold(prev2, "LOCK") && strings.EqualFold(prev, "IN") && strings.EqualFold(w, "SHARE"):
				return "SELECT ... LOCK IN SHARE MODE"
			case strings.EqualFold(prev2, "NEXT") && strings.EqualFold(prev, "VALUE") && strings.EqualFold(w, "FOR"):
				return "NEXT VALUE FOR, which advances a sequence"
			case (strings.EqualFold(w, "NEXTVAL") || strings.EqualFold(w, "SETVAL")) && strings.HasPrefix(firstTokenText(sql[j:]), "("):
				return strings.ToUpper(w) + ", which advances a sequence"
			}
			prev2, prev = prev, w
			i = j
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			i++
		default:
			prev, prev2 = "", ""
			i++
		}
	}
	return ""
}

// firstTokenText is FirstToken's text alone.
func firstTokenText(s string) string {
	near, _ := FirstToken(s)
	return near
}
