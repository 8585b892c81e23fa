package engine

import (
	"context"

	"vitess.io/vitess/go/sqltypes"

	"github.com/shoaldb/shoal/engine/constant"
	"github.com/shoaldb/shoal/observe"
)

// Constant statements (SELECT 1, as connection pools send them): package
// engine/constant recognizes them and copies the replica's answer; the
// first of each text passes through and its answer is kept on its plan
// cache entry, later ones are answered from there while the session's
// replica connection holds no warnings.

// passConstant passes a constant statement (constant.Select) through and,
// when it succeeded without warnings, keeps its result under key for
// answerConstant.
func (s *Engine) passConstant(ctx context.Context, ss *Session, key, query string, callback func(*sqltypes.Result) error) error {
	var c constant.Capture
	gen := s.prep.generation()
	if err := s.Passthrough(ctx, ss, query, c.Wrap(callback)); err != nil {
		return err
	}
	kept, ok := c.Answer()
	if ss.Warnings != 0 || !ok {
		return nil
	}
	if e, ok := s.plans.get(key, gen); ok && e.pr == nil && !e.derived && e.constant == nil {
		s.plans.put(key, gen.stamp(&cacheEntry{pass: e.pass, constant: kept, isConst: true}, e.deps, e.tracked))
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
