// Package conncoll tells which statements compare text under the
// session's collation_connection rather than a column's (see below): the
// router runs those of a session whose connection collation is not its
// charset's default on the session's replica, since the fragments and the
// merge assume the default.
package conncoll

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	"github.com/pingcap/tidb/pkg/parser/opcode"
)

// Text compared under the connection's collation.
//
// A string literal, and text a function makes from no column (CAST(x AS
// CHAR), DATE_FORMAT, MONTHNAME, CONCAT of numbers), takes the session's
// collation_connection with coercible derivation; a column's collation
// wins over it. So `'ß' = 'ss'` is 1 after SET NAMES utf8mb4 COLLATE
// utf8mb4_unicode_ci and 0 on a fresh connection, while `s = 'ß'` reads
// s's collation either way. The fragments run on the workers' fresh
// connections (their literals rendered with an introducer, which names
// the charset's default collation) and the merge compares under the
// default too, so a session whose collation_connection is not its
// charset's default runs on its replica every statement that compares
// such text with such text (Collated).

// Collated reports whether n compares, matches or searches text
// none of whose operands takes its collation from a column (or an
// explicit COLLATE) and none of which is a number or a date (which makes
// the comparison numeric or temporal).
func Collated(n ast.Node) bool {
	v := &connCollVisitor{}
	n.Accept(v)
	return v.found
}

type connCollVisitor struct{ found bool }

func (v *connCollVisitor) Enter(n ast.Node) (ast.Node, bool) {
	if v.found {
		return n, true
	}
	var ops []ast.ExprNode
	switch x := n.(type) {
	case *ast.BinaryOperationExpr:
		switch x.Op {
		case opcode.EQ, opcode.NE, opcode.LT, opcode.LE, opcode.GT, opcode.GE, opcode.NullEQ:
			ops = []ast.ExprNode{x.L, x.R}
		}
	case *ast.PatternInExpr:
		ops = append([]ast.ExprNode{x.Expr}, x.List...)
		if x.Sel != nil {
			ops = append(ops, x.Sel)
		}
	case *ast.BetweenExpr:
		ops = []ast.ExprNode{x.Expr, x.Left, x.Right}
	case *ast.PatternLikeOrIlikeExpr:
		ops = []ast.ExprNode{x.Expr, x.Pattern}
	case *ast.PatternRegexpExpr:
		ops = []ast.ExprNode{x.Expr, x.Pattern}
	case *ast.CaseExpr:
		if x.Value != nil {
			ops = []ast.ExprNode{x.Value}
			for _, w := range x.WhenClauses {
				ops = append(ops, w.Expr)
			}
		}
	case *ast.FuncCallExpr:
		switch x.FnName.L {
		case "strcmp", "field", "find_in_set", "locate", "instr", "position", "nullif", "greatest", "least":
			ops = x.Args
		}
	}
	if len(ops) > 1 && compareUnderConnection(ops) {
		v.found = true
		return n, true
	}
	return n, false
}

func (v *connCollVisitor) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// compareUnderConnection reports whether operands compared together meet
// under the connection's collation: none is collated by a column and
// none is a number or a date.
func compareUnderConnection(ops []ast.ExprNode) bool {
	for _, e := range ops {
		if textSource(e) != srcConnection {
			return false
		}
	}
	return true
}

// Where an expression's collation comes from.
const (
	srcConnection = iota // collation_connection (literals, text made from numbers)
	srcColumn            // a column's, or COLLATE's
	srcNotText           // a number, a date, NULL: the comparison is not of text
)

// textFuncs return text collated like their arguments (a column's if any
// has one).
var textFuncs = map[string]bool{
	"concat": true, "concat_ws": true, "lower": true, "lcase": true, "upper": true, "ucase": true,
	"trim": true, "ltrim": true, "rtrim": true, "substring": true, "substr": true, "mid": true,
	"left": true, "right": true, "lpad": true, "rpad": true, "replace": true, "reverse": true,
	"repeat": true, "insert": true, "substring_index": true,
}

// ChoiceFuncs return one of their arguments: text if any is text.
var ChoiceFuncs = map[string]bool{"ifnull": true, "coalesce": true, "if": true, "nullif": true, "greatest": true, "least": true}

// notTextFuncs return numbers or dates.
var notTextFuncs = map[string]bool{
	"length": true, "char_length": true, "character_length": true, "octet_length": true, "bit_length": true,
	"ascii": true, "ord": true, "locate": true, "instr": true, "position": true, "strcmp": true, "field": true,
	"find_in_set": true, "crc32": true, "year": true, "month": true, "day": true, "dayofmonth": true,
	"dayofweek": true, "dayofyear": true, "weekday": true, "week": true, "weekofyear": true, "yearweek": true,
	"quarter": true, "hour": true, "minute": true, "second": true, "microsecond": true, "date": true,
	"timestamp": true, "datediff": true, "timestampdiff": true, "unix_timestamp": true, "to_days": true,
	"from_days": true, "to_seconds": true, "last_day": true, "makedate": true, "date_add": true,
	"date_sub": true, "adddate": true, "subdate": true, "str_to_date": true, "from_unixtime": true,
	"abs": true, "round": true, "floor": true, "ceil": true, "ceiling": true, "truncate": true, "mod": true,
	"sign": true, "sqrt": true, "pow": true, "power": true, "curdate": true, "current_date": true,
}

func textSource(e ast.ExprNode) int {
	switch x := e.(type) {
	case *ast.ColumnNameExpr, *ast.SetCollationExpr:
		return srcColumn
	case *ast.ParenthesesExpr:
		return textSource(x.Expr)
	case ast.ValueExpr:
		switch x.GetValue().(type) {
		case string:
			return srcConnection
		}
		return srcNotText
	case *ast.BinaryOperationExpr, *ast.UnaryOperationExpr, *ast.IsNullExpr, *ast.IsTruthExpr,
		*ast.PatternInExpr, *ast.PatternLikeOrIlikeExpr, *ast.BetweenExpr, *ast.ExistsSubqueryExpr,
		*ast.TimeUnitExpr:
		return srcNotText
	case *ast.FuncCastExpr:
		switch {
		case x.Tp == nil:
			return srcConnection
		case x.Tp.GetType() != mysql.TypeVarString && x.Tp.GetType() != mysql.TypeString && x.Tp.GetType() != mysql.TypeVarchar:
			return srcNotText
		case x.ExplicitCharSet:
			return srcColumn // CONVERT(x USING cs), CAST(x AS CHAR CHARACTER SET cs): cs's default collation
		}
		return srcConnection
	case *ast.AggregateFuncExpr:
		switch strings.ToLower(x.F) {
		case ast.AggFuncMin, ast.AggFuncMax, ast.AggFuncGroupConcat:
			return combine(x.Args, srcConnection)
		}
		return srcNotText
	case *ast.FuncCallExpr:
		switch {
		case notTextFuncs[x.FnName.L]:
			return srcNotText
		case textFuncs[x.FnName.L]:
			if combine(x.Args, srcConnection) == srcColumn {
				return srcColumn
			}
			return srcConnection
		case ChoiceFuncs[x.FnName.L]:
			args := x.Args
			if x.FnName.L == "if" && len(args) == 3 {
				args = args[1:]
			}
			return combine(args, srcNotText)
		}
		return srcConnection // DATE_FORMAT, MONTHNAME, HEX, FORMAT, …
	case *ast.CaseExpr:
		var res []ast.ExprNode
		for _, w := range x.WhenClauses {
			res = append(res, w.Result)
		}
		if x.ElseClause != nil {
			res = append(res, x.ElseClause)
		}
		return combine(res, srcNotText)
	}
	return srcConnection // subqueries, variables, parameters: not proven
}

// combine is the source of a result drawn from args: a column's if any
// has one, else the connection's if any is text, else none (when all are
// not text).
func combine(args []ast.ExprNode, allNotText int) int {
	out := allNotText
	for _, a := range args {
		switch textSource(a) {
		case srcColumn:
			return srcColumn
		case srcConnection:
			out = srcConnection
		}
	}
	return out
}

// NotText reports whether e is known not to be text: a number, a date,
// NULL (a group key that cannot hold spellings a collation equates).
func NotText(e ast.ExprNode) bool { return textSource(e) == srcNotText }
