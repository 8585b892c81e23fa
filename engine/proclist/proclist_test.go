package proclist

import (
	"strings"
	"testing"
	"time"

	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/engine/derivedsql"
	"github.com/shoaldb/shoal/observe"
	"github.com/shoaldb/shoal/sqlparse"
)

// plFields is a slice of MariaDB's information_schema.PROCESSLIST columns.
var plFields = []*querypb.Field{
	{Name: "ID", OrgName: "ID", Table: "PROCESSLIST", Type: sqltypes.Int64},
	{Name: "USER", OrgName: "USER", Table: "PROCESSLIST", Type: sqltypes.VarChar},
	{Name: "INFO", OrgName: "INFO", Table: "PROCESSLIST", Type: sqltypes.Text},
}

// TestColumnFields: a select list of columns (or *) gets its metadata
// from the table's columns, named as written or aliased, in the alias's
// table; anything else is left to a replica (ok false).
func TestColumnFields(t *testing.T) {
	for _, c := range []struct {
		sql  string
		want string // name/table/type, ...; "" for not ok
	}{
		{"SELECT * FROM information_schema.PROCESSLIST", "ID/PROCESSLIST/INT64,USER/PROCESSLIST/VARCHAR,INFO/PROCESSLIST/TEXT"},
		{"SELECT id, Info AS q FROM information_schema.PROCESSLIST AS p", "id/p/INT64,q/p/TEXT"},
		{"SELECT p.user FROM information_schema.PROCESSLIST p WHERE ID > 3 ORDER BY ID", "user/p/VARCHAR"},
		{"SELECT ID + 1 FROM information_schema.PROCESSLIST", ""},
		{"SELECT COUNT(*) FROM information_schema.PROCESSLIST", ""},
		{"SELECT NOPE FROM information_schema.PROCESSLIST", ""},
	} {
		fields, ok := ColumnFields(c.sql, plFields)
		var got []string
		for _, f := range fields {
			got = append(got, f.Name+"/"+f.Table+"/"+f.Type.String())
		}
		if g := strings.Join(got, ","); (c.want == "") == ok || g != c.want {
			t.Errorf("%s: %q (ok %v), want %q", c.sql, g, ok, c.want)
		}
	}
	if plFields[0].Name != "ID" || plFields[0].Table != "PROCESSLIST" {
		t.Error("columnFields changed the table's own fields")
	}
}

// TestProcesslistRewrite: references to the table are found whatever
// their case or qualification, and CONNECTION_ID() becomes the session's
// id.
func TestProcesslistRewrite(t *testing.T) {
	for _, c := range []struct {
		sql, db string
		refs    int
	}{
		{"SELECT * FROM information_schema.PROCESSLIST", "ontime", 1},
		{"SELECT * FROM INFORMATION_SCHEMA.processlist p", "", 1},
		{"SELECT * FROM processlist", "information_schema", 1},
		{"SELECT * FROM processlist", "ontime", 0},
		{"SELECT * FROM ontime.ontime WHERE id IN (SELECT ID FROM information_schema.PROCESSLIST)", "ontime", 1},
		{"SELECT * FROM information_schema.PROCESSLIST a JOIN information_schema.PROCESSLIST b USING (ID)", "", 2},
	} {
		sel, ok := derivedsql.Reparse(c.sql)
		if !ok {
			t.Fatal(c.sql)
		}
		if n := len(Refs(sel, c.db)); n != c.refs {
			t.Errorf("%s in %q: %d references, want %d", c.sql, c.db, n, c.refs)
		}
	}
	sel, _ := derivedsql.Reparse("SELECT ID FROM information_schema.PROCESSLIST WHERE ID = CONNECTION_ID() OR ID = connection_id()")
	sel.Accept(&derivedsql.ConnectionIDBinder{ID: 42})
	got, err := sqlparse.Restore(sel)
	if err != nil || strings.Contains(strings.ToLower(got), "connection_id") || strings.Count(got, "42") != 2 {
		t.Errorf("bound: %s %v", got, err)
	}
}

// TestProcesslistValues: each column's value for a running and a sleeping
// session; NULL where MariaDB has NULL.
func TestProcesslistValues(t *testing.T) {
	run := observe.ProcRow{ID: 7, User: "root", Host: "h:1", DB: "ontime", Command: "Query", Time: 2500 * time.Millisecond,
		State: "fragments 3/4 done", Info: "select 1", Progress: 75, Examined: 1 << 40, QueryID: 9}
	idle := observe.ProcRow{ID: 8, User: "bob", Command: "Sleep", Time: time.Minute, QueryID: 3}
	for _, c := range []struct {
		col       string
		run, idle string // "NULL" for NULL
	}{
		{"ID", "7", "8"}, {"TID", "7", "8"}, {"DB", "ontime", "NULL"}, {"TIME", "2", "60"},
		{"TIME_MS", "2500.000", "60000.000"}, {"STATE", "fragments 3/4 done", ""}, {"INFO", "select 1", "NULL"},
		{"INFO_BINARY", "select 1", "NULL"}, {"PROGRESS", "75.000", "0.000"}, {"EXAMINED_ROWS", "2147483647", "0"},
		{"QUERY_ID", "9", "3"}, {"MEMORY_USED", "0", "0"}, {"A_FUTURE_COLUMN", "NULL", "NULL"},
	} {
		for _, x := range []struct {
			r    observe.ProcRow
			want string
		}{{run, c.run}, {idle, c.idle}} {
			v, ok := Value(c.col, x.r)
			if !ok {
				v = "NULL"
			}
			if v != x.want {
				t.Errorf("%s of session %d: %q, want %q", c.col, x.r.ID, v, x.want)
			}
		}
	}
}
