package evalexpr

import (
	"fmt"
	"strings"

	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/sqltypes"
	"vitess.io/vitess/go/vt/sqlparser"
	"vitess.io/vitess/go/vt/vtgate/evalengine"
)

// Host calls: the parts of an expression this package evaluates itself,
// where vitess' evalengine answers otherwise than MySQL.
//
//   - LOWER and UPPER over collations vitess cannot case-map (casemap.go);
//   - comparisons of text under a PAD SPACE collation, which vitess makes
//     as if trailing spaces mattered (padspace.go);
//   - LIKE … ESCAPE, whose escape character vitess ignores (like.go);
//   - text read as a number, which vitess reads as 0 when the number is
//     followed by a bare exponent mark ('9E') (strnum.go);
//   - comparisons of a DATE, DATETIME or TIMESTAMP with text or a number,
//     which vitess reads only in canonical forms ('2016-12-30 10:00' is
//     no date to it) (datetext.go, with padspace.go's hostCmp);
//   - DECIMAL products wider than MariaDB's 81-digit buffer, which it
//     computes from truncated operands (decmul.go: a guard that fails,
//     and the statement runs on a replica);
//   - FORMAT of an integer or DECIMAL, which vitess does not evaluate
//     (format.go).
//
// Each call is replaced in the tree by a synthetic column (__host0,
// __host1, …, innermost first) typed with the call's result; vitess
// evaluates the call's arguments, this package the rest, before the
// expression that reads the column (Evaluator.bind). A host call is
// therefore evaluated for every row, even in a branch of IF or CASE that
// the row does not take: none of them fails on a value but the guard of a
// too wide DECIMAL product, which sends the statement to a replica.
type host interface {
	// eval computes the call over the row env holds (its layout columns
	// and the results of the host calls before it).
	eval(env *evalengine.ExpressionEnv) (sqltypes.Value, error)
}

// hoister replaces host calls in an expression tree with synthetic
// columns, bottom up, and records them in x.
type hoister struct {
	e   *Env
	cfg *evalengine.Config
	x   *Expr
	// types are the synthetic columns' types, in order.
	types []evalengine.Type
	err   error
}

// hoist rewrites ast, innermost calls first; h.err says why it stopped.
func (h *hoister) hoist(ast sqlparser.Expr) sqlparser.Expr {
	return sqlparser.Rewrite(ast, nil, func(c *sqlparser.Cursor) bool {
		n := c.Node()
		if arg, upper, ok := isCaseFunc(n); ok {
			h.caseFunc(c, arg, upper)
			return h.err == nil
		}
		h.numbers(n)
		if h.err == nil {
			if r := h.compare(n); r != nil {
				c.Replace(r)
			}
		}
		if h.err == nil {
			if r := h.like(n); r != nil {
				c.Replace(r)
			}
		}
		if h.err == nil {
			if r := h.format(n); r != nil { // format.go
				c.Replace(r)
			}
		}
		if h.err == nil {
			h.mul(n) // a guard, decmul.go
		}
		return h.err == nil
	}).(sqlparser.Expr)
}

// add records a host call of result type t and returns the column that
// stands for it.
func (h *hoister) add(call host, t evalengine.Type) *sqlparser.ColName {
	i := len(h.x.hosts)
	h.x.hosts = append(h.x.hosts, call)
	h.types = append(h.types, t)
	return sqlparser.NewColName(fmt.Sprintf("__host%d", i))
}

// translate translates e (which may read earlier host columns) and types
// it; ok is false when it cannot be typed before the values arrive.
func (h *hoister) translate(e sqlparser.Expr) (evalengine.Expr, evalengine.Type, bool) {
	ex, err := evalengine.Translate(e, h.cfg)
	if err != nil {
		return nil, evalengine.Type{}, false
	}
	t, err := evalengine.EmptyExpressionEnv(h.e.vt).TypeOf(ex)
	if err != nil || !t.Valid() {
		return ex, evalengine.Type{}, false
	}
	return ex, t, true
}

// isText reports a type of nonbinary text (not ENUM or SET).
func isText(t evalengine.Type) bool {
	return sqltypes.IsText(t.Type()) && t.Collation() != collations.CollationBinaryID && t.Collation() != collations.Unknown
}

// isNull reports the type of the NULL literal.
func isNull(t evalengine.Type) bool { return t.Type() == sqltypes.Null }

// boolType is the type of a host call that answers 0, 1 or NULL (or
// another integer).
func boolType(nullable bool) evalengine.Type {
	return evalengine.NewTypeEx(sqltypes.Int64, collations.CollationBinaryID, nullable, 0, 0, nil)
}

// caseFunc hosts LOWER/UPPER over a collation vitess cannot case-map
// (casemap.go); numbers, dates and the collations vitess maps stay.
func (h *hoister) caseFunc(c *sqlparser.Cursor, arg sqlparser.Expr, upper bool) {
	ax, err := evalengine.Translate(arg, h.cfg)
	if err != nil {
		h.err = err
		return
	}
	t, err := evalengine.EmptyExpressionEnv(h.e.vt).TypeOf(ax)
	if err != nil || !sqltypes.IsText(t.Type()) {
		return // numbers, dates: vitess formats them
	}
	coll := t.Collation()
	hc := &hostCase{arg: ax, upper: upper, coll: coll}
	if !hc.vitessMaps(h.e) {
		if hc.m, err = h.e.caseMap(coll); err != nil {
			h.err = fmt.Errorf("%s over collation %d: %w", strings.ToUpper(c.Node().(*sqlparser.FuncExpr).Name.String()), coll, err)
			return
		}
	}
	col := h.add(hc, evalengine.NewTypeEx(sqltypes.VarChar, coll, t.Nullable(), t.Size(), 0, nil))
	c.Replace(collated(col, arg, coll, h.e.vt.CollationEnv()))
}

// collated is the synthetic column col of a host call whose text result
// keeps its argument's collation coll (LOWER, UPPER), marked with it as
// columnCollations marks the columns the argument reads: evalengine
// types a column as coercible as a literal, so `LOWER(name) LIKE
// '%cafe%'` over a utf8mb4_unicode_ci column compared the lowered text
// with the literal byte for byte ('café muller' did not match, where
// MariaDB compares under the column's collation, accents and case
// aside). Only where columnCollations marked the argument (it reads a
// COLLATE), so the rules between columns of different collations stay
// evalengine's.
func collated(col *sqlparser.ColName, arg sqlparser.Expr, coll collations.ID, env *collations.Environment) sqlparser.Expr {
	marked := false
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if _, ok := n.(*sqlparser.CollateExpr); ok {
			marked = true
		}
		return !marked, nil
	}, arg)
	if !marked || !env.IsSupported(coll) {
		return col
	}
	name := env.LookupName(coll)
	if name == "" {
		return col
	}
	return &sqlparser.CollateExpr{Expr: col, Collation: name}
}
