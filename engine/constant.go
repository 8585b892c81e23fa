package engine

import (
	"context"
	"unicode"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/shoaldb/shoal/observe"
	"vitess.io/vitess/go/sqltypes"
)

// Constant statements: SELECT 1, SELECT 1 AS ok, SELECT 1, 2.5 FROM DUAL.
//
// Connection pools and drivers send these to check a connection, often
// before every borrowed use, and a relay pays a full replica round trip
// for each (issue 14: a passthrough `select 1` at p99 2.26× direct, the
// extra loopback round trip being most of it). Their answer does not
// depend on data or on session state, but its column definitions are the
// server's (MariaDB types `1` as INT, MySQL 8 as BIGINT), so the first one
// of each text passes through and its result, as the replica sent it, is
// kept on the plan cache entry; later ones are answered from there,
// without a round trip, until the catalog generation changes.
//
// One thing a constant statement does on the server besides answering:
// it leaves the session's warnings alone (MariaDB clears them only with a
// statement that reads a table), so its warning count is the previous
// statement's. A session whose replica connection may hold warnings
// passes them through as before; one that holds none is answered here,
// with the count 0 the server would send.

// constantSelect reports whether sel selects only numeric literals, with
// plain ASCII aliases, from no table: its answer is the same for every
// session of a server.
func constantSelect(sel *ast.SelectStmt) bool {
	switch {
	case sel.Kind != ast.SelectStmtKindSelect, sel.With != nil, sel.From != nil,
		sel.Where != nil, sel.GroupBy != nil, sel.Having != nil, sel.OrderBy != nil,
		sel.Limit != nil, len(sel.WindowSpecs) > 0, sel.SelectIntoOpt != nil,
		sel.LockInfo != nil && sel.LockInfo.LockType != ast.SelectLockNone,
		sel.SelectStmtOpts != nil && sel.SelectStmtOpts.CalcFoundRows,
		sel.Fields == nil, len(sel.Fields.Fields) == 0:
		return false
	}
	for _, f := range sel.Fields.Fields {
		if f.WildCard != nil || !asciiName(f.AsName.O) {
			return false
		}
		v, ok := f.Expr.(ast.ValueExpr)
		if !ok {
			return false
		}
		switch v.GetValue().(type) {
		case int64, uint64, float64:
		default:
			// Strings (their column's charset is the connection's),
			// bit and hex literals, NULL, and decimals (kept out for
			// the collation and width rules around them).
			return false
		}
	}
	return true
}

// asciiName reports whether an alias is plain ASCII letters, digits and
// underscores: its bytes on the wire do not depend on
// character_set_results.
func asciiName(s string) bool {
	for _, r := range s {
		if r > unicode.MaxASCII || !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return false
		}
	}
	return true
}

// passConstant passes a constant statement (constantSelect) through and,
// when it succeeded without warnings, keeps its result under key for
// answerConstant.
func (s *Engine) passConstant(ctx context.Context, ss *Session, key, query string, callback func(*sqltypes.Result) error) error {
	var kept sqltypes.Result
	capture := func(r *sqltypes.Result) error {
		if r.Fields != nil {
			kept.Fields = r.Fields
		}
		for _, row := range r.Rows {
			own := make([]sqltypes.Value, len(row))
			for i, v := range row {
				// Copied: the replica connection may reuse its buffers.
				own[i] = sqltypes.MakeTrusted(v.Type(), append([]byte(nil), v.Raw()...))
			}
			kept.Rows = append(kept.Rows, own)
		}
		return callback(r)
	}
	gen := s.prep.generation()
	if err := s.Passthrough(ctx, ss, query, capture); err != nil {
		return err
	}
	if ss.Warnings != 0 || len(kept.Fields) == 0 || len(kept.Rows) != 1 {
		return nil
	}
	if e, ok := s.plans.get(key, gen); ok && e.pr == nil && !e.derived && e.constant == nil {
		s.plans.put(key, &cacheEntry{gen: gen, pass: e.pass, constant: &kept, isConst: true})
	}
	return nil
}

// answerConstant answers from e's kept result when the session's replica
// connection holds no warnings; false when it must pass through.
func answerConstant(ss *Session, e *cacheEntry, callback func(*sqltypes.Result) error) (bool, error) {
	if e.constant == nil || ss.HoldsWarnings() {
		return false, nil
	}
	ss.Kind = observe.KindLocal
	return true, callback(&sqltypes.Result{Fields: e.constant.Fields, Rows: e.constant.Rows})
}
