// Package pinshape decides when statements over pinned tables that differ
// only in their literals may share the column definitions a replica gave
// the first of them, so that a dashboard's date picker or drop-down (a
// new literal in every statement) costs no replica round trip per text.
//
// The key is sqlparse.Digest: the text with the literals of WHERE and
// LIMIT masked by typed markers; the select list, GROUP BY, HAVING and
// ORDER BY stay as written, so a literal that types a column never
// shares a key. What is left to decide is whether the masked literals
// can change the definitions all the same. They can through the plan:
// MariaDB describes a result read through an internal temporary table by
// that table's fields, laid out by the access path (engine/coldefs), and
// a statement it proves empty (WHERE 1 = 0, LIMIT 0, a key range it folds)
// by its select items. So:
//
//   - a pinned query result is described by its rendering with LIMIT 0
//     over the pin's definition, which MariaDB answers from the select
//     items whatever the WHERE clause holds: its shape is always shared;
//   - a whole-table pin is described by the client's own text on a
//     replica (coldefs.Describe): its shape is shared only when Reusable
//     says no literal can choose the plan (below). Otherwise every new
//     text is described, as before.
package pinshape

import (
	"fmt"
	"slices"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"

	"github.com/shoaldb/shoal/planner"
	"github.com/shoaldb/shoal/sqlparse"
)

// Key is the shape key of a statement over pins in db, "" when it has
// none (sqlparse.Digest). Its prefix keeps it apart from the replica
// statements' shapes (engine/route.ShapeKey), which hold other columns.
func Key(db, query string) string {
	d, ok := sqlparse.Digest(query)
	if !ok {
		return ""
	}
	return "\x03" + db + "\x00" + d
}

// Reusable reports whether sel, over t alone and described by its own
// text on a replica, gets the same column definitions for any values of
// its masked literals; why says why not. It holds when
//
//   - t has at least two rows and its indexed columns are known: a
//     one-row table may be read as a constant and its WHERE folded;
//   - FROM is t alone and WHERE holds no subquery: no join order or
//     semi-join strategy for the literals to pick;
//   - every literal of WHERE is an operand of a comparison, IN, BETWEEN
//     or LIKE whose subject is a bare column in no index of t, each such
//     column in one predicate only, and WHERE names no indexed column at
//     all: no range, ref or index-merge access exists whose cost the
//     values could change, no predicate folds to a constant (1 = 0) and
//     no two equalities on one column contradict (a = 1 AND a = 2);
//   - LIMIT, if any, is not 0 (MariaDB describes LIMIT 0 by its items),
//     and no GROUP BY or ORDER BY item names an indexed column: the
//     optimizer weighs an index that gives the order against the LIMIT
//     count.
//
// Left out: column histograms (ANALYZE TABLE … PERSISTENT FOR) make the
// optimizer's estimate of a predicate on an unindexed column depend on
// its value; Shoal's deployments do not collect them (docs/sql.md).
func Reusable(sel *ast.SelectStmt, t *planner.Table) (bool, string) {
	switch {
	case t == nil || t.Indexed == nil:
		return false, "indexes unknown"
	case t.Rows < 2:
		return false, "a table of fewer than two rows may be read as a constant"
	case sel.From == nil || sel.From.TableRefs == nil || sel.From.TableRefs.Right != nil:
		return false, "not one table"
	}
	if ts, ok := sel.From.TableRefs.Left.(*ast.TableSource); !ok {
		return false, "not one table"
	} else if _, ok := ts.Source.(*ast.TableName); !ok {
		return false, "not one table"
	}
	c := checker{t: t, used: map[string]bool{}}
	if sel.Where != nil && !c.pred(sel.Where) {
		return false, "WHERE: " + c.why
	}
	if sel.Limit != nil {
		if v, ok := sel.Limit.Count.(ast.ValueExpr); !ok || fmt.Sprint(v.GetValue()) == "0" {
			return false, "LIMIT 0 or not a literal"
		}
		var items []ast.ExprNode
		if sel.GroupBy != nil {
			for _, it := range sel.GroupBy.Items {
				items = append(items, it.Expr)
			}
		}
		if sel.OrderBy != nil {
			for _, it := range sel.OrderBy.Items {
				items = append(items, it.Expr)
			}
		}
		for _, e := range items {
			if c.indexedIn(resolve(sel, e)) {
				return false, "LIMIT with an indexed GROUP BY or ORDER BY column"
			}
		}
	}
	return true, ""
}

// resolve is the select item an ORDER BY or GROUP BY position or alias
// names, e itself otherwise.
func resolve(sel *ast.SelectStmt, e ast.ExprNode) ast.ExprNode {
	if sel.Fields == nil {
		return e
	}
	fs := sel.Fields.Fields
	switch x := e.(type) {
	case *ast.PositionExpr:
		if x.N >= 1 && x.N <= len(fs) && fs[x.N-1].Expr != nil {
			return fs[x.N-1].Expr
		}
	case *ast.ColumnNameExpr:
		for _, f := range fs {
			if x.Name.Table.L == "" && f.AsName.L != "" && f.AsName.L == x.Name.Name.L {
				return f.Expr
			}
		}
	}
	return e
}

type checker struct {
	t    *planner.Table
	used map[string]bool // columns compared with a literal
	why  string
}

func (c *checker) fail(format string, args ...any) bool {
	c.why = fmt.Sprintf(format, args...)
	return false
}

// pred checks a predicate (see Reusable).
func (c *checker) pred(e ast.ExprNode) bool {
	switch x := e.(type) {
	case *ast.ParenthesesExpr:
		return c.pred(x.Expr)
	case *ast.UnaryOperationExpr:
		if x.Op == opcode.Not || x.Op == opcode.Not2 {
			return c.pred(x.V)
		}
	case *ast.BinaryOperationExpr:
		switch x.Op {
		case opcode.LogicAnd, opcode.LogicOr, opcode.LogicXor:
			return c.pred(x.L) && c.pred(x.R)
		case opcode.EQ, opcode.NE, opcode.LT, opcode.LE, opcode.GT, opcode.GE, opcode.NullEQ:
			if literal(x.R) {
				return c.subject(x.L)
			}
			if literal(x.L) {
				return c.subject(x.R)
			}
		}
	case *ast.BetweenExpr:
		if literal(x.Left) || literal(x.Right) {
			return literal(x.Left) && literal(x.Right) && c.subject(x.Expr) || c.fail("BETWEEN on an expression")
		}
	case *ast.PatternInExpr:
		if x.Sel == nil && slices.ContainsFunc(x.List, literal) {
			return !slices.ContainsFunc(x.List, func(e ast.ExprNode) bool { return !literal(e) }) && c.subject(x.Expr) || c.fail("IN list not of literals")
		}
	case *ast.PatternLikeOrIlikeExpr:
		if literal(x.Pattern) {
			return c.subject(x.Expr)
		}
	}
	return c.plain(e)
}

// subject checks the column a literal is compared with.
func (c *checker) subject(e ast.ExprNode) bool {
	col, ok := e.(*ast.ColumnNameExpr)
	if !ok {
		return c.fail("a literal compared with an expression")
	}
	name := col.Name.Name.L
	if slices.Contains(c.t.Indexed, name) {
		return c.fail("%s is indexed", name)
	}
	if c.used[name] {
		return c.fail("%s compared with literals twice", name)
	}
	c.used[name] = true
	return true
}

// plain checks a part of WHERE outside the predicates above: no literal,
// no subquery, no indexed column.
func (c *checker) plain(e ast.ExprNode) bool {
	v := &walker{indexed: c.t.Indexed}
	e.Accept(v)
	switch {
	case v.literal:
		return c.fail("a literal outside a comparison with a column")
	case v.subquery:
		return c.fail("a subquery")
	case v.column != "":
		return c.fail("%s is indexed", v.column)
	}
	return true
}

// indexedIn reports whether e names an indexed column.
func (c *checker) indexedIn(e ast.ExprNode) bool {
	v := &walker{indexed: c.t.Indexed}
	e.Accept(v)
	return v.column != ""
}

// literal reports whether e is a literal, negated or not.
func literal(e ast.ExprNode) bool {
	if u, ok := e.(*ast.UnaryOperationExpr); ok && (u.Op == opcode.Minus || u.Op == opcode.Plus) {
		e = u.V
	}
	_, ok := e.(ast.ValueExpr)
	return ok
}

// walker finds literals, subqueries and indexed columns in a subtree.
type walker struct {
	indexed           []string
	literal, subquery bool
	column            string
}

func (w *walker) Enter(n ast.Node) (ast.Node, bool) {
	switch x := n.(type) {
	case ast.ValueExpr:
		w.literal = true
	case *ast.SubqueryExpr, *ast.ExistsSubqueryExpr, *ast.CompareSubqueryExpr:
		w.subquery = true
		return n, true
	case *ast.ColumnNameExpr:
		if slices.Contains(w.indexed, x.Name.Name.L) && w.column == "" {
			w.column = x.Name.Name.L
		}
	case *ast.PatternInExpr:
		if x.Sel != nil {
			w.subquery = true
		}
	}
	return n, false
}

func (w *walker) Leave(n ast.Node) (ast.Node, bool) { return n, true }
