// Package derivedmerge merges a derived table of plain rows into the
// statement that reads it, as MariaDB's derived_merge does:
//
//	SELECT source.Carrier AS Carrier, count(*) AS count
//	FROM (SELECT ontime.Carrier AS Carrier FROM ontime WHERE Distance > 1000) source
//	GROUP BY source.Carrier
//
// (Metabase's nested questions and custom columns) reads as
//
//	SELECT ontime.Carrier AS Carrier, count(*) AS count
//	FROM ontime WHERE Distance > 1000 GROUP BY ontime.Carrier
//
// which the planner distributes. Only what keeps the meaning is merged:
// a derived table without DISTINCT, GROUP BY, HAVING, aggregates, window
// functions, LIMIT, ORDER BY, subqueries or a wildcard in its select list,
// read by a statement without subqueries or wildcards whose every column
// is one of the derived table's or one of its own select aliases. The
// result's names are the statement's as written.
package derivedmerge

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"

	"github.com/shoaldb/shoal/sqlparse"
)

// Merge rewrites sel in place when its FROM is one mergeable derived
// table, and reports whether it did. Either way it names sel's unaliased
// select fields as written (as the planner would); nothing else changes
// when it cannot merge.
func Merge(sel *ast.SelectStmt) bool {
	if sel.From == nil || sel.From.TableRefs == nil || sel.From.TableRefs.Right != nil || sel.With != nil {
		return false
	}
	if ts, ok := sel.From.TableRefs.Left.(*ast.TableSource); !ok || !isSelect(ts.Source) {
		return false
	}
	for _, f := range sel.Fields.Fields {
		if f.WildCard != nil {
			return false
		}
		if f.AsName.L == "" { // named as written, before its columns change
			if c, ok := f.Expr.(*ast.ColumnNameExpr); ok {
				f.AsName = c.Name.Name
			} else if name := strings.TrimSpace(f.Text()); name != "" && len(name) <= 256 {
				f.AsName = ast.NewCIStr(name)
			} else {
				return false
			}
		}
	}
	text, err := sqlparse.Restore(sel)
	if err != nil {
		return false
	}
	st, err := sqlparse.ParseOne(text)
	if err != nil {
		return false
	}
	c, ok := st.(*ast.SelectStmt)
	if !ok || !merge(c) {
		return false
	}
	*sel = *c
	return true
}

func isSelect(n ast.ResultSetNode) bool { _, ok := n.(*ast.SelectStmt); return ok }

// merge is Merge over sel, a copy it may leave half rewritten.
func merge(sel *ast.SelectStmt) bool {
	ts, ok := sel.From.TableRefs.Left.(*ast.TableSource)
	if !ok || ts.AsName.L == "" {
		return false
	}
	inner, ok := ts.Source.(*ast.SelectStmt)
	if !ok || !plainRows(inner) || hasNode(sel, false, isSubquery) {
		return false
	}
	cols := map[string]string{} // name → the expression's text
	for _, f := range inner.Fields.Fields {
		if f.WildCard != nil {
			return false
		}
		name := f.AsName.L
		c, isCol := f.Expr.(*ast.ColumnNameExpr)
		if isCol && name != "" && name != c.Name.Name.L {
			// A column renamed keeps its name as org_name in MariaDB's
			// column definitions, which the merged statement does not.
			return false
		}
		if name == "" {
			if !isCol {
				return false // named by its text: left to the replica
			}
			name = c.Name.Name.L
		}
		text, err := sqlparse.Restore(f.Expr)
		if _, dup := cols[name]; dup || err != nil {
			return false
		}
		if !isCol {
			text = "(" + text + ")"
		}
		cols[name] = text
	}
	aliases := map[string]bool{}
	for _, f := range sel.Fields.Fields {
		aliases[f.AsName.L] = true
		// An alias that is also a column of the derived table names the
		// same thing in every clause only when it is that column.
		if _, ok := cols[f.AsName.L]; ok {
			if c, isCol := f.Expr.(*ast.ColumnNameExpr); !isCol || c.Name.Name.L != f.AsName.L {
				return false
			}
		}
	}
	// The select list and WHERE read columns only; GROUP BY, HAVING and
	// ORDER BY may name select aliases too.
	r := &rewriter{alias: ts.AsName.L, cols: cols, ok: true}
	for _, f := range sel.Fields.Fields {
		f.Expr = r.expr(f.Expr)
	}
	if sel.Where != nil {
		sel.Where = r.expr(sel.Where)
	}
	r.aliases = aliases
	if sel.GroupBy != nil {
		for _, it := range sel.GroupBy.Items {
			it.Expr = r.expr(it.Expr)
		}
	}
	if sel.Having != nil {
		sel.Having.Expr = r.expr(sel.Having.Expr)
	}
	if sel.OrderBy != nil {
		for _, it := range sel.OrderBy.Items {
			it.Expr = r.expr(it.Expr)
		}
	}
	if !r.ok {
		return false
	}
	switch {
	case inner.Where == nil:
	case sel.Where == nil:
		sel.Where = inner.Where
	default:
		sel.Where = &ast.BinaryOperationExpr{Op: opcode.LogicAnd,
			L: &ast.ParenthesesExpr{Expr: sel.Where}, R: &ast.ParenthesesExpr{Expr: inner.Where}}
	}
	sel.From = inner.From
	return true
}

// plainRows reports whether inner returns its FROM's rows as they are,
// one per row, with no clause MariaDB would not merge.
func plainRows(inner *ast.SelectStmt) bool {
	return inner.Kind == ast.SelectStmtKindSelect && inner.From != nil && inner.From.TableRefs != nil &&
		!inner.Distinct && inner.GroupBy == nil && inner.Having == nil && inner.Limit == nil &&
		inner.OrderBy == nil && inner.With == nil && len(inner.WindowSpecs) == 0 && inner.SelectIntoOpt == nil &&
		(inner.LockInfo == nil || inner.LockInfo.LockType == ast.SelectLockNone) && (inner.SelectStmtOpts == nil || !inner.SelectStmtOpts.CalcFoundRows) &&
		!hasNode(inner, true, func(n ast.Node) bool {
			switch n.(type) {
			case *ast.AggregateFuncExpr, *ast.WindowFuncExpr, *ast.SubqueryExpr, *ast.ExistsSubqueryExpr,
				*ast.CompareSubqueryExpr, *ast.VariableExpr, *ast.TableSource:
				_, derived := n.(*ast.TableSource)
				return !derived || n.(*ast.TableSource).Source != nil && !isTableName(n.(*ast.TableSource).Source)
			}
			return false
		})
}

func isTableName(n ast.ResultSetNode) bool { _, ok := n.(*ast.TableName); return ok }

func isSubquery(n ast.Node) bool {
	switch n.(type) {
	case *ast.SubqueryExpr, *ast.ExistsSubqueryExpr, *ast.CompareSubqueryExpr:
		return true
	}
	return false
}

// hasNode reports whether any node of n (its FROM too when from is set)
// matches; it does not descend into the derived table of sel's FROM.
func hasNode(n ast.Node, from bool, match func(ast.Node) bool) bool {
	v := &finder{match: match}
	if sel, ok := n.(*ast.SelectStmt); ok && !from {
		for _, part := range []ast.Node{sel.Fields, sel.Where, sel.GroupBy, sel.Having, sel.OrderBy} {
			if part != nil && !isNil(part) {
				part.Accept(v)
			}
		}
		return v.found
	}
	n.Accept(v)
	return v.found
}

func isNil(n ast.Node) bool {
	switch x := n.(type) {
	case ast.ExprNode:
		return x == nil
	case *ast.GroupByClause:
		return x == nil
	case *ast.HavingClause:
		return x == nil
	case *ast.OrderByClause:
		return x == nil
	case *ast.FieldList:
		return x == nil
	}
	return false
}

type finder struct {
	match func(ast.Node) bool
	found bool
}

func (f *finder) Enter(n ast.Node) (ast.Node, bool) {
	if f.match(n) {
		f.found = true
	}
	return n, f.found
}

func (f *finder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// rewriter replaces the derived table's columns by its expressions.
type rewriter struct {
	alias   string
	cols    map[string]string
	aliases map[string]bool
	ok      bool
}

func (r *rewriter) expr(e ast.ExprNode) ast.ExprNode {
	out, _ := e.Accept(r)
	return out.(ast.ExprNode)
}

func (r *rewriter) Enter(n ast.Node) (ast.Node, bool) { return n, false }

func (r *rewriter) Leave(n ast.Node) (ast.Node, bool) {
	c, ok := n.(*ast.ColumnNameExpr)
	if !ok {
		return n, true
	}
	name := c.Name
	if name.Schema.L != "" || name.Table.L != "" && name.Table.L != r.alias {
		r.ok = false // another table's column: not the derived table's scope
		return n, true
	}
	text, ok := r.cols[name.Name.L]
	if !ok {
		if name.Table.L != "" || !r.aliases[name.Name.L] {
			r.ok = false // unknown to the derived table: its error is the replica's
		}
		return n, true
	}
	st, err := sqlparse.ParseOne("SELECT " + text)
	if err != nil {
		r.ok = false
		return n, true
	}
	return st.(*ast.SelectStmt).Fields.Fields[0].Expr, true
}

// WithInnerPredicate returns text, a statement reading one derived table
// (and only it), with pred ANDed into the derived table's own WHERE and
// the statement's unaliased fields named as written. A merged statement's
// column definitions are those of MariaDB's plan for the text as the
// client wrote it, which a temporary table changes; engine/coldefs
// describes such a plan over no rows with a predicate that selects none
// through the split table's key, and the top-level WHERE of the text
// cannot name that table: the derived table's can.
func WithInnerPredicate(text, pred string) (string, bool) {
	st, err := sqlparse.ParseOne(text)
	if err != nil {
		return "", false
	}
	sel, ok := st.(*ast.SelectStmt)
	if !ok || sel.From == nil || sel.From.TableRefs == nil || sel.From.TableRefs.Right != nil {
		return "", false
	}
	ts, ok := sel.From.TableRefs.Left.(*ast.TableSource)
	if !ok {
		return "", false
	}
	inner, ok := ts.Source.(*ast.SelectStmt)
	if !ok {
		return "", false
	}
	ps, err := sqlparse.ParseOne("SELECT 1 FROM t WHERE " + pred)
	if err != nil {
		return "", false
	}
	p := ps.(*ast.SelectStmt).Where
	if inner.Where == nil {
		inner.Where = p
	} else {
		inner.Where = &ast.BinaryOperationExpr{Op: opcode.LogicAnd, L: &ast.ParenthesesExpr{Expr: inner.Where}, R: p}
	}
	for _, f := range sel.Fields.Fields {
		if f.WildCard == nil && f.AsName.L == "" {
			if c, ok := f.Expr.(*ast.ColumnNameExpr); ok {
				f.AsName = c.Name.Name
			} else if name := strings.TrimSpace(f.Text()); name != "" {
				f.AsName = ast.NewCIStr(name)
			}
		}
	}
	out, err := sqlparse.Restore(sel)
	return out, err == nil
}
