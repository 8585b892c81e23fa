package engine

import (
	"fmt"
	"strings"
	"testing"

	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/engine/catalog"
	"github.com/shoaldb/shoal/engine/rowformat"
	"github.com/shoaldb/shoal/pinned"
	"github.com/shoaldb/shoal/planner"
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
	if d := entryBytes("k", &cacheEntry{pass: "x", fields: fields}) - small; d < 50+rowformat.FieldBytes {
		t.Errorf("a field named with 50 bytes weighs %d", d)
	}
}

// TestPlanCacheStaleAndResize checks that an entry of an older generation
// is a miss and leaves the cache, and that caching a plan's result rows
// re-weighs its entry.
func TestPlanCacheStaleAndResize(t *testing.T) {
	var c planCache
	c.init(1<<20, pinned.NewRegistry())
	c.put("a", &cacheEntry{gen: 1, pass: "x"})
	if _, ok := c.get("a", testGen(2)); ok {
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
	if _, ok := c.get("q", testGen(1)); ok || c.Bytes() != 0 {
		t.Errorf("entry over a shard's share kept (%d bytes cached)", c.Bytes())
	}
}

// pinVersion pins a new version of d.t in r (columns named by fields)
// and returns it.
func pinVersion(t *testing.T, r *pinned.Registry, fields ...string) *pinned.Table {
	t.Helper()
	tb := &pinned.Table{DB: "d", Name: "t", Whole: true, Source: "SELECT * FROM d.t"}
	for _, f := range fields {
		tb.Fields = append(tb.Fields, &querypb.Field{Name: f, Type: querypb.Type_INT64})
	}
	if ok, _ := r.Put(tb, 0); !ok {
		t.Fatal("pin refused")
	}
	return tb
}

// TestPlanCacheAcrossPinVersions: a new version of a pin (a live pin
// publishes several a second) makes the plans compiled against the old
// version misses and nothing else — plans over replica tables, shapes and
// passthrough decisions stay, because generations follow the registry's
// Layout; a pin whose columns change, or a pin dropped, changes the
// layout and so every entry's generation.
func TestPlanCacheAcrossPinVersions(t *testing.T) {
	r := pinned.NewRegistry()
	var c planCache
	c.init(0, r)
	v1 := pinVersion(t, r, "id", "n")
	gen := r.Layout()
	c.put("pinned", &cacheEntry{gen: gen, pr: &prepared{pin: v1}})
	c.put("replica", &cacheEntry{gen: gen, pr: &prepared{}})
	c.put("pass", &cacheEntry{gen: gen, pass: "x"})
	c.put("shape", &cacheEntry{gen: gen, shape: &shapeInfo{described: true}})
	for _, k := range []string{"pinned", "replica", "pass", "shape"} {
		if _, ok := c.get(k, testGen(gen)); !ok {
			t.Fatalf("%s: a miss before any change", k)
		}
	}

	v2 := pinVersion(t, r, "id", "n") // a new version, same columns
	if r.Layout() != gen {
		t.Fatalf("a new version with the same columns changed the layout %d -> %d", gen, r.Layout())
	}
	if _, ok := c.get("pinned", testGen(gen)); ok {
		t.Fatal("a plan over the old pin version was returned after a new version")
	}
	for _, k := range []string{"replica", "pass", "shape"} {
		if _, ok := c.get(k, testGen(gen)); !ok {
			t.Errorf("%s: a miss after a pin's new version; only plans over the pin depend on it", k)
		}
	}
	c.put("pinned", &cacheEntry{gen: gen, pr: &prepared{pin: v2}})
	if _, ok := c.get("pinned", testGen(gen)); !ok {
		t.Fatal("a plan over the current version is a miss")
	}

	pinVersion(t, r, "id", "n", "added") // a reload after a DDL: other columns
	if r.Layout() == gen {
		t.Fatal("a version with other columns kept the layout")
	}
	r.Delete("d", "t")
	if r.Layout() <= gen+1 {
		t.Fatalf("dropping a pin did not change the layout (%d)", r.Layout())
	}
}

// TestPlanCacheSweepsStalePinnedPlans: plans over a pin's earlier
// versions (a live pin's) are dropped when the first plan after a new
// version is put, so they do not keep those versions alive; current plans
// and plans over replica tables stay. Without the sweep all 990 stale
// plans remain (they fit the bound).
func TestPlanCacheSweepsStalePinnedPlans(t *testing.T) {
	r := pinned.NewRegistry()
	var c planCache
	c.init(0, r)
	const n = 1000
	var v *pinned.Table
	for i := range n {
		if i%10 == 0 { // a new version every 10 statements
			v = pinVersion(t, r, "id")
		}
		c.put(fmt.Sprintf("q%d", i), &cacheEntry{gen: r.Layout(), pr: &prepared{pin: v}})
	}
	c.put("replica", &cacheEntry{gen: r.Layout(), pr: &prepared{}})
	stale, current := 0, 0
	c.Sweep(func(e *cacheEntry) bool { // counts, drops nothing
		switch {
		case e.pr.pin == nil:
		case e.pr.pin == v:
			current++
		default:
			stale++
		}
		return false
	})
	if stale != 0 || current != 10 {
		t.Fatalf("%d stale and %d current pinned plans kept; want none stale and all 10 current", stale, current)
	}
	if _, ok := c.get("replica", testGen(r.Layout())); !ok {
		t.Fatal("the plan over replica tables was dropped")
	}
	if got := c.Entries(); got != int64(stale+current+1) {
		t.Fatalf("entries %d, counted %d", got, stale+current+1)
	}
}

// TestPlanCacheSweepsAfterUncache: the first plan put after UNCACHE, a
// plan over replica tables, drops the plans over the dropped pin at once,
// whatever the periodic sweep's count: they kept a whole pinned table
// alive.
func TestPlanCacheSweepsAfterUncache(t *testing.T) {
	r := pinned.NewRegistry()
	var c planCache
	c.init(0, r)
	v := pinVersion(t, r, "id")
	for i := range 5 {
		c.put(fmt.Sprintf("p%d", i), &cacheEntry{gen: r.Layout(), pr: &prepared{pin: v}})
	}
	r.Delete("d", "t")
	c.put("replica", &cacheEntry{gen: r.Layout(), pr: &prepared{}}) // after UNCACHE: a plan over replica tables
	pinnedLeft := 0
	c.Sweep(func(e *cacheEntry) bool {
		if e.pr.pin != nil {
			pinnedLeft++
		}
		return false
	})
	if pinnedLeft != 0 {
		t.Fatalf("%d plans over the dropped pin kept after the next plan", pinnedLeft)
	}
}

// testGen is the generation under which an untracked entry of gen n (the
// catalog's Gen 0 and the pins' layout n) holds.
func testGen(n uint64) gen { return gen{snap: &catalog.Snapshot{}, layout: n} }

// TestPlanCacheTracksTables: an entry that lists the tables it reads
// stays valid when other tables appear, change or grow, and goes stale
// when one of its own does, when a table it named while missing appears,
// or when the databases change. An untracked entry (COM_STMT_PREPARE
// metadata) goes stale with any change.
func TestPlanCacheTracksTables(t *testing.T) {
	snapshot := func(old *catalog.Snapshot, dbs []string, tables ...*planner.Table) *catalog.Snapshot {
		s := &catalog.Snapshot{Tables: planner.MapCatalog{}, Schemas: map[string]bool{}}
		for _, db := range dbs {
			s.Schemas[db] = true
		}
		for _, t := range tables {
			s.Tables.Add(t)
		}
		s.Follow(old)
		return s
	}
	table := func(name string, rows int64, cols ...string) *planner.Table {
		t := &planner.Table{Schema: "d", Name: name, SplitColumn: "id", Rows: rows}
		for _, c := range cols {
			t.Columns = append(t.Columns, planner.Column{Name: c, Type: "int"})
		}
		return t
	}
	var c planCache
	c.init(0, pinned.NewRegistry())
	s1 := snapshot(nil, []string{"d"}, table("a", 100_000, "id"), table("b", 100_000, "id"))
	g1 := gen{snap: s1}
	onA := g1.stamp(&cacheEntry{pass: "a"}, s1.Deps([]string{"d.a"}), true)
	onC := g1.stamp(&cacheEntry{pass: "c"}, s1.Deps([]string{"d.c"}), true) // not there yet
	untracked := g1.stamp(&cacheEntry{pass: "u"}, nil, false)
	for _, step := range []struct {
		what                string
		snap                *catalog.Snapshot
		onA, onC, untracked bool
	}{
		{"nothing changed", snapshot(s1, []string{"d"}, table("a", 100_000, "id"), table("b", 100_000, "id")), true, true, true},
		{"b grew past a doubling", snapshot(s1, []string{"d"}, table("a", 100_000, "id"), table("b", 900_000, "id")), true, true, false},
		{"b has a new column", snapshot(s1, []string{"d"}, table("a", 100_000, "id"), table("b", 100_000, "id", "x")), true, true, false},
		{"b dropped", snapshot(s1, []string{"d"}, table("a", 100_000, "id")), true, true, false},
		{"a grew past a doubling", snapshot(s1, []string{"d"}, table("a", 900_000, "id"), table("b", 100_000, "id")), false, true, false},
		{"a has a new column", snapshot(s1, []string{"d"}, table("a", 100_000, "id", "x"), table("b", 100_000, "id")), false, true, false},
		{"c created", snapshot(s1, []string{"d"}, table("a", 100_000, "id"), table("b", 100_000, "id"), table("c", 10, "id")), true, false, false},
		{"a database created", snapshot(s1, []string{"d", "e"}, table("a", 100_000, "id"), table("b", 100_000, "id")), false, false, false},
	} {
		g := gen{snap: step.snap}
		for _, x := range []struct {
			name string
			e    *cacheEntry
			want bool
		}{{"over a", onA, step.onA}, {"over missing c", onC, step.onC}, {"untracked", untracked, step.untracked}} {
			if got := g.holds(x.e); got != x.want {
				t.Errorf("%s: entry %s holds %v, want %v", step.what, x.name, got, x.want)
			}
		}
	}
	// Versions carry over a chain of snapshots: a change to b, then to
	// nothing, keeps a's entry valid at every step.
	s2 := snapshot(s1, []string{"d"}, table("a", 100_000, "id"), table("b", 900_000, "id"))
	s3 := snapshot(s2, []string{"d"}, table("a", 100_000, "id"), table("b", 900_000, "id"))
	if !(gen{snap: s3}).holds(onA) || (gen{snap: s3}).holds(untracked) {
		t.Error("versions did not carry over two refreshes")
	}
	c.put("k", onA)
	if _, ok := c.get("k", gen{snap: s3}); !ok {
		t.Error("get dropped an entry whose table did not change")
	}
	s4 := snapshot(s3, []string{"d"}, table("a", 100_000, "id", "y"), table("b", 900_000, "id"))
	if _, ok := c.get("k", gen{snap: s4}); ok {
		t.Error("get returned an entry whose table changed")
	}
}
