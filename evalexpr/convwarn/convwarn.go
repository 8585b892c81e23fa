// Package convwarn tells, from a statement's form and its columns'
// types, whether MariaDB may warn (1292) converting a value implicitly:
// text read as a number by a comparison, arithmetic, SUM or a numeric
// CAST, a number or a date compared with text that is neither. The
// in-memory engine over pins counts no warnings, so it leaves such a
// statement to the replicas, whose warnings the client gets
// (pinned/pinexec). It decides on the form alone: `Carrier = 0` over text
// that is all digits warns on neither side and still leaves the pin.
package convwarn

import (
	"regexp"
	"strings"

	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
	"vitess.io/vitess/go/vt/sqlparser"
)

// TypeOf types a column the statement reads: its MySQL type and name, ok
// false for one it does not know.
type TypeOf func(*sqlparser.ColName) (t querypb.Type, name string, ok bool)

// Risk returns why e may raise a conversion warning on MariaDB, "" if it
// cannot. It looks at the forms users write (a column against a literal
// or a column, arithmetic and CAST over a column or a literal); an
// operand it cannot type is taken as safe.
func Risk(e sqlparser.Expr, typeOf TypeOf) string {
	why := ""
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if why != "" {
			return false, nil
		}
		switch x := n.(type) {
		case *sqlparser.ComparisonExpr:
			for _, r := range ComparedWith(x) {
				if why = comparisonRisk(typeOf, x.Left, r); why != "" {
					return false, nil
				}
			}
		case *sqlparser.BetweenExpr:
			for _, r := range []sqlparser.Expr{x.From, x.To} {
				if why = comparisonRisk(typeOf, x.Left, r); why != "" {
					return false, nil
				}
			}
		case *sqlparser.BinaryExpr:
			for _, op := range []sqlparser.Expr{x.Left, x.Right} {
				if why = numericUse(typeOf, op, "arithmetic over"); why != "" {
					return false, nil
				}
			}
		case *sqlparser.AndExpr:
			why = logicalRisk(typeOf, x.Left, x.Right)
		case *sqlparser.OrExpr:
			why = logicalRisk(typeOf, x.Left, x.Right)
		case *sqlparser.XorExpr:
			why = logicalRisk(typeOf, x.Left, x.Right)
		case *sqlparser.NotExpr:
			why = logicalRisk(typeOf, x.Expr)
		case *sqlparser.UnaryExpr:
			if x.Operator == sqlparser.UMinusOp {
				why = numericUse(typeOf, x.Expr, "arithmetic over")
			}
		case *sqlparser.CastExpr:
			if numericType(x.Type) {
				why = numericUse(typeOf, x.Expr, "a numeric CAST of")
			}
		case *sqlparser.ConvertExpr:
			if numericType(x.Type) {
				why = numericUse(typeOf, x.Expr, "a numeric CONVERT of")
			}
		}
		return why == "", nil
	}, e)
	return why
}

// SumRisk is Risk for the argument of SUM or AVG, which add it as a
// number.
func SumRisk(arg sqlparser.Expr, typeOf TypeOf) string {
	return numericUse(typeOf, arg, "a sum of")
}

// operand kinds for Risk.
type operandKind int

const (
	kindOther operandKind = iota
	kindText
	kindNumber
	kindTemporal
	kindTextLit
	kindNumberLit
)

// kindOf types an operand: a column of the pin by its field, a literal by
// its form; anything else is kindOther.
func kindOf(typeOf TypeOf, e sqlparser.Expr) (operandKind, string) {
	switch x := e.(type) {
	case *sqlparser.ColName:
		t, name, ok := typeOf(x)
		switch {
		case !ok, t == sqltypes.Enum || t == sqltypes.Set:
			return kindOther, "" // member numbers: no conversion of text
		case sqltypes.IsText(t) || sqltypes.IsBinary(t):
			return kindText, name
		case sqltypes.IsNumber(t):
			return kindNumber, name
		case t == sqltypes.Date || t == sqltypes.Datetime || t == sqltypes.Timestamp:
			return kindTemporal, name
		}
	case *sqlparser.IntroducerExpr: // _UTF8MB4'5x', as fragments spell text
		if lit, ok := x.Expr.(*sqlparser.Literal); ok && lit.Type == sqlparser.StrVal {
			return kindTextLit, lit.Val
		}
	case *sqlparser.Literal:
		switch x.Type {
		case sqlparser.StrVal:
			return kindTextLit, x.Val
		case sqlparser.IntVal, sqlparser.DecimalVal, sqlparser.FloatVal:
			return kindNumberLit, x.Val
		}
	}
	return kindOther, ""
}

// comparisonRisk is Risk for a comparison of a and b.
func comparisonRisk(typeOf TypeOf, a, b sqlparser.Expr) string {
	ka, va := kindOf(typeOf, a)
	kb, vb := kindOf(typeOf, b)
	if ka > kb {
		ka, kb, va, vb = kb, ka, vb, va
	}
	switch {
	case ka == kindText && (kb == kindNumber || kb == kindNumberLit):
		return "compares text column " + va + " with a number"
	case ka == kindNumber && kb == kindTextLit && !wholeNumber(vb):
		return "compares number column " + va + " with text that is not a number"
	case ka == kindTemporal && kb == kindTextLit && !dateText.MatchString(vb):
		return "compares date column " + va + " with text that is not a date"
	}
	return ""
}

// logicalRisk is Risk for the operands of AND, OR (`||` without
// PIPES_AS_CONCAT), XOR and NOT, which read them as numbers.
func logicalRisk(typeOf TypeOf, ops ...sqlparser.Expr) string {
	for _, op := range ops {
		if why := numericUse(typeOf, op, "a logical operator over"); why != "" {
			return why
		}
	}
	return ""
}

// numericUse is Risk for e read as a number by what.
func numericUse(typeOf TypeOf, e sqlparser.Expr, what string) string {
	switch k, v := kindOf(typeOf, e); {
	case k == kindText:
		return what + " text column " + v
	case k == kindTextLit && !wholeNumber(v):
		return what + " text that is not a number"
	}
	return ""
}

// wholeNumber reports whether MariaDB reads s as a number without
// cutting anything: leading spaces, a sign, digits with a point, an
// exponent. Anything else (trailing spaces too) is taken to warn.
func wholeNumber(s string) bool { return numberText.MatchString(s) }

var numberText = regexp.MustCompile(`^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$`)

// dateText matches the text MariaDB reads as a date or datetime without a
// warning when it meets a date column: spaces around it, any punctuation
// between the parts, an optional time of one to three parts after spaces
// or T, impossible days (2016-02-31, day 0) compared as they are, or the
// digits-only forms. Trailing text ('2016-12-30x'), a month past 12 or no
// date at all ('garbage') warn (1292).
var dateText = regexp.MustCompile(`^\s*(\d{2}|\d{4})[[:punct:]](0?\d|1[0-2])[[:punct:]](0?\d|[12]\d|3[01])([ T]+([01]?\d|2[0-3])([[:punct:]][0-5]?\d([[:punct:]][0-5]?\d(\.\d{0,6})?)?)?)?\s*$|^\s*(\d{6}|\d{8}|\d{12}|\d{14})\s*$`)

// numericType reports a CAST/CONVERT target that reads its argument as a
// number.
func numericType(t *sqlparser.ConvertType) bool {
	if t == nil {
		return false
	}
	switch strings.ToUpper(t.Type) {
	case "SIGNED", "SIGNED INTEGER", "UNSIGNED", "UNSIGNED INTEGER", "DECIMAL", "DOUBLE", "FLOAT", "REAL", "INT", "INTEGER":
		return true
	}
	return false
}

// ComparedWith returns what x compares its left side with as values: the
// right side, or each member of an IN list; nothing for LIKE and REGEXP,
// which read a number as text. (The final
// stage's per-row check, evalexpr's implicit.go, reads comparisons so too.)
func ComparedWith(x *sqlparser.ComparisonExpr) []sqlparser.Expr {
	switch x.Operator {
	case sqlparser.EqualOp, sqlparser.LessThanOp, sqlparser.GreaterThanOp, sqlparser.LessEqualOp,
		sqlparser.GreaterEqualOp, sqlparser.NotEqualOp, sqlparser.NullSafeEqualOp:
		return []sqlparser.Expr{x.Right}
	case sqlparser.InOp, sqlparser.NotInOp:
		if tuple, ok := x.Right.(sqlparser.ValTuple); ok {
			return tuple
		}
	}
	return nil
}
