// Package keyconst folds the constant a split-key comparison is made
// with (`id = 10 + 5`, `id >= CAST('7' AS SIGNED)`) to the value an
// integer column is compared with, by MySQL's rules: the planner turns
// such comparisons into key windows (planner/keybounds.go).
package keyconst

import (
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	"github.com/pingcap/tidb/pkg/parser/test_driver"
	"vitess.io/vitess/go/sqltypes"

	"github.com/shoaldb/shoal/evalexpr"
	"github.com/shoaldb/shoal/sqlparse"
)

// Const is a constant compared with the integer split column, as the
// comparison sees it: NULL, an integer, or a number strictly between
// floor and floor+1.
type Const struct {
	Null  bool
	Floor int64
	Exact bool // the value is Floor itself
}

// maxExactDouble bounds the doubles a key comparison is folded from:
// from 2^53 on a double no longer holds every integer, and MariaDB's
// comparisons of a BIGINT with a double (or a string, compared as a
// double) there depend on the access path.
const maxExactDouble = 1 << 53

// Fold folds e, a constant expression, to the value an integer
// column is compared with, with MySQL's semantics: integer arithmetic is
// exact (an overflow is an error, not a value), a DECIMAL compares as a
// decimal (id = 7.5 matches nothing, id >= 7.5 is id >= 8), a string or a
// double as a double (id = '7abc' is id = 7). ok is false for anything
// else: columns, variables, parameters, subqueries, functions outside a
// short deterministic list (RAND(), NOW(), ...), hexadecimal and bit
// literals, temporal values, and numbers beyond the exact range. The
// expression is evaluated by vitess' evalengine (evalexpr), so MySQL's own
// rules, not ours, decide 16/3 or CAST('7abc' AS SIGNED).
func Fold(e ast.ExprNode) (Const, bool) {
	if v, ok := IntLiteral(e); ok {
		return Const{Floor: v, Exact: true}, true
	}
	if !foldable(e) {
		return Const{}, false
	}
	src, err := sqlparse.Restore(e)
	if err != nil {
		return Const{}, false
	}
	v, ok := evalConst(src)
	if !ok {
		return Const{}, false
	}
	if sqltypes.IsText(v.Type()) {
		// A string compares with a number as a double: '7abc' is 7.
		if v, ok = evalConst("(" + src + ")+0e0"); !ok {
			return Const{}, false
		}
	}
	return constOf(v)
}

// constOf reads an evaluated constant.
func constOf(v sqltypes.Value) (Const, bool) {
	t := v.Type()
	switch {
	case v.IsNull():
		return Const{Null: true}, true
	case sqltypes.IsSigned(t):
		n, err := v.ToInt64()
		return Const{Floor: n, Exact: true}, err == nil
	case sqltypes.IsUnsigned(t):
		n, err := v.ToUint64()
		if err != nil || n > math.MaxInt64 {
			return Const{}, false
		}
		return Const{Floor: int64(n), Exact: true}, true
	case t == sqltypes.Decimal:
		return decimalConst(v.ToString())
	case sqltypes.IsFloat(t):
		f, err := v.ToFloat64()
		if err != nil || math.IsNaN(f) || math.Abs(f) >= maxExactDouble {
			return Const{}, false
		}
		fl := math.Floor(f)
		return Const{Floor: int64(fl), Exact: fl == f}, true
	}
	return Const{}, false
}

// decimalConst reads a DECIMAL's text, e.g. "-7.50".
func decimalConst(s string) (Const, bool) {
	neg := strings.HasPrefix(s, "-")
	ip, fp, _ := strings.Cut(s, ".")
	n, err := strconv.ParseInt(ip, 10, 64)
	if err != nil {
		return Const{}, false
	}
	if strings.Trim(fp, "0") == "" {
		return Const{Floor: n, Exact: true}, true
	}
	if neg { // -7.5: floor is -8
		if n == math.MinInt64 {
			return Const{}, false
		}
		n--
	}
	return Const{Floor: n}, true
}

var (
	foldEnvOnce sync.Once
	foldEnv     *evalexpr.Env
	foldLayout  = evalexpr.NewLayout(nil, nil)
)

// evalConst evaluates a constant SQL expression with MariaDB's semantics.
func evalConst(src string) (sqltypes.Value, bool) {
	foldEnvOnce.Do(func() { foldEnv, _ = evalexpr.NewEnv("10.11-MariaDB") })
	if foldEnv == nil {
		return sqltypes.NULL, false
	}
	x, err := foldEnv.Compile(src, foldLayout)
	if err != nil || x.Inexact() != "" {
		// Not folded: the WHERE clause still goes to the replicas whole.
		return sqltypes.NULL, false
	}
	v, _, err := foldEnv.NewEvaluator().Eval(x, nil)
	if err != nil {
		return sqltypes.NULL, false
	}
	return v, true
}

// foldFuncs are the functions a folded key constant may call: pure and
// deterministic.
var foldFuncs = map[string]bool{
	"abs": true, "floor": true, "ceil": true, "ceiling": true, "round": true,
	"truncate": true, "mod": true, "greatest": true, "least": true,
}

// foldable reports whether e is a constant expression Fold may
// evaluate: literals (not hexadecimal or bit), arithmetic, CAST/CONVERT to
// an integer or a DECIMAL, and foldFuncs.
func foldable(e ast.ExprNode) bool {
	switch x := e.(type) {
	case *ast.ParenthesesExpr:
		return foldable(x.Expr)
	case *test_driver.ValueExpr:
		switch x.Kind() {
		case test_driver.KindNull, test_driver.KindInt64, test_driver.KindUint64,
			test_driver.KindFloat32, test_driver.KindFloat64, test_driver.KindMysqlDecimal,
			test_driver.KindString:
			return true
		}
		return false
	case *ast.UnaryOperationExpr:
		return (x.Op == opcode.Minus || x.Op == opcode.Plus) && foldable(x.V)
	case *ast.BinaryOperationExpr:
		switch x.Op {
		case opcode.Plus, opcode.Minus, opcode.Mul, opcode.Div, opcode.IntDiv, opcode.Mod:
			return foldable(x.L) && foldable(x.R)
		}
		return false
	case *ast.FuncCastExpr:
		switch x.Tp.GetType() {
		case mysql.TypeLonglong, mysql.TypeNewDecimal, mysql.TypeString, mysql.TypeVarString, mysql.TypeVarchar:
			return foldable(x.Expr)
		}
		return false
	case *ast.FuncCallExpr:
		if !foldFuncs[x.FnName.L] {
			return false
		}
		for _, a := range x.Args {
			if !foldable(a) {
				return false
			}
		}
		return len(x.Args) > 0
	}
	return false
}

// IntLiteral returns the value of an integer literal (signed, optionally
// negated); other literals, including decimals and strings, are not
// understood.
func IntLiteral(e ast.ExprNode) (int64, bool) {
	e = Unparen(e)
	if u, ok := e.(*ast.UnaryOperationExpr); ok && u.Op == opcode.Minus {
		v, ok := IntLiteral(u.V)
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

// Unparen strips the parentheses around e.
func Unparen(e ast.ExprNode) ast.ExprNode {
	for {
		p, ok := e.(*ast.ParenthesesExpr)
		if !ok {
			return e
		}
		e = p.Expr
	}
}
