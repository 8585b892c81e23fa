package planner

import (
	"strings"

	"github.com/shoaldb/shoal/sqlparse"
)

// SET statements the TiDB parser cannot read, which MariaDB accepts:
//
//   - SET NAMES / SET CHARACTER SET with a character set the parser does
//     not know (cp1251, koi8r, cp1250, …): session state like any SET,
//     applied to the session's replica connection and remembered (the
//     router reads the connection's character set back after it);
//   - MariaDB's SET STATEMENT var = value [, …] FOR statement: the
//     variables hold for that one statement, which is classified as if
//     it came alone, and the whole text passes through when that
//     statement only reads.
//
// Refused as before: anything naming GLOBAL, PERSIST, a password or a
// role, and SET STATEMENT over a write.

// unparsedSet classifies a SET statement (its first keyword) that did
// not parse.
func unparsedSet(sql string) (Kind, string) {
	words := setWords(sql)
	if len(words) > 1 && words[1].w == "STATEMENT" {
		for _, w := range words[2:] {
			if w.w != "FOR" {
				continue
			}
			inner := sql[w.end:]
			if stmts, err := sqlparse.Parse(inner); err == nil && len(stmts) == 1 {
				switch k, why := Classify(stmts[0]); k {
				case Select, Passthrough, Explain:
					return Passthrough, ""
				case Refuse:
					return Refuse, why
				default: // USE, SET, PREPARE under SET STATEMENT
					return Refuse, "SET STATEMENT ... FOR " + strings.ToUpper(firstKeyword(inner))
				}
			}
			switch k, why := ClassifyUnparsed(inner); k {
			case Passthrough:
				return Passthrough, ""
			case Refuse:
				return Refuse, why
			}
			return Unparsable, "SET"
		}
		return Unparsable, "SET"
	}
	for _, w := range words[1:] {
		switch {
		case w.w == "GLOBAL", w.w == "PERSIST", w.w == "PERSIST_ONLY", w.w == "PASSWORD", w.w == "ROLE":
			return Refuse, "SET " + w.w
		case strings.HasPrefix(w.w, "@@GLOBAL."), strings.HasPrefix(w.w, "@@PERSIST"):
			return Refuse, "SET GLOBAL"
		}
	}
	return Set, ""
}

type setWord struct {
	w   string // upper case
	end int    // offset just past it
}

// setWords returns the words of sql outside quotes and comments, upper
// case; a word may start with @@ and hold dots (@@GLOBAL.SQL_MODE).
func setWords(sql string) []setWord {
	var out []setWord
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case sqlparse.IsCommentStart(sql, i) && !strings.HasPrefix(sql[i:], "/*!") && !strings.HasPrefix(sql[i:], "/*M!"):
			i = sqlparse.CommentEnd(sql, i)
		case c == '\'' || c == '"':
			i = sqlparse.SkipQuoted(sql, i, c, true)
		case c == '`':
			i = sqlparse.SkipQuoted(sql, i, c, false)
		case c == '@' || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i + 1
			for j < len(sql) && (sql[j] == '@' || sql[j] == '_' || sql[j] == '.' || sql[j] >= 'a' && sql[j] <= 'z' || sql[j] >= 'A' && sql[j] <= 'Z' || sql[j] >= '0' && sql[j] <= '9') {
				j++
			}
			out = append(out, setWord{w: strings.ToUpper(sql[i:j]), end: j})
			i = j
		default:
			i++
		}
	}
	return out
}
