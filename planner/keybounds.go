package planner

import (
	"math"
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"

	"github.com/shoaldb/shoal/planner/keyconst"
)

// keyBounds returns the inclusive bounds on the integer split column that
// the WHERE clause's top-level conjuncts imply: col = v, col IN (v, …),
// col BETWEEN a AND b, col < v, col <= v, col > v, col >= v (either side),
// where each v is a constant expression keyconst.Fold folds (10 + 5,
// CAST('7' AS SIGNED), 7.5, '7abc', NULL). Nil where nothing bounds that
// side; lo > hi when the conjuncts match no key (id = 7.5, id = NULL).
//
// Why: the coordinator cuts the split column's key space into ranges. A
// query that reads a slice of the table (WHERE id BETWEEN …) should have
// its ranges cut within that slice, or one fragment does all the work and
// the others read nothing. The bounds only place the cuts; the WHERE clause
// itself still filters every fragment, so a bound read too loosely costs
// balance, never rows. Anything not understood (OR, NOT, expressions over
// columns, non-deterministic functions) simply bounds nothing.
func keyBounds(where ast.ExprNode, alias, col string) (lo, hi *int64) {
	lo, hi, _ = keyRange(where, alias, col)
	return lo, hi
}

// keyRange is keyBounds with the number of distinct keys the conjuncts
// list at most (col = v: one, col IN (…): the distinct values; none when
// they match no key), -1 when no conjunct lists them. It depends on how
// many values the statement lists, not on which: a statement with other
// literals in their place lists as few.
func keyRange(where ast.ExprNode, alias, col string) (lo, hi *int64, points int64) {
	var lov, hiv int64 = math.MinInt64, math.MaxInt64
	points = -1
	for _, c := range conjuncts(where) {
		b, ok := conjunctBounds(c, alias, col)
		if !ok {
			continue
		}
		lov, hiv = max(lov, b.lo), min(hiv, b.hi)
		if b.points >= 0 && (points < 0 || b.points < points) {
			points = b.points
		}
	}
	if lov != math.MinInt64 {
		lo = &lov
	}
	if hiv != math.MaxInt64 {
		hi = &hiv
	}
	if lov > hiv {
		points = 0
	}
	return lo, hi, points
}

// keyOnly reports whether every top-level conjunct of where bounds the
// split column as keyBounds understands it (or there is none): the rows
// of the key window are then the rows the statement keeps.
func keyOnly(where ast.ExprNode, alias, col string) bool {
	for _, c := range conjuncts(where) {
		if _, ok := conjunctBounds(c, alias, col); !ok {
			return false
		}
	}
	return true
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

// bounds are the inclusive bounds one conjunct puts on the split column
// (lo > hi: none matches) and the distinct keys it lists (-1: a range).
type bounds struct {
	lo, hi int64
	points int64
}

var (
	noBounds    = bounds{lo: math.MinInt64, hi: math.MaxInt64, points: -1}
	emptyBounds = bounds{lo: 1, hi: 0, points: 0}
)

// compareBounds returns the bounds of col op c.
func compareBounds(op opcode.Op, c keyconst.Const) (bounds, bool) {
	if c.Null {
		return emptyBounds, true // NULL compares as unknown: no row
	}
	b := noBounds
	switch op {
	case opcode.EQ:
		if !c.Exact {
			return emptyBounds, true // id = 7.5
		}
		return bounds{lo: c.Floor, hi: c.Floor, points: 1}, true
	case opcode.GE, opcode.GT:
		// id >= v and id > v-ε are id >= v; id >= 7.5 and id > 7.5 are
		// id >= 8; id > v is id >= v+1.
		if c.Exact && op == opcode.GE {
			b.lo = c.Floor
			return b, true
		}
		if c.Floor == math.MaxInt64 {
			return b, false
		}
		b.lo = c.Floor + 1
		return b, true
	case opcode.LE, opcode.LT:
		// id <= 7.5 and id < 7.5 are id <= 7; id < v is id <= v-1.
		if c.Exact && op == opcode.LT {
			if c.Floor == math.MinInt64 {
				return b, false
			}
			b.hi = c.Floor - 1
			return b, true
		}
		b.hi = c.Floor
		return b, true
	}
	return b, false
}

// conjunctBounds returns the bounds one conjunct puts on the split
// column, ok false when it puts none that keyBounds understands.
func conjunctBounds(e ast.ExprNode, alias, col string) (bounds, bool) {
	isKey := func(n ast.ExprNode) bool { return isKeyColumn(n, alias, col) }
	switch x := keyconst.Unparen(e).(type) {
	case *ast.BinaryOperationExpr:
		op := x.Op
		switch op {
		case opcode.EQ, opcode.GE, opcode.GT, opcode.LE, opcode.LT:
		default:
			return noBounds, false
		}
		other := x.R
		if !isKey(x.L) {
			if !isKey(x.R) {
				return noBounds, false
			}
			// v op col is col flipped(op) v.
			other = x.L
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
		c, ok := keyconst.Fold(other)
		if !ok {
			return noBounds, false
		}
		return compareBounds(op, c)
	case *ast.BetweenExpr:
		if x.Not || !isKey(x.Expr) {
			return noBounds, false
		}
		a, aok := keyconst.Fold(x.Left)
		b, bok := keyconst.Fold(x.Right)
		if !aok || !bok {
			return noBounds, false
		}
		l, lok := compareBounds(opcode.GE, a)
		h, hok := compareBounds(opcode.LE, b)
		switch {
		case lok && l.points == 0, hok && h.points == 0:
			return emptyBounds, true
		case !lok && !hok:
			return noBounds, false
		}
		out := noBounds
		if lok {
			out.lo = l.lo
		}
		if hok {
			out.hi = h.hi
		}
		return out, true
	case *ast.PatternInExpr:
		if x.Not || x.Sel != nil || !isKey(x.Expr) || len(x.List) == 0 {
			return noBounds, false
		}
		out := bounds{lo: math.MaxInt64, hi: math.MinInt64}
		seen := make(map[int64]bool, len(x.List))
		for _, item := range x.List {
			c, ok := keyconst.Fold(item)
			if !ok {
				return noBounds, false
			}
			if c.Null || !c.Exact {
				continue // matches no key
			}
			out.lo, out.hi = min(out.lo, c.Floor), max(out.hi, c.Floor)
			seen[c.Floor] = true
		}
		if len(seen) == 0 {
			return emptyBounds, true
		}
		out.points = int64(len(seen))
		return out, true
	}
	return noBounds, false
}

// isKeyColumn reports whether e names the column col of the table known as
// alias (or col unqualified: normalizeColumns has qualified every column
// of a table in FROM, so an unqualified name is the only table's).
func isKeyColumn(e ast.ExprNode, alias, col string) bool {
	c, ok := keyconst.Unparen(e).(*ast.ColumnNameExpr)
	if !ok || !strings.EqualFold(c.Name.Name.O, col) {
		return false
	}
	return c.Name.Table.O == "" || c.Name.Table.O == alias
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
