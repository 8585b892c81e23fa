package evalexpr

import (
	"errors"

	"vitess.io/vitess/go/sqltypes"
	"vitess.io/vitess/go/vt/sqlparser"
	"vitess.io/vitess/go/vt/vtgate/evalengine"
)

// DECIMAL products that do not fit MariaDB's decimal buffer.
//
// MariaDB multiplies DECIMALs in a buffer of nine words of nine digits
// (strings/decimal.c, decimal_mul). When the product's integer words
// plus the operands' fraction words, ROUND_UP(frac1) + ROUND_UP(frac2),
// pass nine, it drops the lowest fraction words of the operands before
// multiplying, so the product's last digits are those of truncated
// operands: SUM(d) * SUM(d) over a DECIMAL(65,30) column is
// 316965273523138.680637090615411264145169890431… on MariaDB where the
// exact product (what the evaluator computes) is …264147911632291…, and
// MAX(d) * MAX(d) with MAX(d) = 8570.714285714000000000000000000001 is
// …00000000857071428571, not …01714142857143. The integer words are
// those of the values as MariaDB holds them (one word for 8570 and for
// 17803518), the fraction words those of their scale (four for 30).
//
// Such a product gets a guard: a host call that reads both operands and
// fails when MariaDB could drop words, counting a word to spare, and a
// failed final stage runs the statement on a replica (RuntimeError),
// which computes it as MariaDB does. Otherwise vitess' exact product is
// MariaDB's. A guard is added where the operand types are not known
// before the values arrive (merged SUMs) or allow that many words; the
// usual DECIMAL(12,2) amounts get none.

// decimalWords is MariaDB's decimal buffer, in words of nine digits.
const decimalWords = 9

// errDecimalBuffer is the failure of a product MariaDB would compute
// from truncated operands.
var errDecimalBuffer = errors.New("a DECIMAL product passes MariaDB's 81-digit buffer, which truncates its operands")

// hostMul guards a product whose operands may be DECIMALs.
type hostMul struct {
	left, right evalengine.Expr
}

func words(digits int32) int32 { return (digits + 8) / 9 }

// exactType reports DECIMAL and integer types.
func exactType(t evalengine.Type) bool {
	return t.Type() == sqltypes.Decimal || sqltypes.IsIntegral(t.Type())
}

// mul guards n when it is a product that may pass MariaDB's buffer. The
// product itself stays in the tree.
func (h *hoister) mul(n sqlparser.SQLNode) {
	b, ok := n.(*sqlparser.BinaryExpr)
	if !ok || b.Operator != sqlparser.MultOp {
		return
	}
	lx, lt, okL := h.translate(b.Left)
	rx, rt, okR := h.translate(b.Right)
	if lx == nil || rx == nil || okL && !exactType(lt) || okR && !exactType(rt) {
		return
	}
	if okL && okR {
		if lt.Type() != sqltypes.Decimal && rt.Type() != sqltypes.Decimal {
			return // an integer product
		}
		intg := func(t evalengine.Type) int32 {
			if t.Size() <= 0 || t.Size() < t.Scale() {
				return 65 // not known: as wide as a DECIMAL goes
			}
			return t.Size() - t.Scale()
		}
		if words(intg(lt))+words(intg(rt))+1+words(lt.Scale())+words(rt.Scale()) <= decimalWords {
			return
		}
	}
	h.add(&hostMul{left: lx, right: rx}, boolType(false))
}

func (hm *hostMul) eval(env *evalengine.ExpressionEnv) (sqltypes.Value, error) {
	var w int32
	decimal := false
	for _, x := range []evalengine.Expr{hm.left, hm.right} {
		r, err := env.Evaluate(x)
		if err != nil {
			return sqltypes.NULL, err
		}
		v := r.Value(0)
		switch {
		case v.IsNull():
			return zero, nil
		case v.Type() == sqltypes.Decimal:
			decimal = true
		case !sqltypes.IsIntegral(v.Type()):
			return zero, nil // a DOUBLE product
		}
		intg, frac := digits(v.Raw())
		w += max(words(intg), 1) + words(frac)
	}
	if decimal && w+1 > decimalWords {
		return sqltypes.NULL, errDecimalBuffer
	}
	return zero, nil
}

var zero = sqltypes.NewInt64(0)

// digits counts the digits of a number's text before its point (leading
// zeros left out) and after it.
func digits(b []byte) (intg, frac int32) {
	started, point := false, false
	for _, c := range b {
		switch {
		case c == '.':
			point = true
		case c < '0' || c > '9':
			if point || started {
				return intg, frac
			}
		case point:
			frac++
		case c != '0' || started:
			started = true
			intg++
		}
	}
	return intg, frac
}
