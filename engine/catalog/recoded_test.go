package catalog

import (
	"testing"

	"github.com/shoaldb/shoal/planner"
)

// TestRecoded: a statement needs the real collations of its columns only
// when it names a table with a character column outside utf8mb4.
func TestRecoded(t *testing.T) {
	s := &Snapshot{Tables: planner.MapCatalog{}}
	s.Tables.Add(&planner.Table{Schema: "db", Name: "mixed_cs", Columns: []planner.Column{
		{Name: "l1", Type: "varchar", Charset: "latin1", Collation: "latin1_swedish_ci"}}})
	s.Tables.Add(&planner.Table{Schema: "db", Name: "ontime", Columns: []planner.Column{
		{Name: "Carrier", Type: "varchar", Charset: "utf8mb4", Collation: "utf8mb4_general_ci"},
		{Name: "id", Type: "int"}, {Name: "b", Type: "varbinary"}}})
	s.recoded = recodedNames(s.Tables)
	if len(s.recoded) != 1 {
		t.Fatalf("tables with non-utf8mb4 columns: %v, want mixed_cs only", s.recoded)
	}
	cases := map[string]bool{
		"SELECT `l1`, COUNT(1) FROM `db`.`mixed_cs` GROUP BY `l1`": true,
		"SELECT `l1` FROM `db`.`MIXED_CS`":                         true, // names compare as the server may (lower_case_table_names)
		"SELECT `Carrier` FROM `db`.`ontime`":                      false,
	}
	for sql, want := range cases {
		if got := s.Recoded(sql); got != want {
			t.Errorf("%s: %v, want %v", sql, got, want)
		}
	}
}
