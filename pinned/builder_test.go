package pinned

import (
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/arrowexec"
)

// loadFields are the column types a load brings (arrowexec.FieldFor):
// integers that outgrow their width from one batch to the next, an
// unsigned BIGINT, DOUBLE, DECIMAL (Decimal128 and Decimal256), DATE,
// DATETIME(6), TIME, a dictionary that grows with every batch, strings
// that pass maxDict distinct values after several batches were
// dictionary-encoded, a column of NULLs only, and binary strings.
var loadFields = []*querypb.Field{
	field("id", sqltypes.Int64, 63, 20),
	{Name: "widening", Type: sqltypes.Int32, Charset: 63, ColumnLength: 11},
	{Name: "u", Type: sqltypes.Uint64, Charset: 63, ColumnLength: 20, Flags: uint32(querypb.MySqlFlag_UNSIGNED_FLAG)},
	{Name: "f", Type: sqltypes.Float64, Charset: 63, ColumnLength: 22, Decimals: 31},
	{Name: "dec", Type: sqltypes.Decimal, Charset: 63, ColumnLength: 12, Decimals: 2},
	{Name: "wide", Type: sqltypes.Decimal, Charset: 63, ColumnLength: 52, Decimals: 5},
	{Name: "day", Type: sqltypes.Date, Charset: 63, ColumnLength: 10},
	{Name: "at", Type: sqltypes.Datetime, Charset: 63, ColumnLength: 26, Decimals: 6},
	{Name: "tm", Type: sqltypes.Time, Charset: 63, ColumnLength: 10},
	field("growing", sqltypes.VarChar, 45, 80),
	field("many", sqltypes.VarChar, 45, 80),
	field("nothing", sqltypes.VarChar, 45, 80),
	field("bin", sqltypes.VarBinary, 63, 40),
}

// loadRow is row i of a load of loadFields.
func loadRow(i int) []sqltypes.Value {
	null := func(every int, v sqltypes.Value) sqltypes.Value {
		if i%every == every-1 {
			return sqltypes.NULL
		}
		return v
	}
	widening := int64(i % 100) // Int8 in the first batches, Int32 later
	if i > 20000 {
		widening = int64(40000 + i)
	}
	growing := "g" + strconv.Itoa(i/97) // new values in every batch
	if i%5 == 0 {
		growing = []string{"", "aa", "AA", "é"}[i%4]
	}
	return []sqltypes.Value{
		sqltypes.NewInt64(int64(i)),
		null(7, sqltypes.NewInt64(widening)),
		null(11, sqltypes.NewUint64(18446744073709551615-uint64(i))),
		null(13, sqltypes.NewFloat64(float64(i)/3)),
		null(17, sqltypes.MakeTrusted(sqltypes.Decimal, fmt.Appendf(nil, "%d.%02d", i-500, i%100))),
		null(19, sqltypes.MakeTrusted(sqltypes.Decimal, fmt.Appendf(nil, "%d123456789012345678901234567890.%05d", i+1, i%99999))),
		null(23, sqltypes.MakeTrusted(sqltypes.Date, fmt.Appendf(nil, "20%02d-%02d-%02d", i%30, 1+i%12, 1+i%28))),
		null(29, sqltypes.MakeTrusted(sqltypes.Datetime, fmt.Appendf(nil, "2020-01-02 03:%02d:%02d.%06d", i%60, (i/60)%60, 1+i%999999))),
		null(31, sqltypes.MakeTrusted(sqltypes.Time, fmt.Appendf(nil, "%02d:00:01", i%24))),
		null(37, sqltypes.NewVarChar(growing)),
		null(41, sqltypes.NewVarChar("m"+strconv.Itoa(i))), // every value new: plain past maxDict
		sqltypes.NULL,
		null(43, sqltypes.MakeTrusted(sqltypes.VarBinary, []byte{byte(i), 0, byte(i >> 8)})),
	}
}

// loadBatches cuts rows [0, n) into batches of the sizes given, in turn
// (an empty one among them), each built by itself as a worker sends it.
func loadBatches(t *testing.T, mem memory.Allocator, n int, sizes []int) []arrow.RecordBatch {
	t.Helper()
	var out []arrow.RecordBatch
	for i, k := 0, 0; i < n; k++ {
		size := min(sizes[k%len(sizes)], n-i)
		rows := make([][]sqltypes.Value, 0, size)
		for j := i; j < i+size; j++ {
			rows = append(rows, loadRow(j))
		}
		bs, err := arrowexec.BuildBatches(mem, loadFields, rows)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, bs...)
		i += size
	}
	return out
}

// TestBuilderMatchesBuildAtOnce loads the same rows cut into batches in
// several ways, and as MySQL rows (a merged or passthrough result), and
// checks that every table is the one built from the same batches all at
// once by the previous implementation (buildAtOnce): the same schema, column
// kinds, dictionaries in the same order, bounds, NULL flags, size and
// rows; and that the rows read back as the values loaded. A checked
// allocator shows nothing is left behind, also by a load that fails.
func TestBuilderMatchesBuildAtOnce(t *testing.T) {
	const n = 45000 // "many" passes maxDict after batches encoded with a dictionary
	cases := []struct {
		name  string
		sizes []int
		rows  bool // added with Row, not Batch
	}{
		{"one batch", []int{n}, false},
		{"even batches", []int{5000}, false},
		{"uneven batches, an empty one", []int{1, 4999, 0, 12000, 7, 3000}, false},
		{"rows", []int{batchRows}, true}, // cut as BuildBatches cuts them
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			ref := func() *Table {
				in := loadBatches(t, mem, n, tc.sizes)
				defer release(in)
				tbl, err := buildAtOnce(mem, "db", "t", loadFields, in)
				if err != nil {
					t.Fatal(err)
				}
				return tbl
			}()
			defer ref.Release()
			b := NewBuilder(mem, "db", "t")
			if err := b.Fields(loadFields); err != nil {
				t.Fatal(err)
			}
			if tc.rows {
				for i := range n {
					if err := b.Row(loadRow(i)); err != nil {
						t.Fatal(err)
					}
				}
			} else {
				for _, rec := range loadBatches(t, mem, n, tc.sizes) {
					err := b.Batch(rec)
					rec.Release() // dropped as soon as it is encoded
					if err != nil {
						t.Fatal(err)
					}
				}
			}
			got, err := b.Finish()
			if err != nil {
				t.Fatal(err)
			}
			defer got.Release()
			sameTable(t, got, ref)
			if k := got.Cols[10].kind; k != KindString {
				t.Errorf("many: kind %d, want plain strings past %d values", k, maxDict)
			}
			if c := got.Cols[9]; c.kind != KindDict || len(c.Dict) < 400 {
				t.Errorf("growing: kind %d, %d values", c.kind, len(c.Dict))
			}
			if got.Schema.Field(1).Type.ID() != arrow.INT32 {
				t.Errorf("widening stored as %s", got.Schema.Field(1).Type)
			}
			i := 0
			for bi, rec := range got.Batches {
				for r := range int(rec.NumRows()) {
					want := loadRow(i)
					for c, v := range got.Row(bi, r) {
						if !want[c].IsNull() && v.Type() != loadFields[c].Type || v.ToString() != want[c].ToString() {
							t.Fatalf("row %d column %s: %v, loaded %v", i, loadFields[c].Name, v, want[c])
						}
					}
					i++
				}
			}
			if i != n {
				t.Errorf("%d rows read back, %d loaded", i, n)
			}
		})
	}
	t.Run("failed load", func(t *testing.T) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		b := NewBuilder(mem, "db", "t")
		_ = b.Fields(loadFields)
		in := loadBatches(t, mem, 12000, []int{5000})
		defer release(in)
		for _, rec := range in {
			if err := b.Batch(rec); err != nil {
				t.Fatal(err)
			}
		}
		for i := range 100 {
			if err := b.Row(loadRow(i)); err != nil {
				t.Fatal(err)
			}
		}
		short := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 0)
		defer short.Release()
		if err := b.Batch(short); err == nil {
			t.Error("a batch of 0 columns into a table of 13 was accepted")
		}
		b.Release()
	})
}

// sameTable compares two tables' encodings and contents.
func sameTable(t *testing.T, got, want *Table) {
	t.Helper()
	if !got.Schema.Equal(want.Schema) {
		t.Fatalf("schema\n%s\nwant\n%s", got.Schema, want.Schema)
	}
	if got.Rows != want.Rows || got.Bytes != want.Bytes {
		t.Errorf("rows %d bytes %d, want %d and %d", got.Rows, got.Bytes, want.Rows, want.Bytes)
	}
	for c, g := range got.Cols {
		w := want.Cols[c]
		if g.kind != w.kind || g.Min != w.Min || g.Max != w.Max || g.HasVals != w.HasVals || g.Nulls != w.Nulls ||
			!slices.Equal(g.Dict, w.Dict) || len(g.dictVals) != len(w.dictVals) {
			t.Errorf("column %s: kind %d bounds %d..%d (%v) nulls %v, %d values; want kind %d bounds %d..%d (%v) nulls %v, %d values",
				g.Name, g.kind, g.Min, g.Max, g.HasVals, g.Nulls, len(g.Dict), w.kind, w.Min, w.Max, w.HasVals, w.Nulls, len(w.Dict))
		}
	}
	var gotRows, wantRows [][]sqltypes.Value
	for b, rec := range got.Batches {
		for r := range int(rec.NumRows()) {
			gotRows = append(gotRows, got.Row(b, r))
		}
	}
	for b, rec := range want.Batches {
		for r := range int(rec.NumRows()) {
			wantRows = append(wantRows, want.Row(b, r))
		}
	}
	if len(gotRows) != len(wantRows) {
		t.Fatalf("%d rows, want %d", len(gotRows), len(wantRows))
	}
	for i := range gotRows {
		for c := range gotRows[i] {
			if g, w := gotRows[i][c], wantRows[i][c]; g.Type() != w.Type() || g.ToString() != w.ToString() {
				t.Fatalf("row %d column %d: %v, want %v", i, c, g, w)
			}
		}
	}
}

// buildAtOnce is how Build made a table before loads streamed: every
// column of every batch at once. The test's reference.

func buildAtOnce(mem memory.Allocator, db, name string, fields []*querypb.Field, batches []arrow.RecordBatch) (*Table, error) {
	t := &Table{DB: db, Name: name, Fields: fields}
	for _, b := range batches {
		if int(b.NumCols()) != len(fields) {
			return nil, fmt.Errorf("pinned: batch has %d columns, table %d", b.NumCols(), len(fields))
		}
	}
	cols := make([][]arrow.Array, len(fields)) // per column, per batch
	var nonEmpty []int
	for i, b := range batches {
		if b.NumRows() > 0 {
			nonEmpty = append(nonEmpty, i)
		}
	}
	afields := make([]arrow.Field, len(fields))
	for c, f := range fields {
		col := &Column{Name: f.Name, Field: f}
		t.Cols = append(t.Cols, col)
		var af arrow.Field
		if len(batches) > 0 {
			af = batches[0].Schema().Field(c)
		} else {
			af = arrowexec.FieldFor(f)
		}
		af.Name = f.Name
		arrs := make([]arrow.Array, 0, len(nonEmpty))
		for _, i := range nonEmpty {
			arrs = append(arrs, batches[i].Column(c))
		}
		if err := col.classify(af.Type); err != nil {
			return nil, err
		}
		switch col.kind {
		case KindString:
			if d, ok := dictionary(mem, arrs); ok {
				col.kind = KindDict
				col.Dict = d.values
				col.dictVals = make([]sqltypes.Value, len(d.values))
				for k, v := range d.values {
					col.dictVals[k] = sqltypes.MakeTrusted(f.Type, []byte(v))
				}
				af.Type = d.typ
				cols[c] = d.arrays
				t.Bytes += bufferBytes(d.dict)
				d.dict.Release() // the dictionary arrays hold it
			} else {
				var err error
				if cols[c], err = ownAll(mem, arrs); err != nil {
					return nil, err
				}
			}
		case KindInt:
			col.bounds(arrs)
			lo, hi := col.Min, col.Max
			if !col.HasVals {
				lo, hi = 0, 0
			}
			af.Type = narrowType(lo, hi)
			var err error
			if cols[c], err = narrow(mem, arrs, af.Type); err != nil {
				return nil, err
			}
		default:
			col.bounds(arrs)
			var err error
			if cols[c], err = ownAll(mem, arrs); err != nil {
				return nil, err
			}
		}
		for _, a := range cols[c] {
			if col.kind == KindDict {
				t.Bytes += bufferBytes(a.(*array.Dictionary).Indices())
			} else {
				t.Bytes += bufferBytes(a)
			}
			if a.NullN() > 0 {
				col.Nulls = true
			}
		}
		afields[c] = af
	}
	t.Schema = arrow.NewSchema(afields, nil)
	for j := range nonEmpty {
		arrs := make([]arrow.Array, len(fields))
		for c := range fields {
			arrs[c] = cols[c][j]
		}
		var n int64
		if len(arrs) > 0 {
			n = int64(arrs[0].Len())
		}
		rec := array.NewRecordBatch(t.Schema, arrs, n)
		for _, a := range arrs {
			a.Release()
		}
		t.Batches = append(t.Batches, rec)
		t.Rows += n
	}
	t.Refresh = Refresh{Added: t.Rows}
	return t, nil
}

type dictResult struct {
	typ    *arrow.DictionaryType
	dict   *array.String
	values []string
	arrays []arrow.Array
}

// dictionary encodes string arrays with one dictionary shared by all, or
// reports false when there are more than maxDict distinct values.
func dictionary(mem memory.Allocator, arrs []arrow.Array) (dictResult, bool) {
	d := newDictIndex(nil)
	idx, ok := d.add(arrs)
	if !ok {
		return dictResult{}, false
	}
	dict := dictArray(mem, d.values)
	typ := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int16, ValueType: arrow.BinaryTypes.String}
	return dictResult{typ: typ, dict: dict, values: d.values, arrays: encodeCodes(typ, dict, idx, arrs)}, true
}
