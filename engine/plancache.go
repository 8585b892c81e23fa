package engine

import (
	"sync"

	"sync/atomic"

	querypb "vitess.io/vitess/go/vt/proto/query"
)

// planCache maps a statement (current database + text) to its prepared
// plan or to the reason it passes through. Entries belong to one catalog
// generation; a new catalog snapshot makes them stale. sync.Map keeps reads
// lock-free on the query path.
type planCache struct {
	m    sync.Map // string -> *cacheEntry
	size atomic.Int64
	// pinnedPuts counts plans over pinned tables put since the last sweep
	// of stale ones (sweepPinned).
	pinnedPuts atomic.Int64
}

// pinnedSweepEvery is how many plans over pins are put between two sweeps
// of stale ones. A plan holds the pinned versions it was compiled
// against; a live pin publishes several versions a second, so without
// the sweep up to maxCachedPlans stale plans would each keep an old
// version's batches alive (bench live: the coordinator's heap grew
// ~3 MB/s with a 1.5 MB pin).
const pinnedSweepEvery = 256

type cacheEntry struct {
	gen  uint64
	pr   *prepared
	pass string // non-empty: pass through, for this reason
	// derived: the statement reads a derived table, CTE or union whose
	// inner statements distribute (derived.go); pr is nil.
	derived bool
	// For COM_STMT_PREPARE entries (keys from prepareKey): the parameter
	// count and the announced result columns.
	params uint16
	fields []*querypb.Field
	// shape is set for shape entries (keys from shapeKey, shape.go).
	shape *shapeInfo
}

// prepareKey keys a COM_STMT_PREPARE answer; it cannot collide with the
// query keys (database + NUL + text), which never start with 0x01.
func prepareKey(db, query string) string { return "\x01" + db + "\x00" + query }

const maxCachedPlans = 10000

func (c *planCache) get(key string, gen uint64) (*cacheEntry, bool) {
	v, ok := c.m.Load(key)
	if !ok {
		return nil, false
	}
	e := v.(*cacheEntry)
	if e.gen != gen {
		return nil, false
	}
	return e, true
}

func (c *planCache) put(key string, e *cacheEntry) {
	if c.size.Load() >= maxCachedPlans {
		// Crude but bounded: start over rather than grow without limit.
		c.m.Range(func(k, _ any) bool { c.m.Delete(k); return true })
		c.size.Store(0)
	}
	if _, loaded := c.m.Swap(key, e); !loaded {
		c.size.Add(1)
	}
	if e.pr != nil && e.pr.pin != nil && c.pinnedPuts.Add(1)%pinnedSweepEvery == 0 {
		c.sweepPinned(e.gen)
	}
}

// sweepPinned drops the plans over pinned tables of another generation
// than gen (the current one): get never returns them.
func (c *planCache) sweepPinned(gen uint64) {
	c.m.Range(func(k, v any) bool {
		if e := v.(*cacheEntry); e.gen != gen && e.pr != nil && e.pr.pin != nil && c.m.CompareAndDelete(k, v) {
			c.size.Add(-1)
		}
		return true
	})
}
