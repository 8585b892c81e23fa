package planner

import (
	"strings"
	"testing"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/shoaldb/shoal/sqlparse"
)

// TestLimitWithoutOrderCompositeKey: a LIMIT without ORDER BY over a
// table keyed by (tenant_id, id) whose columns a secondary index holds
// (KEY (tenant_id, created_at), or KEY (id), which AUTO_INCREMENT asks
// for), or with a filter such an index may serve, passes through:
// MariaDB reads that index, in its order, where the fragments return the
// first rows in key order (`SELECT tenant_id, created_at FROM events
// LIMIT 10` differed). Without a secondary index it stays distributed.
func TestLimitWithoutOrderCompositeKey(t *testing.T) {
	cols := []Column{{Name: "tenant_id", Type: "int"}, {Name: "id", Type: "bigint"}, {Name: "created_at", Type: "datetime"}, {Name: "amount", Type: "decimal"}}
	c := MapCatalog{}
	c.Add(&Table{Schema: "db", Name: "events", KeyColumns: []string{"tenant_id", "id"}, Rows: 30000, Columns: cols,
		IndexLeads: []string{"tenant_id", "tenant_id"}, Indexed: []string{"tenant_id", "id", "created_at"}})
	c.Add(&Table{Schema: "db", Name: "autoinc", KeyColumns: []string{"tenant_id", "id"}, Rows: 30000, Columns: cols,
		IndexLeads: []string{"tenant_id", "id"}, Indexed: []string{"tenant_id", "id"}})
	c.Add(&Table{Schema: "db", Name: "plain", KeyColumns: []string{"tenant_id", "id"}, Rows: 30000, Columns: cols,
		IndexLeads: []string{"tenant_id"}, Indexed: []string{"tenant_id", "id"}})
	for _, tc := range []struct {
		q, pass string
	}{
		{"SELECT tenant_id, created_at FROM events LIMIT 10", "secondary index holds"},
		{"SELECT tenant_id, id FROM events LIMIT 10", "secondary index holds"},
		{"SELECT * FROM events WHERE tenant_id = 1 AND created_at > '2026-06-01' LIMIT 5", "over a filter"},
		{"SELECT * FROM events LIMIT 5", ""},
		{"SELECT tenant_id, created_at FROM events ORDER BY tenant_id, id LIMIT 10", ""},
		{"SELECT id FROM autoinc LIMIT 10", "secondary index holds"},
		{"SELECT * FROM autoinc WHERE amount > 5 LIMIT 10", "over a filter"},
		{"SELECT tenant_id, id FROM plain LIMIT 10", ""},
		{"SELECT * FROM plain WHERE amount > 5 LIMIT 10", ""},
	} {
		stmt, err := sqlparse.ParseOne(tc.q)
		if err != nil {
			t.Fatal(err)
		}
		_, err = PlanSelect(c, "db", stmt.(*ast.SelectStmt))
		nd, _ := err.(*NotDistributed)
		switch {
		case tc.pass == "" && err != nil:
			t.Errorf("%s: not distributed: %v", tc.q, err)
		case tc.pass != "" && (nd == nil || !strings.Contains(nd.Reason, tc.pass)):
			t.Errorf("%s: %v, want a passthrough %q", tc.q, err, tc.pass)
		}
	}
}
