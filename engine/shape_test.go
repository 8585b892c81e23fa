package engine

import (
	"context"
	"testing"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/engine/catalog"
	"github.com/shoaldb/shoal/pinned"
	"github.com/shoaldb/shoal/planner"
	"github.com/shoaldb/shoal/sqlparse"
)

// TestShapeWindow plans one statement of a shape, then asks whether other
// statements of that shape pass through unparsed: a window shape passes a
// narrow window of new literals and sends a wide, reversed or widened one
// to the planner.
func TestShapeWindow(t *testing.T) {
	cat := planner.MapCatalog{}
	cat.Add(&planner.Table{Schema: "ontime", Name: "ontime", SplitColumn: "id", SplitUnique: true, Rows: 3e6, Min: 1, Max: 3e6,
		Columns: []planner.Column{{Name: "id"}, {Name: "Carrier"}, {Name: "YearD"}}})
	cat.Add(&planner.Table{Schema: "ontime", Name: "byother", SplitColumn: "k", Rows: 3e6, Min: 1, Max: 1000,
		Columns: []planner.Column{{Name: "k"}, {Name: "v"}}})
	snap := &catalog.Snapshot{Tables: cat}
	for _, tc := range []struct {
		first  string   // planned: routed by cost, its shape recorded
		passes []string // later statements that pass by shape
		plans  []string // later statements that are planned
	}{
		{
			first:  "select id, Carrier from ontime where id between 1000 and 1199",
			passes: []string{"select id, Carrier from ontime where id between 5 and 204", "select id, Carrier from ontime where id between 7 and 20006"},
			plans: []string{
				"select id, Carrier from ontime where id between 5 and 20005", // 20001 keys
				"select id, Carrier from ontime where id between 1 and 3000000",
				"select id, Carrier from ontime where id between 9 and 5", // reversed: the planner says
				"select id, Carrier from ontime where id between -5 and 5",
				"select id, Carrier from ontime where id between 1 and 5 and YearD = 2005",
			},
		},
		{
			first:  "select count(*) from ontime where id >= 10 and id <= 100",
			passes: []string{"select count(*) from ontime where id >= 1000 and id <= 1100"},
			plans:  []string{"select count(*) from ontime where id >= 1000 and id <= 900000"},
		},
		// Not window shapes: the bounds are not the literals as written, a
		// non-unique key, an OR, another literal.
		{first: "select count(*) from ontime where id > 10 and id < 100", plans: []string{"select count(*) from ontime where id > 10 and id < 100"}},
		{first: "select count(*) from ontime where id <= 100 and id >= 10", plans: []string{"select count(*) from ontime where id <= 100 and id >= 10"}},
		{first: "select v from byother where k between 5 and 6", plans: []string{"select v from byother where k between 5 and 6"}},
		{first: "select count(*) from ontime where id between 10 and 100 and (Carrier = YearD or YearD = id)", plans: []string{"select count(*) from ontime where id between 10 and 100 and (Carrier = YearD or YearD = id)"}},
		{first: "select count(*) from ontime where id between 10 and 100 and not Carrier = YearD", plans: []string{"select count(*) from ontime where id between 10 and 100 and not Carrier = YearD"}},
		{first: "select count(*) from ontime where id between 10 and 100 and Carrier = 'AA'", plans: []string{"select count(*) from ontime where id between 10 and 30 and Carrier = 'AA'"}},
	} {
		s := &preparer{cfg: config.Coordinator{RouteSmallRows: 20000, RouteIndexFraction: -1}, plans: &planCache{},
			snap: func() *catalog.Snapshot { return snap }, pins: pinned.NewRegistry()}
		stmt, err := sqlparse.ParseOne(tc.first)
		if err != nil {
			t.Fatal(err)
		}
		_, pass, err := s.planOnWith(context.Background(), cat, "ontime", tc.first, stmt.(*ast.SelectStmt), true)
		if err != nil || pass == "" {
			t.Fatalf("%s: not routed to a replica: %q %v", tc.first, pass, err)
		}
		for _, q := range tc.passes {
			if !s.shapePasses("ontime", q) {
				t.Errorf("after %s: %s does not pass by shape", tc.first, q)
			}
		}
		for _, q := range tc.plans {
			if s.shapePasses("ontime", q) {
				t.Errorf("after %s: %s passes by shape", tc.first, q)
			}
		}
		if s.shapePasses("other", tc.first) {
			t.Errorf("%s passes by shape in another database", tc.first)
		}
	}
}
