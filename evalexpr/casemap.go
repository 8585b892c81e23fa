package evalexpr

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/mysql/collations/colldata"
	"vitess.io/vitess/go/sqltypes"
	"vitess.io/vitess/go/vt/sqlparser"
	"vitess.io/vitess/go/vt/vtgate/evalengine"
)

// LOWER, LCASE, UPPER and UCASE are evaluated here, not by vitess'
// evalengine: vitess implements case mapping only for 8-bit, binary and
// MySQL 8's utf8mb4_0900 collations, and fails with UNIMPLEMENTED for
// every other (utf8mb4_general_ci, MariaDB's default, among them). Each
// collation maps case with its own table (MariaDB's utf8mb4_general_ci
// uses an old Unicode table, unicode_520_ci another), so the table is not
// guessed: it is read from the replica (CaseMaps), which maps every code
// point of the charset once, and applied here exactly.

// CaseMap is one collation's simple case mapping (code point to code
// point; absent code points map to themselves).
type CaseMap struct {
	Lower, Upper map[rune]rune
}

// CaseMapSource reads a collation's case mapping (from a replica).
type CaseMapSource func(coll collations.ID) (*CaseMap, error)

type caseMaps struct {
	mu   sync.Mutex // guards src and maps, never held across a read
	src  CaseMapSource
	maps map[collations.ID]*caseMapEntry
}

// caseMapEntry is one collation's mapping; its mutex is held while it is
// read, so a second compile of the same collation waits for that read and
// others proceed. An error is not kept: a replica may be down for a while.
type caseMapEntry struct {
	mu sync.Mutex
	m  *CaseMap
}

// SetCaseMaps installs the source of case mappings for the collations
// vitess cannot case-map. Without one, LOWER and UPPER over such a
// collation do not compile (the statement passes through).
func (e *Env) SetCaseMaps(src CaseMapSource) {
	e.cm.mu.Lock()
	defer e.cm.mu.Unlock()
	e.cm.src = src
	e.cm.maps = map[collations.ID]*caseMapEntry{}
	e.memo.Clear()
}

// caseMap returns the mapping of coll, reading it once.
func (e *Env) caseMap(coll collations.ID) (*CaseMap, error) {
	e.cm.mu.Lock()
	src := e.cm.src
	if src == nil {
		e.cm.mu.Unlock()
		return nil, fmt.Errorf("no case mapping for collation %d", coll)
	}
	ent := e.cm.maps[coll]
	if ent == nil {
		ent = &caseMapEntry{}
		e.cm.maps[coll] = ent
	}
	e.cm.mu.Unlock()
	ent.mu.Lock()
	defer ent.mu.Unlock()
	if ent.m == nil {
		m, err := src(coll)
		if err != nil {
			return nil, err
		}
		ent.m = m
	}
	return ent.m, nil
}

// CaseMapQuery returns the statement that reads the case mapping of a
// utf8 collation (charset utf8mb3 or utf8mb4) and the code points it
// maps, in order: the result's two columns are LOWER and UPPER of a
// string of those code points.
func CaseMapQuery(charset, collation string) (string, []rune, error) {
	max := rune(0x1FFFF) // no code point above plane 1 has a case mapping
	switch charset {
	case "utf8mb4":
	case "utf8mb3", "utf8":
		charset, max = "utf8mb3", 0xFFFF
	default:
		return "", nil, fmt.Errorf("case mapping of charset %s", charset)
	}
	var b []byte
	var runes []rune
	for r := rune(1); r <= max; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		runes = append(runes, r)
		b = utf8.AppendRune(b, r)
	}
	lit := fmt.Sprintf("_%s X'%X' COLLATE %s", charset, b, collation)
	return fmt.Sprintf("SELECT LOWER(%s), UPPER(%s)", lit, lit), runes, nil
}

// ParseCaseMap builds a CaseMap from the answer to CaseMapQuery.
func ParseCaseMap(runes []rune, lower, upper []byte) (*CaseMap, error) {
	m := &CaseMap{Lower: map[rune]rune{}, Upper: map[rune]rune{}}
	for _, side := range []struct {
		text []byte
		to   map[rune]rune
	}{{lower, m.Lower}, {upper, m.Upper}} {
		got := []rune(string(side.text))
		if len(got) != len(runes) {
			return nil, fmt.Errorf("case mapping is not one code point to one (%d code points, %d mapped)", len(runes), len(got))
		}
		for i, r := range runes {
			if got[i] != r {
				side.to[r] = got[i]
			}
		}
	}
	return m, nil
}

// hostCase is a LOWER/UPPER call evaluated by this package: its argument
// is evaluated by vitess, the mapping applied here, and the result stored
// in a synthetic column the rest of the expression reads.
type hostCase struct {
	arg   evalengine.Expr
	upper bool
	coll  collations.ID
	m     *CaseMap                    // utf8 collations
	csa   colldata.CaseAwareCollation // 8-bit collations vitess maps
}

// vitessMaps uses vitess' case mapping where it has one: 8-bit
// collations.
func (h *hostCase) vitessMaps(e *Env) bool {
	cs, ok := colldata.Lookup(h.coll).(colldata.CaseAwareCollation)
	if !ok || !e.vt.CollationEnv().IsSupported(h.coll) || cs.Charset().MaxWidth() != 1 {
		return false
	}
	h.csa = cs
	return true
}

func (h *hostCase) eval(env *evalengine.ExpressionEnv) (sqltypes.Value, error) {
	r, err := env.Evaluate(h.arg)
	if err != nil {
		return sqltypes.NULL, err
	}
	return h.apply(r.Value(h.coll))
}

func (h *hostCase) apply(v sqltypes.Value) (sqltypes.Value, error) {
	if v.IsNull() {
		return sqltypes.NULL, nil
	}
	raw := v.Raw()
	if h.csa != nil {
		if h.upper {
			return sqltypes.MakeTrusted(sqltypes.VarChar, h.csa.ToUpper(nil, raw)), nil
		}
		return sqltypes.MakeTrusted(sqltypes.VarChar, h.csa.ToLower(nil, raw)), nil
	}
	to := h.m.Lower
	if h.upper {
		to = h.m.Upper
	}
	out := make([]byte, 0, len(raw))
	for len(raw) > 0 {
		r, n := utf8.DecodeRune(raw)
		if r == utf8.RuneError && n <= 1 {
			out = append(out, raw[0]) // not UTF-8: MySQL leaves it
			raw = raw[1:]
			continue
		}
		if t, ok := to[r]; ok {
			r = t
		}
		out = utf8.AppendRune(out, r)
		raw = raw[n:]
	}
	return sqltypes.MakeTrusted(sqltypes.VarChar, out), nil
}

// isCaseFunc reports whether f is LOWER/LCASE (false) or UPPER/UCASE
// (true) with one argument.
func isCaseFunc(n sqlparser.SQLNode) (arg sqlparser.Expr, upper, ok bool) {
	f, isFn := n.(*sqlparser.FuncExpr)
	if !isFn || len(f.Exprs) != 1 || !f.Qualifier.IsEmpty() {
		return nil, false, false
	}
	switch strings.ToLower(f.Name.String()) {
	case "lower", "lcase":
		return f.Exprs[0], false, true
	case "upper", "ucase":
		return f.Exprs[0], true, true
	}
	return nil, false, false
}
