package pinned

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"vitess.io/vitess/go/sqltypes"

	"github.com/shoaldb/shoal/arrowexec"
	"github.com/shoaldb/shoal/pinned/pintest"
)

// mustBuild builds rows [from, to) with mem.
func mustBuild(t *testing.T, mem memory.Allocator, from, to int, edit func(int, []sqltypes.Value)) *Table {
	t.Helper()
	in := flightRows(t, mem, from, to, edit)
	defer release(in)
	tbl, err := build(mem, "db", "flights", appendFields, in)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// TestAppend appends rows to a table and checks the new version's
// encoding (shared batches, an extended dictionary, a widened column), its
// bookkeeping, and that its rows read exactly as those of the same rows
// built in one go, also after the old version is released (the shared
// batches must outlive it), and that both versions together leave no
// allocation behind. Package pinexec checks that queries answer alike.
func TestAppend(t *testing.T) {
	newCarrier := func(i int, row []sqltypes.Value) {
		if i%3 == 0 {
			row[1] = sqltypes.NewVarChar("ZZ")
		}
	}
	bigDelay := func(i int, row []sqltypes.Value) {
		if i%50 == 7 {
			row[2] = sqltypes.NewInt64(int64(100000 + i))
		}
	}
	cases := []struct {
		name     string
		old, new int // rows [0, old) then [old, new)
		edit     func(int, []sqltypes.Value)
		check    func(t *testing.T, v1, v2 *Table)
	}{
		{"shares batches", 1000, 1250, nil, func(t *testing.T, v1, v2 *Table) {
			for i, b := range v1.Batches {
				if v2.Batches[i] != b {
					t.Errorf("batch %d copied, not shared", i)
				}
			}
			if len(v2.Cols[1].Dict) != len(v1.Cols[1].Dict) {
				t.Errorf("dictionary grew without new values: %v", v2.Cols[1].Dict)
			}
		}},
		{"extends the dictionary", 1000, 1300, newCarrier, func(t *testing.T, v1, v2 *Table) {
			d1, d2 := v1.Cols[1].Dict, v2.Cols[1].Dict
			if len(d2) != len(d1)+1 || !slices.Equal(d2[:len(d1)], d1) || d2[len(d1)] != "ZZ" {
				t.Errorf("dictionary %v -> %v, want one value appended", d1, d2)
			}
			if len(v1.Cols[1].dictVals) != len(d1) || len(v2.Cols[1].dictVals) != len(d2) {
				t.Errorf("dictVals %d, %d", len(v1.Cols[1].dictVals), len(v2.Cols[1].dictVals))
			}
			if v2.Batches[0] != v1.Batches[0] {
				t.Error("old batches re-encoded")
			}
		}},
		{"widens an integer column", 1000, 1300, bigDelay, func(t *testing.T, v1, v2 *Table) {
			if a, b := v1.Schema.Field(2).Type.ID(), v2.Schema.Field(2).Type.ID(); a != arrow.INT16 || b != arrow.INT32 {
				t.Errorf("Delay stored as %s then %s, want int16 then int32", a, b)
			}
			if v2.Batches[0] == v1.Batches[0] || v2.Batches[0].Column(1).Data() != v1.Batches[0].Column(1).Data() {
				t.Error("widening should rewrite the Delay column only, sharing the others")
			}
			if v2.Cols[2].Max < 100000 || v1.Cols[2].Max != 179 {
				t.Errorf("Delay max %d then %d", v1.Cols[2].Max, v2.Cols[2].Max)
			}
		}},
		{"plain strings past maxDict", 1000, 1000 + maxDict + 10, func(i int, row []sqltypes.Value) {
			if i >= 1000 {
				row[1] = sqltypes.NewVarChar(fmt.Sprintf("c%d", i))
			}
		}, func(t *testing.T, v1, v2 *Table) {
			if v1.Cols[1].Kind() != KindDict || v2.Cols[1].Kind() != KindString || v2.Schema.Field(1).Type.ID() != arrow.STRING || v2.Cols[1].Dict != nil {
				t.Errorf("Carrier stored as %v then %v (%s)", v1.Cols[1].Kind(), v2.Cols[1].Kind(), v2.Schema.Field(1).Type)
			}
			if v2.Batches[0] == v1.Batches[0] || v2.Batches[0].Column(3).Data() != v1.Batches[0].Column(3).Data() {
				t.Error("the old batches should have Carrier decoded, sharing the other columns")
			}
		}},
		{"from an empty table", 0, 400, newCarrier, func(t *testing.T, v1, v2 *Table) {
			if v1.Rows != 0 || len(v2.Cols[1].Dict) != 6 {
				t.Errorf("rows %d, dictionary %v", v1.Rows, v2.Cols[1].Dict)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			v1 := mustBuild(t, mem, 0, c.old, nil)
			v1.SetSplit("id")
			in := flightRows(t, mem, c.old, c.new, c.edit)
			v2, err := v1.AppendWith(mem, in)
			release(in)
			if err != nil {
				t.Fatal(err)
			}
			full := mustBuild(t, mem, 0, c.new, func(i int, row []sqltypes.Value) {
				if c.edit != nil && i >= c.old {
					c.edit(i, row)
				}
			})
			defer full.Release()
			c.check(t, v1, v2)
			if hw, ok := v2.HighWater(); !ok || hw != int64(c.new-1) || v2.Rows != int64(c.new) {
				t.Errorf("high-water mark %d %v, rows %d; want %d, %d", hw, ok, v2.Rows, c.new-1, c.new)
			}
			if r := v2.Refresh; !r.Incremental || r.Added != int64(c.new-c.old) || r.Kind() != "incremental" {
				t.Errorf("refresh %+v", r)
			}
			if v2.Bytes != tableBytes(v2.Batches) || full.Bytes != tableBytes(full.Batches) {
				t.Errorf("bytes %d, %d: not as counted", v2.Bytes, full.Bytes)
			}
			compare := func(when string) {
				if got, want := rowsOf(v2), rowsOf(full); !slices.Equal(got, want) || len(want) != c.new {
					t.Errorf("%s: appended version reads %d rows, built %d, or differs:\nappended %.300v\nbuilt    %.300v", when, len(got), len(want), got, want)
				}
			}
			compare("both versions held")
			v1.Release()
			compare("old version released")
			v2.Release()
		})
	}
}

// TestAppendNeedsRebuild: rows that cannot join the table's encoding or
// schema get a RebuildError, and nothing is left allocated.
func TestAppendNeedsRebuild(t *testing.T) {
	cases := []struct {
		name  string
		batch func(t *testing.T, mem memory.Allocator) []arrow.RecordBatch
	}{
		{"column type changed", func(t *testing.T, mem memory.Allocator) []arrow.RecordBatch {
			fields := slices.Clone(appendFields)
			fields[2] = field("Delay", sqltypes.VarChar, 45, 40)
			rb := arrowexec.NewRowBuilder(mem, arrowexec.SchemaFor(fields))
			defer rb.Release()
			rb.Append([]sqltypes.Value{sqltypes.NewInt64(5000), sqltypes.NewVarChar("AA"), sqltypes.NewVarChar("late"), sqltypes.NULL})
			return []arrow.RecordBatch{rb.NewRecordBatch()}
		}},
		{"column added", func(t *testing.T, mem memory.Allocator) []arrow.RecordBatch {
			fields := append(slices.Clone(appendFields), field("x", sqltypes.Int32, 63, 11))
			rb := arrowexec.NewRowBuilder(mem, arrowexec.SchemaFor(fields))
			defer rb.Release()
			rb.Append([]sqltypes.Value{sqltypes.NewInt64(5000), sqltypes.NewVarChar("AA"), sqltypes.NULL, sqltypes.NULL, sqltypes.NewInt64(1)})
			return []arrow.RecordBatch{rb.NewRecordBatch()}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			v1 := mustBuild(t, mem, 0, 1000, nil)
			defer v1.Release()
			in := c.batch(t, mem)
			defer release(in)
			v2, err := v1.AppendWith(mem, in)
			var rb *RebuildError
			if !errors.As(err, &rb) || v2 != nil {
				t.Fatalf("got %v, %v; want a RebuildError", v2, err)
			}
			t.Log(err)
		})
	}
}

// TestHighWater: only a signed integer column can be the split key; the
// mark is its largest value, and a table without rows has none.
func TestHighWater(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tbl := mustBuild(t, mem, 0, 700, nil)
	defer tbl.Release()
	empty := mustBuild(t, mem, 0, 0, nil)
	defer empty.Release()
	if _, ok := tbl.HighWater(); ok || tbl.SplitColumn() != "" {
		t.Error("a high-water mark before SetSplit")
	}
	if tbl.SetSplit("Carrier") || tbl.SetSplit("Day") || tbl.SplitColumn() != "" {
		t.Error("a string or date column accepted as the split key")
	}
	if !tbl.SetSplit("ID") || tbl.SplitColumn() != "id" {
		t.Fatal("the integer key (named case-insensitively) refused")
	}
	if hw, ok := tbl.HighWater(); !ok || hw != 699 {
		t.Errorf("high-water mark %d %v, want 699", hw, ok)
	}
	if !empty.SetSplit("id") {
		t.Fatal("empty table: split key refused")
	}
	if _, ok := empty.HighWater(); ok {
		t.Error("an empty table has a high-water mark")
	}
}

// rowsOf is every row of t, in order, as text (Row reads them as queries
// do).
func rowsOf(t *Table) []string {
	var out []string
	for b, batch := range t.Batches {
		for r := range int(batch.NumRows()) {
			var s []string
			for _, v := range t.Row(b, r) {
				s = append(s, v.String())
			}
			out = append(out, strings.Join(s, "|"))
		}
	}
	return out
}

// The append tests' flights table (pintest).
var (
	appendFields = pintest.AppendFields
	flightRows   = pintest.FlightRows
	release      = pintest.Release
)

// TestComposeCompactsDictionary: a column whose values churn (each new
// row brings a new string, old rows leave) passes maxDict distinct values
// over the table's life but never holds as many at once. Compose compacts
// its dictionary to the values in use instead of refusing, the old
// version reads as it did, and each version reads as a build of its rows.
func TestComposeCompactsDictionary(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	unique := func(i int, row []sqltypes.Value) {
		if i%7 != 0 { // some rows share "AA"…: codes in use both old and new
			row[1] = sqltypes.NewVarChar(fmt.Sprintf("c%d", i))
		}
	}
	const live, step = 4000, 1000
	ver := mustBuild(t, mem, 0, live, unique)
	lo, hi := 0, live
	compacted := false
	for hi < maxDict+3*live {
		drop := step / 100 // FlightRows' batches hold 100 rows
		var parts []Part
		for i := drop; i < len(ver.Batches); i++ {
			parts = append(parts, Part{Keep: i})
		}
		in := flightRows(t, mem, hi, hi+step, unique)
		for _, b := range in {
			parts = append(parts, Part{Keep: -1, New: b})
		}
		next, err := ver.ComposeWith(mem, parts)
		release(in)
		if err != nil {
			t.Fatalf("rows [%d, %d): %v", lo+step, hi+step, err)
		}
		if len(next.Cols[1].Dict) < len(ver.Cols[1].Dict) {
			compacted = true
		}
		before := rowsOf(ver)
		lo, hi = lo+step, hi+step
		want := mustBuild(t, mem, lo, hi, unique)
		if got, w := rowsOf(next), rowsOf(want); !slices.Equal(got, w) {
			t.Fatalf("rows [%d, %d): composed version reads %d rows, a build %d, or differs:\n%.300v\n%.300v", lo, hi, len(got), len(w), got, w)
		}
		if after := rowsOf(ver); !slices.Equal(after, before) {
			t.Fatalf("the previous version changed under its readers")
		}
		if next.Bytes != tableBytes(next.Batches) {
			t.Errorf("bytes %d, counted %d", next.Bytes, tableBytes(next.Batches))
		}
		want.Release()
		ver.Release()
		ver = next
	}
	if !compacted || len(ver.Cols[1].Dict) > maxDict {
		t.Errorf("after %d distinct values the dictionary holds %d (compacted %v)", hi, len(ver.Cols[1].Dict), compacted)
	}
	ver.Release()
}
