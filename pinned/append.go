package pinned

import (
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"vitess.io/vitess/go/sqltypes"
)

// Incremental refresh. An append-only table only grows past its split
// key's high-water mark, so a refresh need not reload what it holds: it
// reads the rows past the mark and Append builds a new version from the
// old one's record batches (shared, not copied: they are immutable) and
// the new rows' batches, encoded like Build encodes them.
//
// What a new version may have to change in the old rows' encoding:
//
//   - a dictionary column gets values it has not seen: the dictionary is
//     extended. Codes are never renumbered, so the old batches keep their
//     codes (and their shorter dictionary, a prefix of the new one) and
//     only the new batches point at the extended one. Past maxDict values
//     the dictionary is compacted to the values still in use, and that
//     column alone is re-encoded in the old batches (compactDict); when
//     those nearly fill a dictionary the column is stored as plain
//     strings from then on (plainDict).
//   - an integer column gets values outside its stored width (a TINYINT
//     range column meets 300): that column alone is rewritten at the new
//     width in the new version; the other columns of the old batches are
//     still shared.
//
// The old version is untouched and stays valid for its readers; the swap
// itself is the Registry's.

// RebuildError is Append's answer when the new rows cannot be appended to
// the table's encoding or schema: the caller should load the table in
// full. Reason says why, for the operator.
type RebuildError struct{ Reason string }

func (e *RebuildError) Error() string { return "pinned: full reload needed: " + e.Reason }

// Append returns a new version of t holding t's rows followed by the rows
// of batches (one column per field of t, as the workers send them: the
// same types a full load of t's source gets). t is not modified; its
// batches are retained by the new version. The caller still owns (and
// releases) batches. The new version's Refresh records an incremental
// refresh of the appended rows; Loaded and LoadTook are the caller's.
func (t *Table) Append(batches []arrow.RecordBatch) (*Table, error) {
	return t.AppendWith(memory.NewGoAllocator(), batches)
}

// AppendWith is Append allocating the new batches from mem.
func (t *Table) AppendWith(mem memory.Allocator, batches []arrow.RecordBatch) (*Table, error) {
	parts := make([]Part, 0, len(t.Batches)+len(batches))
	for i := range t.Batches {
		parts = append(parts, Part{Keep: i})
	}
	for _, b := range batches {
		parts = append(parts, Part{Keep: -1, New: b})
	}
	return t.ComposeWith(mem, parts)
}

// sameKind checks that a new column arrives as the pinned one did.
func sameKind(col *Column, dt arrow.DataType) error {
	probe := Column{Name: col.Name}
	if err := probe.classify(dt); err != nil {
		return &RebuildError{err.Error()}
	}
	want := col.kind
	if want == KindDict {
		want = KindString
	}
	if probe.kind != want {
		return &RebuildError{fmt.Sprintf("column %s now arrives as %s", col.Name, dt)}
	}
	return nil
}

// appendDict encodes column c's new string arrays with t's dictionary,
// extended by the values it lacks; col (the new version's column) gets
// the extended value lists.
//
// Past maxDict values the dictionary is compacted instead (compactDict):
// recoded then holds column c re-encoded for each kept batch, by index
// into t.Batches, which the new version's batches use in place of the
// old column.
func (t *Table) appendDict(mem memory.Allocator, c int, col *Column, typ *arrow.DictionaryType, arrs []arrow.Array, parts []Part) (fresh []arrow.Array, recoded map[int]arrow.Array, err error) {
	d, done := col.extendIndex()
	idx, ok := d.add(arrs)
	if !ok {
		done()
		return t.compactDict(mem, c, col, typ, arrs, parts)
	}
	n := len(col.Dict)
	for _, v := range d.values[len(d.vals):] {
		d.vals = append(d.vals, sqltypes.MakeTrusted(col.Field.Type, []byte(v)))
	}
	col.index = d
	col.Dict, col.dictVals = slices.Clip(d.values), slices.Clip(d.vals)
	done()
	var dict arrow.Array
	if full := t.fullDict(c, n); len(col.Dict) == n && full != nil {
		// No new value: the new batches share the old dictionary.
		dict = full
		dict.Retain()
	} else {
		dict = dictArray(mem, col.Dict)
	}
	defer dict.Release()
	return encodeCodes(typ, dict, idx, arrs), nil, nil
}

// compactDict re-encodes dictionary column c over the values the new
// version's rows use: the kept batches' codes and the new strings in
// arrs. A dictionary only grows (values that left the table stay in it),
// so a column whose values churn, such as a note or a reference updated
// with new text, would reach maxDict and force a build from scratch of
// every column of every row; in `shoal bench live` that happened three
// times in three seconds and each one held the pin's versions back by
// seconds. Remapping the kept batches' codes costs one pass over this
// column's int16 codes, and the other columns stay shared. When the
// values in use fill three quarters of a dictionary or more, it would
// fill again within a few versions: the column becomes plain strings
// (plainDict), as a full build would store it past maxDict.
func (t *Table) compactDict(mem memory.Allocator, c int, col *Column, typ *arrow.DictionaryType, arrs []arrow.Array, parts []Part) ([]arrow.Array, map[int]arrow.Array, error) {
	used := make([]bool, len(col.Dict))
	for _, p := range parts {
		if p.Keep < 0 {
			continue
		}
		codes := t.Batches[p.Keep].Column(c).(*array.Dictionary).Indices().(*array.Int16)
		for i, v := range codes.Int16Values() {
			if codes.IsValid(i) {
				used[v] = true
			}
		}
	}
	remap := make([]int16, len(col.Dict))
	var values []string
	var vals []sqltypes.Value
	for code, u := range used {
		if u {
			remap[code] = int16(len(values))
			values = append(values, col.Dict[code])
			vals = append(vals, col.dictVals[code])
		}
	}
	d := newDictIndex(values)
	idx, ok := d.add(arrs)
	if !ok || len(d.values) > maxDict/4*3 {
		return t.plainDict(mem, c, col, arrs, parts)
	}
	for _, v := range d.values[len(values):] {
		vals = append(vals, sqltypes.MakeTrusted(col.Field.Type, []byte(v)))
	}
	dict := dictArray(mem, d.values)
	defer dict.Release()
	recoded := map[int]arrow.Array{}
	for _, p := range parts {
		if _, done := recoded[p.Keep]; p.Keep < 0 || done {
			continue
		}
		codes := t.Batches[p.Keep].Column(c).(*array.Dictionary).Indices().(*array.Int16)
		idx := make([]int16, codes.Len())
		for i, v := range codes.Int16Values() {
			if codes.IsValid(i) {
				idx[i] = remap[v]
			}
		}
		a := fromSlice(arrow.PrimitiveTypes.Int16, idx, codes)
		recoded[p.Keep] = array.NewDictionaryArray(typ, a, dict)
		a.Release()
	}
	d.vals = vals
	col.index, col.Dict, col.dictVals = d, slices.Clip(d.values), slices.Clip(vals)
	return encodeCodes(typ, dict, idx, arrs), recoded, nil
}

// plainDict stores dictionary column c as plain strings from the new
// version on (col becomes KindString): each kept batch's codes are
// decoded, one pass over the column, and the new arrays copied.
func (t *Table) plainDict(mem memory.Allocator, c int, col *Column, arrs []arrow.Array, parts []Part) ([]arrow.Array, map[int]arrow.Array, error) {
	fresh, err := ownAll(mem, arrs)
	if err != nil {
		return nil, nil, err
	}
	recoded := map[int]arrow.Array{}
	for _, p := range parts {
		if _, done := recoded[p.Keep]; p.Keep < 0 || done {
			continue
		}
		codes := t.Batches[p.Keep].Column(c).(*array.Dictionary).Indices().(*array.Int16)
		recoded[p.Keep] = decodeStrings(col.Dict, codes)
	}
	col.kind, col.Dict, col.dictVals, col.index = KindString, nil, nil, nil
	return fresh, recoded, nil
}

// fullDict is a dictionary of column c among t's batches that holds all
// n values, or nil. Older batches keep the shorter dictionaries they were
// encoded with, so the first batch's is not necessarily it.
func (t *Table) fullDict(c, n int) arrow.Array {
	for i := len(t.Batches) - 1; i >= 0; i-- {
		if d := t.Batches[i].Column(c).(*array.Dictionary).Dictionary(); d.Len() == n {
			return d
		}
	}
	return nil
}

// reuse is old batch i of t as a batch of the new version: the same
// batch, retained, or, when columns were widened or recoded (compactDict:
// recoded[c][i]), a batch sharing the others.
func reuse(t *Table, i int, schema *arrow.Schema, widened []bool, recoded []map[int]arrow.Array) arrow.RecordBatch {
	b := t.Batches[i]
	if !slices.Contains(widened, true) && !slices.ContainsFunc(recoded, func(m map[int]arrow.Array) bool { return m != nil }) {
		b.Retain()
		return b
	}
	arrs := make([]arrow.Array, b.NumCols())
	var fresh []arrow.Array
	for c := range arrs {
		arrs[c] = b.Column(c)
		switch {
		case recoded[c] != nil:
			arrs[c] = recoded[c][i] // released by the caller
		case widened[c]:
			arrs[c] = recast(arrs[c], schema.Field(c).Type)
			fresh = append(fresh, arrs[c])
		}
	}
	rec := array.NewRecordBatch(schema, arrs, b.NumRows())
	for _, a := range fresh {
		a.Release()
	}
	return rec
}

// tableBytes is the size of batches' buffers, each dictionary counted
// once however many batches share it (as Build counts).
func tableBytes(batches []arrow.RecordBatch) int64 {
	var n int64
	seen := map[arrow.ArrayData]bool{}
	for _, b := range batches {
		for _, a := range b.Columns() {
			d, ok := a.(*array.Dictionary)
			if !ok {
				n += bufferBytes(a)
				continue
			}
			n += bufferBytes(d.Indices())
			if dd := d.Data().Dictionary(); !seen[dd] {
				seen[dd] = true
				n += bufferBytes(d.Dictionary())
			}
		}
	}
	return n
}
