package evalexpr

import (
	"errors"
	"strings"

	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/sqltypes"
	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shoaldb/shoal/evalexpr/convwarn"
)

// Division by zero.
//
// MariaDB answers x / 0, x DIV 0 and x MOD 0 with NULL and warning 1365
// (Division by 0), which the client sees in the result's warning count and
// SHOW WARNINGS; vitess' evaluator answers NULL and nothing else. So an
// expression records the divisions it makes on every row — those outside
// a branch of IF, CASE, IFNULL, COALESCE or the right side of AND/OR,
// which MariaDB may not evaluate — and DividesByZero tells whether one of
// them divides a value by zero on a row. Its caller then lets the replica
// answer the statement, warnings included (engine/schedule: Warned). A division
// in a branch is not checked: the row may not take the branch, and MariaDB
// warns only if it does.

// ErrDividesByZero ends a statement whose final stage divides a merged
// value by zero (DividesByZero) before anything is sent: MariaDB warns
// 1365 there, and its caller lets a replica answer, with that warning.
var ErrDividesByZero = errors.New("the final stage divides by zero: MariaDB warns")

// division is one division an expression makes on every row: its
// operands compiled on the expression's layout. With cast set it is a
// conversion instead: dividend read as that number type (casttrunc.go).
type division struct {
	dividend, divisor *Expr
	cast              *sqlparser.ConvertType
	// compare: dividend is text compared with divisor, a number
	// (implicit.go).
	compare bool
}

// divisions finds the divisions of ast that run on every row and
// compiles their operands on layout (without divisions of their own);
// an operand that does not compile alone leaves its division unchecked.
func (e *Env) divisions(ast sqlparser.Expr, layout *Layout) []division {
	type pending struct {
		a, b sqlparser.Expr // dividend, divisor; or the converted value
		cast *sqlparser.ConvertType
		// implicit: a is read as a number by arithmetic, checked only if
		// it is typed text; compare: a is compared with b, checked if one
		// is typed text and the other not (implicit.go).
		implicit, compare bool
	}
	var found []pending
	var walk func(n sqlparser.Expr)
	walk = func(n sqlparser.Expr) {
		switch x := n.(type) {
		case nil:
			return
		case *sqlparser.BinaryExpr:
			if x.Operator == sqlparser.DivOp || x.Operator == sqlparser.IntDivOp || x.Operator == sqlparser.ModOp {
				found = append(found, pending{a: x.Left, b: x.Right})
			}
			found = append(found, pending{a: x.Left, cast: implicitNumber, implicit: true}, pending{a: x.Right, cast: implicitNumber, implicit: true})
			walk(x.Left)
			walk(x.Right)
			return
		case *sqlparser.UnaryExpr:
			if x.Operator == sqlparser.UMinusOp {
				found = append(found, pending{a: x.Expr, cast: implicitNumber, implicit: true})
			}
		case *sqlparser.ComparisonExpr:
			for _, r := range convwarn.ComparedWith(x) {
				found = append(found, pending{a: x.Left, b: r, compare: true})
			}
		case *sqlparser.BetweenExpr:
			found = append(found, pending{a: x.Left, b: x.From, compare: true}, pending{a: x.Left, b: x.To, compare: true})
		case *sqlparser.AndExpr:
			walk(x.Left) // the right side only when the left does not decide
			return
		case *sqlparser.CastExpr:
			if numberType(x.Type) != "" && !x.Array {
				found = append(found, pending{a: x.Expr, cast: x.Type})
			}
		case *sqlparser.ConvertExpr:
			if numberType(x.Type) != "" {
				found = append(found, pending{a: x.Expr, cast: x.Type})
			}
		case *sqlparser.OrExpr:
			walk(x.Left)
			return
		case *sqlparser.CaseExpr:
			walk(x.Expr)
			if len(x.Whens) > 0 {
				walk(x.Whens[0].Cond)
			}
			return
		case *sqlparser.FuncExpr:
			switch strings.ToLower(x.Name.String()) {
			case "mod":
				if len(x.Exprs) == 2 {
					found = append(found, pending{a: x.Exprs[0], b: x.Exprs[1]})
				}
			case "if", "ifnull", "coalesce", "nvl", "nvl2":
				if len(x.Exprs) > 0 {
					walk(x.Exprs[0])
				}
				return
			}
		}
		self := true // Walk visits n first
		_ = sqlparser.Walk(func(c sqlparser.SQLNode) (bool, error) {
			if self {
				self = false
				return true, nil
			}
			if ex, ok := c.(sqlparser.Expr); ok {
				walk(ex)
				return false, nil
			}
			return true, nil
		}, n)
	}
	walk(ast)
	var out []division
	for _, b := range found {
		// An operand the evaluator cannot take alone (what makes it
		// exact may be around it): that division is not checked, as
		// one in a branch is not.
		l, err := e.compileNoDivisions(sqlparser.String(b.a), layout)
		if err != nil {
			continue
		}
		if b.implicit && l.Collation() == collations.Unknown {
			continue // a number: read as one without a conversion
		}
		if b.compare {
			r, err := e.compileNoDivisions(sqlparser.String(b.b), layout)
			if err != nil {
				continue
			}
			lt, rt := l.Collation() != collations.Unknown, r.Collation() != collations.Unknown
			switch {
			case lt && !rt:
				out = append(out, division{dividend: l, divisor: r, compare: true})
			case rt && !lt:
				out = append(out, division{dividend: r, divisor: l, compare: true})
			}
			continue
		}
		if b.cast != nil {
			out = append(out, division{dividend: l, cast: b.cast})
			continue
		}
		r, err := e.compileNoDivisions(sqlparser.String(b.b), layout)
		if err != nil {
			continue
		}
		out = append(out, division{dividend: l, divisor: r})
	}
	return out
}

// DividesByZero reports whether x, on row, divides a value by zero in a
// division it makes on every row (MariaDB's warning 1365), or converts
// text to a number that MariaDB warns about (castWarns: 1292). An operand
// that fails to evaluate counts as a zero divisor: the caller then lets
// the replica answer, which is never wrong.
func (v *Evaluator) DividesByZero(x *Expr, row []sqltypes.Value) bool {
	for _, d := range x.divs {
		a, _, err := v.Eval(d.dividend, row)
		if err != nil {
			return true
		}
		if d.compare {
			if comparisonWarns(v, d, a, row) {
				return true
			}
			continue
		}
		if d.cast != nil {
			if castWarns(a, d.cast) {
				return true
			}
			continue
		}
		if a.IsNull() {
			continue // NULL / 0 is NULL without a warning
		}
		b, _, err := v.Eval(d.divisor, row)
		if err != nil {
			return true
		}
		if !b.IsNull() && zeroValue(b) {
			return true
		}
	}
	return false
}

// Divides reports whether x makes a division on every row
// (DividesByZero has something to check).
func (x *Expr) Divides() bool { return len(x.divs) > 0 }

// zeroValue reports whether v reads as the number 0, as MariaDB reads a
// divisor: text by its numeric prefix ('12abc' is 12, 'abc' is 0).
func zeroValue(v sqltypes.Value) bool { return textDouble(v.Raw()) == 0 }
