package pinned

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/mysql/collations/colldata"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// maxDict is the most distinct values a string column may have to be
// dictionary-encoded (its codes fit an Int16).
const maxDict = 1 << 15

// Table is one pinned table. It is immutable once built.
type Table struct {
	DB, Name string
	// Source is the SELECT the table holds the result of.
	Source string
	// Whole is true for CACHE TABLE db.t: the pin caches the replica
	// table of the same name, which queries the pin cannot serve may read.
	Whole   bool
	Fields  []*querypb.Field
	Cols    []*Column
	Schema  *arrow.Schema
	Batches []arrow.RecordBatch
	Rows    int64
	// Bytes is the size of the Arrow buffers (dictionaries counted once).
	Bytes    int64
	Loaded   time.Time
	LoadTook time.Duration
	// Version increases with every load of the same name.
	Version uint64
	// split is 1 + the index in Cols of the replica table's split column
	// (an integer key) when the pin is a whole table that has one, else
	// 0. Its maximum in this version is the high-water mark an
	// incremental refresh continues from (see SetSplit, HighWater).
	split int
	// Refresh says how this version was made.
	Refresh Refresh
	// Position is the GTID position of the replication stream this
	// version reflects, for a live pin's version (package livepin); ""
	// for a snapshot pin. Statements under a consistency floor run on a
	// version whose Position covers their floor.
	Position string

	hits atomic.Int64
	// derived holds what the query engine's programs over this version
	// share (derived.go).
	derived derived
}

// Refresh describes the load that made a table version.
type Refresh struct {
	// Incremental is true when the version is the previous one plus the
	// rows past its high-water mark (Append), false for a full load.
	Incremental bool
	// Added is the number of rows the load added: every row for a full
	// load.
	Added int64
	// Fallback, for a full load asked for as incremental, says why the
	// new rows could not be appended; empty otherwise.
	Fallback string
}

// Kind names the refresh for SHOW CACHED TABLES: "full", "incremental",
// or "full (incremental not possible: …)".
func (r Refresh) Kind() string {
	switch {
	case r.Incremental:
		return "incremental"
	case r.Fallback != "":
		return "full (incremental not possible: " + r.Fallback + ")"
	}
	return "full"
}

// SetSplit marks column name (case-insensitive) as the split column, the
// key of incremental refreshes. It reports false, leaving none marked,
// when the table has no such signed integer column (an unsigned BIGINT
// key arrives as Uint64 and is not tracked). Call it before the table is
// shared.
//
// It also puts the batches in key order (by their first key: the
// fragments that loaded them read disjoint key ranges, each in key
// order), as the server scans the table: a group of keys equal under a
// collation ('Alice', 'alice') shows the spelling of its first row in
// key order, and the in-memory engine, reading the batches in order,
// keeps the first it sees (pinexec Program.ordered).
func (t *Table) SetSplit(name string) bool {
	t.split = 0
	for i, c := range t.Cols {
		if !strings.EqualFold(c.Name, name) {
			continue
		}
		if c.kind == KindInt {
			t.split = i + 1
			t.sortBatches(i)
			return true
		}
	}
	return false
}

// OrderBatches puts the batches in the order of columns names, compared
// in turn — a split column SetSplit does not track (DATETIME, DATE), or
// the primary key of a table without one (BIGINT UNSIGNED, CHAR under its
// collation, every column of a composite key: many batches of one tenant
// begin with the same tenant_id and are ordered by the next column) — as
// SetSplit does for an integer split column. A name the table lacks, or
// of a column not ordered here, ends the comparison there. Call it before
// the table is shared.
func (t *Table) OrderBatches(names ...string) {
	var cols []int
	for _, name := range names {
		i := slices.IndexFunc(t.Cols, func(c *Column) bool { return strings.EqualFold(c.Name, name) })
		if i < 0 {
			break
		}
		cols = append(cols, i)
	}
	t.sortBatches(cols...)
}

// sortBatches orders the batches by the values of columns cs in their
// first row, compared in turn as the server orders each column: integers
// as numbers, dates and times as their fixed-width text, text under its
// collation. A column of another kind ends the comparison there.
func (t *Table) sortBatches(cs ...int) {
	type keyCol struct {
		c       int
		compare func(a, b sqltypes.Value) int
	}
	var keys []keyCol
	for _, c := range cs {
		compare := batchCompare(t.Cols[c])
		if compare == nil {
			break
		}
		keys = append(keys, keyCol{c, compare})
	}
	if len(keys) == 0 {
		return
	}
	first := make(map[arrow.RecordBatch][]sqltypes.Value, len(t.Batches))
	for _, b := range t.Batches {
		if b.NumRows() > 0 {
			vs := make([]sqltypes.Value, len(keys))
			for i, k := range keys {
				vs[i], _ = t.Cols[k.c].Value(b.Column(k.c), 0, nil)
			}
			first[b] = vs
		}
	}
	slices.SortStableFunc(t.Batches, func(a, b arrow.RecordBatch) int {
		x, y := first[a], first[b]
		if x == nil || y == nil {
			return 0
		}
		for i, k := range keys {
			if x[i].IsNull() || y[i].IsNull() {
				return 0
			}
			if c := k.compare(x[i], y[i]); c != 0 {
				return c
			}
		}
		return 0
	})
}

// batchCompare compares two values of col as the server orders them, nil
// for a column of a kind not ordered here.
func batchCompare(col *Column) func(a, b sqltypes.Value) int {
	switch col.kind {
	case KindInt:
		return func(a, b sqltypes.Value) int {
			x, _ := a.ToInt64()
			y, _ := b.ToInt64()
			return cmp.Compare(x, y)
		}
	case KindUint:
		return func(a, b sqltypes.Value) int {
			x, _ := a.ToUint64()
			y, _ := b.ToUint64()
			return cmp.Compare(x, y)
		}
	case KindDate, KindTimestamp, KindBinary:
		// Fixed-width text; bytes (a BINARY(16) UUID key) as the binary
		// collation compares them.
		return func(a, b sqltypes.Value) int { return bytes.Compare(a.Raw(), b.Raw()) }
	case KindDict, KindString:
		coll := colldata.Lookup(collations.ID(col.Field.Charset))
		if coll == nil {
			return nil
		}
		return func(a, b sqltypes.Value) int { return coll.Collate(a.Raw(), b.Raw(), false) }
	}
	return nil
}

// SplitColumn is the name of the column SetSplit marked, "" for none.
func (t *Table) SplitColumn() string {
	if t.split == 0 {
		return ""
	}
	return t.Cols[t.split-1].Name
}

// HighWater is the largest split key in this version; ok is false when
// the table has no split column or no rows. Every row past it is new to
// an append-only table.
func (t *Table) HighWater() (key int64, ok bool) {
	if t.split == 0 {
		return 0, false
	}
	c := t.Cols[t.split-1]
	return c.Max, c.HasVals
}

// Release drops the table's references to its record batches. Only for a
// table no reader can reach: a version that was never swapped in (its
// pin did not fit the budget), or a test's. Readers hold swapped-out
// versions without counting, so those are left to the garbage collector.
// Batches shared with another version stay valid: Append retained them.
func (t *Table) Release() {
	for _, b := range t.Batches {
		b.Release()
	}
	t.Batches = nil
}

// Hit counts one query answered from the table.
func (t *Table) Hit() { t.hits.Add(1) }

// Hits returns how many queries the table answered.
func (t *Table) Hits() int64 { return t.hits.Load() }

// Build makes a table from record batches with one column per field (the
// batches' own field names and order are ignored). String columns with few
// distinct values are dictionary-encoded. Build does not keep the input
// batches; the caller still owns (and releases) them.
func Build(db, name string, fields []*querypb.Field, batches []arrow.RecordBatch) (*Table, error) {
	return build(memory.NewGoAllocator(), db, name, fields, batches)
}

// build is Build allocating from mem (tests pass a checked allocator):
// the batches added to a Builder one by one.
func build(mem memory.Allocator, db, name string, fields []*querypb.Field, batches []arrow.RecordBatch) (*Table, error) {
	b := NewBuilder(mem, db, name)
	if err := b.Fields(fields); err != nil {
		return nil, err
	}
	for _, rec := range batches {
		if err := b.Batch(rec); err != nil {
			b.Release()
			return nil, err
		}
	}
	return b.Finish()
}

// ownAll copies arrays into buffers of their own. Arrays decoded from a
// Flight stream point into the whole IPC message body: keeping one column
// of a batch would keep every column of it, so a table would hold the
// workers' wide encoding rather than its own compact one.
func ownAll(mem memory.Allocator, arrs []arrow.Array) ([]arrow.Array, error) {
	out := make([]arrow.Array, 0, len(arrs))
	for _, a := range arrs {
		c, err := array.Concatenate([]arrow.Array{a}, mem)
		if err != nil {
			for _, x := range out {
				x.Release()
			}
			return nil, fmt.Errorf("pinned: copying a column: %w", err)
		}
		out = append(out, c)
	}
	return out, nil
}

// dictIndex assigns dictionary codes to distinct strings in order of
// first appearance. Codes never change once given, so an index can be
// extended by an incremental refresh without re-encoding older batches.
//
// Composed versions share one index (Column.index) rather than each
// rebuilding the map of every value (as much work as a burst's new
// values, in a live pin's version of 500 changes). It is append-only: a
// version's column reads values[:n] and vals[:n] (its Dict and
// DictValues, clipped, so appending to them copies), and extending the
// index writes past n only, where no reader of that version looks. The
// codes map is read and written by composes alone, under mu, and only by
// a compose from the version at its tip (extendIndex): any other (a
// compose from an older version, or after a failed one extended it)
// copies what its version holds.
type dictIndex struct {
	mu     sync.Mutex
	codes  map[string]int16
	values []string
	// vals is values as MySQL values typed as the column (Column.dictVals);
	// kept in step by composes, unused by a Builder.
	vals []sqltypes.Value
}

// newDictIndex starts an index holding values (codes 0..len-1); the
// slice is not modified.
func newDictIndex(values []string) *dictIndex {
	d := &dictIndex{codes: make(map[string]int16, len(values)), values: slices.Clip(values)}
	for i, v := range values {
		d.codes[v] = int16(i)
	}
	return d
}

// add gives every string of arrs a code and returns the codes, per
// array (0 for a NULL), or reports false when that would take more than
// maxDict codes. Coding while indexing looks each value up once: a
// second pass to encode looked every row up again, and those lookups
// were the largest part of a live pin's version build.
func (d *dictIndex) add(arrs []arrow.Array) ([][]int16, bool) {
	out := make([][]int16, len(arrs))
	for j, a := range arrs {
		s := a.(*array.String)
		idx := make([]int16, s.Len())
		for i := range idx {
			if s.IsNull(i) {
				continue
			}
			v := s.Value(i)
			code, ok := d.codes[v]
			if !ok {
				if len(d.values) >= maxDict {
					return nil, false
				}
				v = string([]byte(v)) // own the bytes: the batch may go
				code = int16(len(d.values))
				d.codes[v] = code
				d.values = append(d.values, v)
			}
			idx[i] = code
		}
		out[j] = idx
	}
	return out, true
}

// encodeCodes makes one dictionary array of typ over dict per input
// array, from its codes (add).
func encodeCodes(typ *arrow.DictionaryType, dict arrow.Array, idx [][]int16, arrs []arrow.Array) []arrow.Array {
	out := make([]arrow.Array, 0, len(arrs))
	for j, a := range arrs {
		codes := fromSlice(arrow.PrimitiveTypes.Int16, idx[j], a)
		out = append(out, array.NewDictionaryArray(typ, codes, dict))
		codes.Release()
	}
	return out
}

// dictArray is an Arrow string array of values.
func dictArray(mem memory.Allocator, values []string) *array.String {
	db := array.NewStringBuilder(mem)
	defer db.Release()
	db.AppendValues(values, nil)
	return db.NewStringArray()
}

// bufferBytes is the size of an array's buffers (children included, a
// dictionary's values not).
func bufferBytes(a arrow.Array) int64 {
	var n int64
	var walk func(d arrow.ArrayData)
	walk = func(d arrow.ArrayData) {
		for _, b := range d.Buffers() {
			if b != nil {
				n += int64(b.Len())
			}
		}
		for _, ch := range d.Children() {
			walk(ch)
		}
	}
	walk(a.Data())
	return n
}
