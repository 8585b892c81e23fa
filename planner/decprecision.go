package planner

import (
	"github.com/shoaldb/shoal/planner/conncoll"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	"github.com/pingcap/tidb/pkg/parser/test_driver"
)

// maxSafeSumPrecision is the widest exact argument whose SUM cannot pass
// DECIMAL's 65 digits. MariaDB types SUM (and AVG's running sum) of an
// exact value of precision p as DECIMAL(min(p + 22, 65), scale): up to 43
// digits the sum has 22 digits of headroom, more than any row count
// fills. Past it the running sum can leave the type, and MariaDB then
// saturates it row by row (warning 1264, the largest DECIMAL it holds),
// in the order its scan adds the rows, so neither the fragments' partial
// sums nor an exact merge of them give MariaDB's answer.
const maxSafeSumPrecision = 43

// sumMayOverflow reports whether SUM or AVG of e may pass DECIMAL's 65
// digits on MariaDB: e is exact (integer or DECIMAL) of a precision above
// maxSafeSumPrecision as MySQL types it.
func (a *aggPlanner) sumMayOverflow(e ast.ExprNode) bool {
	return a.exactPrecision(e) > maxSafeSumPrecision
}

// exactPrecision is the number of digits MySQL declares for the exact
// value e (an integer or DECIMAL column, literal or arithmetic over them),
// 0 when e is not exact (DOUBLE, text, dates) as far as the planner can
// tell. Functions and other expressions are given the widest precision
// of the values under them (ROUND(d, 2), IF(c, d, 0), ABS(d) are as wide
// as d), which is the bound wanted here.
func (a *aggPlanner) exactPrecision(e ast.ExprNode) int {
	switch x := e.(type) {
	case *ast.ParenthesesExpr:
		return a.exactPrecision(x.Expr)
	case *ast.UnaryOperationExpr:
		return a.exactPrecision(x.V)
	case *ast.ColumnNameExpr:
		c, ok := srcList(a.srcs).column(x)
		if !ok {
			return 0
		}
		return columnPrecision(c)
	case ast.ValueExpr:
		switch v := x.GetValue().(type) {
		case int64, uint64:
			return len(strings.TrimPrefix(x.GetDatumString(), "-"))
		case *test_driver.MyDecimal:
			return len(strings.NewReplacer("-", "", ".", "").Replace(v.String()))
		}
		return 0
	case *ast.BinaryOperationExpr:
		l, r := a.exactPrecision(x.L), a.exactPrecision(x.R)
		if l == 0 || r == 0 {
			return max(l, r)
		}
		ls, rs := a.divScale(x.L), a.divScale(x.R)
		switch x.Op {
		case opcode.Plus, opcode.Minus:
			// One more integer digit than the wider operand's.
			return max(l-ls, r-rs) + 1 + max(ls, rs)
		case opcode.Mul:
			return l + r
		case opcode.Div:
			return l + rs + divPrecisionIncrement
		case opcode.Mod:
			return max(l, r)
		}
		return 20 // DIV, comparisons, logic and bit operators: integers
	}
	widest := 0
	v := &finder{found: new(bool), match: func(n ast.Node) bool {
		if c, ok := n.(*ast.ColumnNameExpr); ok {
			if col, ok := srcList(a.srcs).column(c); ok {
				widest = max(widest, columnPrecision(col))
			}
		}
		return false
	}}
	e.Accept(v)
	return widest
}

// srcList are a statement's tables, for the column an expression names
// (column, mayMergeSpellings, floatValued).
type srcList []*source

// column is the column c names in the statement's sources.
func (ss srcList) column(c *ast.ColumnNameExpr) (Column, bool) {
	for _, s := range ss {
		if c.Name.Table.O != "" && !strings.EqualFold(c.Name.Table.O, s.alias) {
			continue
		}
		if col, ok := s.tbl.Column(c.Name.Name.O); ok {
			return col, true
		}
	}
	return Column{}, false
}

// columnPrecision is the digits of an exact column's values: a DECIMAL's
// precision, an integer type's widest value; 0 for other types. The
// catalog reads every DECIMAL column's precision (information_schema, or
// a pinned result's column length); one it does not know (0, a
// hand-built catalog) is not counted.
func columnPrecision(c Column) int {
	switch c.Type {
	case "decimal", "numeric":
		return c.Precision
	case "tinyint":
		return 3
	case "smallint":
		return 5
	case "mediumint":
		return 8
	case "int", "integer":
		return 10
	case "bigint":
		return 20
	case "year":
		return 4
	}
	return 0
}

// mayMergeSpellings reports whether the group key e may put different
// strings in one group: e is text and reads a text column whose collation
// equates some different strings, as every collation but binary and the
// NO PAD binary ones does (trailing spaces under PAD SPACE, case and
// accents under _ci and _ai). Which of the strings the group then shows is
// the first row of the group MariaDB meets: the scan's first through a
// temporary table, which the merge reproduces, but under WITH ROLLUP the
// first after a filesort, whose order of equal keys is its own.
func (ss srcList) mayMergeSpellings(e ast.ExprNode) bool {
	if conncoll.NotText(e) {
		return false
	}
	found := false
	v := &finder{found: &found, match: func(n ast.Node) bool {
		c, ok := n.(*ast.ColumnNameExpr)
		if !ok {
			return false
		}
		col, ok := ss.column(c)
		if !ok {
			return true // not known: may be text
		}
		return col.Collation != "" && col.Collation != "binary" && !strings.HasSuffix(col.Collation, "_nopad_bin")
	}}
	e.Accept(v)
	return found
}

// floatValued reports whether e is a FLOAT value: a FLOAT column, or a
// choice among values one of which is (IFNULL, COALESCE, IF, CASE, …),
// or CAST AS FLOAT. Fragments send a FLOAT as the 6 significant digits
// MariaDB's text protocol prints, so different floats that print alike
// (1000000.1 and 1000000.2 both print 1e+06) reach the merge as one value:
// grouped or deduplicated there they made one group where MariaDB, which
// compares the floats, makes several (10 rows became 1). Such a key or
// DISTINCT argument passes through. A DOUBLE is sent with all its digits.
func (ss srcList) floatValued(e ast.ExprNode) bool {
	switch x := e.(type) {
	case *ast.ParenthesesExpr:
		return ss.floatValued(x.Expr)
	case *ast.ColumnNameExpr:
		c, ok := ss.column(x)
		return ok && c.Type == "float"
	case *ast.FuncCastExpr:
		return x.Tp != nil && x.Tp.GetType() == mysql.TypeFloat
	case *ast.FuncCallExpr:
		if !conncoll.ChoiceFuncs[x.FnName.L] {
			return false
		}
		args := x.Args
		if x.FnName.L == "if" && len(args) == 3 {
			args = args[1:]
		}
		for _, arg := range args {
			if ss.floatValued(arg) {
				return true
			}
		}
	case *ast.CaseExpr:
		for _, w := range x.WhenClauses {
			if ss.floatValued(w.Result) {
				return true
			}
		}
		return x.ElseClause != nil && ss.floatValued(x.ElseClause)
	}
	return false
}
