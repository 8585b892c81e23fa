package planner

import (
	"fmt"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/shoaldb/shoal/sqlparse"
)

// finder reports whether any node matches.
type finder struct {
	match func(ast.Node) bool
	found *bool
}

func (f *finder) Enter(n ast.Node) (ast.Node, bool) {
	if f.match(n) {
		*f.found = true
		return n, true
	}
	return n, *f.found
}

func (f *finder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

func containsAggregate(e ast.Node) bool {
	found := false
	e.Accept(&finder{match: func(n ast.Node) bool { _, ok := n.(*ast.AggregateFuncExpr); return ok }, found: &found})
	return found
}

// volatile functions give a different answer per fragment or per call, so a
// statement using them is not split.
var volatile = map[string]bool{
	"rand": true, "uuid": true, "uuid_short": true, "now": true, "sysdate": true,
	"current_timestamp": true, "curtime": true, "current_time": true, "curdate": true,
	"current_date": true, "localtime": true, "localtimestamp": true, "unix_timestamp": true,
	"utc_timestamp": true, "utc_time": true, "utc_date": true, "connection_id": true,
	"last_insert_id": true, "found_rows": true, "row_count": true, "database": true,
	"schema": true, "user": true, "current_user": true, "session_user": true, "system_user": true,
	"sleep": true, "get_lock": true, "release_lock": true, "release_all_locks": true,
	"is_free_lock": true, "is_used_lock": true, "benchmark": true, "master_pos_wait": true,
	"master_gtid_wait": true, "source_pos_wait": true, "nextval": true, "lastval": true,
	"setval": true, "load_file": true, "random_bytes": true, "version": true,
}

// checkExprs refuses expression forms that fragments cannot evaluate
// independently with the same result as one MySQL query.
func checkExprs(sel *ast.SelectStmt) error {
	var bad string
	found := false
	v := &finder{found: &found, match: func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.SubqueryExpr, *ast.ExistsSubqueryExpr, *ast.CompareSubqueryExpr:
			bad = "subquery"
		case *ast.VariableExpr:
			bad = "variable reference"
		case *ast.WindowFuncExpr:
			bad = "window function"
		case ast.ParamMarkerExpr:
			bad = "parameter marker"
		case *ast.DefaultExpr, *ast.RowExpr, *ast.ValuesExpr, *ast.MatchAgainst:
			bad = fmt.Sprintf("%T", n)
		case *ast.FuncCallExpr:
			if volatile[x.FnName.L] {
				bad = "function " + x.FnName.O + "()"
			}
		case *ast.AggregateFuncExpr:
			for _, a := range x.Args {
				if containsAggregate(a) {
					bad = "nested aggregate"
				}
			}
		default:
			return false
		}
		return bad != ""
	}}
	visitAll(sel, v)
	if found {
		return notDist("%s", bad)
	}
	return nil
}

func visitAll(sel *ast.SelectStmt, v ast.Visitor) {
	for _, f := range sel.Fields.Fields {
		if f.Expr != nil {
			f.Expr.Accept(v)
		}
	}
	if sel.Where != nil {
		sel.Where.Accept(v)
	}
	if sel.GroupBy != nil {
		for _, it := range sel.GroupBy.Items {
			it.Expr.Accept(v)
		}
	}
	if sel.Having != nil {
		sel.Having.Expr.Accept(v)
	}
	if sel.OrderBy != nil {
		for _, it := range sel.OrderBy.Items {
			it.Expr.Accept(v)
		}
	}
}

// normalizeColumns rewrites every column reference of the table to its
// catalog name without qualifiers, so that equal expressions restore to
// equal text. Unqualified names that are not columns are left alone: they
// may be select-list aliases.
func normalizeColumns(sel *ast.SelectStmt, tbl *Table, schema, qual string) error {
	var bad error
	found := false
	v := &finder{found: &found, match: func(n ast.Node) bool {
		c, ok := n.(*ast.ColumnNameExpr)
		if !ok {
			return false
		}
		name := c.Name
		if name.Schema.O != "" && name.Schema.O != schema {
			bad = notDist("column %s names another database", name.Name.O)
			return true
		}
		if name.Table.O != "" && name.Table.O != qual {
			bad = notDist("column %s names another table", name.Name.O)
			return true
		}
		col, ok := tbl.Column(name.Name.O)
		if !ok {
			if name.Table.O != "" {
				bad = notDist("unknown column %s.%s", name.Table.O, name.Name.O)
				return true
			}
			return false
		}
		name.Schema, name.Table = ast.CIStr{}, ast.CIStr{}
		name.Name = ast.NewCIStr(col.Name)
		return false
	}}
	visitAll(sel, v)
	return bad
}

// aggPlanner holds the state of planning one aggregate query.
type aggPlanner struct {
	sel      *ast.SelectStmt
	tbl      *Table
	keys     []string // restored group-key expressions
	keyDesc  []bool   // GROUP BY key DESC (MariaDB sorts groups)
	partials []Partial
	// outputs are the select fields' aliases (lower case) for HAVING and
	// ORDER BY name resolution; "" when a field has none.
	aliases []string
}

func planAggregate(p *Plan, sel *ast.SelectStmt, tbl *Table, from, where string) error {
	a := &aggPlanner{sel: sel, tbl: tbl}
	for _, f := range sel.Fields.Fields {
		if f.WildCard != nil {
			return notDist("SELECT * with aggregates")
		}
		alias := f.AsName.L
		if alias == "" {
			if c, ok := f.Expr.(*ast.ColumnNameExpr); ok {
				alias = strings.ToLower(c.Name.Name.O)
			}
		}
		a.aliases = append(a.aliases, alias)
	}
	if sel.GroupBy != nil {
		for _, it := range sel.GroupBy.Items {
			e, err := a.groupExpr(it.Expr)
			if err != nil {
				return err
			}
			s, err := sqlparse.Restore(e)
			if err != nil {
				return notDist("cannot render GROUP BY: %v", err)
			}
			if !contains(a.keys, s) {
				a.keys = append(a.keys, s)
				a.keyDesc = append(a.keyDesc, it.Desc)
			}
		}
	}
	for _, f := range sel.Fields.Fields {
		out, err := a.final(f.Expr, false)
		if err != nil {
			return err
		}
		p.Outputs = append(p.Outputs, out)
	}
	if sel.Having != nil {
		h, err := a.final(sel.Having.Expr, true)
		if err != nil {
			return err
		}
		p.Having = h
	}
	if sel.OrderBy != nil {
		for _, it := range sel.OrderBy.Items {
			if isNullLiteral(it.Expr) {
				continue // ORDER BY NULL: no order
			}
			var expr string
			if pos, ok := it.Expr.(*ast.PositionExpr); ok {
				if pos.P != nil || pos.N < 1 || pos.N > len(p.Outputs) {
					return notDist("ORDER BY position")
				}
				expr = fmt.Sprintf("__o%d", pos.N-1)
			} else if i := a.aliasIndex(it.Expr); i >= 0 {
				expr = fmt.Sprintf("__o%d", i)
			} else {
				var err error
				if expr, err = a.final(it.Expr, true); err != nil {
					return err
				}
			}
			p.OrderBy = append(p.OrderBy, OrderItem{Expr: expr, Desc: it.Desc})
		}
	}
	if sel.OrderBy == nil {
		// MariaDB (and MySQL before 8.0) return GROUP BY results sorted by
		// the group keys; MySQL 8 leaves the order unspecified, so sorting
		// is right for both.
		for i := range a.keys {
			p.OrderBy = append(p.OrderBy, OrderItem{Expr: fmt.Sprintf("__g%d", i), Desc: a.keyDesc[i]})
		}
	}
	p.Aggregate = true
	p.Keys = len(a.keys)
	p.Partials = a.partials
	cols := append([]string{}, a.keys...)
	for _, pa := range a.partials {
		cols = append(cols, pa.SQL)
	}
	sql := "SELECT " + strings.Join(cols, ", ") + " FROM " + from + " WHERE " + where
	if len(a.keys) > 0 {
		sql += " GROUP BY " + strings.Join(a.keys, ", ")
	}
	p.FragmentSQL = sql
	return nil
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// groupExpr resolves a GROUP BY item: an ordinal or a select alias (when it
// is not a column of the table, as MySQL resolves GROUP BY names) becomes the
// select expression.
func (a *aggPlanner) groupExpr(e ast.ExprNode) (ast.ExprNode, error) {
	switch x := e.(type) {
	case *ast.PositionExpr:
		if x.P != nil || x.N < 1 || x.N > len(a.sel.Fields.Fields) {
			return nil, notDist("GROUP BY position")
		}
		e = a.sel.Fields.Fields[x.N-1].Expr
	case *ast.ColumnNameExpr:
		if _, ok := a.tbl.Column(x.Name.Name.O); !ok {
			i := a.aliasIndex(x)
			if i < 0 {
				return nil, notDist("unknown column %s in GROUP BY", x.Name.Name.O)
			}
			e = a.sel.Fields.Fields[i].Expr
		}
	}
	if containsAggregate(e) {
		return nil, notDist("aggregate in GROUP BY")
	}
	return e, nil
}

// aliasIndex returns the select field whose alias e names, or -1.
func (a *aggPlanner) aliasIndex(e ast.ExprNode) int {
	c, ok := e.(*ast.ColumnNameExpr)
	if !ok || c.Name.Table.O != "" {
		return -1
	}
	for i, f := range a.sel.Fields.Fields {
		if f.AsName.O != "" && f.AsName.L == c.Name.Name.L {
			return i
		}
	}
	return -1
}

// final rewrites an expression of the select list, HAVING or ORDER BY into
// one over the merged row: group-key expressions become __g<i>, aggregates
// become (combinations of) __a<i>, and — in HAVING and ORDER BY — select
// aliases become __o<i>.
func (a *aggPlanner) final(e ast.ExprNode, aliases bool) (string, error) {
	// Work on a copy: the select list is also rendered elsewhere.
	s, err := sqlparse.Restore(e)
	if err != nil {
		return "", notDist("cannot render expression: %v", err)
	}
	stmt, err := sqlparse.ParseOne("SELECT " + s)
	if err != nil {
		return "", notDist("cannot re-parse expression %q: %v", s, err)
	}
	e = stmt.(*ast.SelectStmt).Fields.Fields[0].Expr
	r := &finalRewriter{a: a, aliases: aliases, repl: map[ast.Node]ast.ExprNode{}}
	if n, ok := e.Accept(r); ok {
		e = n.(ast.ExprNode)
	}
	if r.err != nil {
		return "", r.err
	}
	return sqlparse.Restore(e)
}

type finalRewriter struct {
	a       *aggPlanner
	aliases bool
	repl    map[ast.Node]ast.ExprNode
	err     error
}

func (r *finalRewriter) Enter(n ast.Node) (ast.Node, bool) {
	if r.err != nil {
		return n, true
	}
	e, ok := n.(ast.ExprNode)
	if !ok {
		return n, false
	}
	if s, err := sqlparse.Restore(e); err == nil {
		for i, k := range r.a.keys {
			if k == s {
				r.repl[n] = colExpr(fmt.Sprintf("__g%d", i))
				return n, true
			}
		}
	}
	switch x := n.(type) {
	case *ast.AggregateFuncExpr:
		rep, err := r.a.aggregate(x)
		if err != nil {
			r.err = err
			return n, true
		}
		r.repl[n] = rep
		return n, true
	case *ast.ColumnNameExpr:
		if r.aliases {
			if i := r.a.aliasIndex(x); i >= 0 {
				r.repl[n] = colExpr(fmt.Sprintf("__o%d", i))
				return n, true
			}
		}
		r.err = notDist("column %s is neither grouped nor aggregated", x.Name.Name.O)
		return n, true
	}
	return n, false
}

func (r *finalRewriter) Leave(n ast.Node) (ast.Node, bool) {
	if rep, ok := r.repl[n]; ok {
		return rep, true
	}
	return n, true
}

// aggregate registers the partials of one aggregate call and returns the
// final expression over them.
func (a *aggPlanner) aggregate(x *ast.AggregateFuncExpr) (ast.ExprNode, error) {
	if x.Distinct || x.Order != nil {
		return nil, notDist("%s(DISTINCT/ORDER BY)", x.F)
	}
	f := strings.ToLower(x.F)
	if f == "avg" {
		if len(x.Args) != 1 {
			return nil, notDist("AVG with %d arguments", len(x.Args))
		}
		arg, err := sqlparse.Restore(x.Args[0])
		if err != nil {
			return nil, notDist("cannot render aggregate: %v", err)
		}
		sum := a.partial(MergeSum, "SUM("+arg+")")
		cnt := a.partial(MergeCount, "COUNT("+arg+")")
		return div(sum, cnt), nil
	}
	kind := map[string]AggKind{"count": MergeCount, "sum": MergeSum, "min": MergeMin, "max": MergeMax}[f]
	if kind == 0 {
		return nil, notDist("aggregate %s is not distributed yet", strings.ToUpper(x.F))
	}
	if len(x.Args) != 1 {
		return nil, notDist("%s with %d arguments", x.F, len(x.Args))
	}
	s, err := sqlparse.Restore(x)
	if err != nil {
		return nil, notDist("cannot render aggregate: %v", err)
	}
	return a.partial(kind, s), nil
}

func (a *aggPlanner) partial(kind AggKind, sql string) ast.ExprNode {
	for i, p := range a.partials {
		if p.Kind == kind && p.SQL == sql {
			return colExpr(fmt.Sprintf("__a%d", i))
		}
	}
	a.partials = append(a.partials, Partial{Kind: kind, SQL: sql})
	return colExpr(fmt.Sprintf("__a%d", len(a.partials)-1))
}

func isNullLiteral(e ast.ExprNode) bool {
	v, ok := e.(ast.ValueExpr)
	return ok && v.GetValue() == nil
}
