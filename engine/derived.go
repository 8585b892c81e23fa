package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/engine/catalog"
	"github.com/shoaldb/shoal/engine/coldefs"
	"github.com/shoaldb/shoal/engine/derivedsql"
	"github.com/shoaldb/shoal/engine/replicaset"
	"github.com/shoaldb/shoal/engine/rowformat"
	"github.com/shoaldb/shoal/engine/schedule"
	"github.com/shoaldb/shoal/evalexpr"
	"github.com/shoaldb/shoal/observe"
	"github.com/shoaldb/shoal/pinned"
	"github.com/shoaldb/shoal/pinned/pinexec"
	"github.com/shoaldb/shoal/planner"
	"github.com/shoaldb/shoal/sqlerr"
	"github.com/shoaldb/shoal/sqlparse"
)

// Derived tables, CTEs and UNION ALL over distributable statements.
//
// The inner statement (a derived table's or CTE's SELECT, or each branch of
// a UNION ALL) runs distributed; its result becomes an in-memory table for
// this statement only, and the outer statement runs over it with the
// pinned-table engine: the same planner, the same merge operators. Result
// metadata still comes from a replica, over the original SQL. Only
// aggregate inner statements are materialized (their results are small);
// a derived table of raw rows passes through, as before.

// ephemeral runs statements over tables that live for one statement: a
// derived table's or a CTE's distributed aggregate, the branches of a
// UNION ALL, the sessions of information_schema.PROCESSLIST. Each is
// materialized as a pinned.Table and the outer statement runs over it
// with the in-memory engine. Its dependencies on the engine are the
// functions and parts below, nothing else.
type ephemeral struct {
	log     *slog.Logger
	env     *evalexpr.Env
	mem     memory.Allocator
	rep     *replicaset.Set
	prep    *preparer
	merge   *merger
	plans   *planCache
	ids     *observe.QueryIDs
	snap    func() *catalog.Snapshot
	shipped func(*schedule.Stats)
	// plColumns caches information_schema.PROCESSLIST's columns as the
	// replicas describe them (processlist_schema.go).
	plColumns atomic.Pointer[[]*querypb.Field]
}

// derivedSchema names the ephemeral tables in the outer statement. It has
// no double underscore (the planner reserves __shoal_ names).
const derivedSchema = "shoal_derived"

// tryDerived parses query afresh (planning may have changed the AST it
// was given) and runs it with runDerived; a statement that ran that way is
// marked in the plan cache so repeats skip planning it for distribution.
func (s *ephemeral) tryDerived(ctx context.Context, ss *Session, query string, callback func(*sqltypes.Result) error) (bool, error) {
	sel, ok := derivedsql.Reparse(query)
	if !ok {
		return false, nil
	}
	gen := s.prep.generation()
	handled, err := s.runDerived(ctx, ss, sel, callback)
	if handled {
		deps := gen.snap.Deps(planner.TableRefs(sel, ss.DB))
		s.plans.put(ss.DB+"\x00"+query, gen.stamp(&cacheEntry{pass: "derived table over a distributed aggregate", derived: true}, deps, true))
	}
	return handled, err
}

// derivedPlan is a statement over derived tables or CTEs whose inner
// aggregates distribute: one, or several joined (derivedjoin.go). Each
// side's plan, and the outer statement to run over their results as
// derivedSchema.<alias>.
type derivedPlan struct {
	sides    []derivedSide
	outerSQL string
}

// derivedSide is one derived table or CTE reference of the outer
// statement: its distributed plan, its text, and its alias there.
type derivedSide struct {
	inner    *prepared
	innerSQL string
	alias    string
	// nullable: on the null-supplying side of an outer join (it must not
	// be the table the in-memory engine splits).
	nullable bool
}

// def is the definition of the ephemeral tables, for the outer
// statement's metadata query.
func (d *derivedPlan) def(db, name string) (string, bool) {
	if db != derivedSchema {
		return "", false
	}
	for _, side := range d.sides {
		if name == side.alias {
			return side.innerSQL, true
		}
	}
	return "", false
}

// nullable names the sides on the null-supplying side of an outer join.
func (d *derivedPlan) nullable() map[string]bool {
	out := map[string]bool{}
	for _, side := range d.sides {
		if side.nullable {
			out[side.alias] = true
		}
	}
	return out
}

// planDerived plans sel when its FROM is one derived table or CTE, or a
// join of several, each over an aggregate that distributes; nil when it is
// not such a statement (it passes through).
func (s *ephemeral) planDerived(ctx context.Context, ss *Session, sel *ast.SelectStmt) *derivedPlan {
	inner, alias, ok := derivedsql.Source(sel)
	if !ok {
		return s.planDerivedJoin(ctx, ss, sel)
	}
	side, ok := s.planSide(ctx, ss, derivedsql.Restore(inner), alias)
	if !ok || recodedSide(side.inner) {
		// Text in another charset than utf8mb4 is held as utf8mb4: the
		// outer statement would sort and compare it under the wrong
		// collation.
		return nil
	}
	// The outer statement reads the ephemeral table in place of the
	// derived table; its columns keep the names the client wrote.
	if planner.NameFields(sel) != nil {
		return nil
	}
	outer, ok := derivedsql.Reparse(derivedsql.Restore(sel))
	if !ok {
		return nil
	}
	outer.With = nil
	ts := outer.From.TableRefs.Left.(*ast.TableSource)
	ts.Source = &ast.TableName{Schema: ast.NewCIStr(derivedSchema), Name: ast.NewCIStr(alias)}
	ts.AsName = ast.NewCIStr(alias)
	outerSQL, err := sqlparse.Restore(outer)
	if err != nil {
		return nil
	}
	return &derivedPlan{sides: []derivedSide{side}, outerSQL: outerSQL}
}

// planSide plans one derived table's or CTE's SELECT (innerSQL); ok is
// false when it is not an aggregate that distributes.
func (s *ephemeral) planSide(ctx context.Context, ss *Session, innerSQL, alias string) (derivedSide, bool) {
	innerSel, ok := derivedsql.Reparse(innerSQL)
	if !ok {
		return derivedSide{}, false
	}
	ipr, why, err := s.prep.plan(ctx, ss.DB, innerSQL, innerSel)
	if err != nil || ipr == nil || !ipr.plan.Aggregate || ipr.prog != nil {
		s.log.Debug("derived table passes through", "inner", innerSQL, "reason", why, "err", err)
		return derivedSide{}, false
	}
	return derivedSide{inner: ipr, innerSQL: innerSQL, alias: alias}, true
}

// runDerived runs sel when its FROM is derived tables or CTEs over
// aggregates that distribute (planDerived). handled is false when it is
// not such a statement (the caller passes it through).
func (s *ephemeral) runDerived(ctx context.Context, ss *Session, sel *ast.SelectStmt, callback func(*sqltypes.Result) error) (handled bool, err error) {
	d := s.planDerived(ctx, ss, sel)
	if d == nil {
		return false, nil
	}
	tabs := make([]*pinned.Table, len(d.sides))
	for i, side := range d.sides {
		if tabs[i], err = s.materialize(ctx, side.inner, side.alias); err != nil {
			return true, err
		}
	}
	return s.runOver(ctx, ss, tabs, d.nullable(), d.outerSQL, d.def, callback)
}

// runOver plans outerSQL with tabs as derivedSchema.<name> and runs it in
// memory. handled is false when the outer statement cannot run there.
func (s *ephemeral) runOver(ctx context.Context, ss *Session, tabs []*pinned.Table, nullable map[string]bool, outerSQL string, def func(db, name string) (string, bool), callback func(*sqltypes.Result) error) (bool, error) {
	pr, handled, err := s.prepareOver(ctx, ss, tabs, nullable, outerSQL, def)
	if pr == nil {
		return handled, err
	}
	ss.Kind = observe.KindDistributed
	qid := strconv.FormatUint(s.ids.Next(), 10)
	st, err := s.merge.execute(ctx, pr, qid, newResultWriter(pr, callback))
	s.shipped(st)
	return true, err
}

// prepareOver plans and prepares outerSQL with tabs as
// derivedSchema.<name>, to run in memory (a join of several as a hash
// join; the nullable ones, on the null-supplying side of an outer join,
// are never the split table). With no plan, handled is false when the
// outer statement cannot run there (err is then nil).
func (s *ephemeral) prepareOver(ctx context.Context, ss *Session, tabs []*pinned.Table, nullable map[string]bool, outerSQL string, def func(db, name string) (string, bool)) (pr *prepared, handled bool, err error) {
	outer, ok := derivedsql.Reparse(outerSQL)
	if !ok {
		return nil, false, nil
	}
	cat := derivedCatalog{base: s.snap().Tables, tabs: tabs, nullable: nullable}
	p, err := planner.PlanSelect(cat, ss.DB, outer)
	var nd *planner.NotDistributed
	if errors.As(err, &nd) || (err == nil && (p.DB != derivedSchema || cat.find(p.Table) == nil)) {
		s.log.Debug("outer statement does not run in memory", "sql", outerSQL, "err", err)
		return nil, false, nil
	}
	if err != nil {
		if len(tabs) > 1 {
			// A join's outer statement was rewritten (USING): let the
			// replica answer it as the client wrote it.
			s.log.Debug("outer join statement passes through", "sql", outerSQL, "err", err)
			return nil, false, nil
		}
		return nil, true, err
	}
	others := func(db, name string) *pinned.Table {
		if db != derivedSchema {
			return nil
		}
		return cat.find(name)
	}
	pr, err = exact(s.prep.prepareInMemory(ctx, ss.DB, p, cat.find(p.Table), others, coldefs.Query{}, def, shapeRef{}))
	if err == nil && pr.prog.Inexact() != "" {
		err = errors.New(pr.prog.Inexact()) // the replica computes it: pass through
	}
	if err != nil {
		s.log.Debug("outer statement does not run in memory", "sql", outerSQL, "err", err)
		if errors.Is(err, pinexec.ErrUnsupported) {
			return nil, false, nil
		}
		if _, ok := sqlerr.As(err); ok && len(tabs) == 1 {
			return nil, true, err
		}
		return nil, false, nil
	}
	return pr, true, nil
}

// materialize runs pr and keeps its result as an in-memory table.
func (s *ephemeral) materialize(ctx context.Context, pr *prepared, name string) (*pinned.Table, error) {
	c := &collector{}
	qid := strconv.FormatUint(s.ids.Next(), 10)
	st, err := s.merge.execute(ctx, pr, qid, newResultWriter(pr, c.add))
	s.shipped(st)
	if err != nil {
		return nil, err
	}
	return pinned.FromRows(s.mem, derivedSchema, name, ownCollations(pr), c.rows)
}

// collector gathers a result's rows (a derived table's, a branch's).
type collector struct{ rows [][]sqltypes.Value }

func (c *collector) add(r *sqltypes.Result) error {
	for _, row := range r.Rows {
		c.rows = append(c.rows, append([]sqltypes.Value(nil), row...))
	}
	return nil
}

// unionPlan is a UNION ALL whose every branch distributes: the
// branches' plans, the union's columns (from a replica), and, when the
// union has ORDER BY or LIMIT, the outer statement over the branches'
// rows held in memory as derivedSchema.u.
type unionPlan struct {
	branches []*prepared
	fields   []*querypb.Field
	bare     string // the union without ORDER BY and LIMIT: u's definition
	outerSQL string // "" when the branches' rows stream to the client
}

func (p *unionPlan) def(d, n string) (string, bool) {
	if d == derivedSchema && n == "u" {
		return p.bare, true
	}
	return "", false
}

// planUnion plans u when it is a UNION ALL whose every branch distributes;
// nil (and no error) when it is not.
func (s *ephemeral) planUnion(ctx context.Context, ss *Session, u *ast.SetOprStmt) (*unionPlan, error) {
	if u.With != nil || u.SelectList == nil || u.SelectList.With != nil {
		return nil, nil
	}
	p := &unionPlan{}
	var quotients [][]bool // planner.QuotientFields of each branch
	for i, n := range u.SelectList.Selects {
		sel, op, ok := derivedsql.UnionBranch(n)
		if !ok || (i > 0 && (op == nil || *op != ast.UnionAll)) {
			return nil, nil
		}
		if k, _ := planner.Classify(sel); k != planner.Select {
			return nil, nil
		}
		text, err := sqlparse.Restore(sel)
		if err != nil {
			return nil, nil
		}
		// Restore renders a branch alone (no set operator), so the text is
		// the branch's own statement.
		bsel, ok := derivedsql.Reparse(text)
		if !ok {
			return nil, nil
		}
		pr, _, err := s.prep.plan(ctx, ss.DB, text, bsel)
		if err != nil || pr == nil || pr.prog != nil {
			return nil, nil
		}
		p.branches = append(p.branches, pr)
		quotients = append(quotients, planner.QuotientFields(bsel))
	}
	// The union's metadata, from a replica; the first branch names the
	// columns as the client wrote them.
	if first, _, _ := derivedsql.UnionBranch(u.SelectList.Selects[0]); planner.NameFields(first) != nil {
		return nil, nil
	}
	orderBy, limit := u.OrderBy, u.Limit
	u.OrderBy, u.Limit = nil, &ast.Limit{Count: ast.NewValueExpr(0, "", "")}
	metaSQL, err := sqlparse.Restore(u)
	u.Limit = nil
	bare, err2 := sqlparse.Restore(u)
	u.OrderBy, u.Limit = orderBy, limit
	if err != nil || err2 != nil {
		return nil, nil
	}
	p.bare = bare
	described, err := s.prep.describe(ctx, ss.DB, metaSQL)
	if err != nil {
		return nil, err
	}
	p.fields = described[0]
	for i, pr := range p.branches {
		for j, q := range quotients[i] {
			if q && j < len(pr.fields) && j < len(p.fields) && p.fields[j].Decimals > pr.fields[j].Decimals {
				return nil, nil // a quotient widened: MariaDB shows its internal digits
			}
		}
	}
	if orderBy == nil && limit == nil {
		return p, nil
	}
	tail := ""
	if orderBy != nil {
		o, err := sqlparse.Restore(orderBy)
		if err != nil {
			return nil, nil
		}
		tail += " " + o
	}
	if limit != nil {
		l, err := sqlparse.Restore(limit)
		if err != nil {
			return nil, nil
		}
		tail += " " + l
	}
	// Name the columns (ORDER BY may use positions, which the planner
	// resolves against an explicit select list only).
	var cols []string
	seen := map[string]bool{}
	for _, f := range p.fields {
		n := strings.ToLower(f.Name)
		if seen[n] {
			return nil, nil // ambiguous in the outer statement
		}
		seen[n] = true
		cols = append(cols, sqlparse.QuoteID(f.Name))
	}
	p.outerSQL = "SELECT " + strings.Join(cols, ", ") + " FROM `" + derivedSchema + "`.`u`" + tail
	return p, nil
}

// RunUnion runs a UNION ALL whose every branch distributes: branches one
// after another, rows conformed to the union's column types; with ORDER BY
// or LIMIT on the union, over the branches' results held in memory.
func (s *ephemeral) RunUnion(ctx context.Context, ss *Session, u *ast.SetOprStmt, callback func(*sqltypes.Result) error) (bool, error) {
	p, err := s.planUnion(ctx, ss, u)
	if p == nil {
		return err != nil, err
	}
	fields := p.fields
	ss.Kind = observe.KindDistributed
	if p.outerSQL == "" {
		if err := callback(&sqltypes.Result{Fields: fields}); err != nil {
			return true, err
		}
		for _, pr := range p.branches {
			fwd := func(r *sqltypes.Result) error {
				if len(r.Rows) == 0 {
					return nil
				}
				for _, row := range r.Rows {
					for i, f := range fields {
						row[i] = rowformat.Text(row[i], f)
					}
				}
				return callback(&sqltypes.Result{Rows: r.Rows})
			}
			qid := strconv.FormatUint(s.ids.Next(), 10)
			st, err := s.merge.execute(ctx, pr, qid, newResultWriter(pr, fwd))
			s.shipped(st)
			if err != nil {
				return true, err
			}
		}
		return true, nil
	}
	var rows [][]sqltypes.Value
	for _, pr := range p.branches {
		c := &collector{}
		qid := strconv.FormatUint(s.ids.Next(), 10)
		st, err := s.merge.execute(ctx, pr, qid, newResultWriter(pr, c.add))
		s.shipped(st)
		if err != nil {
			return true, err
		}
		for _, row := range c.rows {
			for i, f := range fields {
				row[i] = rowformat.Text(row[i], f)
			}
		}
		rows = append(rows, c.rows...)
		if int64(len(rows)) > maxUnionRows {
			return true, fmt.Errorf("UNION ALL with ORDER BY or LIMIT holds more than %d rows in memory; add a LIMIT to its branches or filter them", maxUnionRows)
		}
	}
	t, err := pinned.FromRows(s.mem, derivedSchema, "u", fields, rows)
	if err != nil {
		return true, err
	}
	return s.runOver(ctx, ss, []*pinned.Table{t}, nil, p.outerSQL, p.def, callback)
}

// maxUnionRows bounds what a UNION ALL with ORDER BY/LIMIT holds.
const maxUnionRows = 1_000_000

// derivedCatalog is the replica catalog plus a statement's in-memory
// tables. A nullable one is described as empty, so that the planner never
// splits it (it splits the largest table, which must be on the preserved
// side of every outer join).
type derivedCatalog struct {
	base     planner.Catalog
	tabs     []*pinned.Table
	nullable map[string]bool
}

func (c derivedCatalog) find(name string) *pinned.Table {
	for _, t := range c.tabs {
		if t.Name == name {
			return t
		}
	}
	return nil
}

func (c derivedCatalog) Table(db, name string) (*planner.Table, bool) {
	if db == derivedSchema {
		if t := c.find(name); t != nil {
			pt := pinCatalog{pins: nil}.describe(db, name, t)
			if c.nullable[name] {
				pt.Rows = 0
			}
			return pt, true
		}
	}
	return c.base.Table(db, name)
}
