package engine

import (
	"sync/atomic"

	"github.com/shoaldb/shoal/engine/catalog"
	"github.com/shoaldb/shoal/engine/lru"
	"github.com/shoaldb/shoal/engine/rowformat"
	"github.com/shoaldb/shoal/pinned"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// planCache maps a statement (current database + text) to its prepared
// plan or to the reason it passes through; it also holds the shapes
// (shape.go), COM_STMT_PREPARE metadata (prepared.go) and, on the plans,
// the result cache (results.go). Entries belong to one catalog
// generation; a new catalog snapshot makes them stale, and a stale entry
// is dropped when it is next looked up.
//
// The cache is bounded in bytes, not entries: each entry carries an
// estimate of what it holds (the key, the plan and its compiled pinned
// program with its statement-owned lookup tables, the cached result
// rows, the column metadata), and the least recently used entries are
// evicted when the total passes the limit. A dashboard whose every query
// has a new literal thus keeps the coordinator's memory flat instead of
// growing to a fixed entry count whatever each entry weighs (issue 15:
// 9,311 plans held 1.9 GB).
//
// The LRU itself, sharded so that there is no lock over the whole cache
// on the query path, is package engine/lru.
type planCache struct {
	lru.Cache[*cacheEntry]
	// pins are the pinned tables: a plan compiled against a pin version
	// is good while that version is the one pinned (current).
	pins *pinned.Registry
	// pinnedPuts counts plans over pinned tables put since the last sweep
	// of stale ones (sweepPinned); pinsGen is the registry's Gen when the
	// last plan (over pins or not) was put.
	pinnedPuts atomic.Int64
	pinsGen    atomic.Uint64
}

// pinnedSweepEvery is how many plans over pins are put between two sweeps
// of stale ones. A plan holds the pinned versions it was compiled
// against; a live pin publishes several versions a second, so without
// the sweep stale plans (up to the byte bound) would each keep an old
// version's batches alive (bench live: the coordinator's heap grew
// ~3 MB/s with a 1.5 MB pin). The bound counts the plan, not the
// version it keeps alive.
const pinnedSweepEvery = 256

// gen is what an entry is checked against when it is looked up: the
// catalog snapshot and the pins' Layout at the time.
type gen struct {
	snap   *catalog.Snapshot
	layout uint64
}

// all changes with any table of the catalog (Snapshot.Gen); base only
// with what every statement depends on (Snapshot.Base). Both change with
// the pins' Layout.
func (g gen) all() uint64  { return g.snap.Gen<<32 | g.layout&0xffffffff }
func (g gen) base() uint64 { return g.snap.Base<<32 | g.layout&0xffffffff }

// stamp marks e as made under g, for the tables in deps when tracked
// (catalog.Snapshot.Deps): then a change to another table leaves it
// valid. Untracked, any catalog change makes it stale.
func (g gen) stamp(e *cacheEntry, deps []catalog.Dep, tracked bool) *cacheEntry {
	e.deps, e.tracked = deps, tracked
	if tracked {
		e.gen = g.base()
	} else {
		e.gen = g.all()
	}
	return e
}

// holds reports whether e, made under some generation, is valid under g.
func (g gen) holds(e *cacheEntry) bool {
	if e.tracked {
		return e.gen == g.base() && g.snap.Current(e.deps)
	}
	return e.gen == g.all()
}

type cacheEntry struct {
	gen uint64
	// deps are the tables the entry depends on and their versions when
	// it was made, if tracked (gen.stamp).
	deps    []catalog.Dep
	tracked bool
	pr      *prepared
	pass    string // non-empty: pass through, for this reason
	// derived: the statement reads a derived table, CTE or union whose
	// inner statements distribute (derived.go); pr is nil.
	derived bool
	// For COM_STMT_PREPARE entries (keys from prepareKey): the parameter
	// count and the announced result columns.
	params uint16
	fields []*querypb.Field
	// shape is set for shape entries (keys from route.ShapeKey, shape.go).
	shape *shapeInfo
	// constant is the replica's answer to a constant statement that
	// passes through (constant.go), answered from here from then on;
	// isConst says the statement is one (set when planned).
	constant *sqltypes.Result
	isConst  bool
}

// prepareKey keys a COM_STMT_PREPARE answer; it cannot collide with the
// query keys (database + NUL + text), which never start with 0x01.
func prepareKey(db, query string) string { return "\x01" + db + "\x00" + query }

// init sets the cache's bound in bytes (<= 0: lru.DefaultBytes) and the
// pinned tables plans are checked against; it has effect only before the
// cache is first used.
func (c *planCache) init(maxBytes int64, pins *pinned.Registry) {
	c.Init(maxBytes)
	c.pins = pins
}

// get returns the entry under key valid under g and marks it used; an
// entry of another generation or over a table changed since, or a plan
// compiled against a pin version no longer pinned, is dropped.
//
// Generations follow the catalog and the pins' Layout, not their
// versions: a live pin publishes several versions a second, and keying
// every entry by version made each of them (replica tables' plans,
// shapes, routing estimates, passthrough decisions) miss after every
// version — in `shoal bench live` 90% of statements were planned again
// and 43% described again on a replica. Only a plan that reads a pin
// version depends on it; it alone is checked for being current.
func (c *planCache) get(key string, g gen) (*cacheEntry, bool) {
	return c.Get(key, func(e *cacheEntry) bool { return g.holds(e) && c.current(e.pr) })
}

// current reports whether pr reads only the pin versions now pinned (true
// for a plan over no pin).
func (c *planCache) current(pr *prepared) bool {
	if pr == nil || pr.pin == nil {
		return true
	}
	if !c.pins.Current(pr.pin) {
		return false
	}
	if pr.prog != nil {
		for _, t := range pr.prog.Joined() {
			if !c.pins.Current(t) {
				return false
			}
		}
	}
	return true
}

// put stores e under key, replacing what was there (see lru.Cache.Put).
func (c *planCache) put(key string, e *cacheEntry) {
	c.Put(key, e, entryBytes(key, e))
	if e.pr == nil {
		return
	}
	// The first plan put since the pins changed (a CACHE, UNCACHE or
	// REFRESH, a live pin's new version) sweeps the plans over pin
	// versions no longer pinned at once: each keeps its version's batches
	// alive, so after UNCACHE of a 10M-row table (or REFRESH of one) its
	// ~400 MB stayed in the heap until 256 more plans over pins were put.
	if c.newer(c.pins.Gen()) || e.pr.pin != nil && c.pinnedPuts.Add(1)%pinnedSweepEvery == 0 {
		c.sweepPinned()
	}
}

// newer records gen, the registry's Gen, as the newest a plan was put
// under and reports whether it is newer than the last.
func (c *planCache) newer(gen uint64) bool {
	for {
		last := c.pinsGen.Load()
		if gen <= last {
			return false
		}
		if c.pinsGen.CompareAndSwap(last, gen) {
			return true
		}
	}
}

// sweepPinned drops the plans over pin versions no longer pinned: get
// never returns them. (A plan of an older generation is dropped when it
// is next looked up.)
func (c *planCache) sweepPinned() {
	c.Sweep(func(e *cacheEntry) bool { return e.pr != nil && e.pr.pin != nil && !c.current(e.pr) })
}

// resize re-estimates the entry under key if it still holds pr (its
// result rows were just cached, results.go), evicting for room.
func (c *planCache) resize(key string, pr *prepared) {
	if key == "" {
		return
	}
	c.Reweigh(key, func(e *cacheEntry) (int64, bool) { return entryBytes(key, e), e.pr == pr })
}

// Size estimates. They count what an entry holds alone; tables shared
// per pin version (pinned/derived.go) are counted by the pin, except that
// a compiled program's estimate may include a shared table it points at
// (pinexec.Program.Bytes): the cache then holds fewer entries, never more
// memory than its bound says.
const (
	entryOverhead = 256 // node, map slot, entry and prepared headers
	planBytes     = 2048
)

func entryBytes(key string, e *cacheEntry) int64 {
	n := int64(entryOverhead + 2*len(key) + len(e.pass))
	for _, d := range e.deps {
		n += int64(24 + len(d.Key))
	}
	n += rowformat.FieldsBytes(e.fields)
	if sh := e.shape; sh != nil {
		n += rowformat.FieldsBytes(sh.fields) + rowformat.FieldsBytes(sh.fragFields) + int64(len(sh.metaHead)+len(sh.fragHead)+len(sh.pass))
	}
	if pr := e.pr; pr != nil {
		n += preparedBytes(pr)
	}
	if c := e.constant; c != nil {
		n += rowformat.FieldsBytes(c.Fields) + rowformat.RowsBytes(c.Rows)
	}
	return n
}

func preparedBytes(pr *prepared) int64 {
	n := int64(planBytes) + rowformat.FieldsBytes(pr.fields) + rowformat.FieldsBytes(pr.fragFields)
	if p := pr.plan; p != nil {
		n += int64(len(p.MetaSQL) + len(p.FragmentSQL))
	}
	if pr.prog != nil {
		n += pr.prog.Bytes()
	}
	if r := pr.result.Load(); r != nil {
		n += rowformat.RowsBytes(r.rows)
	}
	return n
}
