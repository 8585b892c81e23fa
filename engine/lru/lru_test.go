package lru

import (
	"fmt"
	"sync"
	"testing"
)

// TestBoundedInBytes fills the cache with far more than its bound and
// checks the total stays within it, the shards' sums match the totals,
// and evictions are counted.
func TestBoundedInBytes(t *testing.T) {
	tests := []struct {
		name    string
		bound   int64
		entries int
		size    int64
	}{
		{"small entries", 1 << 20, 50_000, 356},
		{"large entries", 1 << 20, 5_000, 10_256},
		{"entries larger than a shard", 64 << 10, 100, 8 << 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var c Cache[int]
			c.Init(tc.bound)
			for i := range tc.entries {
				c.Put(fmt.Sprintf("select %d", i), i, tc.size)
				if b := c.Bytes(); b > tc.bound {
					t.Fatalf("after %d puts: %d bytes, bound %d", i+1, b, tc.bound)
				}
			}
			var sum, n int64
			for i := range c.shards {
				sum += c.shards[i].bytes
				n += int64(len(c.shards[i].m))
			}
			if sum != c.Bytes() || n != c.Entries() {
				t.Errorf("shards hold %d bytes in %d entries, totals say %d in %d", sum, n, c.Bytes(), c.Entries())
			}
			fits := tc.size <= tc.bound/Shards
			if fits && c.Entries() == 0 {
				t.Errorf("nothing kept although an entry fits a shard")
			}
			if fits && c.Entries() < int64(tc.entries) && c.Evictions() == 0 {
				t.Errorf("entries dropped without evictions counted")
			}
			// The newest entry is kept exactly when it fits a shard.
			v, ok := c.Get(fmt.Sprintf("select %d", tc.entries-1), nil)
			if ok != fits || ok && v != tc.entries-1 {
				t.Errorf("newest entry: %d, %v; fits a shard %v", v, ok, fits)
			}
		})
	}
}

// TestLRUOrder checks that a recently read entry survives the eviction of
// one that was not read.
func TestLRUOrder(t *testing.T) {
	var c Cache[string]
	c.Init(Shards * 4096)
	// Keys of one shard, so eviction order is observable.
	var keys []string
	want := c.shard("k0")
	for i := 0; len(keys) < 200; i++ {
		if k := fmt.Sprintf("k%d", i); c.shard(k) == want {
			keys = append(keys, k)
		}
	}
	c.Put(keys[0], keys[0], 700)
	c.Put(keys[1], keys[1], 700)
	for _, k := range keys[2:] {
		if _, ok := c.Get(keys[0], nil); !ok {
			t.Fatalf("%s, read before every put, was evicted when %s came in", keys[0], k)
		}
		c.Put(k, k, 700)
	}
	if _, ok := c.Get(keys[1], nil); ok {
		t.Errorf("%s, never read, is still cached after %d puts over a %d-byte shard", keys[1], len(keys), want.limit)
	}
}

// TestInvalidAndReweigh: a value Get's check rejects is a miss and leaves
// the cache; Reweigh changes a value's weight, and one grown past a
// shard's share leaves the cache.
func TestInvalidAndReweigh(t *testing.T) {
	var c Cache[int]
	c.Init(1 << 20)
	c.Put("a", 1, 100)
	if _, ok := c.Get("a", func(v int) bool { return v == 2 }); ok {
		t.Fatal("a value the check rejects was returned")
	}
	if c.Entries() != 0 || c.Bytes() != 0 {
		t.Fatalf("rejected value still counted: %d entries, %d bytes", c.Entries(), c.Bytes())
	}
	c.Put("q", 7, 100)
	c.Reweigh("q", func(v int) (int64, bool) { return 0, false })
	if c.Bytes() != 100 {
		t.Errorf("a declined reweigh changed the weight to %d", c.Bytes())
	}
	c.Reweigh("q", func(v int) (int64, bool) { return 10_100, v == 7 })
	if c.Bytes() != 10_100 {
		t.Errorf("reweighed to 10100, cache says %d", c.Bytes())
	}
	c.Reweigh("q", func(int) (int64, bool) { return 1 << 20, true })
	if _, ok := c.Get("q", nil); ok || c.Bytes() != 0 || c.Evictions() != 1 {
		t.Errorf("value over a shard's share kept (%d bytes, %d evictions)", c.Bytes(), c.Evictions())
	}
}

// TestSweep drops exactly what the predicate selects.
func TestSweep(t *testing.T) {
	var c Cache[int]
	for i := range 1000 {
		c.Put(fmt.Sprint(i), i, 10)
	}
	c.Sweep(func(v int) bool { return v%3 == 0 })
	if c.Entries() != 666 || c.Bytes() != 6660 {
		t.Fatalf("after the sweep: %d entries, %d bytes; want 666, 6660", c.Entries(), c.Bytes())
	}
	for i := range 1000 {
		if _, ok := c.Get(fmt.Sprint(i), nil); ok != (i%3 != 0) {
			t.Fatalf("%d held %v after the sweep", i, ok)
		}
	}
}

// TestConcurrent runs gets and puts from many goroutines (for the race
// detector) and checks the totals afterwards.
func TestConcurrent(t *testing.T) {
	var c Cache[string]
	c.Init(256 << 10)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 5000 {
				k := fmt.Sprintf("g%d-%d", g, i%700)
				if v, ok := c.Get(k, nil); !ok {
					c.Put(k, k, int64(256+len(k)))
				} else if v != k {
					t.Errorf("%s holds %s", k, v)
				}
			}
		})
	}
	wg.Wait()
	if b := c.Bytes(); b > 256<<10 || b <= 0 {
		t.Errorf("%d bytes cached, bound %d", b, 256<<10)
	}
}
