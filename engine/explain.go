package engine

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/shoaldb/shoal/engine/constant"
	"github.com/shoaldb/shoal/engine/derivedsql"
	"github.com/shoaldb/shoal/engine/route"
	"github.com/shoaldb/shoal/engine/rowformat"
	"github.com/shoaldb/shoal/engine/schedule"
	"github.com/shoaldb/shoal/pinned"
	"github.com/shoaldb/shoal/sqlparse"
	"vitess.io/vitess/go/sqltypes"
)

// Explain answers EXPLAIN [ANALYZE] with the plan that runs, one line per
// row: the distributed plan; for a derived table, CTE or UNION ALL that
// runs distributed, the inner plans and the outer statement in memory;
// or the reason the statement passes through. EXPLAIN of a UNION that
// does not run distributed passes through (the replica's own EXPLAIN).
func (s *Engine) Explain(ctx context.Context, ss *Session, query string, ex *ast.ExplainStmt, callback func(*sqltypes.Result) error) error {
	return explainer{s}.explain(ctx, ss, query, ex, callback)
}

// explainer is the engine as EXPLAIN sees it: the plans a statement
// would run, described rather than run (EXPLAIN ANALYZE runs them too).
type explainer struct{ *Engine }

func (s explainer) explain(ctx context.Context, ss *Session, query string, ex *ast.ExplainStmt, callback func(*sqltypes.Result) error) error {
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
		if !strings.HasPrefix(reason, route.Prefix) {
			if lines, err = s.explainDerived(ctx, ss, text, ex.Analyze); err != nil {
				return err
			}
		}
		if lines == nil {
			lines = append(lines, "passthrough to one replica: "+reason)
			if constant.Select(sel) { // constant.go
				lines = append(lines, "note: a constant statement: after its first answer the coordinator answers it (the replica's answer kept)")
			}
		}
	} else {
		lines = append(lines, s.describe(pr)...)
		if ex.Analyze {
			qid := strconv.FormatUint(s.queryID.Next(), 10)
			start := time.Now()
			discard := newResultWriter(pr, func(*sqltypes.Result) error { return nil })
			st, err := s.merge.execute(ctx, pr, qid, discard)
			if err != nil {
				return err
			}
			lines = append(lines, fmt.Sprintf("analyze: %d rows returned in %s; %d rows, %d bytes shipped from workers",
				discard.Rows, time.Since(start).Round(time.Microsecond), st.Rows, st.Bytes))
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
	return callback(rowformat.Lines("plan", lines))
}

// describe is a prepared plan's EXPLAIN: the plan, and where it runs (in
// memory over a pin, or how many fragments over which workers).
func (s explainer) describe(pr *prepared) []string {
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
			if len(pr.prog.Joined()) > 0 {
				lines[i] = fmt.Sprintf("note: split table: %s.%s, the rows held in memory; it probes hash tables of the others, on the coordinator", pr.pin.DB, pr.pin.Name)
			}
		}
	}
	if j := pr.prog.JoinDescribe(); j != "" {
		// The tables are empty when EXPLAIN plans it: no row counts.
		lines = append(lines, strings.ReplaceAll(j, "(0 rows; ", "("))
	}
	return lines
}

// explainDerived is the EXPLAIN of a statement over a derived table or
// CTE that runs as tryDerived runs it: the inner plan, distributed, and
// the outer statement's plan in memory over its rows. nil when the
// statement is not one (it passes through). The outer statement is
// planned over an empty table of the inner result's columns; the rows
// only exist when it runs.
func (s explainer) explainDerived(ctx context.Context, ss *Session, text string, analyze bool) ([]string, error) {
	sel, ok := derivedsql.Reparse(text)
	if !ok {
		return nil, nil
	}
	d := s.eph.planDerived(ctx, ss, sel)
	if d == nil {
		return nil, nil
	}
	tabs := make([]*pinned.Table, len(d.sides))
	names := make([]string, len(d.sides))
	for i, side := range d.sides {
		t, err := pinned.FromRows(s.mem, derivedSchema, side.alias, side.inner.fields, nil)
		if err != nil {
			return nil, err
		}
		tabs[i], names[i] = t, sqlparse.QuoteID(side.alias)
	}
	outer, _, err := s.eph.prepareOver(ctx, ss, tabs, d.nullable(), d.outerSQL, d.def)
	if outer == nil {
		return nil, err
	}
	var lines []string
	for _, side := range d.sides {
		lines = append(lines, fmt.Sprintf("derived table %s: distributed, its rows held in memory for the statement", sqlparse.QuoteID(side.alias)))
		lines = append(lines, indent(s.describe(side.inner))...)
	}
	if len(d.sides) > 1 {
		lines = append(lines, fmt.Sprintf("outer statement: in memory, a hash join of %s", strings.Join(names, ", ")))
	} else {
		lines = append(lines, fmt.Sprintf("outer statement: in memory over %s", names[0]))
	}
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
func (s explainer) explainUnion(ctx context.Context, ss *Session, u *ast.SetOprStmt, analyze bool) ([]string, error) {
	p, err := s.eph.planUnion(ctx, ss, u)
	if p == nil {
		return nil, err
	}
	head := fmt.Sprintf("union all of %d branches: each distributed, run one after another", len(p.branches))
	var outer *prepared
	if p.outerSQL != "" {
		t, err := pinned.FromRows(s.mem, derivedSchema, "u", p.fields, nil)
		if err != nil {
			return nil, err
		}
		var handled bool
		if outer, handled, err = s.eph.prepareOver(ctx, ss, []*pinned.Table{t}, nil, p.outerSQL, p.def); outer == nil {
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
func (s explainer) analyzeEphemeral(ctx context.Context, run func(func(*sqltypes.Result) error) (bool, error)) (string, error) {
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
