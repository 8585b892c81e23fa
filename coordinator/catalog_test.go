package coordinator

import (
	"testing"

	"github.com/shoaldb/shoal/planner"
)

func TestSameSchema(t *testing.T) {
	mk := func(rows int64, cols ...string) *snapshot {
		s := &snapshot{tables: planner.MapCatalog{}, schemas: map[string]bool{"ontime": true}}
		t := &planner.Table{Schema: "ontime", Name: "ontime", SplitColumn: "id", Rows: rows, Min: 1, Max: rows}
		for _, c := range cols {
			t.Columns = append(t.Columns, planner.Column{Name: c, Type: "int"})
		}
		s.tables.Add(t)
		return s
	}
	if !sameSchema(mk(10, "id", "a"), mk(20, "id", "a")) {
		t.Error("row counts and key bounds must not invalidate plans")
	}
	if sameSchema(mk(10, "id", "a"), mk(10, "id", "b")) {
		t.Error("a changed column must invalidate plans")
	}
	other := mk(10, "id", "a")
	other.tables.Add(&planner.Table{Schema: "ontime", Name: "t2"})
	if sameSchema(mk(10, "id", "a"), other) {
		t.Error("a new table must invalidate plans")
	}
}
