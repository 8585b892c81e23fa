package planner_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/shoaldb/shoal/planner"
	"github.com/shoaldb/shoal/pushdown"
	"github.com/shoaldb/shoal/sqlparse"
)

// fuzzCatalog is a small catalog: the ontime table split on id, a table
// with a nullable split column, and one without a split column.
func fuzzCatalog() planner.Catalog {
	cols := func(names ...string) []planner.Column {
		out := make([]planner.Column, len(names))
		for i, n := range names {
			out[i] = planner.Column{Name: n, Type: "int"}
		}
		return out
	}
	c := planner.MapCatalog{}
	c.Add(&planner.Table{Schema: "ontime", Name: "ontime", SplitColumn: "id", Rows: 1e6, Min: 1, Max: 1e6,
		Columns: cols("id", "YearD", "MonthD", "DayofMonth", "Carrier", "Origin", "Dest",
			"DepDelayMinutes", "ArrDelayMinutes", "Cancelled", "Distance", "FlightDate")})
	c.Add(&planner.Table{Schema: "ontime", Name: "t", SplitColumn: "k", Rows: 1000, Min: -50, Max: 50, Columns: cols("k", "v", "s")})
	c.Add(&planner.Table{Schema: "ontime", Name: "nokey", Columns: cols("a", "b")})
	return c
}

// FuzzPlan drives the query front end: parse → PlanSelect → render every
// fragment (each range bound, and the empty range) and the metadata
// statement. Nothing may panic, and every rendered statement must parse
// again: a fragment the worker cannot read would fail the query, and one
// the parser reads differently would answer a different question. The
// seeds are the golden plan queries plus a few hostile ones; `go test`
// runs them, `go test -fuzz FuzzPlan ./planner` explores.
func FuzzPlan(f *testing.F) {
	raw, err := os.ReadFile(filepath.Join("testdata", "plans.json"))
	if err == nil {
		var cases []struct {
			Query string `json:"query"`
		}
		if json.Unmarshal(raw, &cases) == nil {
			for _, c := range cases {
				f.Add(c.Query)
			}
		}
	}
	for _, q := range []string{
		"SELECT COUNT(*) FROM ontime",
		"SELECT Carrier, SUM(ArrDelayMinutes), AVG(Distance) FROM ontime WHERE YearD = 2020 GROUP BY Carrier HAVING COUNT(*) > 3 ORDER BY 2 DESC LIMIT 5",
		"SELECT COUNT(DISTINCT Origin), SUM(DISTINCT v) FROM t",
		"SELECT k, v FROM t WHERE s LIKE 'a\\'%' ORDER BY k LIMIT 10 OFFSET 5",
		"SELECT `__SHOAL_RANGE__` FROM ontime",
		"SELECT 'x`y', \"q\\\"\" FROM ontime WHERE Origin = 'it''s'",
		"SELECT MIN(id), MAX(id), BIT_XOR(v), STDDEV(v) FROM t GROUP BY s",
		"SELECT * FROM nokey",
		"SELECT ((((((((((1)))))))))) + id FROM ontime",
		"SELECT Carrier FROM ontime /* comment */ GROUP BY Carrier -- tail",
		"SELECT id FROM ontime WHERE id IN (SELECT k FROM t)",
		"SELECT _utf8mb4 0xC3A9, X'FF', b'101' FROM ontime",
		"SELECT \xff\xfe FROM ontime",
	} {
		f.Add(q)
	}
	cat := fuzzCatalog()
	ranges := pushdown.Split(1, 1000, 3, false)
	f.Fuzz(func(t *testing.T, q string) {
		if len(q) > 4096 {
			return
		}
		stmt, err := sqlparse.ParseOne(q)
		if err != nil {
			return
		}
		sel, ok := stmt.(*ast.SelectStmt)
		if !ok {
			return
		}
		p, err := planner.PlanSelect(cat, "ontime", sel)
		if err != nil {
			var nd *planner.NotDistributed
			if !errors.As(err, &nd) {
				t.Logf("%s: planner error %v", q, err) // an error is fine; a panic is not
			}
			return
		}
		check := func(what, sql string) {
			if _, err := sqlparse.ParseOne(sql); err != nil {
				t.Fatalf("%s\n%s does not parse: %v\n%s", q, what, err, sql)
			}
		}
		check("metadata statement", p.MetaSQL)
		check("empty fragment", pushdown.Empty(p))
		for _, r := range ranges {
			check("fragment "+r.String(), pushdown.Bind(p, r))
		}
	})
}
