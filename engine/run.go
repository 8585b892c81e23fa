package engine

import (
	"context"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/shoaldb/shoal/observe"
	"vitess.io/vitess/go/sqltypes"
)

// The engine's entry points for a statement the router has classified.

// RunCached runs query when the plan cache knows its text in the
// session's database (its plan, or that it passes through): repeated
// statements skip parsing and planning. ok is false when it does not.
func (s *Engine) RunCached(ctx context.Context, ss *Session, query string, callback func(*sqltypes.Result) error) (ok bool, err error) {
	e, ok := s.plans.get(ss.DB+"\x00"+query, s.prep.generation())
	if !ok {
		// The same shape with other literals (shape.go): a point lookup
		// by a new key passes through unparsed.
		if s.prep.shapePasses(ss.DB, query) {
			s.metrics.ShapeHits.Inc()
			return true, s.Passthrough(ctx, ss, query, callback)
		}
		return false, nil
	}
	s.metrics.PlanHits.Inc()
	if e.pr == nil {
		if e.derived {
			if handled, err := s.eph.tryDerived(ctx, ss, query, callback); handled {
				return true, err
			}
		}
		return true, s.Passthrough(ctx, ss, query, callback)
	}
	ss.Kind = e.pr.kind()
	return true, s.runPrepared(ctx, e.pr, callback)
}

// RunSelect plans sel (the parsed query) and runs it distributed, in
// memory over pins, as a derived table over a distributed aggregate, or
// on one replica unchanged.
func (s *Engine) RunSelect(ctx context.Context, ss *Session, query string, sel *ast.SelectStmt, callback func(*sqltypes.Result) error) error {
	pr, pass, err := s.prep.plan(ctx, ss.DB, query, sel)
	if err != nil {
		return err
	}
	if pr == nil {
		if strings.HasPrefix(pass, routedPrefix) {
			// Planned, so not over a derived table: no second parse.
			return s.Passthrough(ctx, ss, query, callback)
		}
		if handled, err := s.eph.tryDerived(ctx, ss, query, callback); handled {
			return err
		}
		return s.Passthrough(ctx, ss, query, callback)
	}
	ss.Kind = pr.kind()
	return s.runPrepared(ctx, pr, callback)
}

// RunUnion runs a UNION ALL whose branches distribute, the outer statement
// in memory; handled is false when it is not such a statement.
func (s *Engine) RunUnion(ctx context.Context, ss *Session, u *ast.SetOprStmt, callback func(*sqltypes.Result) error) (bool, error) {
	return s.eph.RunUnion(ctx, ss, u, callback)
}

// SelectProcesslist answers a SELECT over information_schema.PROCESSLIST
// from list() (the sessions the asking account may see; called only for
// such a statement), in memory; handled
// is false when sel does not read that table.
func (s *Engine) SelectProcesslist(ctx context.Context, ss *Session, connID uint32, sel *ast.SelectStmt, list func() []observe.ProcRow, callback func(*sqltypes.Result) error) (bool, error) {
	return s.eph.SelectProcesslist(ctx, ss, connID, sel, list, callback)
}
