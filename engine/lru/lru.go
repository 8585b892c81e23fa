// Package lru is a cache bounded in bytes with least-recently-used
// eviction, for the coordinator's caches of plans, shapes, prepared
// statements' metadata and results (engine/plancache.go), whose entries
// weigh from a few hundred bytes to megabytes: a bound in entries would
// let memory grow with what each entry holds (issue 15: 9,311 plans held
// 1.9 GB).
//
// It is split into shards by key hash, each an LRU list under its own
// mutex held for a map lookup and a list move, so concurrent sessions
// contend only when their keys share a shard; nothing locks the whole
// cache on the query path. The caller weighs its entries; the cache only
// adds and compares. It imports nothing of Shoal's.
package lru

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
)

// Shards is the number of independently locked LRU lists; each holds at
// most its share (1/Shards) of the bound.
const Shards = 16

// DefaultBytes is the bound of a cache used without Init.
const DefaultBytes = 64 << 20

// Cache maps string keys to values of type V. The zero Cache is ready to
// use with DefaultBytes as its bound.
type Cache[V any] struct {
	once   sync.Once
	seed   maphash.Seed
	shards [Shards]shard[V]
	// entries and bytes are the totals over the shards; evictions counts
	// entries dropped for room (not invalid or replaced ones).
	entries, bytes, evictions atomic.Int64
}

type shard[V any] struct {
	mu    sync.Mutex
	m     map[string]*node[V]
	lru   node[V] // sentinel: lru.next is the most recently used
	bytes int64
	limit int64
}

type node[V any] struct {
	key        string
	v          V
	size       int64
	prev, next *node[V]
}

// Init sets the bound in bytes (<= 0: DefaultBytes); it has effect only
// before the cache is first used.
func (c *Cache[V]) Init(maxBytes int64) { c.once.Do(func() { c.setup(maxBytes) }) }

func (c *Cache[V]) setup(maxBytes int64) {
	if maxBytes <= 0 {
		maxBytes = DefaultBytes
	}
	c.seed = maphash.MakeSeed()
	for i := range c.shards {
		sh := &c.shards[i]
		sh.m = map[string]*node[V]{}
		sh.lru.next, sh.lru.prev = &sh.lru, &sh.lru
		sh.limit = maxBytes / Shards
	}
}

func (c *Cache[V]) shard(key string) *shard[V] {
	c.once.Do(func() { c.setup(0) })
	return &c.shards[maphash.String(c.seed, key)%Shards]
}

// Get returns the value under key and marks it used. A value valid
// rejects (stale: its catalog or pins are gone) is removed and missed.
func (c *Cache[V]) Get(key string, valid func(V) bool) (V, bool) {
	sh := c.shard(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	n := sh.m[key]
	if n == nil {
		var zero V
		return zero, false
	}
	if valid != nil && !valid(n.v) {
		c.remove(sh, n)
		var zero V
		return zero, false
	}
	sh.unlink(n)
	sh.pushFront(n)
	return n.v, true
}

// Put stores v, weighing size bytes, under key, replacing what was there,
// and evicts the least recently used entries of the shard past its share
// of the bound. A value larger than a shard's share is not kept (false).
func (c *Cache[V]) Put(key string, v V, size int64) bool {
	sh := c.shard(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if old := sh.m[key]; old != nil {
		c.remove(sh, old)
	}
	if size > sh.limit {
		return false
	}
	n := &node[V]{key: key, v: v, size: size}
	sh.m[key] = n
	sh.pushFront(n)
	sh.bytes += size
	c.entries.Add(1)
	c.bytes.Add(size)
	c.evict(sh)
	return true
}

// Reweigh re-weighs the value under key: weigh returns its new size, or
// ok false to leave it as it is (it is no longer the value the caller
// changed). A value grown past a shard's share leaves the cache.
func (c *Cache[V]) Reweigh(key string, weigh func(V) (size int64, ok bool)) {
	sh := c.shard(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	n := sh.m[key]
	if n == nil {
		return
	}
	size, ok := weigh(n.v)
	if !ok {
		return
	}
	sh.bytes += size - n.size
	c.bytes.Add(size - n.size)
	n.size = size
	if size > sh.limit {
		c.remove(sh, n)
		c.evictions.Add(1)
		return
	}
	c.evict(sh)
}

// Sweep removes every value drop selects, locking one shard at a time.
func (c *Cache[V]) Sweep(drop func(V) bool) {
	c.once.Do(func() { c.setup(0) })
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		for _, n := range sh.m {
			if drop(n.v) {
				c.remove(sh, n)
			}
		}
		sh.mu.Unlock()
	}
}

// Entries is the number of values held.
func (c *Cache[V]) Entries() int64 { return c.entries.Load() }

// Bytes is the sum of the held values' sizes.
func (c *Cache[V]) Bytes() int64 { return c.bytes.Load() }

// Evictions counts the values dropped for room.
func (c *Cache[V]) Evictions() int64 { return c.evictions.Load() }

// evict drops the shard's least recently used entries while it is over
// its limit. sh.mu is held.
func (c *Cache[V]) evict(sh *shard[V]) {
	for sh.bytes > sh.limit && sh.lru.prev != &sh.lru {
		c.remove(sh, sh.lru.prev)
		c.evictions.Add(1)
	}
}

// remove takes n out of sh. sh.mu is held.
func (c *Cache[V]) remove(sh *shard[V], n *node[V]) {
	sh.unlink(n)
	delete(sh.m, n.key)
	sh.bytes -= n.size
	c.entries.Add(-1)
	c.bytes.Add(-n.size)
}

func (sh *shard[V]) unlink(n *node[V]) {
	n.prev.next, n.next.prev = n.next, n.prev
	n.prev, n.next = nil, nil
}

func (sh *shard[V]) pushFront(n *node[V]) {
	n.prev, n.next = &sh.lru, sh.lru.next
	sh.lru.next.prev = n
	sh.lru.next = n
}
