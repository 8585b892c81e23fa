package pinned

import "sync"

// Structures derived from a pin version alone.
//
// Compiling a statement for the vectorized path (package pinexec) needs
// tables indexed by a column's codes: each code's value, a dictionary's
// order under its collation, a group key's dense group numbers. They
// depend on the table version, not on the statement, so they are built
// once per version, on first use, and shared by every program over it:
// compiling a statement with a new literal allocates what the statement
// needs, not what the dictionary or the integer range holds (issue 15:
// 25,000 statements with distinct literals had built 976 MB of
// per-statement lookup tables).
//
// Tables over expressions (a group key FLOOR(Distance/250)*250, an
// aggregate argument IF(ArrDelayMinutes>15,1,0)) are shared by expression
// text up to sharedExprBudget bytes per version; past it they are built
// per program, as before, so memory stays bounded whatever the traffic.
// The table keeps the entries but does not know what they are: their
// keys and types are the query engine's.

// sharedExprBudget bounds the bytes of expression tables one table version
// keeps for sharing.
const sharedExprBudget = 32 << 20

type derived struct {
	mu        sync.Mutex
	entries   map[string]*derivedEntry
	exprBytes int64
}

type derivedEntry struct {
	once sync.Once
	v    any
}

// Shared returns the value built for key, building it with build once per
// table version; concurrent callers wait for the one build. The value must
// be read-only: every reader of the version shares it.
func (t *Table) Shared(key string, build func() any) any {
	t.derived.mu.Lock()
	if t.derived.entries == nil {
		t.derived.entries = map[string]*derivedEntry{}
	}
	e := t.derived.entries[key]
	if e == nil {
		e = &derivedEntry{}
		t.derived.entries[key] = e
	}
	t.derived.mu.Unlock()
	e.once.Do(func() { e.v = build() })
	return e.v
}

// SharedExpr is Shared for a table over an expression, estimated at size
// bytes: shared while the version's expression tables fit the budget,
// built privately (and not kept) past it.
func (t *Table) SharedExpr(key string, size int64, build func() any) any {
	t.derived.mu.Lock()
	_, ok := t.derived.entries[key]
	if !ok {
		if t.derived.exprBytes+size > sharedExprBudget {
			t.derived.mu.Unlock()
			return build()
		}
		t.derived.exprBytes += size
	}
	t.derived.mu.Unlock()
	return t.Shared(key, build)
}

// SharedBytes is the estimated size of the expression tables the version
// keeps for sharing (for tests; not yet shown by SHOW CACHED TABLES).
func (t *Table) SharedBytes() int64 {
	t.derived.mu.Lock()
	defer t.derived.mu.Unlock()
	return t.derived.exprBytes
}
