package router

import (
	"context"
	"regexp"
	"strings"

	"github.com/shoaldb/shoal/engine/pinstore"
	"github.com/shoaldb/shoal/sqlerr"
	"vitess.io/vitess/go/sqltypes"
)

// Pinned-table statements are recognised here, before the TiDB parser
// sees the statement (it does not know them), and run by the engine.
//
//	CACHE TABLE [db.]name AS SELECT …   pin a query's result under a name
//	CACHE TABLE [db.]t                  pin a whole replica table
//	CACHE TABLE … OPTIONS ('refresh' = 'live') [AS SELECT …]
//	                                    keep it current from a replica's
//	                                    binary log (a table, or columns of
//	                                    one table with a WHERE)
//	UNCACHE TABLE [IF EXISTS] [db.]name
//	REFRESH TABLE [db.]name             reload and swap atomically
//	REFRESH TABLE [db.]t INCREMENTAL    append the rows past the split key's
//	                                    high-water mark (append-only tables)
//	SHOW CACHED TABLES

const ident = pinstore.IdentPattern

var (
	cacheRe      = regexp.MustCompile(`(?is)^\s*CACHE\s+TABLE\s+(` + ident + `(?:\s*\.\s*` + ident + `)?)(?:\s+OPTIONS\s*\(((?:[^()']|'(?:[^']|'')*')*)\))?(?:\s+AS\s+(.+?))?\s*;?\s*$`)
	uncacheRe    = regexp.MustCompile(`(?is)^\s*UNCACHE\s+TABLE\s+(IF\s+EXISTS\s+)?(` + ident + `(?:\s*\.\s*` + ident + `)?)\s*;?\s*$`)
	refreshRe    = regexp.MustCompile(`(?is)^\s*REFRESH\s+TABLE\s+(` + ident + `(?:\s*\.\s*` + ident + `)?)(\s+INCREMENTAL)?\s*;?\s*$`)
	showCachedRe = regexp.MustCompile(`(?is)^\s*SHOW\s+CACHED\s+TABLES\s*;?\s*$`)
)

// firstWord is the statement's first word, upper-cased.
func firstWord(q string) string {
	q = strings.TrimLeft(q, " \t\r\n(")
	i := strings.IndexAny(q, " \t\r\n")
	if i < 0 {
		i = len(q)
	}
	w := q[:i]
	for _, kw := range pinWords {
		if strings.EqualFold(w, kw) {
			return kw
		}
	}
	return "" // no other word matters here: no upper-case copy per statement
}

// pinWords are the first words pinStatement acts on.
var pinWords = [...]string{"CACHE", "UNCACHE", "REFRESH", "SHOW"}

// pinStatement handles the pinned-table statements; ok is false for any
// other statement.
func (s *Router) pinStatement(ctx context.Context, ss *Session, query string, callback func(*sqltypes.Result) error) (ok bool, err error) {
	switch firstWord(query) {
	case "CACHE":
		m := cacheRe.FindStringSubmatch(query)
		if m == nil {
			return true, sqlerr.Parse("CACHE TABLE syntax: CACHE TABLE [db.]name [OPTIONS ('refresh' = 'live')] [AS SELECT ...]")
		}
		return true, s.eng.PinStore().CacheTableOptions(ctx, &ss.Session, m[1], m[2], m[3], callback)
	case "UNCACHE":
		m := uncacheRe.FindStringSubmatch(query)
		if m == nil {
			return true, sqlerr.Parse("UNCACHE TABLE syntax: UNCACHE TABLE [IF EXISTS] [db.]name")
		}
		return true, s.eng.PinStore().Uncache(&ss.Session, m[2], m[1] != "", callback)
	case "REFRESH":
		m := refreshRe.FindStringSubmatch(query)
		if m == nil {
			return false, nil // let a replica answer (or refuse) it
		}
		return true, s.eng.PinStore().RefreshTable(ctx, &ss.Session, m[1], m[2] != "", callback)
	case "SHOW":
		if showCachedRe.MatchString(query) {
			return true, s.eng.PinStore().ShowCached(callback)
		}
	}
	return false, nil
}
