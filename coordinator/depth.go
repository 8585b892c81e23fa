package coordinator

import (
	"fmt"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// maxPlanDepth is the deepest statement (AST levels: parentheses, NOT,
// function calls, operators, subqueries) the coordinator plans. The
// planner's cost grows faster than linearly with depth (a SUM over ABS
// nested 3,000,000 deep, 12 MB of SQL, took 35 s to plan), while MariaDB
// refuses such statements at once (1064 "memory exhausted" past about
// 10,000 to 100,000 levels, depending on the construct). Deeper
// statements pass through: the replica answers them as it would directly,
// at its own parser's cost.
const maxPlanDepth = 20000

// depthVisitor measures a node's depth, giving up past maxPlanDepth.
type depthVisitor struct{ depth, max int }

func (v *depthVisitor) Enter(n ast.Node) (ast.Node, bool) {
	v.depth++
	v.max = max(v.max, v.depth)
	return n, v.max > maxPlanDepth
}

func (v *depthVisitor) Leave(n ast.Node) (ast.Node, bool) {
	v.depth--
	return n, true
}

// tooDeep says why a statement is not planned, or "" when it may be.
func tooDeep(n ast.Node) string {
	v := &depthVisitor{}
	n.Accept(v)
	if v.max > maxPlanDepth {
		return fmt.Sprintf("nested deeper than %d levels", maxPlanDepth)
	}
	return ""
}
