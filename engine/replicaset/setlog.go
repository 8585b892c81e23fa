package replicaset

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"

	"github.com/shoaldb/shoal/sqlerr"
	"github.com/shoaldb/shoal/sqlparse"
)

// setLog is a session's SET statements, replayed in order on a new replica
// connection (after a KILL, a broken connection, or for each statement of
// the binary protocol, which runs on a connection of its own): the replay
// must leave the session exactly as the client's statements left it.
//
// It is bounded by compaction, never by forgetting: a SET whose values are
// all literals (absolute) replaces the earlier absolute SETs that assign
// only variables it assigns again, unless a SET whose values read the
// session (relative: @@x, @y, functions) ran between them and might have
// read the old value. Order is otherwise kept: SET x = 1, SET x = DEFAULT,
// SET x = 1 replays as x = 1. Relative SETs are kept one by one; a session
// that holds maxSetLog entries that cannot compact is refused a further
// SET with 1041 before it runs, rather than left to replay the wrong
// state.
type setLog struct {
	entries []setEntry
}

// setEntry is one remembered SET.
type setEntry struct {
	stmt string
	// vars are the variables it assigns: "@@name" for a system variable,
	// "@name" for a user variable (lower case); for a statement the parser
	// cannot read, its normalized text alone.
	vars     []string
	absolute bool
}

// maxSetLog bounds a session's remembered SETs after compaction.
const maxSetLog = 256

// add remembers stmt after the others, compacting.
func (l *setLog) add(stmt string) {
	e := describeSet(stmt)
	if e.absolute {
		for i := len(l.entries) - 1; i >= 0; i-- {
			old := l.entries[i]
			if !old.absolute {
				break // it may have read what old set
			}
			if subset(old.vars, e.vars) {
				l.entries = append(l.entries[:i], l.entries[i+1:]...)
			}
		}
	}
	l.entries = append(l.entries, e)
}

// admits reports whether stmt can be remembered within maxSetLog.
func (l *setLog) admits(stmt string) error {
	if len(l.entries) < maxSetLog {
		return nil
	}
	c := setLog{entries: append([]setEntry(nil), l.entries...)}
	c.add(stmt)
	if len(c.entries) <= maxSetLog {
		return nil
	}
	return sqlerr.New(sqlerr.ErrOutOfResources, "HY000",
		"Shoal: the session holds %d SET statements that read session state (such as SET @n = @n + 1); a replica connection could not be given the session's state again. Reconnect or COM_RESET_CONNECTION", maxSetLog)
}

// statements are the SETs in replay order.
func (l *setLog) statements() []string {
	out := make([]string, len(l.entries))
	for i, e := range l.entries {
		out[i] = e.stmt
	}
	return out
}

// describeSet reads the variables stmt assigns and whether every value
// is a literal.
func describeSet(stmt string) setEntry {
	e := setEntry{stmt: stmt}
	n, err := sqlparse.ParseOne(stmt)
	set, ok := n.(*ast.SetStmt)
	if err != nil || !ok || len(set.Variables) == 0 {
		// SET NAMES cp1251, SET STATEMENT ... FOR: the same text again
		// replaces it, nothing else does.
		e.vars = []string{strings.ToUpper(strings.Join(strings.Fields(stmt), " "))}
		e.absolute = true
		return e
	}
	e.absolute = true
	for _, v := range set.Variables {
		key := "@" + strings.ToLower(v.Name)
		if v.IsSystem {
			key = "@@" + strings.ToLower(v.Name)
		}
		e.vars = append(e.vars, key)
		e.absolute = e.absolute && literal(v.Value)
	}
	return e
}

// literal reports whether x's value does not depend on the session: a
// literal (signed), DEFAULT, a keyword (ON, ANSI) or none.
func literal(x ast.ExprNode) bool {
	switch v := x.(type) {
	case nil, ast.ValueExpr, *ast.DefaultExpr, *ast.ColumnNameExpr:
		return true
	case *ast.UnaryOperationExpr:
		return (v.Op == opcode.Minus || v.Op == opcode.Plus) && literal(v.V)
	case *ast.ParenthesesExpr:
		return literal(v.Expr)
	}
	return false
}

// subset reports whether every element of a is in b.
func subset(a, b []string) bool {
	for _, x := range a {
		found := false
		for _, y := range b {
			found = found || x == y
		}
		if !found {
			return false
		}
	}
	return true
}
