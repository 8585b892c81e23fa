package engine

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/shoaldb/shoal/engine/catalog"
	"github.com/shoaldb/shoal/engine/coldefs"
	"github.com/shoaldb/shoal/engine/constant"
	"github.com/shoaldb/shoal/engine/route"
	"github.com/shoaldb/shoal/engine/rowformat"
	"github.com/shoaldb/shoal/engine/schedule"
	"github.com/shoaldb/shoal/evalexpr"
	"github.com/shoaldb/shoal/planner"
	"github.com/shoaldb/shoal/sqlerr"
	"github.com/shoaldb/shoal/sqlparse"
	"vitess.io/vitess/go/sqltypes"
)

// runPrepared runs pr, the plan of query. In the binary protocol a
// DOUBLE with fixed decimals (STDDEV, VARIANCE) goes out with all its
// bits, and MariaDB's bits come from its own recurrence over the rows in
// scan order, which a merge of partial sums does not repeat: such a
// statement runs on a replica when one holds its tables.
func (s *Engine) runPrepared(ctx context.Context, ss *Session, query string, pr *prepared, callback func(*sqltypes.Result) error) error {
	if pr.pin == nil && !s.res.cacheable(pr) && s.sched.Busy(s.cfg.RouteBusyStatements) {
		// Routed by load (schedule.Scheduler.Busy); a statement the
		// result cache keeps is answered or coalesced there instead.
		s.metrics.RoutedBusy.Inc()
		return s.PassthroughToClient(ctx, ss, query, callback)
	}
	if pr.warns.Load() {
		// It warned before (schedule.Warned): the replica answers, with its
		// warnings, without a distributed attempt first.
		s.metrics.WarnedPassthrough.Inc()
		return s.PassthroughToClient(ctx, ss, query, callback)
	}
	binary := rowformat.BinaryRows(ctx) && rowformat.FixedFloats(pr.fields)
	if binary && (pr.pin == nil || pr.pin.Whole) {
		return s.passBinary(ctx, ss, query, pr.fields, callback)
	}
	orig := callback
	callback = rowformat.ToClientOf(ctx, callback)
	var err error
	sent := false
	if s.res.cacheable(pr) && !binary { // the cache keeps rows as the text protocol writes them
		// It sends nothing before it fails.
		err = s.res.runCached(schedule.WithStopOnWarnings(ctx, func() bool { return true }), pr, callback)
	} else {
		qid := strconv.FormatUint(s.queryID.Next(), 10)
		w := newResultWriter(pr, callback)
		w.Binary = binary
		var st *schedule.Stats
		st, err = s.merge.execute(schedule.WithStopOnWarnings(ctx, func() bool { return !w.Started() }), pr, qid, w)
		s.shipped(st)
		sent = w.Sent
	}
	// An expression that failed on the merged values (an overflow):
	// MariaDB's own error names its own rendering of the expression, and
	// the server may compute it without failing. With nothing sent yet,
	// the replica answers instead (evalexpr.RuntimeError).
	// A fragment that read a zero date, which no Arrow value holds
	// (sqlerr.ErrZeroDate): the replica answers with the date as it is.
	// A fragment that raised warnings (schedule.Warned), or a division by
	// zero in the final stage (evalexpr.DividesByZero): the replica answers, with
	// its warnings.
	var re *evalexpr.RuntimeError
	if _, ok := errors.AsType[*schedule.Warned](err); err != nil && !sent && ctx.Err() == nil && (ok || errors.Is(err, evalexpr.ErrDividesByZero)) {
		if pr.pin == nil {
			pr.warns.Store(true)
		}
		s.metrics.WarnedPassthrough.Inc()
		s.log.Debug("a fragment raised warnings; passing the statement through", "err", err)
		return s.PassthroughToClient(ctx, ss, query, orig)
	}
	if err != nil && !sent && ctx.Err() == nil && (errors.As(err, &re) || sqlerr.IsZeroDate(err)) {
		s.log.Debug("final stage failed; passing the statement through", "err", err)
		return s.PassthroughToClient(ctx, ss, query, orig)
	}
	return err
}

// plan returns the prepared plan of a SELECT, or nil and the reason when it
// passes through. Plans are cached per database and statement text, for
// one generation of the catalog and of the pinned tables.
func (s *preparer) plan(ctx context.Context, db, query string, sel *ast.SelectStmt) (*prepared, string, error) {
	snap := s.snap()
	gen := s.generation()
	key := db + "\x00" + query
	if e, ok := s.plans.get(key, gen); ok {
		s.metrics.PlanHits.Inc()
		return e.pr, e.pass, nil
	}
	s.metrics.PlanMisses.Inc()
	var (
		pr   *prepared
		pass string
		err  error
	)
	if pass = sqlparse.TooDeep(sel); pass != "" { // depth.go
		return nil, pass, nil
	}
	// A table created since the catalog was read: read it again now
	// (engine/catalog/freshness.go) rather than pass through until the timed refresh.
	// While a table is still missing the decision is not cached, so the
	// next statement naming it looks again.
	cache := true
	if s.refresh != nil {
		isPinned := func(db, name string) bool { return s.pins.Get(db, name) != nil }
		if len(catalog.MissingTables(snap, db, sel, isPinned)) > 0 {
			if s.refresh(ctx, snap) {
				snap, gen = s.snap(), s.generation()
			}
			cache = len(catalog.MissingTables(snap, db, sel, isPinned)) == 0
		}
	}
	if s.pins.Len() > 0 {
		pr, pass, err = s.planPinned(ctx, snap, db, query, sel)
	} else {
		pr, pass, err = s.planOn(ctx, snap.Tables, db, query, sel)
	}
	if err != nil {
		return nil, "", err
	}
	if cache {
		if pr != nil {
			pr.cacheKey = key
		}
		deps := snap.Deps(planner.TableRefs(sel, db))
		s.plans.put(key, gen.stamp(&cacheEntry{pr: pr, pass: pass, isConst: pr == nil && constant.Select(sel)}, deps, true))
	}
	return pr, pass, nil
}

// generation is the generation plans are cached for: it changes with the
// catalog snapshot and with every change of what is pinned (CACHE,
// UNCACHE, a REFRESH or reload that changes a pin's columns:
// pinned.Registry.Layout), not with a pin's new version (the plan cache
// checks a plan's pin versions itself, planCache.current).
func (s *preparer) generation() gen { return gen{snap: s.snap(), layout: s.pins.Layout()} }

// planOn plans and prepares sel over cat without caching; a small
// statement is routed to one replica (package engine/route).
func (s *preparer) planOn(ctx context.Context, cat planner.Catalog, db, query string, sel *ast.SelectStmt) (*prepared, string, error) {
	return s.planOnWith(ctx, cat, db, query, sel, true)
}

// planOnWith is planOn, routing by cost only if byCost is true.
func (s *preparer) planOnWith(ctx context.Context, cat planner.Catalog, db, query string, sel *ast.SelectStmt, byCost bool) (*prepared, string, error) {
	p, err := planner.PlanSelect(cat, db, sel)
	if err != nil {
		var nd *planner.NotDistributed
		if errors.As(err, &nd) {
			return nil, nd.Reason, nil
		}
		return nil, "", err
	}
	key := s.shapeOf(route.ShapeKey(db, query), db, sel) // shape.go
	if byCost {
		pass, note, listed := route.ByCost(ctx, s.cfg, s.snap(), db, query, p, s.explainShaped(key))
		if pass != "" {
			switch {
			case listed:
				s.updateShape(key, func(n *shapeInfo) { n.pass = pass })
			case s.cfg.RouteSmallRows > 0 && route.WindowShape(query, p, s.splitUnique(p)):
				max := uint64(s.cfg.RouteSmallRows - 1) // hi-lo+1 keys at most
				s.updateShape(key, func(n *shapeInfo) { n.window, n.windowMax = true, max })
			}
			return nil, pass, nil
		}
		if note != "" {
			p.Notes = append(p.Notes, note)
		}
	}
	pr, err := s.prepareShaped(ctx, db, p, key, coldefs.For(cat, p, query))
	if err != nil {
		if _, ok := sqlerr.As(err); ok {
			return nil, "", err // the replica's own error for the statement
		}
		// The final stage could not be compiled (an expression the
		// evaluator does not know, for instance): pass through.
		reason := "final stage: " + err.Error()
		s.log.Info("statement passes through", "reason", reason)
		return nil, reason, nil
	}
	return pr, "", nil
}

// planPinned plans a statement while tables are pinned. A statement whose
// one table is pinned, or whose tables are all pinned (a join, run as a
// hash join in memory), runs in memory; one the engine cannot run (a join
// with a replica table among others) falls back
// to the replicas: planned over their tables when every pinned table it
// reads is a whole-table pin (the replicas hold the same table), passed
// through over the pins' definitions when it reads a pinned query result,
// which only the coordinator holds (Engine.Passthrough).
func (s *preparer) planPinned(ctx context.Context, snap *catalog.Snapshot, db, query string, sel *ast.SelectStmt) (*prepared, string, error) {
	var resultPin string // a pinned query result the statement reads
	pinnedRef := false
	for _, ref := range planner.TableRefs(sel, db) {
		i := strings.IndexByte(ref, '.')
		if t := s.pins.Get(ref[:i], ref[i+1:]); t != nil {
			pinnedRef = true
			if !t.Whole && resultPin == "" {
				resultPin = ref
			}
		}
	}
	if !pinnedRef {
		return s.planOn(ctx, snap.Tables, db, query, sel)
	}
	why := ""
	p, err := planner.PlanSelect(pinCatalog{base: snap.Tables, pins: s.pins}, db, sel)
	var nd *planner.NotDistributed
	switch {
	case errors.As(err, &nd):
		why = nd.Reason
	case err != nil:
		return nil, "", err
	default:
		t := s.pins.Get(p.DB, p.Table)
		if t == nil {
			why = "the pinned table is not the statement's main table"
			break
		}
		pr, err := s.preparePinned(ctx, db, query, sel, p, t, resultPin == "")
		if err == nil {
			// An expression the server may compute otherwise
			// (evalexpr/inexact.go) goes to the replicas: they hold the
			// rows of a whole-table pin, and run a statement over a pinned
			// query result over its definition (Engine.Passthrough).
			if why := pr.inexact; why != "" {
				err = errors.New(why)
			} else if why := pr.prog.Inexact(); why != "" {
				err = errors.New(why)
			}
		}
		if err == nil {
			return pr, "", nil
		}
		if _, ok := sqlerr.As(err); ok {
			return nil, "", err
		}
		why = err.Error()
	}
	if resultPin != "" { // Passthrough reads it over its definition
		return nil, fmt.Sprintf("%s is a pinned query result the in-memory engine cannot answer this over (%s): a replica runs it over the pin's definition, on its current rows", resultPin, why), nil
	}
	// Whole-table pins only: the replicas have the tables (EXPLAIN: why).
	stmt, err := sqlparse.ParseOne(query)
	if err != nil {
		return nil, "", err
	}
	fresh, ok := stmt.(*ast.SelectStmt)
	if !ok {
		return nil, "", fmt.Errorf("re-parsed statement is %T", stmt)
	}
	pr, pass, err := s.planOn(ctx, snap.Tables, db, query, fresh)
	if pr != nil && why != "" {
		pr.plan.Notes = append(pr.plan.Notes, "pinned table not used, the replicas run it: "+why)
	}
	return pr, pass, err
}
