package planner

import (
	"math"
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
)

// keyBounds returns the inclusive bounds on the integer split column that
// the WHERE clause's top-level conjuncts imply: col = v, col IN (v, …),
// col BETWEEN a AND b, col < v, col <= v, col > v, col >= v (either side),
// with integer literals. Nil where nothing bounds that side.
//
// Why: the coordinator cuts the split column's key space into ranges. A
// query that reads a slice of the table (WHERE id BETWEEN …) should have
// its ranges cut within that slice, or one fragment does all the work and
// the others read nothing. The bounds only place the cuts; the WHERE clause
// itself still filters every fragment, so a bound read too loosely costs
// balance, never rows. Anything not understood (OR, NOT, expressions,
// other literal types) simply bounds nothing.
func keyBounds(where ast.ExprNode, alias, col string) (lo, hi *int64) {
	var lov, hiv int64 = math.MinInt64, math.MaxInt64
	for _, c := range conjuncts(where) {
		l, h, ok := conjunctBounds(c, alias, col)
		if !ok {
			continue
		}
		lov, hiv = max(lov, l), min(hiv, h)
	}
	if lov != math.MinInt64 {
		lo = &lov
	}
	if hiv != math.MaxInt64 {
		hi = &hiv
	}
	return lo, hi
}

// conjuncts flattens top-level ANDs (and parentheses) of e.
func conjuncts(e ast.ExprNode) []ast.ExprNode {
	switch x := e.(type) {
	case nil:
		return nil
	case *ast.ParenthesesExpr:
		return conjuncts(x.Expr)
	case *ast.BinaryOperationExpr:
		if x.Op == opcode.LogicAnd {
			return append(conjuncts(x.L), conjuncts(x.R)...)
		}
	}
	return []ast.ExprNode{e}
}

// conjunctBounds returns the inclusive bounds one conjunct puts on the
// split column, ok false when it puts none that keyBounds understands.
func conjunctBounds(e ast.ExprNode, alias, col string) (lo, hi int64, ok bool) {
	lo, hi = math.MinInt64, math.MaxInt64
	isKey := func(n ast.ExprNode) bool { return isKeyColumn(n, alias, col) }
	switch x := unparen(e).(type) {
	case *ast.BinaryOperationExpr:
		op := x.Op
		v, vok := intLiteral(x.R)
		if !isKey(x.L) || !vok {
			// v op col is col flipped(op) v.
			if v, vok = intLiteral(x.L); !vok || !isKey(x.R) {
				return lo, hi, false
			}
			switch op {
			case opcode.LT:
				op = opcode.GT
			case opcode.LE:
				op = opcode.GE
			case opcode.GT:
				op = opcode.LT
			case opcode.GE:
				op = opcode.LE
			}
		}
		switch op {
		case opcode.EQ:
			return v, v, true
		case opcode.GE:
			return v, hi, true
		case opcode.GT:
			if v == math.MaxInt64 {
				return lo, hi, false
			}
			return v + 1, hi, true
		case opcode.LE:
			return lo, v, true
		case opcode.LT:
			if v == math.MinInt64 {
				return lo, hi, false
			}
			return lo, v - 1, true
		}
	case *ast.BetweenExpr:
		a, aok := intLiteral(x.Left)
		b, bok := intLiteral(x.Right)
		if !x.Not && isKey(x.Expr) && aok && bok {
			return a, b, true
		}
	case *ast.PatternInExpr:
		if x.Not || x.Sel != nil || !isKey(x.Expr) || len(x.List) == 0 {
			return lo, hi, false
		}
		lo, hi = math.MaxInt64, math.MinInt64
		for _, item := range x.List {
			v, ok := intLiteral(item)
			if !ok {
				return math.MinInt64, math.MaxInt64, false
			}
			lo, hi = min(lo, v), max(hi, v)
		}
		return lo, hi, true
	}
	return lo, hi, false
}

func unparen(e ast.ExprNode) ast.ExprNode {
	for {
		p, ok := e.(*ast.ParenthesesExpr)
		if !ok {
			return e
		}
		e = p.Expr
	}
}

// isKeyColumn reports whether e names the column col of the table known as
// alias (or col unqualified: normalizeColumns has qualified every column
// of a table in FROM, so an unqualified name is the only table's).
func isKeyColumn(e ast.ExprNode, alias, col string) bool {
	c, ok := unparen(e).(*ast.ColumnNameExpr)
	if !ok || !strings.EqualFold(c.Name.Name.O, col) {
		return false
	}
	return c.Name.Table.O == "" || c.Name.Table.O == alias
}

// intLiteral returns the value of an integer literal (signed, optionally
// negated); other literals, including decimals and strings, are not
// understood.
func intLiteral(e ast.ExprNode) (int64, bool) {
	e = unparen(e)
	if u, ok := e.(*ast.UnaryOperationExpr); ok && u.Op == opcode.Minus {
		v, ok := intLiteral(u.V)
		if !ok || v == math.MinInt64 {
			return 0, false
		}
		return -v, true
	}
	v, ok := e.(ast.ValueExpr)
	if !ok {
		return 0, false
	}
	switch x := v.GetValue().(type) {
	case int64:
		return x, true
	case uint64:
		if x <= math.MaxInt64 {
			return int64(x), true
		}
	}
	return 0, false
}

// boundsString renders inclusive bounds for EXPLAIN, e.g. [10, 20] or
// [10, +inf).
func boundsString(lo, hi *int64) string {
	l, h := "(-inf", "+inf)"
	if lo != nil {
		l = "[" + strconv.FormatInt(*lo, 10)
	}
	if hi != nil {
		h = strconv.FormatInt(*hi, 10) + "]"
	}
	return l + ", " + h
}
