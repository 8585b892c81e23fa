package evalexpr

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/mysql/decimal"
	"vitess.io/vitess/go/sqltypes"
	"vitess.io/vitess/go/vt/sqlparser"
	"vitess.io/vitess/go/vt/vtgate/evalengine"
)

// FORMAT(x, d): x rounded to d decimals, with a comma between each three
// digits of its integer part and a point before its decimals (the en_US
// locale, MariaDB's without a third argument). Reports show totals this
// way (FORMAT(SUM(amount), 2)); vitess' evaluator has no FORMAT, so such a
// statement passed through. Evaluated here, for a constant d (MariaDB
// shows at most 38 decimals; a negative d, a d from an expression and
// another locale stay unsupported), as MariaDB's Item_func_format does:
//
//   - an integer or DECIMAL x is rounded half away from zero, exactly;
//   - any other x is read as a DOUBLE (text by its numeric prefix),
//     rounded as my_double_round does (rint(x * 10^d) / 10^d: half to
//     even, on the double) and printed with the fewest digits that read
//     back as that double, then zeros to d decimals (FORMAT(1/3e0, 20) is
//     0.33333333333333330000);
//   - a DATE, DATETIME or TIME x, which MariaDB reads as its number
//     (20240105), is not evaluated: the statement runs on a replica.

// maxFormatDecimals is the most decimals MariaDB's FORMAT shows.
const maxFormatDecimals = 38

// hostFormat is FORMAT of an exact value.
type hostFormat struct {
	arg    evalengine.Expr
	places int32
}

func (hf *hostFormat) eval(env *evalengine.ExpressionEnv) (sqltypes.Value, error) {
	r, err := env.Evaluate(hf.arg)
	if err != nil {
		return sqltypes.NULL, err
	}
	v := r.Value(collations.CollationUtf8mb4ID)
	switch {
	case v.IsNull():
		return sqltypes.NULL, nil
	case v.IsIntegral() || v.Type() == sqltypes.Decimal:
		d, err := decimal.NewFromMySQL(v.Raw())
		if err != nil {
			return sqltypes.NULL, err
		}
		return sqltypes.NewVarChar(formatFixed(d.StringFixed(hf.places))), nil
	case v.IsFloat():
		f, err := strconv.ParseFloat(v.ToString(), 64)
		if err != nil {
			return sqltypes.NULL, err
		}
		return sqltypes.NewVarChar(formatDouble(f, hf.places)), nil
	case v.IsText() || v.IsBinary():
		return sqltypes.NewVarChar(formatDouble(textDouble(v.Raw()), hf.places)), nil
	}
	return sqltypes.NULL, fmt.Errorf("FORMAT of a %s value is not evaluated here", v.Type())
}

// formatDouble is FORMAT(f, places) of a DOUBLE.
func formatDouble(f float64, places int32) string {
	p := math.Pow(10, float64(places))
	if m := f * p; !math.IsInf(m, 0) {
		f = math.RoundToEven(m) / p
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	_, frac, _ := strings.Cut(s, ".")
	switch n := int(places) - len(frac); {
	case n < 0:
		s = strconv.FormatFloat(f, 'f', int(places), 64)
	case places > 0 && len(frac) == 0:
		s += "." + strings.Repeat("0", n)
	default:
		s += strings.Repeat("0", n)
	}
	return formatFixed(s)
}

// formatFixed puts a comma between each three digits of the integer part
// of s, a number as [-]digits[.digits]; a minus before nothing but zeros
// is dropped (FORMAT(-0.001, 2) is 0.00).
func formatFixed(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	if neg && strings.Trim(whole+frac, "0") != "" {
		b.WriteByte('-')
	}
	for i := range len(whole) {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(whole[i])
	}
	if hasFrac {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String()
}

// format hosts FORMAT(x, d[, 'en_US']) of an exact x and a constant d;
// nil leaves the call to vitess (which refuses it).
func (h *hoister) format(n sqlparser.SQLNode) sqlparser.Expr {
	f, ok := n.(*sqlparser.FuncExpr)
	if !ok || !strings.EqualFold(f.Name.String(), "format") || len(f.Exprs) < 2 || len(f.Exprs) > 3 {
		return nil
	}
	if len(f.Exprs) == 3 {
		arg := f.Exprs[2]
		if in, ok := arg.(*sqlparser.IntroducerExpr); ok { // _utf8mb4'en_US'
			arg = in.Expr
		}
		loc, ok := arg.(*sqlparser.Literal)
		if !ok || loc.Type != sqlparser.StrVal || !strings.EqualFold(loc.Val, "en_US") {
			return nil
		}
	}
	lit, ok := f.Exprs[1].(*sqlparser.Literal)
	if !ok || lit.Type != sqlparser.IntVal {
		return nil
	}
	places, err := strconv.ParseInt(lit.Val, 10, 64)
	if err != nil {
		return nil
	}
	ax, err := evalengine.Translate(f.Exprs[0], h.cfg)
	if err != nil {
		return nil
	}
	nullable := true
	if t, err := evalengine.EmptyExpressionEnv(h.e.vt).TypeOf(ax); err == nil && t.Valid() {
		if sqltypes.IsDateOrTime(t.Type()) {
			return nil
		}
		nullable = t.Nullable()
	}
	hf := &hostFormat{arg: ax, places: int32(min(places, maxFormatDecimals))}
	return h.add(hf, evalengine.NewTypeEx(sqltypes.VarChar, h.cfg.Collation, nullable, 0, 0, nil))
}
