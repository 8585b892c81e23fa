package pinned

import (
	"sort"
	"sync"
	"sync/atomic"

	"google.golang.org/protobuf/proto"
)

// Registry maps names to pinned tables. Readers load an immutable map
// snapshot with one atomic read; writers (CACHE, UNCACHE, REFRESH: rare)
// copy the map under a mutex and swap it in.
type Registry struct {
	mu   sync.Mutex // serialises writers only
	snap atomic.Pointer[registrySnap]
}

type registrySnap struct {
	tables map[string]*Table // "db.name"
	gen    uint64
	// layout counts the changes to what is pinned under which name and
	// with which columns: a table pinned or dropped, or replaced by one
	// of another definition or other column definitions. A new version
	// of the same pin (a live pin's, a REFRESH's) changes gen, not layout.
	layout uint64
	// results names the pinned query results (tables not Whole), for
	// Results.
	results []string
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	r := &Registry{}
	r.snap.Store(&registrySnap{tables: map[string]*Table{}})
	return r
}

func key(db, name string) string { return db + "." + name }

// Get returns the table db.name, or nil.
func (r *Registry) Get(db, name string) *Table {
	return r.snap.Load().tables[key(db, name)]
}

// Gen changes whenever a table is pinned, replaced or dropped.
func (r *Registry) Gen() uint64 { return r.snap.Load().gen }

// Layout changes whenever a table is pinned or dropped, or replaced by a
// table whose definition (Whole, Source) or column definitions (Fields)
// differ: what a statement's plan, routing and result columns depend on.
// A live pin publishes several versions a second; caches keyed by Layout
// keep their entries across versions, and a plan compiled against one
// version checks Current (the engine's plan cache) instead.
func (r *Registry) Layout() uint64 { return r.snap.Load().layout }

// Current reports whether t is the version pinned under its name.
func (r *Registry) Current(t *Table) bool { return r.Get(t.DB, t.Name) == t }

// Results lists the names of the pinned query results (tables not
// pinned whole), without their databases: a statement that names none of
// them need not be searched for references to one.
func (r *Registry) Results() []string { return r.snap.Load().results }

// store indexes next's query results and makes it the snapshot.
func (r *Registry) store(next *registrySnap) {
	for _, t := range next.tables {
		if !t.Whole {
			next.results = append(next.results, t.Name)
		}
	}
	r.snap.Store(next)
}

// Len is the number of pinned tables.
func (r *Registry) Len() int { return len(r.snap.Load().tables) }

// List returns the tables sorted by database and name.
func (r *Registry) List() []*Table {
	s := r.snap.Load()
	out := make([]*Table, 0, len(s.tables))
	for _, t := range s.tables {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].DB != out[j].DB {
			return out[i].DB < out[j].DB
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Bytes is the memory held by every pinned table.
func (r *Registry) Bytes() int64 {
	var n int64
	for _, t := range r.snap.Load().tables {
		n += t.Bytes
	}
	return n
}

// Put pins t under its name, replacing a table of that name, provided the
// tables then pinned fit in budget bytes (<= 0: no budget). It reports the
// memory the other tables hold when t does not fit.
func (r *Registry) Put(t *Table, budget int64) (ok bool, others int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.snap.Load()
	k := key(t.DB, t.Name)
	for name, x := range old.tables {
		if name != k {
			others += x.Bytes
		}
	}
	if budget > 0 && others+t.Bytes > budget {
		return false, others
	}
	layout := old.layout + 1
	if prev := old.tables[k]; prev != nil {
		t.Version = prev.Version + 1
		t.hits.Store(prev.Hits())
		if sameLayout(prev, t) {
			layout = old.layout
		}
	} else {
		t.Version = 1
	}
	next := &registrySnap{tables: make(map[string]*Table, len(old.tables)+1), gen: old.gen + 1, layout: layout}
	for name, x := range old.tables {
		next.tables[name] = x
	}
	next.tables[k] = t
	r.store(next)
	return true, others
}

// Delete unpins db.name and reports whether it was pinned.
func (r *Registry) Delete(db, name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.snap.Load()
	k := key(db, name)
	if old.tables[k] == nil {
		return false
	}
	next := &registrySnap{tables: make(map[string]*Table, len(old.tables)), gen: old.gen + 1, layout: old.layout + 1}
	for name, x := range old.tables {
		if name != k {
			next.tables[name] = x
		}
	}
	r.store(next)
	return true
}

// sameLayout reports whether b pins what a pinned, with the same column
// definitions: statements over b plan, route and describe as over a.
func sameLayout(a, b *Table) bool {
	if a.Whole != b.Whole || a.Source != b.Source || len(a.Fields) != len(b.Fields) {
		return false
	}
	for i, f := range a.Fields {
		if !proto.Equal(f, b.Fields[i]) {
			return false
		}
	}
	return true
}
