package engine

import (
	"fmt"
	"strings"
	"testing"

	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/pinned"
)

// TestEntryBytes: an entry weighs what it holds — its key, pass reason,
// column metadata and a plan's cached result rows — so the byte bound
// (engine/lru) counts them.
func TestEntryBytes(t *testing.T) {
	small := entryBytes("k", &cacheEntry{pass: "x"})
	if small < entryOverhead {
		t.Errorf("an entry weighs %d, less than its overhead %d", small, entryOverhead)
	}
	if d := entryBytes("k", &cacheEntry{pass: strings.Repeat("x", 1000)}) - small; d != 999 {
		t.Errorf("999 more bytes of reason weigh %d more", d)
	}
	fields := []*querypb.Field{{Name: strings.Repeat("n", 50)}}
	if d := entryBytes("k", &cacheEntry{pass: "x", fields: fields}) - small; d < 50+fieldBytes {
		t.Errorf("a field named with 50 bytes weighs %d", d)
	}
}

// TestPlanCacheStaleAndResize checks that an entry of an older generation
// is a miss and leaves the cache, and that caching a plan's result rows
// re-weighs its entry.
func TestPlanCacheStaleAndResize(t *testing.T) {
	var c planCache
	c.init(1 << 20)
	c.put("a", &cacheEntry{gen: 1, pass: "x"})
	if _, ok := c.get("a", 2); ok {
		t.Fatal("generation 1 entry returned for generation 2")
	}
	if c.Entries() != 0 || c.Bytes() != 0 {
		t.Fatalf("stale entry still counted: %d entries, %d bytes", c.Entries(), c.Bytes())
	}

	pr := &prepared{fields: []*querypb.Field{{Name: "n"}}, cacheKey: "q"}
	c.put("q", &cacheEntry{gen: 1, pr: pr})
	before := c.Bytes()
	rows := make([][]sqltypes.Value, 100)
	for i := range rows {
		rows[i] = []sqltypes.Value{sqltypes.NewVarChar(strings.Repeat("v", 100))}
	}
	pr.result.Store(&cachedResult{rows: rows})
	c.resize(pr.cacheKey, pr)
	if grew := c.Bytes() - before; grew < 100*100 {
		t.Errorf("caching 100 rows of 100 bytes grew the entry by %d bytes", grew)
	}
	// A result too big for a shard drops the entry.
	big := make([][]sqltypes.Value, 1000)
	for i := range big {
		big[i] = []sqltypes.Value{sqltypes.NewVarChar(strings.Repeat("v", 100))}
	}
	pr.result.Store(&cachedResult{rows: big})
	c.resize(pr.cacheKey, pr)
	if _, ok := c.get("q", 1); ok || c.Bytes() != 0 {
		t.Errorf("entry over a shard's share kept (%d bytes cached)", c.Bytes())
	}
}

// TestPlanCacheSweepsStalePinnedPlans: plans over a pin of older
// generations (a live pin's earlier versions) are dropped, so they do not
// keep those versions alive; current plans and plans over replica tables
// stay. Without the sweep all 1000 stale plans remain (they fit the bound).
func TestPlanCacheSweepsStalePinnedPlans(t *testing.T) {
	var c planCache
	c.init(0)
	const n = 1000
	for i := range n {
		gen := uint64(i / 10) // a new version every 10 statements
		c.put(fmt.Sprintf("q%d", i), &cacheEntry{gen: gen, pr: &prepared{pin: &pinned.Table{Version: gen}}})
	}
	c.put("replica", &cacheEntry{gen: 1, pr: &prepared{}})
	stale, current := 0, 0
	c.Sweep(func(e *cacheEntry) bool { // counts, drops nothing
		switch {
		case e.pr.pin == nil:
		case e.gen == (n-1)/10:
			current++
		default:
			stale++
		}
		return false
	})
	if stale > pinnedSweepEvery || current != 10 {
		t.Fatalf("%d stale and %d current pinned plans kept; want at most %d stale (one sweep period) and all 10 current", stale, current, pinnedSweepEvery)
	}
	if _, ok := c.get("replica", 1); !ok {
		t.Fatal("the plan over replica tables was dropped")
	}
	if got := c.Entries(); got != int64(stale+current+1) {
		t.Fatalf("entries %d, counted %d", got, stale+current+1)
	}
}

// TestPlanCacheSweepsOnNewGeneration: the first plan put for a newer
// generation (after UNCACHE or REFRESH) drops the plans over the old pin
// version at once, whatever the periodic sweep's count: they kept a
// whole pinned table alive. A plan of an older generation put late does
// not sweep the newer one's.
func TestPlanCacheSweepsOnNewGeneration(t *testing.T) {
	var c planCache
	c.init(0)
	for i := range 5 {
		c.put(fmt.Sprintf("p%d", i), &cacheEntry{gen: 7, pr: &prepared{pin: &pinned.Table{Version: 1}}})
	}
	c.put("late", &cacheEntry{gen: 6, pr: &prepared{}})
	if got := c.Entries(); got != 6 {
		t.Fatalf("an older generation's plan swept the newer one's: %d entries, want 6", got)
	}
	c.put("replica", &cacheEntry{gen: 8, pr: &prepared{}}) // after UNCACHE: a plan over replica tables
	pinnedLeft := 0
	c.Sweep(func(e *cacheEntry) bool {
		if e.pr.pin != nil {
			pinnedLeft++
		}
		return false
	})
	if pinnedLeft != 0 {
		t.Fatalf("%d plans over the old pin version kept after a plan of a newer generation", pinnedLeft)
	}
}
