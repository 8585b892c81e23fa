package evalexpr

import (
	"strconv"
	"strings"

	"vitess.io/vitess/go/sqltypes"
	"vitess.io/vitess/go/vt/sqlparser"
)

// yearLiterals rewrites the constants compared with a YEAR or BIGINT
// column the way MariaDB reads them. MariaDB converts a constant compared
// with such a column to the column's type first (item_cmpfunc.cc,
// convert_const_to_int: =, <>, <, <=, >, >=, <=>, IN, BETWEEN), storing
// it as an INSERT would.
//
// YEAR (Field_year::store): the integers 1–69 are 2001–2069 and 70–99
// are 1970–1999, 0 stays 0000; the strings '0' to '99' likewise, '0' and
// '00' being 2000, '0000' 0000. `yr = 70` is `yr = 1970` on the server;
// the evaluator compared 70 with 1970 and matched nothing.
//
// BIGINT, signed or UNSIGNED: text that spells an integer the column
// holds is compared as that integer, exactly; the evaluator compared
// text with a BIGINT as DOUBLEs, so `u = '18446744073709551615'` matched
// every value within 2^11 of it.
//
// A constant the column cannot hold (150 for a YEAR, -1 for an UNSIGNED,
// 'abc') is left as it is, as the server leaves it. Other constants
// compared with a YEAR (70.5, 7e1, text that is not digits) are left too,
// and Inexact says so.
func yearLiterals(ast sqlparser.Expr, layout *Layout, inexact *string) sqlparser.Expr {
	typeOf := func(e sqlparser.Expr) sqltypes.Type {
		col, ok := e.(*sqlparser.ColName)
		if !ok {
			return sqltypes.Null
		}
		i, ok := layout.index[strings.ToLower(col.Name.String())]
		if !ok || i >= len(layout.fields) || layout.fields[i] == nil {
			return sqltypes.Null
		}
		switch t := layout.fields[i].Type; t {
		case sqltypes.Year, sqltypes.Int64, sqltypes.Uint64:
			return t
		}
		return sqltypes.Null
	}
	conv := func(t sqltypes.Type, e sqlparser.Expr) sqlparser.Expr {
		lit := e
		if in, ok := e.(*sqlparser.IntroducerExpr); ok && !strings.EqualFold(strings.TrimPrefix(in.CharacterSet, "_"), "binary") {
			lit = in.Expr // _utf8mb4'70', as the planner writes text
		}
		l, ok := lit.(*sqlparser.Literal)
		if !ok {
			return e
		}
		if t != sqltypes.Year {
			return bigintText(e, l, t == sqltypes.Uint64)
		}
		switch l.Type {
		case sqlparser.IntVal:
			n, err := strconv.ParseInt(l.Val, 10, 64)
			if err != nil {
				return e
			}
			if y, ok := yearOf(n, false); ok {
				return sqlparser.NewIntLiteral(strconv.FormatInt(y, 10))
			}
		case sqlparser.StrVal:
			if l.Val == "" || strings.Trim(l.Val, "0123456789") != "" || len(l.Val) > 4 {
				if *inexact == "" {
					*inexact = "a YEAR column compared with text that is not a year's digits, which MariaDB stores as a year first"
				}
				return e
			}
			n, _ := strconv.ParseInt(l.Val, 10, 64)
			if y, ok := yearOf(n, len(l.Val) != 4); ok {
				return sqlparser.NewIntLiteral(strconv.FormatInt(y, 10))
			}
		case sqlparser.DecimalVal, sqlparser.FloatVal, sqlparser.HexNum, sqlparser.HexVal, sqlparser.BitNum:
			if *inexact == "" {
				*inexact = "a YEAR column compared with a constant that is not an integer or digits, which MariaDB stores as a year first"
			}
		}
		return e
	}
	return sqlparser.Rewrite(ast, nil, func(c *sqlparser.Cursor) bool {
		switch n := c.Node().(type) {
		case *sqlparser.ComparisonExpr:
			switch n.Operator {
			case sqlparser.EqualOp, sqlparser.NotEqualOp, sqlparser.LessThanOp, sqlparser.LessEqualOp,
				sqlparser.GreaterThanOp, sqlparser.GreaterEqualOp, sqlparser.NullSafeEqualOp:
				if t := typeOf(n.Left); t != sqltypes.Null {
					n.Right = conv(t, n.Right)
				} else if t := typeOf(n.Right); t != sqltypes.Null {
					n.Left = conv(t, n.Left)
				}
			case sqlparser.InOp, sqlparser.NotInOp:
				if list, ok := n.Right.(sqlparser.ValTuple); ok && typeOf(n.Left) != sqltypes.Null {
					for i := range list {
						list[i] = conv(typeOf(n.Left), list[i])
					}
				}
			}
		case *sqlparser.BetweenExpr:
			if t := typeOf(n.Left); t != sqltypes.Null {
				n.From, n.To = conv(t, n.From), conv(t, n.To)
			}
		}
		return true
	}).(sqlparser.Expr)
}

// bigintText is text literal l (e as written) compared with a BIGINT
// column: the integer it spells when the column holds it, else e.
func bigintText(e sqlparser.Expr, l *sqlparser.Literal, unsigned bool) sqlparser.Expr {
	if l.Type != sqlparser.StrVal {
		return e
	}
	if d := strings.TrimPrefix(l.Val, "-"); d == "" || strings.Trim(d, "0123456789") != "" {
		return e
	}
	if unsigned {
		if _, err := strconv.ParseUint(l.Val, 10, 64); err != nil {
			return e
		}
	} else if _, err := strconv.ParseInt(l.Val, 10, 64); err != nil {
		return e
	}
	if d, ok := strings.CutPrefix(l.Val, "-"); ok {
		return &sqlparser.UnaryExpr{Operator: sqlparser.UMinusOp, Expr: sqlparser.NewIntLiteral(d)}
	}
	return sqlparser.NewIntLiteral(l.Val)
}

// yearOf is n stored in a YEAR column (Field_year::store): ok is false
// for a value it cannot hold. short says n was written with other than
// four digits, which makes 0 the year 2000.
func yearOf(n int64, short bool) (int64, bool) {
	switch {
	case n < 0 || n >= 100 && n <= 1900 || n > 2155:
		return 0, false
	case n == 0 && !short:
		return 0, true
	case n < 70:
		return 2000 + n, true
	case n < 100:
		return 1900 + n, true
	}
	return n, true
}
