// Package sqlparse wraps the TiDB parser for the rest of Shoal.
//
// It exists for three reasons. The parser needs its value-expression driver
// imported once (test_driver, despite the name) or parser.New panics. A
// *parser.Parser keeps scanner state and is not safe for concurrent use, so
// this package makes a. And the Restore flags decide
// what SQL a replica sees: they are chosen here, once, for MySQL/MariaDB
// (single-quoted strings with backslash escapes, back-quoted names, upper-case
// keywords, no TiDB-only comments).
package sqlparse

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/format"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	_ "github.com/pingcap/tidb/pkg/parser/test_driver" // value expressions
)

// RestoreFlags are the flags every rendered statement uses.
const RestoreFlags = format.RestoreStringSingleQuotes |
	format.RestoreKeyWordUppercase |
	format.RestoreNameBackQuotes |
	format.RestoreStringEscapeBackslash

// Parse parses sql (one or more statements). A panic inside the parser
// (its test driver panics on some over-long numeric literals; found by
// FuzzPlan) becomes a parse error: hostile input must not take down a
// connection or a worker.
func Parse(sql string) (stmts []ast.StmtNode, err error) {
	p := parsers.Get().(*parser.Parser)
	defer func() {
		if r := recover(); r != nil {
			// The parser's state after a panic is unknown: not pooled.
			stmts, err = nil, fmt.Errorf("the parser cannot read the statement: %v", r)
			return
		}
		parsers.Put(p)
	}()
	if stmts, _, err = p.ParseSQL(sql); err != nil {
		return nil, err
	}
	// The parser reuses its result slice on the next parse; the nodes are
	// new each time.
	stmts = slices.Clone(stmts)
	for i, st := range stmts {
		n, _ := st.Accept(mysqlNames{})
		stmts[i] = n.(ast.StmtNode)
	}
	return stmts, nil
}

// mysqlNames gives back their MySQL spelling to the functions the TiDB
// parser renames, which its Restore would write under the internal name
// (a replica answers "FUNCTION INSERT_FUNC does not exist"):
//
//	INSERT(s, pos, len, new)  insert_func → INSERT
//	CHAR(n, ...)              char_func(n, ..., NULL) → CHAR(n, ...)
//	CHAR(n, ... USING cs)     char_func(n, ..., 'cs') → CONVERT(CHAR(n, ...) USING cs)
//
// CHAR(... USING cs) takes the bytes of CHAR(...) as a string of cs, which
// is what CONVERT of that binary string to cs does.
type mysqlNames struct{}

func (mysqlNames) Enter(n ast.Node) (ast.Node, bool) { return n, false }

func (mysqlNames) Leave(n ast.Node) (ast.Node, bool) {
	switch x := n.(type) {
	case *ast.BinaryOperationExpr:
		// MOD(a - 2, 7) parses to the node of a - 2 % 7's operator,
		// without the parentheses of the call: restored, it would say
		// `a-2%7`, and 100 * MOD(a, 3) `100*a%3`. A MOD's operands
		// that are operations, and a MOD that is an operand, get
		// parentheses (redundant for the operator's own precedence,
		// never wrong).
		if x.Op == opcode.Mod {
			x.L, x.R = delimited(x.L), delimited(x.R)
		}
		x.L, x.R = modDelimited(x.L), modDelimited(x.R)
		return x, true
	case *ast.UnaryOperationExpr:
		x.V = modDelimited(x.V)
		return x, true
	}
	f, ok := n.(*ast.FuncCallExpr)
	if !ok {
		return n, true
	}
	switch f.FnName.L {
	case ast.InsertFunc:
		f.FnName = ast.NewCIStr("INSERT")
	case ast.CharFunc:
		if len(f.Args) == 0 {
			break
		}
		last, ok := f.Args[len(f.Args)-1].(ast.ValueExpr)
		if !ok {
			break
		}
		char := &ast.FuncCallExpr{FnName: ast.NewCIStr("CHAR"), Args: f.Args[:len(f.Args)-1]}
		if last.GetValue() == nil {
			return char, true
		}
		cs := ast.NewValueExpr(last.GetValue(), "", "")
		return &ast.FuncCallExpr{FnName: ast.NewCIStr("CONVERT"), Args: []ast.ExprNode{char, cs}}, true
	}
	return n, true
}

// delimited wraps x in parentheses unless it restores as one token or
// call (a column, a literal, a function, parentheses already).
func delimited(x ast.ExprNode) ast.ExprNode {
	switch x.(type) {
	case *ast.ColumnNameExpr, ast.ValueExpr, ast.ParamMarkerExpr, *ast.FuncCallExpr, *ast.AggregateFuncExpr,
		*ast.FuncCastExpr, *ast.ParenthesesExpr, *ast.VariableExpr, *ast.WindowFuncExpr, *ast.SubqueryExpr:
		return x
	}
	return &ast.ParenthesesExpr{Expr: x}
}

// modDelimited wraps x in parentheses when it is a MOD.
func modDelimited(x ast.ExprNode) ast.ExprNode {
	if b, ok := x.(*ast.BinaryOperationExpr); ok && b.Op == opcode.Mod {
		return &ast.ParenthesesExpr{Expr: x}
	}
	return x
}

// parsers are idle parsers; ParseSQL resets a parser's scanner and
// parameters, so a parser lent out holds nothing of the previous parse
// that reaches the next statement's nodes.
var parsers = sync.Pool{New: func() any { return parser.New() }}

// ParseOne parses exactly one statement.
func ParseOne(sql string) (ast.StmtNode, error) {
	stmts, err := Parse(sql)
	if err != nil {
		return nil, err
	}
	if len(stmts) != 1 {
		return nil, fmt.Errorf("expected one statement, got %d", len(stmts))
	}
	return stmts[0], nil
}

// Restore renders a node back to SQL with RestoreFlags.
func Restore(n ast.Node) (string, error) {
	var sb strings.Builder
	if err := n.Restore(format.NewRestoreCtx(RestoreFlags, &sb)); err != nil {
		return "", err
	}
	return sb.String(), nil
}

// MustRestore is Restore for nodes built by Shoal itself, where a failure is
// a programming error.
func MustRestore(n ast.Node) string {
	s, err := Restore(n)
	if err != nil {
		panic(fmt.Sprintf("sqlparse: restore %T: %v", n, err))
	}
	return s
}
