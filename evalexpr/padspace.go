package evalexpr

import (
	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/sqltypes"
	"vitess.io/vitess/go/vt/sqlparser"
	"vitess.io/vitess/go/vt/vtgate/evalengine"

	"github.com/shoaldb/shoal/arrowexec"
)

// Comparisons of text under a PAD SPACE collation.
//
// MySQL compares strings under every collation but binary, MySQL 8's
// *_0900_* and MariaDB's *_nopad_* as if the shorter were padded with
// spaces: 'SFO' = 'SFO ', and 'a' > 'a\t' (a space sorts after a tab).
// vitess' collations compare strings as they are, so evalengine answers
// 'SFO' < 'SFO '. Grouping and sorting are arrowexec's, which pads
// (arrowexec/collate.go); every comparison in an expression that meets
// two or more text operands under a PAD SPACE collation is computed here
// with the same collator:
//
//   - =, <>, <, <=, >, >=, <=>, [NOT] IN (list), [NOT] BETWEEN;
//   - STRCMP, FIELD, LEAST and GREATEST;
//   - NULLIF and CASE x WHEN …, which evalengine itself turns into '='
//     (comparisonForms does so first, so the '=' is hosted too).
//
// vitess still decides the collation the comparison is made under (the
// operands' collations and coercibility, MySQL's rules), as COALESCE of
// the operands would have it, and each operand is converted to its
// character set. LIKE is not PAD SPACE ('a ' LIKE 'a' is false) and stays
// vitess' unless it has an ESCAPE (like.go). Row constructors ((a, b) =
// (c, d)) stay vitess' too.

// cmpKind is what a hosted comparison computes.
type cmpKind uint8

const (
	cmpOp       cmpKind = iota // args[0] op args[1]
	cmpIn                      // args[0] IN (args[1:]); negate for NOT IN
	cmpBetween                 // args[0] BETWEEN args[1] AND args[2]; negate for NOT
	cmpStrcmp                  // STRCMP(args[0], args[1])
	cmpField                   // FIELD(args[0], args[1:]...)
	cmpLeast                   // LEAST(args...)
	cmpGreatest                // GREATEST(args...)
)

// hostCmp is one comparison of text under a PAD SPACE collation.
type hostCmp struct {
	kind   cmpKind
	op     sqlparser.ComparisonExprOperator // cmpOp
	negate bool                             // NOT IN, NOT BETWEEN
	args   []evalengine.Expr
	coll   collations.ID // the comparison's collation; operands are converted to it
	c      *arrowexec.Collator
	// date: the operands are compared as datetimes (datetext.go), not
	// under coll and c.
	date bool
}

// comparisonForms writes NULLIF(a, b) as CASE WHEN a = b THEN NULL ELSE a
// END and CASE x WHEN v … as CASE WHEN x = v …, as evalengine does
// internally, so the comparisons are seen (and hosted) here.
func comparisonForms(e sqlparser.Expr) sqlparser.Expr {
	return sqlparser.Rewrite(e, nil, func(c *sqlparser.Cursor) bool {
		switch n := c.Node().(type) {
		case *sqlparser.FuncExpr:
			if n.Name.Lowered() == "nullif" && len(n.Exprs) == 2 && n.Qualifier.IsEmpty() {
				c.Replace(&sqlparser.CaseExpr{
					Whens: []*sqlparser.When{{Cond: &sqlparser.ComparisonExpr{Operator: sqlparser.EqualOp, Left: n.Exprs[0], Right: n.Exprs[1]}, Val: &sqlparser.NullVal{}}},
					Else:  sqlparser.Clone(n.Exprs[0]),
				})
			}
		case *sqlparser.CaseExpr:
			if n.Expr != nil {
				out := &sqlparser.CaseExpr{Else: n.Else}
				for _, w := range n.Whens {
					out.Whens = append(out.Whens, &sqlparser.When{
						Cond: &sqlparser.ComparisonExpr{Operator: sqlparser.EqualOp, Left: sqlparser.Clone(n.Expr), Right: w.Cond},
						Val:  w.Val,
					})
				}
				c.Replace(out)
			}
		}
		return true
	}).(sqlparser.Expr)
}

// compare returns the column standing for n when n is a comparison of
// text under a PAD SPACE collation, or nil.
func (h *hoister) compare(n sqlparser.SQLNode) sqlparser.Expr {
	var k cmpKind
	var op sqlparser.ComparisonExprOperator
	var negate bool
	var args []sqlparser.Expr
	switch n := n.(type) {
	case *sqlparser.ComparisonExpr:
		switch n.Operator {
		case sqlparser.EqualOp, sqlparser.NotEqualOp, sqlparser.LessThanOp, sqlparser.LessEqualOp,
			sqlparser.GreaterThanOp, sqlparser.GreaterEqualOp, sqlparser.NullSafeEqualOp:
			if _, tuple := n.Left.(sqlparser.ValTuple); tuple {
				return nil
			}
			k, op, args = cmpOp, n.Operator, []sqlparser.Expr{n.Left, n.Right}
		case sqlparser.InOp, sqlparser.NotInOp:
			list, ok := n.Right.(sqlparser.ValTuple)
			if _, tuple := n.Left.(sqlparser.ValTuple); !ok || tuple {
				return nil
			}
			k, negate, args = cmpIn, n.Operator == sqlparser.NotInOp, append([]sqlparser.Expr{n.Left}, list...)
		default:
			return nil
		}
	case *sqlparser.BetweenExpr:
		k, negate, args = cmpBetween, !n.IsBetween, []sqlparser.Expr{n.Left, n.From, n.To}
	case *sqlparser.FuncExpr:
		if !n.Qualifier.IsEmpty() {
			return nil
		}
		args = n.Exprs
		switch n.Name.Lowered() {
		case "strcmp":
			k = cmpStrcmp
		case "field":
			k = cmpField
		case "least":
			k = cmpLeast
		case "greatest":
			k = cmpGreatest
		default:
			return nil
		}
		if len(args) < 2 || (k == cmpStrcmp && len(args) != 2) {
			return nil
		}
	default:
		return nil
	}
	hc := &hostCmp{kind: k, op: op, negate: negate}
	if k <= cmpBetween && h.dateCompare(args) {
		return h.dateCmp(hc, args)
	}
	text := false
	nullable := false
	for _, a := range args {
		if _, tuple := a.(sqlparser.ValTuple); tuple {
			return nil
		}
		ex, t, ok := h.translate(a)
		switch {
		case !ok:
			return nil
		case isText(t):
			text = true
		case !isNull(t):
			return nil // numbers, dates, binary strings: not a text comparison
		}
		nullable = nullable || t.Nullable() || isNull(t)
		hc.args = append(hc.args, ex)
	}
	if !text {
		return nil
	}
	// The collation MySQL compares under: the operands' collations
	// merged by their coercibility, as for COALESCE.
	_, t, ok := h.translate(sqlparser.NewFuncExpr("coalesce", args...))
	if !ok || !isText(t) {
		return nil
	}
	hc.coll = t.Collation()
	c, err := arrowexec.NewCollator(h.e.vt.CollationEnv(), hc.coll)
	if err != nil || !c.PadSpace() {
		return nil // NO PAD and binary collations: vitess compares as MySQL does
	}
	hc.c = c
	var rt evalengine.Type
	switch k {
	case cmpLeast, cmpGreatest:
		_, ft, ok := h.translate(n.(sqlparser.Expr))
		if !ok || !isText(ft) {
			return nil
		}
		rt = evalengine.NewTypeEx(sqltypes.VarChar, hc.coll, nullable, ft.Size(), 0, nil)
	case cmpField:
		rt = boolType(false)
	case cmpOp:
		rt = boolType(nullable && op != sqlparser.NullSafeEqualOp)
	default:
		rt = boolType(nullable)
	}
	return h.add(hc, rt)
}

// text evaluates argument i in the comparison's character set; null
// reports NULL.
func (hc *hostCmp) text(env *evalengine.ExpressionEnv, i int) (b []byte, null bool, err error) {
	if hc.date {
		return hc.dateText(env, i)
	}
	r, err := env.Evaluate(hc.args[i])
	if err != nil {
		return nil, false, err
	}
	v := r.Value(hc.coll)
	if v.IsNull() {
		return nil, true, nil
	}
	return v.Raw(), false, nil
}

// tri is a three-valued truth: no, yes or NULL.
type tri int8

const (
	triFalse tri = iota
	triTrue
	triNull
)

func triOf(b bool) tri {
	if b {
		return triTrue
	}
	return triFalse
}

func (t tri) not() tri {
	switch t {
	case triFalse:
		return triTrue
	case triTrue:
		return triFalse
	}
	return triNull
}

func (t tri) and(u tri) tri {
	switch {
	case t == triFalse || u == triFalse:
		return triFalse
	case t == triNull || u == triNull:
		return triNull
	}
	return triTrue
}

func (t tri) value() sqltypes.Value {
	switch t {
	case triTrue:
		return sqltypes.NewInt64(1)
	case triFalse:
		return sqltypes.NewInt64(0)
	}
	return sqltypes.NULL
}

// holds reports whether cmp (-1, 0, 1) satisfies op.
func holds(op sqlparser.ComparisonExprOperator, cmp int) bool {
	switch op {
	case sqlparser.EqualOp, sqlparser.NullSafeEqualOp:
		return cmp == 0
	case sqlparser.NotEqualOp:
		return cmp != 0
	case sqlparser.LessThanOp:
		return cmp < 0
	case sqlparser.LessEqualOp:
		return cmp <= 0
	case sqlparser.GreaterThanOp:
		return cmp > 0
	case sqlparser.GreaterEqualOp:
		return cmp >= 0
	}
	return false
}

func (hc *hostCmp) eval(env *evalengine.ExpressionEnv) (sqltypes.Value, error) {
	switch hc.kind {
	case cmpOp:
		return hc.evalOp(env)
	case cmpIn:
		return hc.evalIn(env)
	case cmpBetween:
		return hc.evalBetween(env)
	case cmpField:
		return hc.evalField(env)
	case cmpLeast, cmpGreatest:
		return hc.evalExtreme(env)
	}
	// STRCMP
	a, null, err := hc.text(env, 0)
	if err != nil || null {
		return sqltypes.NULL, err
	}
	b, null, err := hc.text(env, 1)
	if err != nil || null {
		return sqltypes.NULL, err
	}
	return sqltypes.NewInt64(int64(hc.cmp(a, b))), nil
}

func (hc *hostCmp) evalOp(env *evalengine.ExpressionEnv) (sqltypes.Value, error) {
	a, anull, err := hc.text(env, 0)
	if err != nil {
		return sqltypes.NULL, err
	}
	if anull && hc.op != sqlparser.NullSafeEqualOp {
		return sqltypes.NULL, nil
	}
	b, bnull, err := hc.text(env, 1)
	if err != nil {
		return sqltypes.NULL, err
	}
	switch {
	case hc.op == sqlparser.NullSafeEqualOp && (anull || bnull):
		return triOf(anull && bnull).value(), nil
	case bnull:
		return sqltypes.NULL, nil
	}
	return triOf(holds(hc.op, hc.cmp(a, b))).value(), nil
}

// evalIn: NULL when the value is NULL, or when it equals no item and
// an item is NULL.
func (hc *hostCmp) evalIn(env *evalengine.ExpressionEnv) (sqltypes.Value, error) {
	a, null, err := hc.text(env, 0)
	if err != nil || null {
		return sqltypes.NULL, err
	}
	res := triFalse
	for i := 1; i < len(hc.args); i++ {
		b, null, err := hc.text(env, i)
		if err != nil {
			return sqltypes.NULL, err
		}
		if null {
			res = triNull
			continue
		}
		if hc.cmp(a, b) == 0 {
			res = triTrue
			break
		}
	}
	if hc.negate {
		res = res.not()
	}
	return res.value(), nil
}

// evalBetween: x >= from AND x <= to, in three-valued logic.
func (hc *hostCmp) evalBetween(env *evalengine.ExpressionEnv) (sqltypes.Value, error) {
	x, null, err := hc.text(env, 0)
	if err != nil || null {
		return sqltypes.NULL, err
	}
	res := triTrue
	for i, op := range []sqlparser.ComparisonExprOperator{sqlparser.GreaterEqualOp, sqlparser.LessEqualOp} {
		b, null, err := hc.text(env, i+1)
		if err != nil {
			return sqltypes.NULL, err
		}
		if null {
			res = res.and(triNull)
		} else {
			res = res.and(triOf(holds(op, hc.cmp(x, b))))
		}
	}
	if hc.negate {
		res = res.not()
	}
	return res.value(), nil
}

// evalField: the position of the first item equal to the value, 0 when
// none is or the value is NULL.
func (hc *hostCmp) evalField(env *evalengine.ExpressionEnv) (sqltypes.Value, error) {
	x, null, err := hc.text(env, 0)
	if err != nil || null {
		return sqltypes.NewInt64(0), err
	}
	for i := 1; i < len(hc.args); i++ {
		b, null, err := hc.text(env, i)
		if err != nil {
			return sqltypes.NULL, err
		}
		if !null && hc.cmp(x, b) == 0 {
			return sqltypes.NewInt64(int64(i)), nil
		}
	}
	return sqltypes.NewInt64(0), nil
}

// evalExtreme: LEAST or GREATEST, NULL when an argument is; of equal
// values the first, as MySQL keeps it.
func (hc *hostCmp) evalExtreme(env *evalengine.ExpressionEnv) (sqltypes.Value, error) {
	var best []byte
	for i := range hc.args {
		b, null, err := hc.text(env, i)
		if err != nil || null {
			return sqltypes.NULL, err
		}
		if i == 0 {
			best = b
			continue
		}
		c := hc.cmp(b, best)
		if (hc.kind == cmpLeast && c < 0) || (hc.kind == cmpGreatest && c > 0) {
			best = b
		}
	}
	return sqltypes.MakeTrusted(sqltypes.VarChar, best), nil
}
