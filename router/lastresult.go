package router

import (
	"context"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"vitess.io/vitess/go/sqltypes"

	"github.com/shoaldb/shoal/observe"
	"github.com/shoaldb/shoal/sqlparse"
)

// FOUND_ROWS() and ROW_COUNT() after a statement the coordinator answered.
//
// MariaDB keeps, per connection, the row count of the last statement that
// returned a result set (FOUND_ROWS(); statements without one leave it)
// and what the last statement changed (ROW_COUNT(), -1 after a result
// set). Passed through, `SELECT FOUND_ROWS()` asks the session's replica
// connection, which did not see a statement Shoal distributed or answered
// from a pin: it would report whatever that connection ran last. So the
// router remembers the result sets it answered itself and, while such a
// statement is the session's last, answers these two functions: the
// statement still passes through (its column definitions are the
// server's) and the router puts its own values in the row. Only the bare
// functions are answered: an expression over them (`FOUND_ROWS() + 1`)
// passes through as before (docs/sql.md).

// lastResult is what the session's statements left for FOUND_ROWS() and
// ROW_COUNT(), as far as the replica connection cannot know it.
type lastResult struct {
	// local: the session's last statement with a result set was answered
	// by the coordinator, and sent rows rows.
	local bool
	rows  int64
	// previous: and it was the session's last statement of any kind
	// (ROW_COUNT() is then -1).
	previous bool
	// Of the statement running now: whether it sent a result set, and
	// its rows (counted by startStatement).
	fields bool
	sent   int64
}

// begin resets the running statement's counts.
func (l *lastResult) begin() { l.fields, l.sent = false, 0 }

// end records how the statement that just ran, on path kind, left the
// session.
func (l *lastResult) end(kind string, err error) {
	switch {
	case kind == observe.KindPassthrough && l.fields:
		// The replica connection ran a result set: it knows from here on.
		*l = lastResult{}
	case kind == observe.KindPassthrough:
		// It ran a statement without one (SET, DO, an error): FOUND_ROWS()
		// is still the coordinator's, ROW_COUNT() the replica's.
		l.previous = false
	case err == nil && l.fields:
		*l = lastResult{local: true, rows: l.sent, previous: true}
	default:
		l.previous = false
	}
}

// lastResultFuncs are the functions answerLastResult answers.
var lastResultFuncs = map[string]bool{"found_rows": true, "row_count": true}

// answerLastResult answers `SELECT FOUND_ROWS()`, `SELECT ROW_COUNT()`
// (with aliases, in any order, FROM DUAL) when the session's last result
// set was the coordinator's: the statement passes through, for its
// column definitions and its own place in the replica connection's
// state, with the values replaced. ok is false for any other statement
// and when the replica connection knows the answer itself.
func (s *Router) answerLastResult(ctx context.Context, ss *Session, query string, callback func(*sqltypes.Result) error) (bool, error) {
	l := &ss.last
	if !l.local || !(sqlparse.ContainsFold(query, "FOUND_ROWS") || sqlparse.ContainsFold(query, "ROW_COUNT")) {
		return false, nil
	}
	stmt, err := sqlparse.ParseOne(query)
	if err != nil {
		return false, nil
	}
	sel, ok := stmt.(*ast.SelectStmt)
	if !ok || !sqlparse.OnlySelectList(sel) {
		return false, nil
	}
	values := make([]int64, len(sel.Fields.Fields))
	for i, f := range sel.Fields.Fields {
		fn, ok := f.Expr.(*ast.FuncCallExpr)
		if !ok || len(fn.Args) > 0 || !lastResultFuncs[fn.FnName.L] {
			return false, nil
		}
		if fn.FnName.L == "row_count" {
			if !l.previous {
				return false, nil // what a statement without a result set changed: not tracked
			}
			values[i] = -1
		} else {
			values[i] = l.rows
		}
	}
	return true, s.eng.Passthrough(ctx, &ss.Session, query, func(r *sqltypes.Result) error {
		for _, row := range r.Rows {
			for i := range row {
				if i < len(values) {
					row[i] = sqltypes.NewInt64(values[i])
				}
			}
		}
		return callback(r)
	})
}
