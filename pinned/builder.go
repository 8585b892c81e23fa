package pinned

import (
	"fmt"
	"runtime"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/arrowexec"
)

// Building a table while its rows stream in. A load reads a pin's source
// through the distributed scan; the workers' batches are wide (Int64
// integers, plain strings, and each column points into its whole IPC
// message), several times the pinned encoding. Holding them all until the
// last arrived made a load peak at 3–4× the pin it built. A Builder
// encodes each batch as it arrives, and the caller drops the raw batch at
// once:
//
//   - a string column is dictionary-encoded batch by batch: codes are
//     given in order of first appearance and never change (dictIndex), so
//     a batch's codes stay valid as the dictionary grows. Past maxDict
//     values the column is stored plain: the batches encoded so far are
//     decoded back to strings from the dictionary, and the rest are
//     copied as they come.
//   - an integer column is narrowed to the width its values so far need;
//     Finish rewrites the batches stored narrower than the final width.
//   - Finish wraps every column's codes in one dictionary array shared by
//     all batches.
//
// The result is the table Build made from all the batches at once: the
// same kinds, dictionaries (values in the same order), widths, statistics
// and rows (builder_test.go checks it).

// batchRows is how many MySQL rows (a merged or passthrough result) make
// one batch, as arrowexec.BuildBatches cuts them.
const batchRows = 65536

// collectAfter is the least raw input a Builder lets become garbage
// between two collections (see Builder.collect).
const collectAfter = 16 << 20

// Builder builds a Table from a load's rows as they arrive: the workers'
// record batches (Batch) or MySQL rows (Row), after the columns (Fields).
// It never keeps an input batch. Not safe for concurrent use: the caller
// serializes (a locked sink). Finish returns the table; Release drops
// what was built when the load fails.
type Builder struct {
	mem      memory.Allocator
	db, name string
	fields   []*querypb.Field
	afields  []arrow.Field // from the first batch's schema; nil before it
	cols     []*Column
	// dicts is, per column, the dictionary of a string column still
	// dictionary-encoded; nil for other columns.
	dicts []*dictIndex
	// parts is, per non-empty batch, its encoded columns: Int16 codes for
	// a dictionary column (wrapped by Finish), else the stored array.
	parts [][]arrow.Array
	rows  []int64
	cut   rowCutter
	// raw and built count input and encoded bytes since the last
	// collection, and built the table so far.
	raw, built int64
}

// NewBuilder starts the table db.name, allocating from mem.
func NewBuilder(mem memory.Allocator, db, name string) *Builder {
	return &Builder{mem: mem, db: db, name: name}
}

// Fields sets the table's columns. The first call counts: a merged
// result repeats them with its rows.
func (b *Builder) Fields(fields []*querypb.Field) error {
	if b.fields == nil {
		b.fields = fields
	}
	return nil
}

// Row adds one row of MySQL values typed as the fields (valid during the
// call only: it is copied).
func (b *Builder) Row(row []sqltypes.Value) error {
	b.raw += rowBytes(row) // the merge's garbage, as the rows it made
	return b.cut.add(b.mem, b.fields, row, b.Batch)
}

// rowBytes is the memory of a row of MySQL values: each value's header
// and text.
func rowBytes(row []sqltypes.Value) int64 {
	n := int64(len(row)) * int64(unsafe.Sizeof(sqltypes.Value{}))
	for _, v := range row {
		n += int64(len(v.Raw()))
	}
	return n
}

// Batch encodes rec's rows into the table: one column per field (the
// batch's own names are ignored). The caller still owns rec and may
// release it as soon as Batch returns.
func (b *Builder) Batch(rec arrow.RecordBatch) error {
	if b.fields == nil {
		return fmt.Errorf("pinned: rows for %s.%s before its columns", b.db, b.name)
	}
	if int(rec.NumCols()) != len(b.fields) {
		return fmt.Errorf("pinned: batch has %d columns, table %d", rec.NumCols(), len(b.fields))
	}
	if b.afields == nil {
		if err := b.start(rec.Schema().Fields()); err != nil {
			return err
		}
	}
	for c, f := range b.afields {
		if dt := rec.Column(c).DataType(); !arrow.TypeEqual(dt, f.Type) {
			return fmt.Errorf("pinned: column %s arrives as %s, then as %s", f.Name, f.Type, dt)
		}
	}
	if rec.NumRows() == 0 {
		return nil
	}
	out := make([]arrow.Array, len(b.fields))
	for c := range b.fields {
		arr := rec.Column(c)
		enc, err := b.encode(c, arr)
		if err != nil {
			for _, a := range out[:c] {
				a.Release()
			}
			return err
		}
		out[c] = enc
		b.cols[c].Nulls = b.cols[c].Nulls || enc.NullN() > 0
		b.raw += bufferBytes(arr)
		b.built += bufferBytes(enc)
	}
	b.parts = append(b.parts, out)
	b.rows = append(b.rows, rec.NumRows())
	b.collect()
	return nil
}

// collect runs the garbage collector when the raw input dropped since the
// last collection (batches, and the MySQL rows a merge made) reaches an
// eighth of the table built so far (at least collectAfter bytes). The input is the load's garbage, and a lot of it
// (several bytes for every byte kept): left to the pacer, which lets the
// heap grow to twice what is live before it collects, a load would peak
// near twice the pin plus what was in flight (a 3M-row pin of 115 MB:
// 1.55× with a quarter and 32 MiB, 1.42× with an eighth and 16 MiB,
// docs/benchmarks.md). Collections are cheap here: Arrow buffers hold no
// pointers, and the load spent no more time.
func (b *Builder) collect() {
	if b.raw < max(collectAfter, b.built/8) {
		return
	}
	b.raw = 0
	runtime.GC()
}

// start takes the columns' Arrow types from the first batch.
func (b *Builder) start(af []arrow.Field) error {
	b.afields = make([]arrow.Field, len(b.fields))
	b.cols = make([]*Column, len(b.fields))
	b.dicts = make([]*dictIndex, len(b.fields))
	for c, f := range b.fields {
		b.afields[c] = af[c]
		b.afields[c].Name = f.Name
		col := &Column{Name: f.Name, Field: f}
		if err := col.classify(af[c].Type); err != nil {
			return err
		}
		if col.kind == KindString {
			b.dicts[c] = newDictIndex(nil)
		}
		b.cols[c] = col
	}
	return nil
}

// encode stores one raw column array of a batch.
func (b *Builder) encode(c int, arr arrow.Array) (arrow.Array, error) {
	col := b.cols[c]
	switch col.kind {
	case KindString:
		if d := b.dicts[c]; d != nil {
			if idx, ok := d.add([]arrow.Array{arr}); ok {
				return fromSlice(arrow.PrimitiveTypes.Int16, idx[0], arr), nil
			}
			b.plain(c)
		}
	case KindInt:
		col.bounds([]arrow.Array{arr})
		lo, hi := col.Min, col.Max
		if !col.HasVals {
			lo, hi = 0, 0
		}
		out, err := narrow(b.mem, []arrow.Array{arr}, narrowType(lo, hi))
		if err != nil {
			return nil, err
		}
		return out[0], nil
	default:
		col.bounds([]arrow.Array{arr})
	}
	out, err := ownAll(b.mem, []arrow.Array{arr})
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// plain turns string column c, dictionary-encoded so far, into plain
// strings: it has more than maxDict distinct values. The batches encoded
// so far are decoded from the dictionary; their codes are all below the
// values it held when they were encoded, which never change.
func (b *Builder) plain(c int) {
	d := b.dicts[c]
	b.dicts[c] = nil
	for _, p := range b.parts {
		codes := p[c]
		p[c] = decodeStrings(d.values, codes.(*array.Int16))
		b.built += bufferBytes(p[c]) - bufferBytes(codes)
		codes.Release()
	}
}

// Finish returns the table of the rows added. The Builder is done; the
// table owns what it built.
func (b *Builder) Finish() (*Table, error) {
	err := b.cut.flush(b.Batch)
	b.cut.release()
	if err != nil {
		b.Release()
		return nil, err
	}
	if b.afields == nil {
		fs := make([]arrow.Field, len(b.fields))
		for c, f := range b.fields {
			fs[c] = arrowexec.FieldFor(f)
		}
		if err := b.start(fs); err != nil {
			return nil, err
		}
	}
	t := &Table{DB: b.db, Name: b.name, Fields: b.fields, Cols: b.cols}
	for c, col := range b.cols {
		switch {
		case b.dicts[c] != nil:
			d := b.dicts[c]
			col.kind = KindDict
			col.Dict = d.values
			col.dictVals = make([]sqltypes.Value, len(d.values))
			for k, v := range d.values {
				col.dictVals[k] = sqltypes.MakeTrusted(col.Field.Type, []byte(v))
			}
			typ := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int16, ValueType: arrow.BinaryTypes.String}
			b.afields[c].Type = typ
			dict := dictArray(b.mem, d.values)
			t.Bytes += bufferBytes(dict)
			for _, p := range b.parts {
				codes := p[c]
				p[c] = array.NewDictionaryArray(typ, codes, dict)
				codes.Release()
			}
			dict.Release() // the dictionary arrays hold it
		case col.kind == KindInt:
			lo, hi := col.Min, col.Max
			if !col.HasVals {
				lo, hi = 0, 0
			}
			dt := narrowType(lo, hi)
			b.afields[c].Type = dt
			for _, p := range b.parts {
				if old := p[c]; !arrow.TypeEqual(old.DataType(), dt) {
					p[c] = recast(old, dt)
					old.Release()
				}
			}
		}
		for _, p := range b.parts {
			if col.kind == KindDict {
				t.Bytes += bufferBytes(p[c].(*array.Dictionary).Indices())
			} else {
				t.Bytes += bufferBytes(p[c])
			}
		}
	}
	t.Schema = arrow.NewSchema(b.afields, nil)
	for j, p := range b.parts {
		rec := array.NewRecordBatch(t.Schema, p, b.rows[j])
		for _, a := range p {
			a.Release()
		}
		t.Batches = append(t.Batches, rec)
		t.Rows += b.rows[j]
	}
	b.parts = nil
	t.Refresh = Refresh{Added: t.Rows}
	return t, nil
}

// Release drops what the Builder holds: after a failed load, or instead
// of Finish.
func (b *Builder) Release() {
	b.cut.release()
	for _, p := range b.parts {
		for _, a := range p {
			if a != nil {
				a.Release()
			}
		}
	}
	b.parts = nil
}

// decodeStrings is the string array of codes over values, NULLs kept,
// sized exactly.
func decodeStrings(values []string, codes *array.Int16) arrow.Array {
	n := codes.Len()
	offsets := make([]int32, n+1)
	size := 0
	for i := 0; i < n; i++ {
		if codes.IsValid(i) {
			size += len(values[codes.Value(i)])
		}
		offsets[i+1] = int32(size)
	}
	data := make([]byte, 0, size)
	for i := 0; i < n; i++ {
		if codes.IsValid(i) {
			data = append(data, values[codes.Value(i)]...)
		}
	}
	var valid *memory.Buffer
	if codes.NullN() > 0 {
		bm := make([]byte, bitutil.BytesForBits(int64(n)))
		for i := 0; i < n; i++ {
			if codes.IsValid(i) {
				bitutil.SetBit(bm, i)
			}
		}
		valid = memory.NewBufferBytes(bm)
	}
	ad := array.NewData(arrow.BinaryTypes.String, n, []*memory.Buffer{valid, memory.NewBufferBytes(sliceBytes(offsets)), memory.NewBufferBytes(data)}, nil, codes.NullN(), 0)
	defer ad.Release()
	return array.MakeFromData(ad)
}

// rowCutter cuts MySQL rows into record batches of batchRows.
type rowCutter struct {
	rb *arrowexec.RowBuilder
	n  int
}

// add appends row, and hands a full batch to emit (which does not keep
// it unless it retains it).
func (r *rowCutter) add(mem memory.Allocator, fields []*querypb.Field, row []sqltypes.Value, emit func(arrow.RecordBatch) error) error {
	if fields == nil {
		return fmt.Errorf("pinned: a row before its columns")
	}
	if r.rb == nil {
		r.rb = arrowexec.NewRowBuilder(mem, arrowexec.SchemaFor(fields))
	}
	if err := r.rb.Append(row); err != nil {
		return err
	}
	if r.n++; r.n == batchRows {
		return r.flush(emit)
	}
	return nil
}

// flush hands the rows added since the last batch to emit.
func (r *rowCutter) flush(emit func(arrow.RecordBatch) error) error {
	if r.n == 0 {
		return nil
	}
	r.n = 0
	rec := r.rb.NewRecordBatch()
	defer rec.Release()
	return emit(rec)
}

func (r *rowCutter) release() {
	if r.rb != nil {
		r.rb.Release()
		r.rb = nil
	}
}

// Collector gathers a load's rows as they arrive, like a Builder, but
// keeps them as the raw record batches: the rows an incremental refresh
// appends (Table.Append encodes them). Not safe for concurrent use.
type Collector struct {
	mem     memory.Allocator
	fields  []*querypb.Field
	batches []arrow.RecordBatch
	cut     rowCutter
}

// NewCollector starts a collection allocating from mem.
func NewCollector(mem memory.Allocator) *Collector { return &Collector{mem: mem} }

// Fields sets the columns; the first call counts.
func (c *Collector) Fields(fields []*querypb.Field) error {
	if c.fields == nil {
		c.fields = fields
	}
	return nil
}

// Row adds one row of MySQL values (copied).
func (c *Collector) Row(row []sqltypes.Value) error {
	return c.cut.add(c.mem, c.fields, row, c.Batch)
}

// Batch keeps rec (retained: the caller still releases its own
// reference).
func (c *Collector) Batch(rec arrow.RecordBatch) error {
	rec.Retain()
	c.batches = append(c.batches, rec)
	return nil
}

// Result is the columns and the batches collected, which the caller now
// owns and releases.
func (c *Collector) Result() ([]*querypb.Field, []arrow.RecordBatch, error) {
	err := c.cut.flush(c.Batch)
	c.cut.release()
	if err != nil {
		c.Release()
		return nil, nil, err
	}
	out := c.batches
	c.batches = nil
	return c.fields, out, nil
}

// Release drops the batches collected (after a failed load).
func (c *Collector) Release() {
	c.cut.release()
	for _, b := range c.batches {
		b.Release()
	}
	c.batches = nil
}

// FromRows makes an ephemeral in-memory table db.name of rows (a derived
// table's result, the session list of information_schema.PROCESSLIST),
// for the pinned engine to run a statement over.
func FromRows(mem memory.Allocator, db, name string, fields []*querypb.Field, rows [][]sqltypes.Value) (*Table, error) {
	batches, err := arrowexec.BuildBatches(mem, fields, rows)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	return Build(db, name, fields, batches)
}
