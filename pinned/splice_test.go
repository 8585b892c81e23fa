package pinned

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/arrowexec"
)

// TestComposeSplices composes versions from randomized bursts of
// inserts, updates and deletes in chunks, as a live pin does: a touched
// chunk is its kept batch spliced with its new rows (Part.Splice), an
// untouched one kept, a new one encoded whole, an emptied one dropped.
// Every version must read exactly as a build from scratch of its rows,
// the previous version must read as it did, Bytes must count the
// batches, and nothing may leak (checked allocator). The bursts widen an
// integer column (Int8 to Int64), bring NULLs into columns that had none,
// and churn two string columns past maxDict: one compacted, one (whose
// values in use nearly fill a dictionary) turned to plain strings.
func TestComposeSplices(t *testing.T) {
	for _, tc := range []struct {
		name               string
		chunks, chunkRows  int
		versions, perBurst int
		// wide: every note distinct, so many in use that the column
		// turns to plain strings past maxDict; compact: the notes churn
		// past maxDict with few in use.
		wide, compact bool
	}{
		{"small chunks", 30, 6, 80, 25, false, false},
		{"churn past the dictionary", 40, 60, 40, 2500, false, true},
		{"plain past the dictionary", 310, 100, 3, 4000, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			fields := []*querypb.Field{
				{Name: "id", Type: sqltypes.Int64},
				{Name: "grp", Type: sqltypes.VarChar, Charset: 255},
				{Name: "amount", Type: sqltypes.Decimal, ColumnLength: 12, Decimals: 2},
				{Name: "day", Type: sqltypes.Date},
				{Name: "note", Type: sqltypes.VarChar, Charset: 255},
				{Name: "ratio", Type: sqltypes.Float64},
				{Name: "big", Type: sqltypes.Int64},
			}
			schema := arrowexec.SchemaFor(fields)
			r := rand.New(rand.NewPCG(uint64(tc.chunks), uint64(tc.chunkRows)))
			serial, version := 0, 0
			row := func() []sqltypes.Value {
				serial++
				grp, note, ratio := sqltypes.NULL, sqltypes.NULL, sqltypes.NULL
				if version == 0 || r.IntN(6) > 0 { // no NULLs in the first version
					grp = sqltypes.NewVarChar(fmt.Sprintf("g%d", r.IntN(9)))
					ratio = sqltypes.NewFloat64(r.Float64())
				}
				switch {
				case tc.wide || r.IntN(3) > 0:
					note = sqltypes.NewVarChar(fmt.Sprintf("n%d", serial)) // churns
				case version > 0 && r.IntN(2) == 0:
				default:
					note = sqltypes.NewVarChar("same")
				}
				big := int64(r.IntN(100))
				if version > 2 {
					big <<= uint(r.IntN(8 * version))
				}
				return []sqltypes.Value{sqltypes.NewInt64(int64(serial)), grp,
					sqltypes.MakeTrusted(sqltypes.Decimal, fmt.Appendf(nil, "%d.%02d", r.IntN(20000)-10000, r.IntN(100))),
					sqltypes.MakeTrusted(sqltypes.Date, fmt.Appendf(nil, "2024-%02d-%02d", 1+r.IntN(12), 1+r.IntN(28))),
					note, ratio, sqltypes.NewInt64(big)}
			}
			encode := func(rows [][]sqltypes.Value) arrow.RecordBatch {
				rb := arrowexec.NewRowBuilder(mem, schema)
				defer rb.Release()
				for _, v := range rows {
					if err := rb.Append(v); err != nil {
						t.Fatal(err)
					}
				}
				return rb.NewRecordBatch()
			}
			text := func(rows [][]sqltypes.Value) []string {
				b := encode(rows)
				defer b.Release()
				tbl, err := build(mem, "d", "t", fields, []arrow.RecordBatch{b})
				if err != nil {
					t.Fatal(err)
				}
				defer tbl.Release()
				return rowsOf(tbl)
			}
			// chunks[k] holds the rows of batch k of ver.
			chunks := make([][][]sqltypes.Value, tc.chunks)
			var in []arrow.RecordBatch
			for k := range chunks {
				for range tc.chunkRows {
					chunks[k] = append(chunks[k], row())
				}
				in = append(in, encode(chunks[k]))
			}
			ver, err := build(mem, "d", "t", fields, in)
			release(in)
			if err != nil {
				t.Fatal(err)
			}
			spliced, compacted, plain := 0, false, false
			for version = 1; version <= tc.versions; version++ {
				// Each touched chunk gets its edits, in row order: a row
				// deleted, updated (deleted and inserted in its place),
				// or a row inserted before it.
				type edit struct{ del, ins bool }
				touched := map[int][]edit{}
				for range tc.perBurst {
					k := r.IntN(len(chunks))
					if touched[k] == nil {
						touched[k] = make([]edit, len(chunks[k])+1)
					}
					i := r.IntN(len(chunks[k]) + 1)
					switch op := r.IntN(3); {
					case op == 0 || i == len(chunks[k]):
						touched[k][i].ins = true
					case op == 1:
						touched[k][i].del = true
					default:
						touched[k][i].del, touched[k][i].ins = true, true
					}
				}
				var parts []Part
				var news []arrow.RecordBatch
				var next [][][]sqltypes.Value
				for k, old := range chunks {
					es, ok := touched[k]
					if !ok {
						parts = append(parts, Part{Keep: k})
						next = append(next, old)
						continue
					}
					var rows, added [][]sqltypes.Value
					var runs []Run
					take := func(isNew bool, off int) {
						if l := len(runs) - 1; l >= 0 && runs[l].New == isNew && runs[l].Off+runs[l].Len == off {
							runs[l].Len++
							return
						}
						runs = append(runs, Run{New: isNew, Off: off, Len: 1})
					}
					for i, e := range es {
						if e.ins {
							v := row()
							take(true, len(added))
							added, rows = append(added, v), append(rows, v)
						}
						if i < len(old) && !e.del {
							take(false, i)
							rows = append(rows, old[i])
						}
					}
					if len(rows) == 0 {
						continue // the chunk emptied: no batch
					}
					p := Part{Keep: k, Splice: runs}
					if len(added) > 0 {
						p.New = encode(added)
						news = append(news, p.New)
					}
					parts = append(parts, p)
					next = append(next, rows)
					spliced++
				}
				if r.IntN(3) == 0 { // a new chunk
					var rows [][]sqltypes.Value
					for range 1 + r.IntN(tc.chunkRows) {
						rows = append(rows, row())
					}
					b := encode(rows)
					news = append(news, b)
					parts = append(parts, Part{Keep: -1, New: b})
					next = append(next, rows)
				}
				before := rowsOf(ver)
				nv, err := ver.ComposeWith(mem, parts)
				release(news)
				if err != nil {
					t.Fatalf("version %d: %v", version, err)
				}
				if after := rowsOf(ver); !slices.Equal(after, before) {
					t.Fatalf("version %d: the previous version changed under its readers", version)
				}
				compacted = compacted || nv.Cols[4].Kind() == KindDict && len(nv.Cols[4].Dict) < len(ver.Cols[4].Dict)
				plain = plain || nv.Cols[4].Kind() == KindString
				ver.Release()
				ver, chunks = nv, next
				var all [][]sqltypes.Value
				for k, c := range chunks {
					if int(ver.Batches[k].NumRows()) != len(c) {
						t.Fatalf("version %d: batch %d has %d rows, want %d", version, k, ver.Batches[k].NumRows(), len(c))
					}
					all = append(all, c...)
				}
				if got, want := rowsOf(ver), text(all); !slices.Equal(got, want) {
					for i := range min(len(got), len(want)) {
						if got[i] != want[i] {
							t.Fatalf("version %d: row %d of %d reads\n %s\nwant\n %s", version, i, len(want), got[i], want[i])
						}
					}
					t.Fatalf("version %d: %d rows, want %d", version, len(got), len(want))
				}
				checkDicts(t, ver)
				if ver.Rows != int64(len(all)) || ver.Bytes != tableBytes(ver.Batches) {
					t.Fatalf("version %d: rows %d bytes %d, want %d and %d", version, ver.Rows, ver.Bytes, len(all), tableBytes(ver.Batches))
				}
			}
			ver.Release()
			if spliced == 0 {
				t.Error("no part was spliced")
			}
			if k := ver.Cols[6].Kind(); tc.versions >= 10 && (k != KindInt || ver.Schema.Field(6).Type.ID() != arrow.INT64) {
				t.Errorf("column big is %v %s, want widened to Int64", k, ver.Schema.Field(6).Type)
			}
			if tc.compact && !compacted {
				t.Error("the churning notes were never compacted")
			}
			if tc.wide && !plain {
				t.Error("the notes never turned to plain strings")
			}
		})
	}
}

// checkDicts checks that each batch's Arrow dictionary of a dictionary
// column is a prefix of the column's values holding every code the batch
// uses (Row reads the column's values, not the Arrow dictionary).
func checkDicts(t *testing.T, tbl *Table) {
	t.Helper()
	for c, col := range tbl.Cols {
		if col.Kind() != KindDict {
			continue
		}
		for b, batch := range tbl.Batches {
			d := batch.Column(c).(*array.Dictionary)
			dict := d.Dictionary().(*array.String)
			for i := range dict.Len() {
				if i >= len(col.Dict) || dict.Value(i) != col.Dict[i] {
					t.Fatalf("column %s batch %d: dictionary value %d is not the column's", col.Name, b, i)
				}
			}
			for r := range d.Len() {
				if d.IsValid(r) && d.GetValueIndex(r) >= dict.Len() {
					t.Fatalf("column %s batch %d row %d: code %d past its dictionary of %d", col.Name, b, r, d.GetValueIndex(r), dict.Len())
				}
			}
		}
	}
}

// TestComposeSharedIndex composes several versions from one (a branch:
// a compose that failed, or two refreshes of one version), also at once:
// they share the dictionary index of the version at its tip, and each
// must read as a build of its rows, with the values it added under its
// own codes, whichever composed first (run with -race).
func TestComposeSharedIndex(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	carrier := func(tag string) func(int, []sqltypes.Value) {
		return func(i int, row []sqltypes.Value) {
			if i%2 == 0 {
				row[1] = sqltypes.NewVarChar(fmt.Sprintf("%s%d", tag, i%40))
			}
		}
	}
	// base, then tip: composed from base (so it has the shared index).
	base := mustBuild(t, mem, 0, 300, carrier("a"))
	defer base.Release()
	composeE := func(from *Table, in []arrow.RecordBatch) (*Table, error) {
		// Batch 0 without its first and last rows.
		parts := []Part{{Keep: 0, Splice: []Run{{Off: 1, Len: int(from.Batches[0].NumRows()) - 2}}}}
		for _, b := range in {
			parts = append(parts, Part{Keep: -1, New: b})
		}
		return from.ComposeWith(mem, parts)
	}
	compose := func(from *Table, lo, hi int, tag string) *Table {
		in := flightRows(t, mem, lo, hi, carrier(tag))
		defer release(in)
		nt, err := composeE(from, in)
		if err != nil {
			t.Fatal(err)
		}
		return nt
	}
	tip := compose(base, 300, 400, "b")
	defer tip.Release()
	want := func(from *Table, lo, hi int, tag string) []string {
		rows := rowsOf(from)[1 : from.Batches[0].NumRows()-1]
		w := mustBuild(t, mem, lo, hi, carrier(tag))
		defer w.Release()
		return append(rows, rowsOf(w)...)
	}
	for _, from := range []*Table{tip, base} {
		before := rowsOf(from)
		got := make([]*Table, 4)
		done := make(chan int)
		errs := make([]error, len(got))
		for i := range got {
			in := flightRows(t, mem, 1000*(i+1), 1000*(i+1)+100, carrier(fmt.Sprintf("c%d-", i)))
			defer release(in)
			go func() {
				defer func() { done <- i }()
				got[i], errs[i] = composeE(from, in)
			}()
		}
		for range got {
			<-done
		}
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
		for i, nt := range got {
			w := want(from, 1000*(i+1), 1000*(i+1)+100, fmt.Sprintf("c%d-", i))
			if g := rowsOf(nt); !slices.Equal(g, w) {
				t.Fatalf("version %d composed at once with others reads\n%.300v\nwant\n%.300v", i, g, w)
			}
			checkDicts(t, nt)
			for _, v := range nt.Cols[1].Dict {
				if strings.HasPrefix(v, "c") && !strings.HasPrefix(v, fmt.Sprintf("c%d-", i)) {
					t.Fatalf("version %d holds %q, another version's value", i, v)
				}
			}
			// Composed on from the branch: still its own values.
			next := compose(nt, 5000, 5100, "d")
			d := mustBuild(t, mem, 5000, 5100, carrier("d"))
			w = rowsOf(d)
			d.Release()
			if g := rowsOf(next)[next.Batches[0].NumRows():]; !slices.Equal(g, w) {
				t.Fatalf("version %d composed on reads\n%.300v\nwant\n%.300v", i, g, w)
			}
			checkDicts(t, next)
			next.Release()
			nt.Release()
		}
		if !slices.Equal(rowsOf(from), before) {
			t.Fatal("the version composed from changed under its readers")
		}
	}
}
