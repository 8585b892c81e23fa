package livepin

import (
	"fmt"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/pinned"
	"github.com/shoaldb/shoal/replstream"
)

// TestEditedChunks checks the versions built from a chunk's last batch
// and its changed rows alone (spliceChunk): updates and deletes
// of rows in chunks the versions share, at a chunk's first and last slot,
// a row inserted and deleted in one burst, a row updated then deleted, a
// key update that moves a row to another chunk, a chunk emptied and
// refilled. Every version equals a build from scratch of the same rows,
// the chunks a burst did not touch are the previous version's arrays
// (shared, not copied), and nothing leaks (checked allocator).
func TestEditedChunks(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	fields := []*querypb.Field{
		{Name: "id", Type: sqltypes.Int64},
		{Name: "amount", Type: sqltypes.Decimal, ColumnLength: 12, Decimals: 2},
		{Name: "day", Type: sqltypes.Date},
		{Name: "note", Type: sqltypes.VarChar, Charset: 255},
	}
	tbl := &replstream.Table{DB: "d", Name: "t", Columns: fields}
	const chunk = 4
	st := &state{index: map[string]int{}, chunk: chunk, fields: fields, table: tbl,
		keyIdx: []int{0}, projIdx: []int{0, 1, 2, 3}}
	row := func(id int64, v int) []sqltypes.Value {
		note := sqltypes.NULL
		if (id+int64(v))%3 != 0 {
			note = sqltypes.NewVarChar(fmt.Sprintf("n%d-%d", id, v))
		}
		return []sqltypes.Value{sqltypes.NewInt64(id), sqltypes.MakeTrusted(sqltypes.Decimal, fmt.Appendf(nil, "%d.%02d", id*10+int64(v), v%100)),
			sqltypes.MakeTrusted(sqltypes.Date, fmt.Appendf(nil, "2024-01-%02d", 1+(id+int64(v))%28)), note}
	}
	live := map[int64][]sqltypes.Value{}
	for id := int64(1); id <= 20; id++ { // chunks 0..4: slots 0-3 are ids 1-4, ...
		live[id] = row(id, 0)
		st.put(keyOf(live[id][:1]), st.pinRow(live[id]))
	}
	st.changed, st.relaid = true, true
	d, _ := st.snapshot()
	ver, err := st.next(mem, Spec{DB: "d", Name: "p"}, d)
	if err != nil {
		t.Fatal(err)
	}
	check := func(step string) {
		t.Helper()
		if got, want := tableRows(ver), scratchRows(t, mem, st); !slices.Equal(got, want) {
			t.Fatalf("%s: the version differs from a build from scratch:\n got %q\nwant %q", step, got, want)
		}
		if ver.Rows != int64(len(live)) {
			t.Fatalf("%s: %d rows, want %d", step, ver.Rows, len(live))
		}
	}
	check("load")
	ins := func(id int64, v int) replstream.Change {
		live[id] = row(id, v)
		return replstream.Change{Table: tbl, Kind: replstream.Insert, After: live[id]}
	}
	upd := func(id, to int64, v int) replstream.Change {
		before := live[id]
		delete(live, id)
		live[to] = row(to, v)
		return replstream.Change{Table: tbl, Kind: replstream.Update, Before: before, After: live[to]}
	}
	del := func(id int64) replstream.Change {
		before := live[id]
		delete(live, id)
		return replstream.Change{Table: tbl, Kind: replstream.Delete, Before: before}
	}
	bursts := []struct {
		name    string
		changes func() []replstream.Change
		edited  []int // chunks rebuilt from edits; every other chunk of the last version is shared
	}{
		{"update a chunk's first and last rows", func() []replstream.Change { return []replstream.Change{upd(5, 5, 1), upd(8, 8, 1)} }, []int{1}},
		{"delete inside two chunks", func() []replstream.Change { return []replstream.Change{del(10), del(15)} }, []int{2, 3}},
		{"insert then delete, update then delete", func() []replstream.Change {
			return []replstream.Change{ins(21, 1), del(21), upd(2, 2, 2), del(2), upd(3, 3, 2)}
		}, []int{0}},
		{"key update moves a row", func() []replstream.Change { return []replstream.Change{upd(13, 30, 3)} }, []int{3, 5}}, // appended in chunk 5, made by the insert above,
		{"empty a chunk", func() []replstream.Change {
			return []replstream.Change{del(17), del(18), del(19), del(20)}
		}, []int{4}},
		{"update the rest of a chunk and a deleted slot's neighbours", func() []replstream.Change {
			return []replstream.Change{upd(9, 9, 4), upd(11, 11, 4), upd(12, 12, 4), upd(14, 14, 4), upd(16, 16, 4)}
		}, []int{2, 3}},
	}
	for i, b := range bursts {
		tx := replstream.Tx{Position: fmt.Sprintf("0-1-%d", i+1), Changes: b.changes()}
		if _, err := st.apply(&tx); err != nil {
			t.Fatal(err)
		}
		d, changed := st.snapshot()
		if !changed || d.all {
			t.Fatalf("%s: changed %v, all %v", b.name, changed, d.all)
		}
		var edited []int
		for k := range d.edits {
			edited = append(edited, k)
		}
		slices.Sort(edited)
		if !slices.Equal(edited, b.edited) {
			t.Fatalf("%s: chunks edited %v, want %v", b.name, edited, b.edited)
		}
		for k := range d.changed {
			if k < len(st.batchOf) {
				t.Fatalf("%s: chunk %d, which the last version had, is encoded whole", b.name, k)
			}
		}
		oldBatchOf, old := slices.Clone(st.batchOf), ver
		nv, err := st.next(mem, Spec{DB: "d", Name: "p"}, d)
		if err != nil {
			t.Fatal(err)
		}
		for k, ob := range oldBatchOf {
			if ob < 0 || slices.Contains(b.edited, k) {
				continue
			}
			nb := st.batchOf[k]
			for c := range fields {
				if nv.Batches[nb].Column(c).Data().Buffers()[1] != old.Batches[ob].Column(c).Data().Buffers()[1] {
					t.Fatalf("%s: chunk %d column %d was copied, not shared", b.name, k, c)
				}
			}
		}
		ver = nv
		old.Release()
		check(b.name)
	}

	// A burst past the note column's dictionary limit (two thirds of
	// 52,000 new rows have a distinct note: past 1<<15): the version
	// still composes, the column stored as plain strings from now on
	// (pinned.Table.Compose), the untouched chunks' notes decoded.
	tx := replstream.Tx{Position: "0-1-100", Changes: []replstream.Change{upd(1, 1, 5), del(6)}}
	for id := int64(100); id < 100+52_000; id++ {
		tx.Changes = append(tx.Changes, ins(id, 7))
	}
	if _, err := st.apply(&tx); err != nil {
		t.Fatal(err)
	}
	d, _ = st.snapshot()
	nv, err := st.next(mem, Spec{DB: "d", Name: "p"}, d)
	if err != nil {
		t.Fatalf("composing 34,666 distinct notes: %v", err)
	}
	if k := nv.Cols[3].Kind(); k != pinned.KindString {
		t.Errorf("note column stored as %v past the dictionary limit, want plain strings", k)
	}
	ver.Release()
	ver = nv
	check("past the dictionary limit")

	// After a version that could not be composed (a pinned.RebuildError),
	// the next is built from scratch of every row, which hold every edit
	// so far (the update of id 1 in chunk 0, the deletes in 1).
	tx = replstream.Tx{Position: "0-1-101", Changes: []replstream.Change{upd(1, 1, 6), del(7), ins(99, 8)}}
	if _, err := st.apply(&tx); err != nil {
		t.Fatal(err)
	}
	d, _ = st.snapshot()
	if nv, err = st.next(mem, Spec{DB: "d", Name: "p"}, d); err != nil {
		t.Fatal(err)
	}
	ver.Release()
	ver = nv
	check("an edit of old chunks")
	st.rebuildNext()
	d, _ = st.snapshot()
	if !d.all || len(d.changed) != d.chunks || len(d.edits) != 0 {
		t.Fatalf("after a RebuildError: all %v, %d whole of %d chunks and %d edited", d.all, len(d.changed), d.chunks, len(d.edits))
	}
	if nv, err = st.next(mem, Spec{DB: "d", Name: "p"}, d); err != nil {
		t.Fatal(err)
	}
	ver.Release()
	ver = nv
	check("built from scratch")
	ver.Release()
}
