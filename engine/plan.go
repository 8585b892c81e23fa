package engine

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/shoaldb/shoal/engine/catalog"
	"github.com/shoaldb/shoal/engine/coldefs"
	"github.com/shoaldb/shoal/engine/rowformat"
	"github.com/shoaldb/shoal/engine/schedule"
	"github.com/shoaldb/shoal/planner"
	"github.com/shoaldb/shoal/sqlerr"
	"github.com/shoaldb/shoal/sqlparse"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

func (s *Engine) runPrepared(ctx context.Context, pr *prepared, callback func(*sqltypes.Result) error) error {
	binary := binaryRows(ctx) && rowformat.FixedFloats(pr.fields)
	if s.cacheable(pr) && !binary { // the cache keeps rows as the text protocol writes them
		return s.runCached(ctx, pr, callback)
	}
	qid := strconv.FormatUint(s.queryID.Next(), 10)
	st, err := s.merge.execute(ctx, pr, qid, &resultWriter{pr: pr, callback: callback, binary: binary})
	s.shipped(st)
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
	// (freshness.go) rather than pass through until the timed refresh.
	// While a table is still missing the decision is not cached, so the
	// next statement naming it looks again.
	cache := true
	if s.refresh != nil {
		isPinned := func(db, name string) bool { return s.pins.Get(db, name) != nil }
		if len(missingTables(snap, db, sel, isPinned)) > 0 {
			if s.refresh(ctx, snap) {
				snap, gen = s.snap(), s.generation()
			}
			cache = len(missingTables(snap, db, sel, isPinned)) == 0
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
		s.plans.put(key, &cacheEntry{gen: gen, pr: pr, pass: pass})
	}
	return pr, pass, nil
}

// generation is the generation plans are cached for: it changes with the
// catalog snapshot and with every CACHE, UNCACHE and REFRESH.
func (s *preparer) generation() uint64 { return s.snap().Gen<<32 | s.pins.Gen()&0xffffffff }

// planOn plans and prepares sel over cat without caching; a small
// statement is routed to one replica (route.go).
func (s *preparer) planOn(ctx context.Context, cat planner.Catalog, db, query string, sel *ast.SelectStmt) (*prepared, string, error) {
	return s.planOnWith(ctx, cat, db, query, sel, true)
}

// planOnWith is planOn, routing by cost only if route is true.
func (s *preparer) planOnWith(ctx context.Context, cat planner.Catalog, db, query string, sel *ast.SelectStmt, route bool) (*prepared, string, error) {
	p, err := planner.PlanSelect(cat, db, sel)
	if err != nil {
		var nd *planner.NotDistributed
		if errors.As(err, &nd) {
			return nil, nd.Reason, nil
		}
		return nil, "", err
	}
	key := shapeKey(db, query) // shape.go
	if route {
		pass, note, listed := s.routeByCost(ctx, s.snap(), db, query, p, s.explainShaped(key))
		if pass != "" {
			switch {
			case listed:
				s.updateShape(key, func(n *shapeInfo) { n.pass = pass })
			case s.cfg.RouteSmallRows > 0 && windowShape(query, p, s.splitUnique(p)):
				max := uint64(s.cfg.RouteSmallRows - 1) // hi-lo+1 keys at most
				s.updateShape(key, func(n *shapeInfo) { n.window, n.windowMax = true, max })
			}
			return nil, pass, nil
		}
		if note != "" {
			p.Notes = append(p.Notes, note)
		}
	}
	pr, err := s.prepareShaped(ctx, db, p, key, coldefs.Query{Text: query, Meta: p.MetaSQL, Empty: coldefs.EmptyPredicate(cat, p)})
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
// to the replicas when every pinned table it reads is a whole-table pin
// (the replicas hold the same table), and fails with a clear error when it
// reads a pinned query result, which only the coordinator holds.
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
		text := query
		if resultPin != "" {
			text = "" // no replica holds it
		}
		pr, err := s.preparePinned(ctx, db, text, p, t)
		if err == nil && resultPin == "" {
			// Whole-table pins only: an expression the server may compute
			// otherwise (evalexpr/inexact.go) goes to the replicas, which
			// hold the same rows. A pinned query result has no server to
			// ask and is evaluated in memory.
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
	if resultPin != "" {
		return nil, "", errPinnedOnly(resultPin, why)
	}
	// Whole-table pins only: the replicas have the tables.
	s.log.Debug("statement over a pinned table runs on replicas", "reason", why)
	stmt, err := sqlparse.ParseOne(query)
	if err != nil {
		return nil, "", err
	}
	fresh, ok := stmt.(*ast.SelectStmt)
	if !ok {
		return nil, "", fmt.Errorf("re-parsed statement is %T", stmt)
	}
	return s.planOn(ctx, snap.Tables, db, query, fresh)
}

// Explain answers EXPLAIN [ANALYZE] with the plan that runs, one line per
// row: the distributed plan; for a derived table, CTE or UNION ALL that
// runs distributed, the inner plans and the outer statement in memory;
// or the reason the statement passes through. EXPLAIN of a UNION that
// does not run distributed passes through (the replica's own EXPLAIN).
func (s *Engine) Explain(ctx context.Context, ss *Session, query string, ex *ast.ExplainStmt, callback func(*sqltypes.Result) error) error {
	if u, ok := ex.Stmt.(*ast.SetOprStmt); ok {
		lines, err := s.explainUnion(ctx, ss, u, ex.Analyze)
		if err != nil {
			return err
		}
		if lines == nil {
			return s.Passthrough(ctx, ss, query, callback)
		}
		return explainResult(lines, callback)
	}
	sel := ex.Stmt.(*ast.SelectStmt)
	text, err := sqlparse.Restore(sel)
	if err != nil {
		return err
	}
	pr, reason, err := s.prep.plan(ctx, ss.DB, text, sel)
	if err != nil {
		return err
	}
	var lines []string
	if pr == nil {
		if !strings.HasPrefix(reason, routedPrefix) {
			if lines, err = s.explainDerived(ctx, ss, text, ex.Analyze); err != nil {
				return err
			}
		}
		if lines == nil {
			lines = append(lines, "passthrough to one replica: "+reason)
		}
	} else {
		lines = append(lines, s.describe(pr)...)
		if ex.Analyze {
			qid := strconv.FormatUint(s.queryID.Next(), 10)
			start := time.Now()
			discard := &resultWriter{pr: pr, callback: func(*sqltypes.Result) error { return nil }}
			st, err := s.merge.execute(ctx, pr, qid, discard)
			if err != nil {
				return err
			}
			lines = append(lines, fmt.Sprintf("analyze: %d rows returned in %s; %d rows, %d bytes shipped from workers",
				discard.rows, time.Since(start).Round(time.Microsecond), st.Rows, st.Bytes))
			for i, f := range st.Fragments {
				worker := f.Worker
				if f.Preferred != "" && f.Preferred != f.Worker {
					// Stolen, or its preferred worker was down.
					worker += " (preferred " + f.Preferred + ")"
				}
				lines = append(lines, fmt.Sprintf("fragment %d %s: worker %s, %d rows, %d bytes, %s, tries %d",
					i, f.Range, worker, f.Rows, f.Bytes, f.Elapsed.Round(time.Microsecond), f.Tries))
			}
		}
	}
	return explainResult(lines, callback)
}

func explainResult(lines []string, callback func(*sqltypes.Result) error) error {
	res := &sqltypes.Result{Fields: []*querypb.Field{{Name: "plan", Type: sqltypes.VarChar, Charset: 45, ColumnLength: 4096}}}
	for _, l := range lines {
		res.Rows = append(res.Rows, []sqltypes.Value{sqltypes.NewVarChar(l)})
	}
	return callback(res)
}

// describe is a prepared plan's EXPLAIN: the plan, and where it runs (in
// memory over a pin, or how many fragments over which workers).
func (s *Engine) describe(pr *prepared) []string {
	lines := pr.plan.Describe()
	var live []string
	slots := 0
	for _, w := range s.workers {
		if w.Healthy() {
			live = append(live, fmt.Sprintf("%s (%d slots)", w.Name(), w.Slots()))
			slots += w.Slots()
		}
	}
	if pr.prog != nil {
		path := "row at a time (evalengine)"
		if pr.prog.Fast() {
			path = "vectorized (lookup tables, dense groups)"
		}
		lines = append(lines, fmt.Sprintf("in memory: %s.%s v%d, %d rows in %d batches, %s", pr.pin.DB, pr.pin.Name, pr.pin.Version, pr.pin.Rows, len(pr.pin.Batches), path))
		if j := pr.prog.JoinDescribe(); j != "" {
			lines = append(lines, j)
		}
	} else {
		lines = append(lines, fmt.Sprintf("fragments: %d over %s", s.sched.FragmentCount(s.snap.Load(), schedule.Job{Plan: pr.plan, EstRows: pr.estRows}, slots), strings.Join(live, ", ")))
	}
	return lines
}

// indent prefixes each line with two spaces: a part of a larger plan.
func indent(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = "  " + l
	}
	return out
}

// describeOuter is the plan of an outer statement over an ephemeral
// table, planned before the table has rows: the planner's note on the
// pin's size would say 0.
func describeOuter(pr *prepared) []string {
	lines := pr.plan.Describe()
	for i, l := range lines {
		if strings.HasPrefix(l, "note: split table: pinned in memory (") {
			lines[i] = "note: split table: the rows held in memory, run on the coordinator"
		}
	}
	return lines
}

// explainDerived is the EXPLAIN of a statement over a derived table or
// CTE that runs as tryDerived runs it: the inner plan, distributed, and
// the outer statement's plan in memory over its rows. nil when the
// statement is not one (it passes through). The outer statement is
// planned over an empty table of the inner result's columns; the rows
// only exist when it runs.
func (s *Engine) explainDerived(ctx context.Context, ss *Session, text string, analyze bool) ([]string, error) {
	sel, ok := mustReparse(text)
	if !ok {
		return nil, nil
	}
	d := s.eph.planDerived(ctx, ss, sel)
	if d == nil {
		return nil, nil
	}
	t, err := buildRows(s.mem, derivedSchema, d.alias, d.inner.fields, nil)
	if err != nil {
		return nil, err
	}
	outer, _, err := s.eph.prepareOver(ctx, ss, t, d.outerSQL, d.def)
	if outer == nil {
		return nil, err
	}
	lines := []string{fmt.Sprintf("derived table %s: distributed, its rows held in memory for the statement", sqlparse.QuoteID(d.alias))}
	lines = append(lines, indent(s.describe(d.inner))...)
	lines = append(lines, fmt.Sprintf("outer statement: in memory over %s", sqlparse.QuoteID(d.alias)))
	lines = append(lines, indent(describeOuter(outer))...)
	if analyze {
		l, err := s.analyzeEphemeral(ctx, func(cb func(*sqltypes.Result) error) (bool, error) {
			return s.eph.tryDerived(ctx, ss, text, cb)
		})
		if err != nil {
			return nil, err
		}
		lines = append(lines, l)
	}
	return lines, nil
}

// explainUnion is the EXPLAIN of a UNION ALL that runs as RunUnion runs
// it: each branch's distributed plan and, with ORDER BY or LIMIT on the
// union, the outer statement in memory over their rows. nil when it does
// not run so (it passes through).
func (s *Engine) explainUnion(ctx context.Context, ss *Session, u *ast.SetOprStmt, analyze bool) ([]string, error) {
	p, err := s.eph.planUnion(ctx, ss, u)
	if p == nil {
		return nil, err
	}
	head := fmt.Sprintf("union all of %d branches: each distributed, run one after another", len(p.branches))
	var outer *prepared
	if p.outerSQL != "" {
		t, err := buildRows(s.mem, derivedSchema, "u", p.fields, nil)
		if err != nil {
			return nil, err
		}
		var handled bool
		if outer, handled, err = s.eph.prepareOver(ctx, ss, t, p.outerSQL, p.def); outer == nil {
			if !handled && err == nil {
				return nil, nil
			}
			return nil, err
		}
		head = fmt.Sprintf("union all of %d branches: each distributed, their rows held in memory for ORDER BY / LIMIT", len(p.branches))
	}
	lines := []string{head}
	for i, b := range p.branches {
		lines = append(lines, fmt.Sprintf("branch %d:", i+1))
		lines = append(lines, indent(s.describe(b))...)
	}
	if outer != nil {
		lines = append(lines, "outer statement: in memory over the branches' rows")
		lines = append(lines, indent(describeOuter(outer))...)
	}
	if analyze {
		l, err := s.analyzeEphemeral(ctx, func(cb func(*sqltypes.Result) error) (bool, error) {
			return s.eph.RunUnion(ctx, ss, u, cb)
		})
		if err != nil {
			return nil, err
		}
		lines = append(lines, l)
	}
	return lines, nil
}

// analyzeEphemeral runs a derived-table or UNION ALL statement, discarding
// its rows, and says how many it returned and in what time.
func (s *Engine) analyzeEphemeral(ctx context.Context, run func(func(*sqltypes.Result) error) (bool, error)) (string, error) {
	rows := 0
	start := time.Now()
	handled, err := run(func(r *sqltypes.Result) error {
		rows += len(r.Rows)
		return nil
	})
	if err != nil {
		return "", err
	}
	if !handled {
		return "analyze: the statement passed through when run (its inner result did not fit the in-memory engine)", nil
	}
	return fmt.Sprintf("analyze: %d rows returned in %s", rows, time.Since(start).Round(time.Microsecond)), nil
}
