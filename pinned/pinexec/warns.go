package pinexec

import (
	"regexp"
	"strings"

	"vitess.io/vitess/go/sqltypes"
	"vitess.io/vitess/go/vt/sqlparser"
)

// Warnings over pins. MariaDB warns (1292, "Truncated incorrect DECIMAL
// value: '9E'") for each value an implicit conversion cuts: a text column
// compared with a number (`Carrier = 0`), a number compared with text
// that is not wholly a number (`DepDelayMinutes = '5x'`), arithmetic or a
// numeric CAST over text, a date column compared with text that is no
// date (`FlightDate > '2005-13-01'`), SUM/AVG of text. The client sees
// the count in the statement's EOF or OK packet and the list in SHOW
// WARNINGS. The in-memory engine computes the same values without
// counting warnings, so such a statement is not run in memory: it runs
// on the replicas, where a fragment that warns sends the statement to
// one replica whose warnings the client gets (engine/schedule: Warned).
// What is refused is the statement's form, decided at compile time:
// `Carrier = 0` over text that happens to be all digits warns on
// neither side and still leaves the pin.

// warnRisk returns why e may raise a conversion warning on MariaDB, ""
// if it cannot. It looks at the forms users write (a column against a
// literal or a column, arithmetic and CAST over a column or a literal);
// an operand it cannot type is taken as safe.
func warnRisk(p *Program, e sqlparser.Expr) string {
	why := ""
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if why != "" {
			return false, nil
		}
		switch x := n.(type) {
		case *sqlparser.ComparisonExpr:
			switch x.Operator {
			case sqlparser.LikeOp, sqlparser.NotLikeOp, sqlparser.RegexpOp, sqlparser.NotRegexpOp:
				return true, nil // text matching: a number is read as text
			}
			rights := []sqlparser.Expr{x.Right}
			if tuple, ok := x.Right.(sqlparser.ValTuple); ok {
				rights = tuple
			}
			for _, r := range rights {
				if why = comparisonRisk(p, x.Left, r); why != "" {
					return false, nil
				}
			}
		case *sqlparser.BetweenExpr:
			for _, r := range []sqlparser.Expr{x.From, x.To} {
				if why = comparisonRisk(p, x.Left, r); why != "" {
					return false, nil
				}
			}
		case *sqlparser.BinaryExpr:
			for _, op := range []sqlparser.Expr{x.Left, x.Right} {
				if why = numericUse(p, op, "arithmetic over"); why != "" {
					return false, nil
				}
			}
		case *sqlparser.UnaryExpr:
			if x.Operator == sqlparser.UMinusOp {
				why = numericUse(p, x.Expr, "arithmetic over")
			}
		case *sqlparser.CastExpr:
			if numericType(x.Type) {
				why = numericUse(p, x.Expr, "a numeric CAST of")
			}
		case *sqlparser.ConvertExpr:
			if numericType(x.Type) {
				why = numericUse(p, x.Expr, "a numeric CONVERT of")
			}
		}
		return why == "", nil
	}, e)
	return why
}

// sumRisk is warnRisk for the argument of SUM or AVG, which add it as a
// number.
func sumRisk(p *Program, arg sqlparser.Expr) string {
	return numericUse(p, arg, "a sum of")
}

// operand kinds for warnRisk.
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
func kindOf(p *Program, e sqlparser.Expr) (operandKind, string) {
	switch x := e.(type) {
	case *sqlparser.ColName:
		cols, err := p.columns(x)
		if err != nil || len(cols) != 1 {
			return kindOther, ""
		}
		col := columnAt(p, cols[0])
		if col == nil || col.Field == nil {
			return kindOther, ""
		}
		switch t := col.Field.Type; {
		case t == sqltypes.Enum || t == sqltypes.Set:
			return kindOther, "" // member numbers: no conversion of text
		case sqltypes.IsText(t) || sqltypes.IsBinary(t):
			return kindText, col.Name
		case sqltypes.IsNumber(t):
			return kindNumber, col.Name
		case t == sqltypes.Date || t == sqltypes.Datetime || t == sqltypes.Timestamp:
			return kindTemporal, col.Name
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

// comparisonRisk is warnRisk for a comparison of a and b.
func comparisonRisk(p *Program, a, b sqlparser.Expr) string {
	ka, va := kindOf(p, a)
	kb, vb := kindOf(p, b)
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

// numericUse is warnRisk for e read as a number by what.
func numericUse(p *Program, e sqlparser.Expr, what string) string {
	switch k, v := kindOf(p, e); {
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

// dateText matches the date and datetime literals MariaDB reads without a
// warning (the usual forms; any other text is taken to warn): YYYY-MM-DD
// with -, / or . between the parts, an optional time after a space or T,
// or the 8 or 14 digits forms.
var dateText = regexp.MustCompile(`^(\d{4}[-/.](0?[1-9]|1[0-2])[-/.](0?[0-9]|[12][0-9]|3[01])([ T]([01]?[0-9]|2[0-3]):[0-5]?[0-9](:[0-5]?[0-9](\.\d{1,6})?)?)?|\d{8}|\d{14})$`)

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
