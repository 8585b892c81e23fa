package engine

import (
	"context"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/mysql/collations/charset"
	"vitess.io/vitess/go/mysql/collations/colldata"
	"vitess.io/vitess/go/sqltypes"

	"github.com/shoaldb/shoal/planner"
	"github.com/shoaldb/shoal/sqlparse"
)

// Joins of derived tables and CTEs over distributed aggregates (the
// ClickHouse OnTime Q5–Q7 shape):
//
//	SELECT … FROM (SELECT k, count(*) c FROM t WHERE … GROUP BY k) a
//	  JOIN (SELECT k, count(*) c2 FROM t GROUP BY k) b USING (k) …
//
// Each side runs distributed and is held in memory as
// derivedSchema.<alias>; the outer statement, with every side replaced by
// its ephemeral table (aliases kept), is a join of in-memory tables: the
// pinned engine's hash join runs it. Inner, comma/CROSS and LEFT joins
// with ON or USING; NATURAL and RIGHT joins, a side that is not an
// aggregate that distributes, a replica table among the sides, a side
// with text in another character set than utf8mb4 (held as utf8mb4, it
// would be compared under the wrong collation), and anything the rewrite
// below cannot prove the same pass through.

// derivedLeaf is one derived table or CTE reference of a join.
type derivedLeaf struct {
	ts       *ast.TableSource
	innerSQL string
	alias    string
	nullable bool
}

// planDerivedJoin is planDerived for a FROM that joins derived tables or
// CTEs; nil when sel is not such a statement or a side does not
// distribute.
func (s *ephemeral) planDerivedJoin(ctx context.Context, ss *Session, sel *ast.SelectStmt) *derivedPlan {
	if sel.From == nil || sel.From.TableRefs == nil || sel.From.TableRefs.Right == nil {
		return nil
	}
	if sel.With != nil && sel.With.IsRecursive {
		return nil
	}
	if planner.NameFields(sel) != nil {
		return nil
	}
	outer, ok := mustReparse(mustRestore(sel))
	if !ok {
		return nil
	}
	leaves, ok := joinLeaves(outer)
	if !ok {
		return nil
	}
	for _, l := range leaves {
		l.ts.Source = &ast.TableName{Schema: ast.NewCIStr(derivedSchema), Name: ast.NewCIStr(l.alias)}
		l.ts.AsName = ast.NewCIStr(l.alias)
	}
	outer.With = nil
	if hasSubquery(outer) {
		return nil // a subquery could name a CTE, or correlate
	}
	d := &derivedPlan{}
	cols := map[string][]string{}
	for _, l := range leaves {
		side, ok := s.planSide(ctx, ss, l.innerSQL, l.alias)
		if !ok {
			return nil
		}
		if recodedSide(side.inner) {
			// Held as utf8mb4 text, the outer statement would compare and
			// sort it under a utf8mb4 collation, not its own.
			s.log.Debug("derived join passes through: a side reads text that is not utf8mb4", "side", l.alias)
			return nil
		}
		side.nullable = l.nullable
		d.sides = append(d.sides, side)
		for _, f := range side.inner.fields {
			cols[l.alias] = append(cols[l.alias], f.Name)
		}
	}
	if !rewriteUsing(outer, cols) {
		return nil
	}
	var err error
	if d.outerSQL, err = sqlparse.Restore(outer); err != nil {
		return nil
	}
	return d
}

// joinLeaves collects the derived tables and CTE references the FROM of
// sel joins; ok is false when an item is anything else (a replica
// table, a UNION, a NATURAL or RIGHT join), when an alias repeats, when
// a CTE is not read or when an inner statement names a CTE.
func joinLeaves(sel *ast.SelectStmt) ([]*derivedLeaf, bool) {
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
	var out []*derivedLeaf
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
			out = append(out, &derivedLeaf{ts: x, innerSQL: text, alias: alias, nullable: nullable})
			return true
		}
		return false
	}
	if !walk(sel.From.TableRefs, false) || len(used) != len(ctes) {
		return nil, false
	}
	return out, true
}

// recodedSide reports whether pr reads or returns text in another
// character set than utf8mb4, or of a collation Shoal does not know.
func recodedSide(pr *prepared) bool {
	for _, c := range append(append([]charset.Charset(nil), pr.recode...), pr.outFrom...) {
		if c != nil {
			return true
		}
	}
	for _, f := range pr.fields {
		if sqltypes.IsText(f.Type) && f.Charset != binaryCollation && colldata.Lookup(collations.ID(f.Charset)) == nil {
			return true
		}
	}
	return false
}

// hasSubquery reports whether n holds a subquery.
func hasSubquery(n ast.Node) bool {
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

// rewriteUsing turns every USING join of sel's FROM (over tables whose
// columns cols lists by alias) into an ON join on the same equalities,
// and qualifies every unqualified reference to a USING column outside
// FROM with the table MySQL takes it from (the left one: inner and LEFT
// joins only). false when the statement might then mean something else:
// a wildcard, a USING column missing or repeated on a side, an unqualified
// USING column name in an ON condition, a name that is not one column of
// the whole FROM, or a select item named like a USING column that is not
// that column.
func rewriteUsing(sel *ast.SelectStmt, cols map[string][]string) bool {
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
