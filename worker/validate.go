package worker

import (
	"fmt"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/shoaldb/shoal/sqlparse"
)

// refusal is a fragment the worker will not run. Kind names what was
// refused, for the 1290 message; detail is for the log only.
type refusal struct {
	kind   string
	detail string
}

func (r *refusal) Error() string { return r.kind + ": " + r.detail }

// sideEffectFuncs are functions that change server or session state even
// inside a read-only transaction.
var sideEffectFuncs = map[string]bool{
	"nextval":           true,
	"setval":            true,
	"lastval":           false, // reads only; listed to document the decision
	"get_lock":          true,
	"release_lock":      true,
	"release_all_locks": true,
}

// readOnlySQL parses sql and, when it is a single read-only query, returns
// the statement to run: the SQL re-rendered from the checked AST, never the
// original text. Re-rendering closes the gap between what the TiDB parser
// sees and what MariaDB executes: a version comment such as
// /*M! INTO OUTFILE '...' */ is a plain comment to TiDB but code to MariaDB.
func readOnlySQL(sql string) (string, error) {
	stmt, err := sqlparse.ParseOne(sql)
	if err != nil {
		if strings.HasPrefix(err.Error(), "expected one statement") {
			return "", &refusal{"multiple statements", err.Error()}
		}
		return "", &refusal{"statement the worker cannot parse", err.Error()}
	}
	switch stmt.(type) {
	case *ast.SelectStmt, *ast.SetOprStmt:
	default:
		return "", &refusal{fmt.Sprintf("%s statement", stmtKind(stmt)), "only SELECT runs on a worker"}
	}
	v := &readOnlyVisitor{}
	stmt.Accept(v)
	if v.bad != nil {
		return "", v.bad
	}
	out, err := sqlparse.Restore(stmt)
	if err != nil {
		return "", &refusal{"statement the worker cannot render", err.Error()}
	}
	return out, nil
}

// readOnlyVisitor finds anything in a query that writes or locks.
type readOnlyVisitor struct {
	bad *refusal
}

func (v *readOnlyVisitor) Enter(n ast.Node) (ast.Node, bool) {
	if v.bad != nil {
		return n, true
	}
	switch x := n.(type) {
	case *ast.SelectStmt:
		if x.SelectIntoOpt != nil {
			v.bad = &refusal{"SELECT ... INTO", "writes a file or variables"}
		} else if x.LockInfo != nil && x.LockInfo.LockType != ast.SelectLockNone {
			v.bad = &refusal{"SELECT ... " + strings.ToUpper(x.LockInfo.LockType.String()), "takes row locks"}
		}
	case *ast.VariableExpr:
		if x.Value != nil {
			v.bad = &refusal{"variable assignment", "@" + x.Name + " := ..."}
		}
	case *ast.FuncCallExpr:
		if sideEffectFuncs[x.FnName.L] {
			v.bad = &refusal{strings.ToUpper(x.FnName.L) + "()", "changes server state"}
		}
	}
	return n, v.bad != nil
}

func (v *readOnlyVisitor) Leave(n ast.Node) (ast.Node, bool) { return n, v.bad == nil }

func stmtKind(s ast.StmtNode) string {
	switch s.(type) {
	case *ast.InsertStmt:
		return "INSERT"
	case *ast.UpdateStmt:
		return "UPDATE"
	case *ast.DeleteStmt:
		return "DELETE"
	case ast.DDLNode:
		return "DDL"
	case *ast.SetStmt:
		return "SET"
	}
	t := fmt.Sprintf("%T", s)
	return strings.TrimSuffix(strings.TrimPrefix(t, "*ast."), "Stmt")
}
