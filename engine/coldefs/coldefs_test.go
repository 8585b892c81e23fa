package coldefs

import (
	"slices"
	"testing"

	"github.com/shoaldb/shoal/planner"
)

// TestForKeyPrefix: a statement fixing the first column of a composite
// key (WHERE tenant_id = 7) is probed on the second column under that
// prefixes (prefixOutside): below or above the first column, its own range
// is provably empty and MariaDB drops the temporary table it describes.
func TestForKeyPrefix(t *testing.T) {
	seven, eight := int64(7), int64(8)
	p := &planner.Plan{Split: planner.SplitKey, DB: "db", Table: "events",
		KeyColumns: []string{"`e`.`tenant_id`", "`e`.`i``d`"}, KeyFirstLo: &seven, KeyFirstHi: &seven}
	q := For(nil, p, "SELECT 1")
	if q.First != "`e`.`tenant_id`" || !slices.Equal(q.FirstIn, []int64{7}) || q.Key != "`e`.`tenant_id`" || q.Table != "`db`.`events`" {
		t.Errorf("For: %+v", q)
	}
	if got := unqualified("`e`.`i``d`"); got != "i`d" {
		t.Errorf("unqualified = %q", got)
	}
	p.KeyFirstHi = &eight // tenant_id IN (7, 8): two prefixes
	if q := For(nil, p, "SELECT 1"); q.First == "" || !slices.Equal(q.FirstIn, []int64{7, 8}) {
		t.Errorf("For over two values: %+v", q)
	}
	far := int64(7 + maxPrefixes)
	p.KeyFirstHi = &far // a wide range of the first column: no prefix
	if q := For(nil, p, "SELECT 1"); q.First != "" || q.FirstIn != nil {
		t.Errorf("For over a range: %+v", q)
	}
	p.KeyFirstHi, p.KeyColumns = &seven, p.KeyColumns[:1] // one key column
	if q := For(nil, p, "SELECT 1"); q.First != "" {
		t.Errorf("For over a one-column key: %+v", q)
	}
	// A whole-table pin of it is split on the integer first column.
	ip := &planner.Plan{Split: planner.SplitInt, DB: "db", Table: "events", SplitColumn: "`e`.`tenant_id`", KeyLo: &seven, KeyHi: &seven}
	if q := For(nil, ip, "SELECT 1"); q.First != "`e`.`tenant_id`" || !slices.Equal(q.FirstIn, []int64{7}) {
		t.Errorf("For over an integer split: %+v", q)
	}
}
