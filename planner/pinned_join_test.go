package planner

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/shoaldb/shoal/sqlparse"
)

// pinnedCatalog is testCatalog with ontime, carriers and airports pinned
// (as the coordinator's pinCatalog describes them: split on the first
// column) and a replica table, routes, that is not.
func pinnedCatalog() Catalog {
	base := testCatalog().(MapCatalog)
	c := MapCatalog{}
	for _, name := range []string{"ontime", "carriers", "airports"} {
		t, _ := base.Table("ontime", name)
		p := *t
		p.Pinned, p.SplitColumn = true, t.Columns[0].Name
		c.Add(&p)
	}
	c.Add(&Table{Schema: "ontime", Name: "routes", SplitColumn: "id", Rows: 1e6, Columns: []Column{{Name: "id"}, {Name: "Origin"}, {Name: "Dest"}}})
	return c
}

// TestPinnedJoinPlans: golden plans of joins over pinned tables
// (testdata/pinned_joins.json; -update rewrites it).
func TestPinnedJoinPlans(t *testing.T) {
	path := filepath.Join("testdata", "pinned_joins.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	var cases []golden
	if err := dec.Decode(&cases); err != nil {
		t.Fatal(err)
	}
	cat := pinnedCatalog()
	for i := range cases {
		c := &cases[i]
		stmt, err := sqlparse.ParseOne(c.Query)
		if err != nil {
			t.Fatalf("%s: %v", c.Query, err)
		}
		p, err := PlanSelect(cat, "ontime", stmt.(*ast.SelectStmt))
		got := golden{Comment: c.Comment, Query: c.Query}
		if err != nil {
			nd, ok := err.(*NotDistributed)
			if !ok {
				t.Fatalf("%s: %v", c.Query, err)
			}
			got.Passes = nd.Reason
		} else {
			got.Plan, got.Meta = p.Describe(), p.MetaSQL
		}
		if *update {
			*c = got
			continue
		}
		gj, _ := json.MarshalIndent(got, "", "  ")
		wj, _ := json.MarshalIndent(c, "", "  ")
		if string(gj) != string(wj) {
			t.Errorf("case %d %q:\n got %s\nwant %s", i, c.Comment, gj, wj)
		}
	}
	if *update {
		out, _ := json.MarshalIndent(cases, "", "  ")
		if err := os.WriteFile(path, append(out, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
