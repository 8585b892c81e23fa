package engine

import (
	"testing"

	"github.com/shoaldb/shoal/planner"
)

// TestAggKind: every merge function the planner emits for a fragment
// column has its merge operator, and one it does not know is an error,
// never a silent MAX.
func TestAggKind(t *testing.T) {
	for k := planner.MergeSum; k <= planner.MergeJSONObject; k++ {
		switch k {
		case planner.MergeDistinctCount, planner.MergeDistinctSum, planner.MergeDistinctConcat:
			continue // built from the distinct keys, not a fragment column
		}
		if _, err := aggKind(k); err != nil {
			t.Errorf("%s: %v", k, err)
		}
	}
	if got, err := aggKind(planner.AggKind(250)); err == nil {
		t.Errorf("an unknown merge function merged as %v", got)
	}
}
