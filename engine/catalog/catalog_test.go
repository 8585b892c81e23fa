package catalog

import (
	"testing"

	"github.com/shoaldb/shoal/planner"
)

// TestSameSchema: Follow moves Gen when a table changed, grew past a
// doubling, or appeared, and not for noise in its size.
func TestSameSchema(t *testing.T) {
	sameSchema := func(a, b *Snapshot) bool {
		a.Follow(nil)
		b.Follow(a)
		return a.Gen == b.Gen
	}
	mk := func(rows int64, cols ...string) *Snapshot {
		s := &Snapshot{Tables: planner.MapCatalog{}, Schemas: map[string]bool{"ontime": true}}
		t := &planner.Table{Schema: "ontime", Name: "ontime", SplitColumn: "id", Rows: rows, Min: 1, Max: rows}
		for _, c := range cols {
			t.Columns = append(t.Columns, planner.Column{Name: c, Type: "int"})
		}
		s.Tables.Add(t)
		return s
	}
	for _, c := range []struct {
		from, to int64
		same     bool
	}{
		{10, 20, true},           // small tables: noise
		{100_000, 190_000, true}, // less than twice
		{100_000, 60_000, true},  // less than half as many
		{1, 60_000, false},       // an empty table filled: routing changes
		{3_000_000, 7_000_000, false},
		{500_000, 200_000, false},
	} {
		if got := sameSchema(mk(c.from, "id", "a"), mk(c.to, "id", "a")); got != c.same {
			t.Errorf("rows %d -> %d: same schema %v, want %v", c.from, c.to, got, c.same)
		}
	}
	if sameSchema(mk(10, "id", "a"), mk(10, "id", "b")) {
		t.Error("a changed column must invalidate plans")
	}
	other := mk(10, "id", "a")
	other.Tables.Add(&planner.Table{Schema: "ontime", Name: "t2"})
	if sameSchema(mk(10, "id", "a"), other) {
		t.Error("a new table must invalidate plans")
	}
}

func TestRowsEstimate(t *testing.T) {
	for _, c := range []struct{ est, lo, hi, minRows, want int64 }{
		{9_699_062, 1, 75_627_459, 100_000, 9_699_062}, // gapped keys: trust the estimate
		{0, 1, 60_000, 100_000, 60_000},                // freshly loaded, no statistics yet
		{12, 1, 500, 100_000, 500},
		{800, 1, 500, 100_000, 800},
		{5_000_000, 1, 1_000, 100_000, 5_000_000},
	} {
		if got := rowsEstimate(c.est, c.lo, c.hi, c.minRows); got != c.want {
			t.Errorf("rowsEstimate(%d, [%d, %d], %d) = %d, want %d", c.est, c.lo, c.hi, c.minRows, got, c.want)
		}
	}
}
