package engine

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/pinned"
)

// TestPlanCacheBoundedInBytes fills the cache with far more than its bound
// and checks the total stays within it, every shard evicting its least
// recently used entries first.
func TestPlanCacheBoundedInBytes(t *testing.T) {
	tests := []struct {
		name    string
		bound   int64
		entries int
		pass    int // bytes of each entry's pass reason
	}{
		{"small entries", 1 << 20, 50_000, 100},
		{"large entries", 1 << 20, 5_000, 10_000},
		{"entries larger than a shard", 64 << 10, 100, 8 << 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var c planCache
			c.init(tc.bound)
			for i := range tc.entries {
				c.put(fmt.Sprintf("db\x00select %d", i), &cacheEntry{gen: 1, pass: strings.Repeat("x", tc.pass)})
				if b := c.bytes.Load(); b > tc.bound {
					t.Fatalf("after %d puts: %d bytes, bound %d", i+1, b, tc.bound)
				}
			}
			var sum, n int64
			for i := range c.shards {
				sh := &c.shards[i]
				sum += sh.bytes
				n += int64(len(sh.m))
			}
			if sum != c.bytes.Load() || n != c.entries.Load() {
				t.Errorf("shards hold %d bytes in %d entries, totals say %d in %d", sum, n, c.bytes.Load(), c.entries.Load())
			}
			if c.entries.Load() == 0 && int64(tc.pass)+entryOverhead < tc.bound/cacheShards {
				t.Errorf("nothing kept although an entry fits a shard")
			}
			if c.evictions.Load() == 0 && c.entries.Load() < int64(tc.entries) && int64(tc.pass)+entryOverhead < tc.bound/cacheShards {
				t.Errorf("entries dropped without evictions counted")
			}
			// The newest entry is always kept when it fits.
			last := fmt.Sprintf("db\x00select %d", tc.entries-1)
			_, ok := c.get(last, 1)
			if fits := entryBytes(last, &cacheEntry{pass: strings.Repeat("x", tc.pass)}) <= tc.bound/cacheShards; ok != fits {
				t.Errorf("newest entry kept %v, fits a shard %v", ok, fits)
			}
		})
	}
}

// TestPlanCacheLRU checks that a recently read entry survives the
// eviction of one that was not read.
func TestPlanCacheLRU(t *testing.T) {
	var c planCache
	c.init(cacheShards * 4096)
	// Keys of one shard, so eviction order is observable.
	var keys []string
	want := c.shard("k0")
	for i := 0; len(keys) < 200; i++ {
		k := fmt.Sprintf("k%d", i)
		if c.shard(k) == want {
			keys = append(keys, k)
		}
	}
	e := func() *cacheEntry { return &cacheEntry{gen: 1, pass: strings.Repeat("p", 700)} }
	c.put(keys[0], e())
	c.put(keys[1], e())
	for _, k := range keys[2:] {
		if _, ok := c.get(keys[0], 1); !ok {
			t.Fatalf("%s, read before every put, was evicted when %s came in", keys[0], k)
		}
		c.put(k, e())
	}
	if _, ok := c.get(keys[1], 1); ok {
		t.Errorf("%s, never read, is still cached after %d puts over a %d-byte shard", keys[1], len(keys), want.limit)
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
	if c.entries.Load() != 0 || c.bytes.Load() != 0 {
		t.Fatalf("stale entry still counted: %d entries, %d bytes", c.entries.Load(), c.bytes.Load())
	}

	pr := &prepared{fields: []*querypb.Field{{Name: "n"}}, cacheKey: "q"}
	c.put("q", &cacheEntry{gen: 1, pr: pr})
	before := c.bytes.Load()
	rows := make([][]sqltypes.Value, 100)
	for i := range rows {
		rows[i] = []sqltypes.Value{sqltypes.NewVarChar(strings.Repeat("v", 100))}
	}
	pr.result.Store(&cachedResult{rows: rows})
	c.resize(pr.cacheKey, pr)
	if grew := c.bytes.Load() - before; grew < 100*100 {
		t.Errorf("caching 100 rows of 100 bytes grew the entry by %d bytes", grew)
	}
	// A result too big for a shard drops the entry.
	big := make([][]sqltypes.Value, 1000)
	for i := range big {
		big[i] = []sqltypes.Value{sqltypes.NewVarChar(strings.Repeat("v", 100))}
	}
	pr.result.Store(&cachedResult{rows: big})
	c.resize(pr.cacheKey, pr)
	if _, ok := c.get("q", 1); ok || c.bytes.Load() != 0 {
		t.Errorf("entry over a shard's share kept (%d bytes cached)", c.bytes.Load())
	}
}

// TestPlanCacheConcurrent runs gets and puts from many goroutines (for
// the race detector) and checks the totals afterwards.
func TestPlanCacheConcurrent(t *testing.T) {
	var c planCache
	c.init(256 << 10)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 5000 {
				k := fmt.Sprintf("g%d-%d", g, i%700)
				if _, ok := c.get(k, 1); !ok {
					c.put(k, &cacheEntry{gen: 1, pass: k})
				}
			}
		})
	}
	wg.Wait()
	if b := c.bytes.Load(); b > 256<<10 || b <= 0 {
		t.Errorf("%d bytes cached, bound %d", b, 256<<10)
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
	for i := range c.shards {
		for _, nd := range c.shards[i].m {
			switch e := nd.e; {
			case e.pr.pin == nil:
			case e.gen == (n-1)/10:
				current++
			default:
				stale++
			}
		}
	}
	if stale > pinnedSweepEvery || current != 10 {
		t.Fatalf("%d stale and %d current pinned plans kept; want at most %d stale (one sweep period) and all 10 current", stale, current, pinnedSweepEvery)
	}
	if _, ok := c.get("replica", 1); !ok {
		t.Fatal("the plan over replica tables was dropped")
	}
	if got := c.entries.Load(); got != int64(stale+current+1) {
		t.Fatalf("entries %d, counted %d", got, stale+current+1)
	}
}
