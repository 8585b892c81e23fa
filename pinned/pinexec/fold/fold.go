// Package fold folds the constant side of a filter into a literal, and
// tells which expressions must never be tabulated, for the in-memory
// engine's recognized filter shapes (package pinexec).
//
// Dashboards write the literal side of a filter as an expression more
// often than as a literal: `day >= DATE '2024-01-01' + INTERVAL 30 DAY`,
// `grp = CONCAT('g', 3)`, `amount > 10 * 100`. A conjunct whose other
// side is such an expression is recognized once that side has been
// evaluated (by evalengine, with MySQL's rules) and written back as the
// literal of its result type, which the shapes then place exactly as
// they place a literal the user typed: an integer, a DECIMAL, a double,
// a DATE or an ASCII string. Only pure, deterministic expressions are
// folded (a compiled Program may be reused), so NOW(), RAND(), variables
// and anything reading a column keep the evaluated path.
//
// Volatile reports the expressions whose value is not a function of
// their arguments (the clock, RAND, the session), which the engine never
// evaluates once per code. It is its own package because both are
// questions about an expression alone, not about a pinned table: it
// imports vitess' parser and value types and evalexpr (to evaluate a
// folded constant).
package fold

import (
	"strings"

	"vitess.io/vitess/go/sqltypes"
	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shoaldb/shoal/evalexpr"
)

// foldFuncs are the functions a folded constant may call.
var foldFuncs = map[string]bool{
	"concat": true, "lower": true, "upper": true, "lcase": true, "ucase": true,
	"abs": true, "floor": true, "ceil": true, "ceiling": true, "round": true, "truncate": true, "mod": true,
	"greatest": true, "least": true, "date": true, "makedate": true,
}

// foldable reports whether e is a pure constant expression of literals,
// arithmetic, date-interval arithmetic, casts and foldFuncs.
func foldable(e sqlparser.Expr) bool {
	ok := true
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch x := n.(type) {
		case *sqlparser.Literal:
			switch x.Type {
			case sqlparser.IntVal, sqlparser.DecimalVal, sqlparser.FloatVal, sqlparser.StrVal, sqlparser.DateVal:
			default:
				ok = false
			}
		case *sqlparser.UnaryExpr, *sqlparser.BinaryExpr, *sqlparser.IntroducerExpr,
			*sqlparser.ConvertType, *sqlparser.Exprs, *sqlparser.IntervalDateExpr:
		case *sqlparser.CastExpr, *sqlparser.ConvertExpr, sqlparser.IdentifierCI, sqlparser.IdentifierCS:
			// Identifiers here name functions and types; columns are
			// ColNames.
		case *sqlparser.FuncExpr:
			ok = ok && x.Qualifier.IsEmpty() && foldFuncs[x.Name.Lowered()]
		default:
			ok = false
		}
		return ok, nil
	}, e)
	return ok
}

// Const returns e as a literal when it is a foldable constant expression
// (not already a literal) whose value has a literal form; otherwise e.
func Const(env *evalexpr.Env, e sqlparser.Expr) sqlparser.Expr {
	switch x := e.(type) {
	case *sqlparser.Literal, *sqlparser.IntroducerExpr, sqlparser.ValTuple:
		return e
	case *sqlparser.UnaryExpr:
		if _, ok := x.Expr.(*sqlparser.Literal); ok {
			return e
		}
	}
	if !foldable(e) {
		return e
	}
	x, err := env.Compile(sqlparser.String(e), evalexpr.NewLayout(nil, nil))
	if err != nil || x.Inexact() != "" {
		return e
	}
	v, _, err := env.NewEvaluator().Eval(x, nil)
	if err != nil || v.IsNull() {
		return e
	}
	if l := literalOf(v); l != nil {
		return l
	}
	return e
}

// literalOf is the literal of v's type that MySQL would compare as it
// compares v, or nil.
func literalOf(v sqltypes.Value) sqlparser.Expr {
	s := v.ToString()
	var l *sqlparser.Literal
	switch t := v.Type(); {
	case sqltypes.IsSigned(t):
		l = sqlparser.NewIntLiteral(s)
	case t == sqltypes.Decimal:
		l = sqlparser.NewDecimalLiteral(s)
	case t == sqltypes.Float64:
		l = sqlparser.NewFloatLiteral(s)
	case t == sqltypes.Date:
		l = &sqlparser.Literal{Type: sqlparser.DateVal, Val: s}
	case t == sqltypes.VarChar:
		l = sqlparser.NewStrLiteral(s)
	default:
		return nil
	}
	if strings.HasPrefix(l.Val, "-") {
		l.Val = l.Val[1:]
		return &sqlparser.UnaryExpr{Operator: sqlparser.UMinusOp, Expr: l}
	}
	return l
}

// volatileFuncs are functions whose value is not a function of their
// arguments: the clock, randomness, the session.
var volatileFuncs = map[string]bool{
	"rand": true, "uuid": true, "uuid_short": true, "sysdate": true, "now": true, "curdate": true,
	"current_date": true, "curtime": true, "current_time": true, "current_timestamp": true,
	"localtime": true, "localtimestamp": true, "utc_date": true, "utc_time": true, "utc_timestamp": true,
	"unix_timestamp": true, "connection_id": true, "last_insert_id": true, "database": true, "schema": true,
	"user": true, "current_user": true, "session_user": true, "system_user": true, "found_rows": true,
	"row_count": true, "sleep": true, "benchmark": true, "get_lock": true, "release_lock": true,
	"is_free_lock": true, "is_used_lock": true, "master_pos_wait": true, "master_gtid_wait": true,
}

// Volatile reports whether e calls the clock, a random generator or the
// session: its value per code cannot be tabulated once and kept.
func Volatile(e sqlparser.Expr) bool {
	found := false
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch x := n.(type) {
		case *sqlparser.CurTimeFuncExpr:
			found = true
		case *sqlparser.FuncExpr:
			found = found || volatileFuncs[x.Name.Lowered()]
		}
		return !found, nil
	}, e)
	return found
}
