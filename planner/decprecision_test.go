package planner

import (
	"testing"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/shoaldb/shoal/sqlparse"
)

// TestSumOverflowAndRollupSpellings: SUM and AVG of an exact value wider
// than 43 digits pass through (MariaDB's running sum may leave
// DECIMAL(65) and saturate in its scan order), and so does WITH ROLLUP
// over a text key whose collation puts different strings in one group,
// or with a MIN/MAX of such text (MariaDB shows the spelling its filesort
// put first), and so do the
// STDDEV family of a DATETIME and a FLOAT group key or DISTINCT argument
// (fragments send its printed digits); the rest stays distributed.
func TestSumOverflowAndRollupSpellings(t *testing.T) {
	cat := MapCatalog{}
	cat.Add(&Table{Schema: "db", Name: "t", SplitColumn: "id", Rows: 1e6, Min: 1, Max: 1e6, Columns: []Column{
		{Name: "id", Type: "int"}, {Name: "g", Type: "int"}, {Name: "b", Type: "bigint"},
		{Name: "wide", Type: "decimal", Precision: 65, Scale: 30}, {Name: "mid", Type: "decimal", Precision: 40, Scale: 10},
		{Name: "s", Type: "varchar", Charset: "utf8mb4", Collation: "utf8mb4_general_ci"},
		{Name: "sb", Type: "varchar", Charset: "utf8mb4", Collation: "utf8mb4_bin"},
		{Name: "vb", Type: "varbinary"}, {Name: "dt", Type: "date"}, {Name: "dt3", Type: "datetime"},
		{Name: "fl", Type: "float"}, {Name: "dbl", Type: "double"}}})
	for q, pass := range map[string]bool{
		"select g, sum(wide) from t group by g":                                  true,
		"select avg(wide) from t":                                                true,
		"select g, sum(wide * 1) from t group by g":                              true,
		"select g, sum(mid), avg(mid), min(wide), max(wide) from t group by g":   false,
		"select g, sum(mid * mid) from t group by g":                             true,
		"select g, sum(b * b), sum(b + mid) from t group by g":                   false,
		"select g, sum(if(wide > 0, 1, 0)) from t group by g":                    true,
		"select g, sum(distinct wide) from t group by g":                         true,
		"select g, count(*) from t group by g with rollup":                       false,
		"select s, count(*) from t group by s with rollup":                       true,
		"select g, lower(sb), count(*) from t group by g, lower(sb) with rollup": true,
		"select hex(vb), count(*) from t group by hex(vb) with rollup":           false,
		"select date_format(dt, '%Y'), count(*) from t group by 1 with rollup":   false,
		"select g, min(concat(s, '#')), count(*) from t group by g with rollup":  true,
		"select g, max(s) from t group by g with rollup having max(s) > 'a'":     true,
		"select g, min(vb), max(dt), min(sb) from t group by g with rollup":      true,
		"select g, min(vb), max(dt) from t group by g with rollup":               false,
		"select g, min(s), max(s) from t group by g":                             false,
		"select *, min(s) from t group by g with rollup":                         true, // a wildcard beside them
		"select s, count(*) from t group by s":                                   false,
		"select g, stddev_pop(dt3), var_samp(dt3 + 0) from t group by g":         true,
		"select g, stddev_pop(b), max(dt3) from t group by g":                    false,
		"select fl, count(*) from t group by fl":                                 true,
		"select g, count(distinct fl) from t group by g":                         true,
		"select distinct ifnull(fl, 0) from t":                                   true,
		"select g, min(fl), max(fl), count(distinct dbl) from t group by g":      false,
		"select dbl, count(*) from t group by dbl":                               false,
		"select round(fl), count(*) from t group by 1":                           false,
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
