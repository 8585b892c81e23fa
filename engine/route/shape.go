package route

import (
	"strconv"
	"strings"

	"github.com/shoaldb/shoal/planner"
	"github.com/shoaldb/shoal/sqlparse"
)

// Shapes. A statement's shape is its text with literals masked
// (sqlparse.Digest): statements of one shape route alike when the
// decision holds for any literals in their place — a key list, or a
// key window whose bounds are the shape's only literals (WindowShape).

// ShapeKey is the cache key of query's shape in db, "" when it has none.
func ShapeKey(db, query string) string {
	d, ok := sqlparse.Digest(query)
	if !ok {
		return ""
	}
	return "\x02" + db + "\x00" + d
}

// IntPair reads two decimal integer literals.
func IntPair(lits []string) (lo, hi int64, ok bool) {
	lo, err1 := strconv.ParseInt(lits[0], 10, 64)
	hi, err2 := strconv.ParseInt(lits[1], 10, 64)
	return lo, hi, err1 == nil && err2 == nil
}

// WindowShape reports whether p, a statement routed to one replica by
// its key window, has a window shape: its only masked literals are two
// integers that are its key window's bounds, in order, over a unique
// integer key, with nothing in the WHERE clause that could widen the
// window for other values (OR, XOR, NOT, CASE, parentheses). The check
// is by value on this statement and by the absence of those words on its
// shape; for a shape that passes it, a window [lo, hi] holds at most
// hi-lo+1 rows.
func WindowShape(query string, p *planner.Plan, unique bool) bool {
	if !unique || p.Split != planner.SplitInt || p.KeyLo == nil || p.KeyHi == nil || p.KeyPoints >= 0 {
		return false
	}
	d, lits, ok := sqlparse.DigestLiterals(query)
	if !ok || len(lits) != 2 {
		return false
	}
	lo, hi, ok := IntPair(lits)
	if !ok || lo != *p.KeyLo || hi != *p.KeyHi || lo >= hi {
		return false
	}
	i := strings.Index(strings.ToLower(d), " where ")
	if i < 0 {
		return false
	}
	l := strings.ToLower(d[i:]) + " "
	for _, w := range []string{" or ", " xor ", " not ", " case ", "||", "!", "(", "<>"} {
		if strings.Contains(l, w) {
			return false
		}
	}
	return true
}

// SelectHead is a statement's text up to its first FROM: the select list
// (the planner renders FROM upper case, after the select list).
func SelectHead(sql string) string {
	if i := strings.Index(sql, " FROM "); i >= 0 {
		return sql[:i]
	}
	return sql
}
