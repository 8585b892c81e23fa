package engine

import (
	"fmt"
	"testing"

	"github.com/shoaldb/shoal/pinned"
)

// TestPlanCacheSweepsStalePinnedPlans: plans over a pin of older
// generations (a live pin's earlier versions) are dropped, so they do not
// keep those versions alive; current plans and plans over replica tables
// stay. Without the sweep all 1000 stale plans remain.
func TestPlanCacheSweepsStalePinnedPlans(t *testing.T) {
	var c planCache
	const n = 1000
	for i := range n {
		gen := uint64(i / 10) // a new version every 10 statements
		c.put(fmt.Sprintf("q%d", i), &cacheEntry{gen: gen, pr: &prepared{pin: &pinned.Table{Version: gen}}})
	}
	c.put("replica", &cacheEntry{gen: 1, pr: &prepared{}})
	stale, current := 0, 0
	c.m.Range(func(_, v any) bool {
		e := v.(*cacheEntry)
		switch {
		case e.pr.pin == nil:
		case e.gen == (n-1)/10:
			current++
		default:
			stale++
		}
		return true
	})
	if stale > pinnedSweepEvery || current != 10 {
		t.Fatalf("%d stale and %d current pinned plans kept; want at most %d stale (one sweep period) and all 10 current", stale, current, pinnedSweepEvery)
	}
	if _, ok := c.get("replica", 1); !ok {
		t.Fatal("the plan over replica tables was dropped")
	}
	if got := c.size.Load(); got != int64(stale+current+1) {
		t.Fatalf("size %d, entries %d", got, stale+current+1)
	}
}
