// Package proclist holds the parts of SELECT … FROM
// information_schema.PROCESSLIST that need no engine: the session rows as
// the replica's columns spell them, the statement's references to the
// table, and a column list's metadata taken from the table's own. The
// engine (processlist_schema.go) materializes the list and runs the
// statement over it in memory; keeping these apart keeps package engine
// within its size (internal/archtest).
package proclist

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pingcap/tidb/pkg/parser/ast"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/engine/derivedsql"
	"github.com/shoaldb/shoal/observe"
)

// Schema and Name are the table's canonical spelling.
const (
	Schema = "information_schema"
	Name   = "PROCESSLIST"
)

// ColumnFields is the result metadata of a SELECT whose every item is *
// or a column of the one table whose columns are base, named as MariaDB
// names them (the alias, else the name as written); ok is false for any
// other select list.
func ColumnFields(sql string, base []*querypb.Field) ([]*querypb.Field, bool) {
	sel, ok := derivedsql.Reparse(sql)
	if !ok || sel.Fields == nil {
		return nil, false
	}
	table := ""
	if ts := derivedsql.TableSourceOf(sel); ts != nil {
		table = ts.AsName.O
	}
	var out []*querypb.Field
	for _, f := range sel.Fields.Fields {
		if f.WildCard != nil {
			for _, b := range base {
				out = append(out, renamed(b, b.Name, table))
			}
			continue
		}
		col, ok := f.Expr.(*ast.ColumnNameExpr)
		if !ok {
			return nil, false
		}
		i := slices.IndexFunc(base, func(b *querypb.Field) bool { return strings.EqualFold(b.Name, col.Name.Name.O) })
		if i < 0 {
			return nil, false
		}
		name := col.Name.Name.O
		if f.AsName.O != "" {
			name = f.AsName.O
		}
		out = append(out, renamed(base[i], name, table))
	}
	return out, true
}

// renamed is a copy of f under name, in table (its alias) when given.
func renamed(f *querypb.Field, name, table string) *querypb.Field {
	c := f.CloneVT()
	c.Name = name
	if table != "" {
		c.Table = table
	}
	return c
}

// Refs returns the statement's references to
// information_schema.PROCESSLIST, subqueries included.
func Refs(sel *ast.SelectStmt, db string) []*ast.TableName {
	var out []*ast.TableName
	sel.Accept(&derivedsql.TableNameVisitor{Visit: func(tn *ast.TableName) {
		schema := tn.Schema.O
		if schema == "" {
			schema = db
		}
		if strings.EqualFold(schema, Schema) && strings.EqualFold(tn.Name.O, Name) {
			out = append(out, tn)
		}
	}})
	return out
}

// Value is one column of a session's row, as text; ok false
// for NULL. MEMORY_USED and MAX_MEMORY_USED are 0 (a session's memory is
// not tracked: merges draw on the shared allocator); STAGE and MAX_STAGE
// are 0 (no statement reports stages); TID is the session id (a session
// has no thread of its own).
func Value(col string, r observe.ProcRow) (string, bool) {
	switch col {
	case "ID", "TID":
		return strconv.FormatUint(uint64(r.ID), 10), true
	case "USER":
		return r.User, true
	case "HOST":
		return r.Host, true
	case "DB":
		return r.DB, r.DB != ""
	case "COMMAND":
		return r.Command, true
	case "TIME":
		return strconv.FormatInt(int64(min(r.Time/time.Second, 1<<31-1)), 10), true
	case "STATE":
		return r.State, true
	case "INFO", "INFO_BINARY":
		return r.Info, r.Info != ""
	case "TIME_MS":
		return fmt.Sprintf("%.3f", float64(r.Time)/float64(time.Millisecond)), true
	case "STAGE", "MAX_STAGE", "MEMORY_USED", "MAX_MEMORY_USED":
		return "0", true
	case "PROGRESS":
		return fmt.Sprintf("%.3f", r.Progress), true
	case "EXAMINED_ROWS":
		return strconv.FormatInt(min(r.Examined, 1<<31-1), 10), true
	case "QUERY_ID":
		return strconv.FormatUint(r.QueryID, 10), true
	}
	return "", false
}
