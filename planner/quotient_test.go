package planner

import (
	"testing"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/shoaldb/shoal/sqlparse"
)

// TestMergedValuesAsServer: what the final stage cannot compute as
// MariaDB does passes through (quotient.go): ROUND/FLOOR of a TIME or
// DATETIME (MariaDB keeps the type), SUM/AVG(DISTINCT) of a DOUBLE or
// FLOAT (MariaDB adds in its own order), the VARIANCE family of a DECIMAL
// with a scale (shown past the digits that agree), minus a BIT_
// aggregate (1690 past 2^63); the rest stays distributed.
func TestMergedValuesAsServer(t *testing.T) {
	cat := MapCatalog{}
	cat.Add(&Table{Schema: "db", Name: "t", SplitColumn: "id", Rows: 1e6, Min: 1, Max: 1e6, Columns: []Column{
		{Name: "id", Type: "int"}, {Name: "g", Type: "int"}, {Name: "tm", Type: "time"}, {Name: "dt", Type: "date"},
		{Name: "dtm", Type: "datetime"}, {Name: "f", Type: "float"}, {Name: "d", Type: "double"},
		{Name: "dc", Type: "decimal", Scale: 3}, {Name: "i", Type: "int"}}})
	for q, pass := range map[string]bool{
		"select g, floor(min(tm)) from t group by g":                    true,
		"select g, round(max(dtm)) from t group by g":                   true,
		"select g, floor(max(dt)), max(tm) from t group by g":           false,
		"select g, sum(distinct f) from t group by g":                   true,
		"select g, avg(distinct d + 1) from t group by g":               true,
		"select g, sum(distinct i), avg(distinct dc) from t group by g": false,
		"select g, var_samp(i * dc) from t group by g":                  true,
		"select g, stddev(i) from t group by g":                         false,
		"select g, -bit_or(i) from t group by g":                        true,
		"select g, bit_or(i) - 1 from t group by g":                     false,
		"select g, avg(i) > 1.5, avg(i) > 1.5e0 from t group by g":      false,
		"select g, avg(i) > max(d) from t group by g":                   true,
		"select g, sec_to_time(avg(i)) from t group by g":               true,
		"select g, date_add(max(dt), interval 1 day) from t group by g": false,
		// Grafana's bucket: FLOOR of a number computed from a DATETIME.
		"select floor(unix_timestamp(dtm) / 21600) * 21600, count(*) from t group by 1":             false,
		"select g, floor(max(unix_timestamp(dtm)) / 60), ceil(max(hour(tm)) / 2) from t group by g": false,
		"select g, floor(if(g > 1, max(dtm), null)) from t group by g":                              true,
		"select g, truncate(max(dtm) + interval 1 second, 0) from t group by g":                     true,
	} {
		stmts, err := sqlparse.Parse(q)
		if err != nil {
			t.Fatal(q, err)
		}
		p, err := PlanSelect(cat, "db", stmts[0].(*ast.SelectStmt))
		gotPass := err != nil || p == nil
		if gotPass != pass {
			t.Errorf("%s: passthrough %v (%v), want %v", q, gotPass, err, pass)
		}
	}
}
