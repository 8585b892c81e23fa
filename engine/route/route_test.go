package route

import (
	"context"
	"strings"
	"testing"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/engine/catalog"
	"github.com/shoaldb/shoal/planner"
	"github.com/shoaldb/shoal/sqlparse"
)

func TestRouteByCost(t *testing.T) {
	cols := func(names ...string) []planner.Column {
		out := make([]planner.Column, len(names))
		for i, n := range names {
			out[i] = planner.Column{Name: n}
		}
		return out
	}
	cat := planner.MapCatalog{}
	cat.Add(&planner.Table{Schema: "ontime", Name: "ontime", SplitColumn: "id", SplitUnique: true, Rows: 3e6, Min: 1, Max: 3e6,
		Columns: cols("id", "YearD", "Carrier", "Distance")})
	cat.Add(&planner.Table{Schema: "ontime", Name: "byother", SplitColumn: "k", Rows: 3e6, Min: 1, Max: 1000,
		Columns: cols("k", "v")})
	snap := &catalog.Snapshot{Tables: cat}
	cfg := config.Coordinator{RouteSmallRows: 20000, RouteIndexFraction: 0.05}
	// A fake replica optimizer: the Carrier index for Carrier = 'AA'
	// (100000 rows of 3M), a full scan otherwise.
	explained := 0
	forced := map[string]string{} // distributed statements' fragment SQL
	explain := func(_ context.Context, _, q string) (Access, bool) {
		explained++
		switch {
		case strings.Contains(q, "'XX'"):
			return Access{Type: "ref", Key: "Carrier", Rows: 12}, true
		case strings.Contains(q, "'AA'"):
			return Access{Type: "ref", Key: "Carrier", Rows: 100000}, true
		case strings.Contains(q, "'UA'"):
			return Access{Type: "ref", Key: "Carrier", Rows: 900000}, true
		case strings.Contains(q, "count(*) from ontime group by Carrier"):
			// MariaDB reads the Carrier index alone.
			return Access{Type: "index", Key: "Carrier", Rows: 3e6, Covering: true}, true
		case strings.Contains(q, "count(*) from ontime where YearD > 0"):
			// Index condition pushdown is not a covering read.
			return Access{Type: "index", Key: "Carrier", Rows: 3e6}, true
		case strings.Contains(q, "max(YearD)"):
			return Access{IndexEnds: true}, true
		case strings.Contains(q, "count(id) from ontime"):
			// The primary key is the table: scanning it is a table scan.
			return Access{Type: "index", Key: "PRIMARY", Rows: 3e6, Covering: true}, true
		}
		return Access{Type: "all", Rows: 3e6}, true
	}
	for _, tc := range []struct {
		query   string
		pass    string // substring of the passthrough reason, "" to distribute
		note    string // substring of the distributed plan's note
		explain bool   // asks the optimizer
	}{
		{"select * from ontime where id = 1500017", "~1 rows (1 key(s) of the primary key) <= route_small_rows 20000", "", false},
		{"select * from ontime where id = 1500017 + 0*42", "1 key(s) of the primary key", "", false},
		{"select * from ontime where id = CAST('7' AS SIGNED)", "1 key(s)", "", false},
		{"select * from ontime where id in (1, 2999999)", "2 key(s)", "", false},
		{"select count(*) from ontime where id = 7.5", "matches no key", "", false},
		{"select id, Carrier from ontime where id between 1000 and 1199", "~200 rows (key window [1000, 1199] over the key sample)", "", false},
		{"select sum(Distance) from ontime where id between 1 and 1000000", "", "~1000000 rows (key window [1, 1000000] over the key sample) > route_small_rows 20000", false},
		{"select count(*) from ontime where Carrier = 'XX'", "replica optimizer: ref on Carrier", "", true},
		{"select count(*) from ontime where Carrier = 'AA' and YearD = 2005", "<= route_index_fraction 0.05 of ~3000000 rows", "", true},
		{"select count(*) from ontime where Carrier = 'UA'", "", "> route_index_fraction", true},
		{"select Carrier, sum(Distance) from ontime group by Carrier", "", "~3000000 rows (replica optimizer: all)", true},
		{"select Carrier, count(*) from ontime group by Carrier", "reads the covering index Carrier alone (~3000000 rows)", "", true},
		{"select count(*) from ontime where YearD > 0", "", "replica optimizer: index on Carrier", true},
		{"select count(id) from ontime", "", "replica optimizer: index on PRIMARY", true},
		{"select min(Carrier), max(YearD) from ontime", "answers from the ends of an index", "", true},
		// Exports: every row read is returned.
		{"select id, Carrier, Distance from ontime where id >= 10", "an export: every one of ~", "", false},
		{"select * from ontime", "an export: every one of ~3000000 rows (replica optimizer: all)", "", true},
		{"select id, Carrier from ontime where id between 1 and 1000000 order by id", "an export", "", false},
		// Not exports: a filter may keep few rows, a LIMIT cuts, groups.
		{"select id, Carrier from ontime where id >= 10 and YearD = 2005", "", "route: distributed, ~", false},
		{"select id, Carrier from ontime where id >= 10 order by Distance desc limit 20", "", "route: distributed, ~", false},
		{"select Carrier, count(*) from ontime where id >= 10 group by Carrier", "", "route: distributed, ~", false},
		// Rows without ORDER BY that the replica reads through a
		// secondary index come in that index's order: one replica.
		{"select id, Distance from ontime where Carrier = 'UA'", "come in that index's order on the replica (route_row_exports)", "", true},
		{"select id, Distance from ontime where Carrier = 'UA' order by Distance desc limit 5", "", "> route_index_fraction", true},
		{"select YearD, sum(Distance) from ontime where Carrier = 'UA' group by YearD", "", "> route_index_fraction", true},
		// A split column that is not unique: a key is not a row.
		{"select sum(v) from byother where k in (5, 900)", "", "key window [5, 900]", false},
		{"select v from byother where k in (5, 900)", "an export: every one of ~2688000 rows (key window [5, 900]", "", false},
		{"select v from byother where k = 5", "~3000 rows (key window [5, 5]", "", false},
		{"select count(*) from ontime o where o.Carrier = 'QQ' and o.YearD = 2005", "", "fragments read their primary key ranges (FORCE INDEX (PRIMARY))", true},
		{"select count(*) from ontime use index (Carrier) where Carrier = 'QQ' and YearD = 2005", "", "~3000000 rows (replica optimizer: all)", true},
	} {
		stmt, err := sqlparse.ParseOne(tc.query)
		if err != nil {
			t.Fatal(err)
		}
		p, err := planner.PlanSelect(cat, "ontime", stmt.(*ast.SelectStmt))
		if err != nil {
			t.Fatalf("%s: %v", tc.query, err)
		}
		explained = 0
		pass, note, _ := ByCost(context.Background(), cfg, snap, "ontime", tc.query, p, explain)
		switch {
		case tc.pass != "" && !strings.Contains(pass, tc.pass):
			t.Errorf("%s: passthrough %q, want it to contain %q", tc.query, pass, tc.pass)
		case tc.pass == "" && pass != "":
			t.Errorf("%s: passes through (%s), want it distributed", tc.query, pass)
		case tc.note != "" && !strings.Contains(note, tc.note):
			t.Errorf("%s: note %q, want it to contain %q", tc.query, note, tc.note)
		}
		if (explained > 0) != tc.explain {
			t.Errorf("%s: asked the optimizer %d times", tc.query, explained)
		}
		if pass == "" {
			forced[tc.query] = p.FragmentSQL
		}
	}
	// Fragments keep to their primary key ranges where the optimizer
	// scans the table for the statement (planner.Plan.KeepPrimary): not
	// where it reads an index, the split column is not the primary key,
	// or the statement has index hints of its own.
	for q, want := range map[string]string{
		"select Carrier, sum(Distance) from ontime group by Carrier":                            "FROM `ontime`.`ontime` FORCE INDEX (PRIMARY) WHERE ",
		"select count(*) from ontime o where o.Carrier = 'QQ' and o.YearD = 2005":               "FROM `ontime`.`ontime` AS `o` FORCE INDEX (PRIMARY) WHERE ",
		"select count(*) from ontime where Carrier = 'UA'":                                      "",
		"select count(*) from ontime where YearD > 0":                                           "",
		"select sum(v) from byother where k in (5, 900)":                                        "",
		"select count(*) from ontime use index (Carrier) where Carrier = 'QQ' and YearD = 2005": "",
	} {
		frag, ok := forced[q]
		switch {
		case !ok:
			t.Errorf("%s: not among the distributed statements", q)
		case want == "" && strings.Contains(frag, "FORCE INDEX"):
			t.Errorf("%s: fragment %s, want no FORCE INDEX", q, frag)
		case want != "" && !strings.Contains(frag, want):
			t.Errorf("%s: fragment %s, want it to contain %q", q, frag, want)
		}
	}
	// route_covering_scans: false distributes the covering scan.
	off := false
	cfg.RouteCoveringScans = &off
	stmt, _ := sqlparse.ParseOne("select Carrier, count(*) from ontime group by Carrier")
	p, _ := planner.PlanSelect(cat, "ontime", stmt.(*ast.SelectStmt))
	if pass, _, _ := ByCost(context.Background(), cfg, snap, "ontime", "select Carrier, count(*) from ontime group by Carrier", p, explain); pass != "" {
		t.Errorf("route_covering_scans false routes: %s", pass)
	}
	// route_row_exports: false distributes exports.
	cfg.RouteRowExports = &off
	stmt, _ = sqlparse.ParseOne("select * from ontime where id >= 10")
	p, _ = planner.PlanSelect(cat, "ontime", stmt.(*ast.SelectStmt))
	if pass, _, _ := ByCost(context.Background(), cfg, snap, "ontime", "select * from ontime where id >= 10", p, explain); pass != "" {
		t.Errorf("route_row_exports false routes: %s", pass)
	}
	// route_small_rows < 0: never.
	cfg.RouteSmallRows = -1
	stmt, _ = sqlparse.ParseOne("select * from ontime where id = 5")
	p, _ = planner.PlanSelect(cat, "ontime", stmt.(*ast.SelectStmt))
	if pass, _, _ := ByCost(context.Background(), cfg, snap, "ontime", "", p, explain); pass != "" {
		t.Errorf("route_small_rows -1 routes: %s", pass)
	}
}
