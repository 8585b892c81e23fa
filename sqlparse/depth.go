package sqlparse

import (
	"fmt"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// MaxDepth is the deepest statement (AST levels: parentheses, NOT,
// function calls, operators, subqueries) the coordinator plans. The
// planner's cost grows faster than linearly with depth (a SUM over ABS
// nested 3,000,000 deep, 12 MB of SQL, took 35 s to plan), while MariaDB
// refuses such statements at once (1064 "memory exhausted" past about
// 10,000 to 100,000 levels, depending on the construct). Deeper
// statements pass through: the replica answers them as it would directly,
// at its own parser's cost.
const MaxDepth = 20000

// depthVisitor measures a node's depth, giving up past MaxDepth.
type depthVisitor struct{ depth, max int }

func (v *depthVisitor) Enter(n ast.Node) (ast.Node, bool) {
	v.depth++
	v.max = max(v.max, v.depth)
	return n, v.max > MaxDepth
}

func (v *depthVisitor) Leave(n ast.Node) (ast.Node, bool) {
	v.depth--
	return n, true
}

// tooDeep says why a statement is not planned, or "" when it may be.
func TooDeep(n ast.Node) string {
	v := &depthVisitor{}
	n.Accept(v)
	if v.max > MaxDepth {
		return fmt.Sprintf("nested deeper than %d levels", MaxDepth)
	}
	return ""
}

// LexDepth estimates a statement's nesting before it is parsed: the
// deepest parenthesis plus the longest run of prefix operators (NOT, !, -,
// +, ~) leading into it, outside string literals, quoted names and
// comments. Parsing costs the coordinator about 250 MB of allocations and
// a second per megabyte of deeply nested SQL (TiDB parser), so statements
// past MaxDepth by this estimate pass through unparsed. Left-deep
// operator chains (1+1+1…) are not counted: those parse in linear time.
func LexDepth(q string) int {
	depth, run, deepest := 0, 0, 0
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			i = SkipQuoted(q, i, c, c != '`')
			run = 0
			continue
		case IsCommentStart(q, i):
			i = CommentEnd(q, i)
			continue
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		case c == '(':
			depth++
		case c == ')':
			depth = max(depth-1, 0)
			run = 0
		case c == '-' || c == '+' || c == '~' || c == '!':
			run++
		case (c == 'n' || c == 'N') && len(q) >= i+4 && strings.EqualFold(q[i:i+3], "not") && !isWordByte(q[i+3]) && (i == 0 || !isWordByte(q[i-1])):
			run++
			i += 3
			continue
		default:
			run = 0
		}
		deepest = max(deepest, depth+run)
		i++
	}
	return deepest
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// ErrTooDeep sends a statement down the unparsed path (read keywords pass
// through, writes are refused).
var ErrTooDeep = fmt.Errorf("nested deeper than %d levels", MaxDepth)
