package engine

import (
	"context"
	"errors"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/shoaldb/shoal/engine/constant"
	"github.com/shoaldb/shoal/engine/route"
	"github.com/shoaldb/shoal/engine/rowformat"
	"github.com/shoaldb/shoal/observe"
	"github.com/shoaldb/shoal/sqlparse"
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
			return true, s.PassthroughToClient(ctx, ss, query, callback)
		}
		return false, nil
	}
	s.metrics.PlanHits.Inc()
	if e.pr == nil {
		if ok, err := answerConstant(ss, e, callback); ok { // constant.go
			return true, err
		}
		if e.isConst && e.constant == nil && !ss.HoldsWarnings() {
			return true, s.passConstant(ctx, ss, ss.DB+"\x00"+query, query, callback)
		}
		if e.derived {
			if handled, err := s.eph.tryDerived(ctx, ss, query, rowformat.ToClientOf(ctx, callback)); handled {
				return true, err
			}
		}
		return true, s.PassthroughToClient(ctx, ss, query, callback)
	}
	var lf liveFloor
	behind, err := s.awaitLivePins(ctx, e.pr, &lf)
	if err != nil {
		return true, err
	}
	if behind {
		// Its live pins have newer versions now: plan again over them.
		sel, perr := parseSelect(query)
		if perr != nil {
			return false, nil // the caller parses it and reports
		}
		return true, s.runSelect(ctx, ss, query, sel, &lf, callback)
	}
	ss.Kind = e.pr.kind()
	return true, s.runPrepared(ctx, ss, query, e.pr, callback)
}

// parseSelect parses a statement text the plan cache holds a plan of.
func parseSelect(query string) (*ast.SelectStmt, error) {
	stmt, err := sqlparse.ParseOne(query)
	if err != nil {
		return nil, err
	}
	sel, ok := stmt.(*ast.SelectStmt)
	if !ok {
		return nil, errors.New("not a SELECT")
	}
	return sel, nil
}

// RunSelect plans sel (the parsed query) and runs it distributed, in
// memory over pins, as a derived table over a distributed aggregate, or
// on one replica unchanged.
func (s *Engine) RunSelect(ctx context.Context, ss *Session, query string, sel *ast.SelectStmt, callback func(*sqltypes.Result) error) error {
	return s.runSelect(ctx, ss, query, sel, &liveFloor{}, callback)
}

// runSelect is RunSelect under lf, the statement's floor over live pins
// (livefloor.go): a plan over live pin versions older than the floor
// waits for newer ones and is made again.
func (s *Engine) runSelect(ctx context.Context, ss *Session, query string, sel *ast.SelectStmt, lf *liveFloor, callback func(*sqltypes.Result) error) error {
	var (
		pr   *prepared
		pass string
		err  error
	)
	for round := 0; ; round++ {
		if round == maxFloorReplans {
			return errFloorReplans(lf)
		}
		if pr, pass, err = s.prep.plan(ctx, ss.DB, query, sel); err != nil {
			return err
		}
		behind, err := s.awaitLivePins(ctx, pr, lf)
		if err != nil {
			return err
		}
		if !behind {
			break
		}
	}
	if pr == nil {
		if constant.Select(sel) && !ss.HoldsWarnings() { // constant.go
			return s.passConstant(ctx, ss, ss.DB+"\x00"+query, query, callback)
		}
		if strings.HasPrefix(pass, route.Prefix) {
			// Planned, so not over a derived table: no second parse.
			return s.PassthroughToClient(ctx, ss, query, callback)
		}
		if handled, err := s.eph.tryDerived(ctx, ss, query, rowformat.ToClientOf(ctx, callback)); handled {
			return err
		}
		return s.PassthroughToClient(ctx, ss, query, callback)
	}
	ss.Kind = pr.kind()
	return s.runPrepared(ctx, ss, query, pr, callback)
}

// RunUnion runs a UNION ALL whose branches distribute, the outer statement
// in memory; handled is false when it is not such a statement.
func (s *Engine) RunUnion(ctx context.Context, ss *Session, u *ast.SetOprStmt, callback func(*sqltypes.Result) error) (bool, error) {
	return s.eph.RunUnion(ctx, ss, u, rowformat.ToClientOf(ctx, callback))
}

// SelectProcesslist answers a SELECT over information_schema.PROCESSLIST
// from list() (the sessions the asking account may see; called only for
// such a statement), in memory; handled
// is false when sel does not read that table.
func (s *Engine) SelectProcesslist(ctx context.Context, ss *Session, connID uint32, sel *ast.SelectStmt, list func() []observe.ProcRow, callback func(*sqltypes.Result) error) (bool, error) {
	return s.eph.SelectProcesslist(ctx, ss, connID, sel, list, rowformat.ToClientOf(ctx, callback))
}
