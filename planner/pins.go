package planner

import (
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/shoaldb/shoal/sqlparse"
)

// QualifyTables names the database of every table reference in n that has
// none, so the statement means the same from any current database. A
// pinned query's definition is stored qualified.
func QualifyTables(sel *ast.SelectStmt, db string) { qualifyTables(sel, db) }

// TableRefs lists the database-qualified names ("db.table") of every table
// the statement reads, subqueries included; db qualifies bare names.
func TableRefs(n ast.Node, db string) []string {
	var out []string
	found := false
	n.Accept(&finder{found: &found, deep: true, match: func(n ast.Node) bool {
		if tn, ok := n.(*ast.TableName); ok {
			s := tn.Schema.O
			if s == "" {
				s = db
			}
			out = append(out, s+"."+tn.Name.O)
		}
		return false
	}})
	return out
}

// ReplaceTables renders sql with every table reference for which def
// returns a definition replaced by that definition as a derived table
// under the reference's alias (or its name): `db.t AS x` becomes
// `(SELECT …) AS x`. A replica can then describe a statement over a pinned
// query result, which only the coordinator holds, without its rows.
func ReplaceTables(sql, db string, def func(db, name string) (string, bool)) (string, error) {
	stmt, err := sqlparse.ParseOne(sql)
	if err != nil {
		return "", err
	}
	var perr error
	stmt.Accept(&tableSwapper{db: db, def: def, err: &perr})
	if perr != nil {
		return "", perr
	}
	return sqlparse.Restore(stmt)
}

type tableSwapper struct {
	db  string
	def func(db, name string) (string, bool)
	err *error
}

func (v *tableSwapper) Enter(n ast.Node) (ast.Node, bool) {
	ts, ok := n.(*ast.TableSource)
	if !ok {
		return n, false
	}
	tn, ok := ts.Source.(*ast.TableName)
	if !ok {
		return n, false
	}
	schema := tn.Schema.O
	if schema == "" {
		schema = v.db
	}
	src, ok := v.def(schema, tn.Name.O)
	if !ok {
		return n, true
	}
	sub, err := sqlparse.ParseOne(src)
	if err != nil {
		*v.err = err
		return n, true
	}
	rs, ok := sub.(ast.ResultSetNode) // a SELECT or a UNION
	if !ok {
		return n, true
	}
	if ts.AsName.O == "" {
		ts.AsName = tn.Name
	}
	ts.Source = rs
	return n, true
}

func (v *tableSwapper) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// NameFields names every unaliased select expression of sel by the text
// the client wrote, as MySQL names result columns, so that a statement
// rendered from the AST keeps the client's column names.
func NameFields(sel *ast.SelectStmt) error { return nameFields(sel) }
