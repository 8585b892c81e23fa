package pinexec

import (
	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shoaldb/shoal/pinned/pinexec/fold"
	"github.com/shoaldb/shoal/pinned/pinexec/valrange"
)

// Value filters: comparisons of a numeric or DATETIME column that has no
// codes with literals, compiled to an interval (or a few points) of the
// column's own values (package valrange says how literals are placed).

// valueFilter compiles a comparison of column c, whose codes are not
// available, with a literal; right is the literal side (already
// folded), op as seen from the column.
func (p *Program) valueFilter(c int, op sqlparser.ComparisonExprOperator, right sqlparser.Expr) (*fastFilter, bool) {
	sp, ok := valrange.SpaceOf(p.t, c)
	if !ok {
		return nil, false
	}
	vf := valrange.New(sp.Kind)
	ff := &fastFilter{kind: fVals, col: c, vals: vf}
	if op == sqlparser.InOp || op == sqlparser.NotInOp {
		tuple, ok := right.(sqlparser.ValTuple)
		if !ok || len(tuple) == 0 || len(tuple) > maxPoints {
			return nil, false
		}
		for _, e := range tuple {
			x, ok := sp.Place(fold.Const(p.env, e))
			if !ok {
				return nil, false
			}
			vf.AddPoint(x)
		}
		ff.neg = op == sqlparser.NotInOp
		return ff, true
	}
	x, ok := sp.Place(right)
	if !ok {
		return nil, false
	}
	if ff.neg, ok = vf.Bound(op, x); !ok {
		return nil, false
	}
	return ff, true
}

// valueBetween compiles `c [NOT] BETWEEN from AND to`.
func (p *Program) valueBetween(c int, from, to sqlparser.Expr, not bool) (*fastFilter, bool) {
	sp, ok := valrange.SpaceOf(p.t, c)
	if !ok {
		return nil, false
	}
	x, ok1 := sp.Place(from)
	y, ok2 := sp.Place(to)
	if !ok1 || !ok2 {
		return nil, false
	}
	vf := valrange.New(sp.Kind)
	vf.Bound(sqlparser.GreaterEqualOp, x)
	vf.Bound(sqlparser.LessEqualOp, y)
	return &fastFilter{kind: fVals, col: c, vals: vf, neg: not}, true
}
