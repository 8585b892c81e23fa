// Package derivedsql rewrites statements over derived tables, CTEs,
// UNION ALL branches and information_schema.PROCESSLIST for the engine's
// ephemeral tables (engine/derived.go, derivedjoin.go,
// processlist_schema.go): finding the derived tables a FROM joins, USING
// rewritten to ON as MySQL resolves it, a UNION's branches, CONNECTION_ID()
// bound. Pure functions over the TiDB AST, golden-free and I/O-free; it
// imports only the parser, planner (table references) and sqlparse.
package derivedsql

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	"github.com/shoaldb/shoal/planner"
	"github.com/shoaldb/shoal/sqlparse"
)

// Leaf is one derived table or CTE reference of a join.
type Leaf struct {
	TS       *ast.TableSource
	InnerSQL string
	Alias    string
	Nullable bool
}

// JoinLeaves collects the derived tables and CTE references the FROM of
// sel joins; ok is false when an item is anything else (a replica
// table, a UNION, a NATURAL or RIGHT join), when an alias repeats, when
// a CTE is not read or when an inner statement names a CTE.
func JoinLeaves(sel *ast.SelectStmt) ([]*Leaf, bool) {
	ctes := map[string]*ast.SelectStmt{}
	used := map[string]bool{}
	if sel.With != nil {
		for _, c := range sel.With.CTEs {
			q, ok := c.Query.Query.(*ast.SelectStmt)
			name := strings.ToLower(c.Name.O)
			if !ok || q.With != nil || len(c.ColNameList) > 0 || ctes[name] != nil {
				return nil, false
			}
			ctes[name] = q
		}
	}
	var out []*Leaf
	aliases := map[string]bool{}
	var walk func(n ast.ResultSetNode, nullable bool) bool
	walk = func(n ast.ResultSetNode, nullable bool) bool {
		switch x := n.(type) {
		case *ast.Join:
			if x.Right == nil {
				return walk(x.Left, nullable)
			}
			if x.NaturalJoin || x.Tp == ast.RightJoin {
				return false
			}
			return walk(x.Left, nullable) && walk(x.Right, nullable || x.Tp == ast.LeftJoin)
		case *ast.TableSource:
			var q *ast.SelectStmt
			alias := x.AsName.O
			switch src := x.Source.(type) {
			case *ast.SelectStmt:
				q = src
			case *ast.TableName:
				if src.Schema.O != "" || ctes[strings.ToLower(src.Name.O)] == nil {
					return false
				}
				q = ctes[strings.ToLower(src.Name.O)]
				used[strings.ToLower(src.Name.O)] = true
				if alias == "" {
					alias = src.Name.O
				}
			default:
				return false
			}
			if q.With != nil || alias == "" || aliases[strings.ToLower(alias)] {
				return false
			}
			for _, ref := range planner.TableRefs(q, "") {
				if strings.HasPrefix(ref, ".") && ctes[strings.ToLower(ref[1:])] != nil {
					return false // it reads a CTE
				}
			}
			text, err := sqlparse.Restore(q)
			if err != nil {
				return false
			}
			aliases[strings.ToLower(alias)] = true
			out = append(out, &Leaf{TS: x, InnerSQL: text, Alias: alias, Nullable: nullable})
			return true
		}
		return false
	}
	if !walk(sel.From.TableRefs, false) || len(used) != len(ctes) {
		return nil, false
	}
	return out, true
}

// HasSubquery reports whether n holds a subquery.
func HasSubquery(n ast.Node) bool {
	v := &subqueryFinder{}
	n.Accept(v)
	return v.found
}

type subqueryFinder struct{ found bool }

func (v *subqueryFinder) Enter(n ast.Node) (ast.Node, bool) {
	switch n.(type) {
	case *ast.SubqueryExpr, *ast.ExistsSubqueryExpr:
		v.found = true
		return n, true
	}
	return n, v.found
}

func (v *subqueryFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// visCol is a column the FROM clause makes visible: its name and the
// alias of the table it comes from.
type visCol struct{ name, table string }

// RewriteUsing turns every USING join of sel's FROM (over tables whose
// columns cols lists by alias) into an ON join on the same equalities,
// and qualifies every unqualified reference to a USING column outside
// FROM with the table MySQL takes it from (the left one: inner and LEFT
// joins only). false when the statement might then mean something else:
// a wildcard, a USING column missing or repeated on a side, an unqualified
// USING column name in an ON condition, a name that is not one column of
// the whole FROM, or a select item named like a USING column that is not
// that column.
func RewriteUsing(sel *ast.SelectStmt, cols map[string][]string) bool {
	using := map[string]bool{}
	ok := true
	var visible func(n ast.ResultSetNode) []visCol
	visible = func(n ast.ResultSetNode) []visCol {
		switch x := n.(type) {
		case *ast.TableSource:
			alias := x.AsName.O
			var out []visCol
			for _, c := range cols[alias] {
				out = append(out, visCol{name: c, table: alias})
			}
			return out
		case *ast.Join:
			l := visible(x.Left)
			if x.Right == nil {
				return l
			}
			r := visible(x.Right)
			if len(x.Using) == 0 {
				return append(l, r...)
			}
			var cond ast.ExprNode
			var merged []visCol
			for _, u := range x.Using {
				li, ri := findCol(l, u.Name.O), findCol(r, u.Name.O)
				if li < 0 || ri < 0 || findCol(merged, u.Name.O) >= 0 {
					ok = false
					return nil
				}
				using[u.Name.L] = true
				eq := &ast.BinaryOperationExpr{Op: opcode.EQ, L: colRef(l[li]), R: colRef(r[ri])}
				if cond == nil {
					cond = eq
				} else {
					cond = &ast.BinaryOperationExpr{Op: opcode.LogicAnd, L: cond, R: eq}
				}
				merged = append(merged, l[li])
				l = append(l[:li:li], l[li+1:]...)
				r = append(r[:ri:ri], r[ri+1:]...)
			}
			x.Using = nil
			x.On = &ast.OnCondition{Expr: cond}
			return append(append(merged, l...), r...)
		}
		ok = false
		return nil
	}
	// ON conditions as the client wrote them, before USING becomes ON.
	var ons []ast.ExprNode
	forEachJoin(sel.From.TableRefs, func(j *ast.Join) {
		if j.On != nil {
			ons = append(ons, j.On.Expr)
		}
	})
	top := visible(sel.From.TableRefs)
	if !ok {
		return false
	}
	if len(using) == 0 {
		return true
	}
	for _, on := range ons {
		if refersUnqualified(on, using) {
			return false
		}
	}
	target := map[string]string{}
	for name := range using {
		n := 0
		for _, c := range top {
			if strings.EqualFold(c.name, name) {
				target[name] = c.table
				n++
			}
		}
		if n != 1 {
			return false
		}
	}
	for _, f := range sel.Fields.Fields {
		if f.WildCard != nil {
			return false
		}
		if !using[f.AsName.L] {
			continue
		}
		c, isCol := f.Expr.(*ast.ColumnNameExpr)
		if !isCol || c.Name.Schema.O != "" || !strings.EqualFold(c.Name.Name.O, f.AsName.O) ||
			(c.Name.Table.O != "" && c.Name.Table.O != target[f.AsName.L]) {
			return false
		}
	}
	sel.Accept(&usingQualifier{target: target})
	return true
}

func findCol(cs []visCol, name string) int {
	at := -1
	for i, c := range cs {
		if strings.EqualFold(c.name, name) {
			if at >= 0 {
				return -1 // ambiguous
			}
			at = i
		}
	}
	return at
}

func colRef(c visCol) *ast.ColumnNameExpr {
	return &ast.ColumnNameExpr{Name: &ast.ColumnName{Table: ast.NewCIStr(c.table), Name: ast.NewCIStr(c.name)}}
}

func forEachJoin(n ast.ResultSetNode, f func(*ast.Join)) {
	if j, ok := n.(*ast.Join); ok {
		f(j)
		forEachJoin(j.Left, f)
		if j.Right != nil {
			forEachJoin(j.Right, f)
		}
	}
}

// refersUnqualified reports whether e reads a column named in names
// without a table.
func refersUnqualified(e ast.Node, names map[string]bool) bool {
	found := false
	e.Accept(&columnVisitor{f: func(c *ast.ColumnName) {
		if c.Table.O == "" && names[c.Name.L] {
			found = true
		}
	}})
	return found
}

type columnVisitor struct{ f func(*ast.ColumnName) }

func (v *columnVisitor) Enter(n ast.Node) (ast.Node, bool) {
	if c, ok := n.(*ast.ColumnNameExpr); ok {
		v.f(c.Name)
	}
	return n, false
}

func (v *columnVisitor) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// usingQualifier qualifies unqualified references to USING columns
// (target: lower-case name → table alias) outside the FROM clause.
type usingQualifier struct{ target map[string]string }

func (v *usingQualifier) Enter(n ast.Node) (ast.Node, bool) {
	switch x := n.(type) {
	case *ast.TableRefsClause:
		return n, true
	case *ast.ColumnNameExpr:
		if t, ok := v.target[x.Name.Name.L]; ok && x.Name.Table.O == "" {
			x.Name.Table = ast.NewCIStr(t)
		}
	}
	return n, false
}

func (v *usingQualifier) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// Source returns the SELECT a statement reads as its only FROM
// item: a derived table, or a single non-recursive CTE named in FROM.
func Source(sel *ast.SelectStmt) (*ast.SelectStmt, string, bool) {
	if sel.From == nil || sel.From.TableRefs == nil || sel.From.TableRefs.Right != nil {
		return nil, "", false
	}
	ts, ok := sel.From.TableRefs.Left.(*ast.TableSource)
	if !ok {
		return nil, "", false
	}
	if sel.With != nil {
		if sel.With.IsRecursive || len(sel.With.CTEs) != 1 {
			return nil, "", false
		}
		cte := sel.With.CTEs[0]
		tn, ok := ts.Source.(*ast.TableName)
		if !ok || tn.Schema.O != "" || !strings.EqualFold(tn.Name.O, cte.Name.O) || len(cte.ColNameList) > 0 {
			return nil, "", false
		}
		q, ok := cte.Query.Query.(*ast.SelectStmt)
		if !ok || q.With != nil {
			return nil, "", false
		}
		alias := ts.AsName.O
		if alias == "" {
			alias = cte.Name.O
		}
		return q, alias, true
	}
	q, ok := ts.Source.(*ast.SelectStmt)
	if !ok || ts.AsName.O == "" || q.With != nil {
		return nil, "", false
	}
	return q, ts.AsName.O, true
}

// UnionBranch returns a UNION branch's SELECT and the set operator before
// it, looking through parentheses around a single SELECT.
func UnionBranch(n ast.Node) (*ast.SelectStmt, *ast.SetOprType, bool) {
	switch x := n.(type) {
	case *ast.SelectStmt:
		return x, x.AfterSetOperator, true
	case *ast.SetOprSelectList:
		if len(x.Selects) == 1 && x.With == nil {
			if sel, ok := x.Selects[0].(*ast.SelectStmt); ok && sel.OrderBy == nil && sel.Limit == nil {
				return sel, x.AfterSetOperator, true
			}
		}
	}
	return nil, nil, false
}

func Reparse(sql string) (*ast.SelectStmt, bool) {
	stmt, err := sqlparse.ParseOne(sql)
	if err != nil {
		return nil, false
	}
	sel, ok := stmt.(*ast.SelectStmt)
	return sel, ok
}

func Restore(n ast.Node) string {
	s, err := sqlparse.Restore(n)
	if err != nil {
		return ""
	}
	return s
}

// TableSourceOf is sel's one FROM item, nil for a join or none.
func TableSourceOf(sel *ast.SelectStmt) *ast.TableSource {
	if sel.From == nil || sel.From.TableRefs == nil || sel.From.TableRefs.Right != nil {
		return nil
	}
	ts, _ := sel.From.TableRefs.Left.(*ast.TableSource)
	return ts
}

// TableNameVisitor calls visit for every table name in a statement.
type TableNameVisitor struct{ Visit func(*ast.TableName) }

func (v *TableNameVisitor) Enter(n ast.Node) (ast.Node, bool) {
	if tn, ok := n.(*ast.TableName); ok {
		v.Visit(tn)
	}
	return n, false
}

func (v *TableNameVisitor) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// ConnectionIDBinder replaces CONNECTION_ID() with the session's id.
type ConnectionIDBinder struct{ ID uint32 }

func (v *ConnectionIDBinder) Enter(n ast.Node) (ast.Node, bool) { return n, false }

func (v *ConnectionIDBinder) Leave(n ast.Node) (ast.Node, bool) {
	if f, ok := n.(*ast.FuncCallExpr); ok && f.FnName.L == "connection_id" && len(f.Args) == 0 {
		return ast.NewValueExpr(int64(v.ID), "", ""), true
	}
	return n, true
}
