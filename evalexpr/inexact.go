package evalexpr

import (
	"fmt"
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"
)

// What the evaluator computes differently from the server, found by the
// function matrix (e2e/funcmatrix_test.go) and refused at plan time, so
// the statement passes through and the replica computes it:
//
//   - Transcendental functions and POW: the server calls the C library
//     (glibc's exp, log, sin, pow, ...), the evaluator Go's math package;
//     the two differ in the last digit for many arguments (LN(3):
//     1.0986122886681098 from MariaDB, 1.0986122886681096 from Go), and
//     DOUBLE results are sent with 17 significant digits. SQRT is exact
//     in both (IEEE 754 requires a correctly rounded square root).
//   - CONVERT_TZ with a named zone or SYSTEM: the server reads its
//     mysql.time_zone tables (none loaded: NULL) and its own zone, the
//     evaluator Go's zone database; and MariaDB takes offsets from -12:59
//     to +13:00 only (NULL past them), MySQL to +14:00.
//   - On MariaDB, UNIX_TIMESTAMP of a time before 1970 or past 2038
//     (or a zero date) is NULL; the evaluator returns 0 before 1970 (as
//     MySQL 8 does) and the seconds past 2038: mariaUnixTimestamps
//     guards the calls.
//   - On MariaDB, REGEXP_SUBSTR without a match returns ” (MySQL and the
//     evaluator return NULL).
//   - On MariaDB, JSON functions return text compared in the connection's
//     collation; the evaluator orders them as JSON values (ORDER BY
//     JSON_ARRAY(...) differs): checked by the caller for sort keys
//     (Expr.JSON).
var libmFuncs = map[string]bool{
	"exp": true, "ln": true, "log": true, "log2": true, "log10": true,
	"sin": true, "cos": true, "tan": true, "cot": true, "asin": true, "acos": true, "atan": true, "atan2": true,
	"pow": true, "power": true,
	// The argument's collation and charset after the merge are the
	// merged column's, not always the server's view of the expression.
	"collation": true, "charset": true, "coercibility": true,
}

// inexact returns why e cannot be evaluated as the server does, or "".
func (e *Env) inexact(ast sqlparser.Expr) string {
	why := ""
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch f := n.(type) {
		case *sqlparser.FuncExpr:
			if name := f.Name.Lowered(); libmFuncs[name] {
				why = fmt.Sprintf("%s is computed by the server's C library, which the evaluator cannot match to the last digit", strings.ToUpper(name))
				if name == "collation" || name == "charset" || name == "coercibility" {
					why = strings.ToUpper(name) + " describes the server's view of its argument, which the merge does not keep"
				}
			}
			if f.Name.Lowered() == "convert_tz" && !offsetZones(f.Exprs, e.mariadb) {
				why = "CONVERT_TZ to or from a named zone or SYSTEM reads the server's time zone tables and zone (NULL without the tables), which the evaluator does not"
			}
		case *sqlparser.RegexpSubstrExpr:
			if e.mariadb {
				why = "REGEXP_SUBSTR without a match is '' on MariaDB, NULL in the evaluator"
			}
		}
		if textOf(n) && roundsInside(n) {
			why = "ROUND or TRUNCATE of a zero DECIMAL keeps the argument's scale in the evaluator (0.0000 for ROUND(0.0000, 1), 0.0 on the server), and this expression uses its text"
		}
		return why == "", nil
	}, ast)
	return why
}

// equivalents rewrites functions the evaluator lacks (vitess answers
// UNIMPLEMENTED, and the statement would pass through) into expressions
// of functions it has that MySQL defines to give the same value, NULL
// included; the function matrix (e2e/funcmatrix_test.go) checks each
// against MariaDB:
//
//	DATEDIFF(a, b)                  TO_DAYS(a) - TO_DAYS(b)
//	DAYNAME(a)                      ELT(WEEKDAY(a) + 1, 'Monday', …, 'Sunday')
//	EXTRACT(YEAR_MONTH FROM a)      YEAR(a) * 100 + MONTH(a)
func equivalents(e sqlparser.Expr) sqlparser.Expr {
	return sqlparser.Rewrite(e, nil, func(c *sqlparser.Cursor) bool {
		switch n := c.Node().(type) {
		case *sqlparser.FuncExpr:
			switch n.Name.Lowered() {
			case "datediff":
				if len(n.Exprs) == 2 {
					c.Replace(&sqlparser.BinaryExpr{Operator: sqlparser.MinusOp,
						Left:  sqlparser.NewFuncExpr("to_days", n.Exprs[0]),
						Right: sqlparser.NewFuncExpr("to_days", n.Exprs[1])})
				}
			case "dayname":
				if len(n.Exprs) == 1 {
					args := []sqlparser.Expr{&sqlparser.BinaryExpr{Operator: sqlparser.PlusOp,
						Left: sqlparser.NewFuncExpr("weekday", n.Exprs[0]), Right: sqlparser.NewIntLiteral("1")}}
					for _, d := range []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"} {
						args = append(args, sqlparser.NewStrLiteral(d))
					}
					c.Replace(sqlparser.NewFuncExpr("elt", args...))
				}
			}
		case *sqlparser.ExtractFuncExpr:
			if n.IntervalType == sqlparser.IntervalYearMonth {
				c.Replace(&sqlparser.BinaryExpr{Operator: sqlparser.PlusOp,
					Left: &sqlparser.BinaryExpr{Operator: sqlparser.MultOp,
						Left: sqlparser.NewFuncExpr("year", n.Expr), Right: sqlparser.NewIntLiteral("100")},
					Right: sqlparser.NewFuncExpr("month", n.Expr)})
			}
		}
		return true
	}).(sqlparser.Expr)
}

// converts reports whether e names a character set or collation itself.
func converts(e sqlparser.Expr) bool {
	found := false
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch n.(type) {
		case *sqlparser.ConvertExpr, *sqlparser.ConvertUsingExpr, *sqlparser.CastExpr, *sqlparser.CollateExpr:
			found = true
		}
		return !found, nil
	}, e)
	return found
}

// textFuncs take their arguments' text.
var textFuncs = map[string]bool{
	"concat": true, "concat_ws": true, "length": true, "char_length": true, "character_length": true,
	"octet_length": true, "lpad": true, "rpad": true, "left": true, "right": true, "replace": true,
	"upper": true, "lower": true, "ucase": true, "lcase": true, "reverse": true, "insert": true,
	"repeat": true, "hex": true, "md5": true, "sha1": true, "sha2": true, "crc32": true, "instr": true,
	"locate": true, "field": true, "elt": true, "find_in_set": true, "strcmp": true, "quote": true, "to_base64": true,
}

// textOf reports whether n uses the text of its arguments: a string
// function or a cast (to CHAR, or a conversion).
func textOf(n sqlparser.SQLNode) bool {
	switch f := n.(type) {
	case *sqlparser.FuncExpr:
		return textFuncs[f.Name.Lowered()]
	case *sqlparser.CastExpr, *sqlparser.ConvertExpr, *sqlparser.SubstrExpr, *sqlparser.TrimFuncExpr, *sqlparser.LocateExpr:
		return true
	}
	return false
}

// roundsInside reports whether a ROUND or TRUNCATE with a scale is
// among n's arguments, at any depth: vitess' evaluator returns a zero
// DECIMAL argument of either unchanged, at the argument's scale.
func roundsInside(n sqlparser.SQLNode) bool {
	found := false
	_ = sqlparser.Walk(func(c sqlparser.SQLNode) (bool, error) {
		if f, ok := c.(*sqlparser.FuncExpr); ok && c != n && len(f.Exprs) == 2 {
			if name := f.Name.Lowered(); name == "round" || name == "truncate" {
				found = true
			}
		}
		return !found, nil
	}, n)
	return found
}

// offsetZones reports whether the zones of CONVERT_TZ(dt, from, to) are
// both offset literals the server takes ('+05:30'): the conversion is then
// arithmetic, the evaluator's as the server's.
func offsetZones(args []sqlparser.Expr, mariadb bool) bool {
	if len(args) != 3 {
		return false
	}
	for _, a := range args[1:] {
		if in, ok := a.(*sqlparser.IntroducerExpr); ok {
			a = in.Expr
		}
		lit, ok := a.(*sqlparser.Literal)
		if !ok || lit.Type != sqlparser.StrVal || len(lit.Val) < 5 || lit.Val[0] != '+' && lit.Val[0] != '-' {
			return false
		}
		h, m, ok := strings.Cut(lit.Val[1:], ":")
		hh, err1 := strconv.Atoi(h)
		mm, err2 := strconv.Atoi(m)
		if !ok || err1 != nil || err2 != nil || mm > 59 || len(h) != 2 || len(m) != 2 { // MariaDB reads +1:00 too, the evaluator not
			return false
		}
		mins := hh*60 + mm
		if lit.Val[0] == '-' {
			mins = -mins
		}
		lo, hi := -(12*60 + 59), 13*60
		if !mariadb {
			lo, hi = -(13*60 + 59), 14*60
		}
		if mins < lo || mins > hi {
			return false
		}
	}
	return true
}

// mariaUnixTimestamps rewrites, for MariaDB, each UNIX_TIMESTAMP(x) as
//
//	CASE WHEN UNIX_TIMESTAMP(x) > 0 AND UNIX_TIMESTAMP(x) < 2147483648 THEN UNIX_TIMESTAMP(x)
//	     WHEN UNIX_TIMESTAMP(x) = 0 AND x >= FROM_UNIXTIME(0) THEN UNIX_TIMESTAMP(x) END
//
// MariaDB's value in its range (1970-01-01 00:00:00 to 2038-01-19
// 03:14:07.999999 UTC), NULL outside it, where the evaluator answers 0
// (before 1970, a zero date) or the seconds past 2038. Grafana's time
// buckets (UNIX_TIMESTAMP(ts) DIV 300 * 300) are such calls.
func mariaUnixTimestamps(e sqlparser.Expr) sqlparser.Expr {
	return sqlparser.Rewrite(e, nil, func(c *sqlparser.Cursor) bool {
		f, ok := c.Node().(*sqlparser.FuncExpr)
		if !ok || f.Name.Lowered() != "unix_timestamp" || len(f.Exprs) != 1 || !f.Qualifier.IsEmpty() {
			return true
		}
		u := func() sqlparser.Expr { return sqlparser.NewFuncExpr("unix_timestamp", sqlparser.Clone(f.Exprs[0])) }
		cmp := func(op sqlparser.ComparisonExprOperator, l, r sqlparser.Expr) sqlparser.Expr {
			return &sqlparser.ComparisonExpr{Operator: op, Left: l, Right: r}
		}
		c.Replace(&sqlparser.CaseExpr{Whens: []*sqlparser.When{
			{Cond: &sqlparser.AndExpr{Left: cmp(sqlparser.GreaterThanOp, u(), sqlparser.NewIntLiteral("0")),
				Right: cmp(sqlparser.LessThanOp, u(), sqlparser.NewIntLiteral("2147483648"))}, Val: u()},
			{Cond: &sqlparser.AndExpr{Left: cmp(sqlparser.EqualOp, u(), sqlparser.NewIntLiteral("0")),
				Right: cmp(sqlparser.GreaterEqualOp, sqlparser.Clone(f.Exprs[0]), sqlparser.NewFuncExpr("from_unixtime", sqlparser.NewIntLiteral("0")))}, Val: u()},
		}})
		return true
	}).(sqlparser.Expr)
}
