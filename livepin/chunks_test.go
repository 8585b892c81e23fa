package livepin

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/arrowexec"
	"github.com/shoaldb/shoal/pinned"
	"github.com/shoaldb/shoal/replstream"
)

// tableRows is every row of a version, in batch order, as text.
// scratchRows builds st's live rows into a pinned table from scratch,
// which every version must equal, and returns its rows.
func scratchRows(t *testing.T, mem memory.Allocator, st *state) []string {
	t.Helper()
	rb := arrowexec.NewRowBuilder(mem, arrowexec.SchemaFor(st.fields))
	for _, row := range st.live() {
		if err := rb.Append(row); err != nil {
			t.Fatal(err)
		}
	}
	b := rb.NewRecordBatch()
	rb.Release()
	scratch, err := pinned.BuildWith(mem, "d", "p", st.fields, []arrow.RecordBatch{b})
	b.Release()
	if err != nil {
		t.Fatal(err)
	}
	defer scratch.Release()
	return tableRows(scratch)
}

func tableRows(t *pinned.Table) []string {
	var out []string
	for b, rb := range t.Batches {
		for r := range int(rb.NumRows()) {
			var s string
			for _, v := range t.Row(b, r) {
				if v.IsNull() {
					s += "NULL|"
				} else {
					s += v.ToString() + "|"
				}
			}
			out = append(out, s)
		}
	}
	return out
}

// TestChunkedVersions applies random inserts, updates (also of the key)
// and deletes in transactions and checks every version built from the
// changed chunks against a table built from scratch of the same rows:
// same rows in the same order. Versions are released as a reader that
// dropped them would; the checked allocator proves nothing leaks and
// that a shared batch outlives the version that made it.
func TestChunkedVersions(t *testing.T) {
	for _, tc := range []struct {
		name           string
		chunk, rows    int
		txs, changesTx int
		notes          int // distinct note values updates draw from
	}{
		{"small chunks", 4, 50, 200, 5, 20},
		{"default chunks, bursts", 512, 3000, 60, 200, 1000},
		// Bursts that touch most of 125 chunks: built by several
		// goroutines (buildChunks).
		{"many chunks, bursts", 16, 2000, 40, 150, 300},
		{"one chunk", 1 << 20, 300, 50, 20, 50},
		{"empty start", 8, 0, 100, 6, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			fields := []*querypb.Field{
				{Name: "id", Type: sqltypes.Int64},
				{Name: "grp", Type: sqltypes.VarChar, Charset: 255},
				{Name: "amount", Type: sqltypes.Decimal, ColumnLength: 12, Decimals: 2},
				{Name: "note", Type: sqltypes.VarChar, Charset: 255},
				{Name: "kind", Type: sqltypes.Int64},
			}
			tbl := &replstream.Table{DB: "d", Name: "t", Columns: fields}
			st := &state{index: map[string]int{}, chunk: tc.chunk, fields: fields, table: tbl,
				keyIdx: []int{0}, projIdx: []int{0, 1, 2, 3, 4}}
			r := rand.New(rand.NewPCG(uint64(tc.chunk), 9))
			row := func(id int64) []sqltypes.Value {
				note := sqltypes.NULL
				if r.IntN(5) > 0 {
					note = sqltypes.NewVarChar(fmt.Sprintf("n%d", r.IntN(tc.notes)))
				}
				return []sqltypes.Value{sqltypes.NewInt64(id), sqltypes.NewVarChar(fmt.Sprintf("g%d", id%7)),
					sqltypes.MakeTrusted(sqltypes.Decimal, fmt.Appendf(nil, "%d.%02d", r.IntN(2000)-1000, r.IntN(100))),
					note, sqltypes.NewInt64(r.Int64N(1 << uint(1+r.IntN(40))))} // widths grow
			}
			live := map[int64][]sqltypes.Value{}
			next := int64(1)
			for range tc.rows {
				v := row(next)
				st.put(keyOf(v[:1]), st.pinRow(v))
				live[next] = v
				next++
			}
			st.changed, st.relaid = true, true
			d, _ := st.snapshot()
			ver, err := st.next(mem, Spec{DB: "d", Name: "p"}, d)
			if err != nil {
				t.Fatal(err)
			}
			check := func(step int) {
				t.Helper()
				if got, want := tableRows(ver), scratchRows(t, mem, st); !slices.Equal(got, want) {
					t.Fatalf("version %d differs from a build from scratch:\n got %q\nwant %q", step, got, want)
				}
				if ver.Rows != int64(len(live)) {
					t.Fatalf("version %d has %d rows, want %d", step, ver.Rows, len(live))
				}
			}
			check(0)
			anyID := func() (int64, bool) {
				if len(live) == 0 {
					return 0, false
				}
				ids := make([]int64, 0, len(live))
				for id := range live {
					ids = append(ids, id)
				}
				slices.Sort(ids)
				return ids[r.IntN(len(ids))], true
			}
			composed := 0
			for step := 1; step <= tc.txs; step++ {
				tx := replstream.Tx{Position: fmt.Sprintf("0-1-%d", step)}
				for range 1 + r.IntN(tc.changesTx) {
					id, ok := anyID()
					switch op := r.IntN(10); {
					case op < 4 || !ok:
						v := row(next)
						tx.Changes = append(tx.Changes, replstream.Change{Table: tbl, Kind: replstream.Insert, After: v})
						live[next] = v
						next++
					case op < 7:
						before, v := live[id], row(id)
						if r.IntN(8) == 0 { // a key update moves the row
							v[0] = sqltypes.NewInt64(next)
							delete(live, id)
							next++
						}
						tx.Changes = append(tx.Changes, replstream.Change{Table: tbl, Kind: replstream.Update, Before: before, After: v})
						nid, _ := v[0].ToInt64()
						live[nid] = v
					default:
						tx.Changes = append(tx.Changes, replstream.Change{Table: tbl, Kind: replstream.Delete, Before: live[id]})
						delete(live, id)
					}
				}
				if _, err := st.apply(&tx); err != nil {
					t.Fatal(err)
				}
				d, changed := st.snapshot()
				if !changed {
					t.Fatalf("step %d: a transaction with changes made no version", step)
				}
				if !d.all {
					composed++
				}
				nv, err := st.next(mem, Spec{DB: "d", Name: "p"}, d)
				var rebuild *pinned.RebuildError
				if errors.As(err, &rebuild) {
					st.rebuildNext()
					d, _ = st.snapshot()
					nv, err = st.next(mem, Spec{DB: "d", Name: "p"}, d)
				}
				if err != nil {
					t.Fatal(err)
				}
				ver.Release() // the new version retained what it shares
				ver = nv
				check(step)
			}
			if composed == 0 {
				t.Fatal("no version was composed from the previous one")
			}
			ver.Release()
		})
	}
}
