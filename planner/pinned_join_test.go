package planner

import "testing"

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
func TestPinnedJoinPlans(t *testing.T) { runGolden(t, "pinned_joins.json", pinnedCatalog()) }
