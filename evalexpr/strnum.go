package evalexpr

import (
	"math"
	"strconv"
	"strings"

	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/sqltypes"
	"vitess.io/vitess/go/vt/sqlparser"
	"vitess.io/vitess/go/vt/vtgate/evalengine"
)

// Text read as a number.
//
// Where MySQL computes with text as a number (arithmetic, a comparison
// with a number, a math function, a truth value), it reads the longest
// prefix that is a number, after leading white space, as a DOUBLE: '9E' is
// 9, '12abc' is 12, '\n5' is 5, 'inf' is 0. vitess' parser of that prefix
// (fastparse) gives up on an exponent mark without digits ('9E', '9e-',
// '9E+') and answers 0; it skips only spaces and tabs in front; and it
// reads 'inf' and 'nan'. So the text operands of the numeric operators
// and functions below are read here (hostNum, as DOUBLE: what vitess and
// MySQL convert text to there), and vitess computes on with the number:
//
//   - + - * / % and unary minus; MOD and the math functions (ABS, SIGN,
//     CEIL, FLOOR, ROUND, TRUNCATE, SQRT, POW, EXP, LN, LOG…, the
//     trigonometric ones, FORMAT's number);
//   - comparisons (=, <, IN, BETWEEN, …) of text with numbers only;
//   - truth values: AND, OR, XOR, NOT, IS [NOT] TRUE/FALSE, IF's and
//     CASE WHEN's conditions;
//   - CAST and CONVERT to DOUBLE, FLOAT or REAL.
//
// DIV, the bit operators and CAST AS SIGNED/DECIMAL read text through
// vitess' integer and decimal parsers, which stop at the 'E' as MySQL
// does; MariaDB reads text for the bit operators as a DECIMAL, exact for
// big integers, so a DOUBLE would not do there either ('2.5' & 7 and
// '1e1' | 0 stay vitess': docs/sql.md).

// hostNum is text read as a DOUBLE.
type hostNum struct {
	arg evalengine.Expr
}

func (hn *hostNum) eval(env *evalengine.ExpressionEnv) (sqltypes.Value, error) {
	r, err := env.Evaluate(hn.arg)
	if err != nil {
		return sqltypes.NULL, err
	}
	v := r.Value(collations.CollationUtf8mb4ID) // digits are ASCII in it
	if v.IsNull() {
		return sqltypes.NULL, nil
	}
	return sqltypes.NewFloat64(textDouble(v.Raw())), nil
}

// textDouble reads text as MySQL does in a numeric context: white space,
// then the longest prefix of the form [+-]digits[.digits][e[+-]digits]
// (an exponent only with its digits), as the nearest DOUBLE; 0 when there
// is no number, ±DBL_MAX when it is out of range.
func textDouble(b []byte) float64 {
	i := 0
	for i < len(b) && isSpaceByte(b[i]) {
		i++
	}
	start := i
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		i++
	}
	digits := 0
	for i < len(b) && isDigit(b[i]) {
		i, digits = i+1, digits+1
	}
	if i < len(b) && b[i] == '.' {
		i++
		for i < len(b) && isDigit(b[i]) {
			i, digits = i+1, digits+1
		}
	}
	if digits == 0 {
		return 0
	}
	end := i
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		j := i + 1
		if j < len(b) && (b[j] == '+' || b[j] == '-') {
			j++
		}
		k := j
		for k < len(b) && isDigit(b[k]) {
			k++
		}
		if k > j {
			end = k
		}
	}
	f, err := strconv.ParseFloat(string(b[start:end]), 64)
	if err != nil && math.IsInf(f, 0) {
		f = math.Copysign(math.MaxFloat64, f)
	}
	return f
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isSpaceByte is MySQL's white space in front of a number: space, \t,
// \n, \v, \f and \r.
func isSpaceByte(c byte) bool { return c == ' ' || (c >= '\t' && c <= '\r') }

// numericArgs are the functions that read their arguments as numbers:
// -1 all of them, n the first n.
var numericArgs = map[string]int{
	"abs": -1, "sign": -1, "ceil": -1, "ceiling": -1, "floor": -1, "sqrt": -1, "exp": -1, "ln": -1,
	"log": -1, "log2": -1, "log10": -1, "pow": -1, "power": -1, "sin": -1, "cos": -1, "tan": -1,
	"asin": -1, "acos": -1, "atan": -1, "atan2": -1, "cot": -1, "degrees": -1, "radians": -1, "mod": -1,
	"round": 1, "truncate": 1, "format": 1, "if": 1,
}

// numbers replaces the text operands n reads as numbers with host calls
// that read them as MySQL does.
func (h *hoister) numbers(n sqlparser.SQLNode) {
	switch n := n.(type) {
	case *sqlparser.BinaryExpr:
		switch n.Operator {
		case sqlparser.PlusOp, sqlparser.MinusOp, sqlparser.MultOp, sqlparser.DivOp, sqlparser.ModOp:
			n.Left, n.Right = h.number(n.Left), h.number(n.Right)
		}
	case *sqlparser.UnaryExpr:
		if n.Operator == sqlparser.UMinusOp || n.Operator == sqlparser.BangOp {
			n.Expr = h.number(n.Expr)
		}
	case *sqlparser.AndExpr:
		n.Left, n.Right = h.number(n.Left), h.number(n.Right)
	case *sqlparser.OrExpr:
		n.Left, n.Right = h.number(n.Left), h.number(n.Right)
	case *sqlparser.XorExpr:
		n.Left, n.Right = h.number(n.Left), h.number(n.Right)
	case *sqlparser.NotExpr:
		n.Expr = h.number(n.Expr)
	case *sqlparser.IsExpr:
		if n.Right != sqlparser.IsNullOp && n.Right != sqlparser.IsNotNullOp {
			n.Left = h.number(n.Left)
		}
	case *sqlparser.CaseExpr:
		if n.Expr == nil {
			for _, w := range n.Whens {
				w.Cond = h.number(w.Cond)
			}
		}
	case *sqlparser.FuncExpr:
		k, ok := numericArgs[n.Name.Lowered()]
		if !ok || !n.Qualifier.IsEmpty() {
			return
		}
		for i := range n.Exprs {
			if k < 0 || i < k {
				n.Exprs[i] = h.number(n.Exprs[i])
			}
		}
	case *sqlparser.ComparisonExpr:
		switch n.Operator {
		case sqlparser.EqualOp, sqlparser.NotEqualOp, sqlparser.LessThanOp, sqlparser.LessEqualOp,
			sqlparser.GreaterThanOp, sqlparser.GreaterEqualOp, sqlparser.NullSafeEqualOp:
			args := h.againstNumbers([]sqlparser.Expr{n.Left, n.Right})
			n.Left, n.Right = args[0], args[1]
		case sqlparser.InOp, sqlparser.NotInOp:
			if list, ok := n.Right.(sqlparser.ValTuple); ok {
				n.Left = h.inNumbers(n.Left, list)
			}
		}
	case *sqlparser.CastExpr:
		if toDouble(n.Type) && !n.Array {
			n.Expr = h.number(n.Expr)
		}
	case *sqlparser.ConvertExpr:
		if toDouble(n.Type) {
			n.Expr = h.number(n.Expr)
		}
	case *sqlparser.BetweenExpr:
		args := h.againstNumbers([]sqlparser.Expr{n.Left, n.From, n.To})
		n.Left, n.From, n.To = args[0], args[1], args[2]
	}
}

// toDouble reports CAST or CONVERT to DOUBLE, FLOAT or REAL.
func toDouble(t *sqlparser.ConvertType) bool {
	if t == nil {
		return false
	}
	switch strings.ToLower(t.Type) {
	case "double", "float", "real", "double precision":
		return true
	}
	return false
}

// number is e, or a host call reading it as a number when it is text.
func (h *hoister) number(e sqlparser.Expr) sqlparser.Expr {
	if _, tuple := e.(sqlparser.ValTuple); tuple {
		return e
	}
	ex, t, ok := h.translate(e)
	if !ok || !isText(t) {
		return e
	}
	return h.add(&hostNum{arg: ex}, evalengine.NewTypeEx(sqltypes.Float64, collations.CollationBinaryID, t.Nullable(), 0, 0, nil))
}

// againstNumbers reads the text among the operands of a comparison or
// BETWEEN as numbers when the others are numbers (or NULL): MySQL then
// compares them all as DOUBLEs. Text against text or dates stays.
func (h *hoister) againstNumbers(args []sqlparser.Expr) []sqlparser.Expr {
	text, num := 0, 0
	for _, a := range args {
		_, t, ok := h.translate(a)
		switch {
		case !ok:
			return args
		case isText(t):
			text++
		case sqltypes.IsNumber(t.Type()):
			num++
		case !isNull(t):
			return args
		}
	}
	if text == 0 || num == 0 {
		return args
	}
	out := make([]sqlparser.Expr, len(args))
	for i, a := range args {
		out[i] = h.number(a)
	}
	return out
}

// inNumbers reads the text of `left IN (list)` as numbers where MySQL
// compares it with a number: each item is compared with the value on its
// own ('x' IN ('y', 1) compares 'x' with 'y' as text), so text on the
// left is read as a number only when every item is a number, and text
// items only when the left is one. It returns the left operand; list is
// changed in place.
func (h *hoister) inNumbers(left sqlparser.Expr, list sqlparser.ValTuple) sqlparser.Expr {
	kind := func(e sqlparser.Expr) (text, num, ok bool) {
		_, t, ok := h.translate(e)
		return ok && isText(t), ok && sqltypes.IsNumber(t.Type()), ok && (isText(t) || sqltypes.IsNumber(t.Type()) || isNull(t))
	}
	ltext, lnum, ok := kind(left)
	if !ok {
		return left
	}
	switch {
	case lnum:
		for i, x := range list {
			if text, _, _ := kind(x); text {
				list[i] = h.number(x)
			}
		}
	case ltext:
		nums := 0
		for _, x := range list {
			text, num, ok := kind(x)
			if !ok || text {
				return left
			}
			if num {
				nums++
			}
		}
		if nums > 0 {
			return h.number(left)
		}
	}
	return left
}
