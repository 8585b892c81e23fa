package pinned

import (
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// Composing a version from the previous one. A live pin (package livepin)
// keeps its rows in chunks, one record batch each; a burst of row changes
// touches a few chunks, and the next version is the previous one's
// batches for the untouched chunks (shared, retained) and new batches for
// the touched ones, encoded like Append encodes new rows: dictionaries
// extended append-only (codes not renumbered, so a kept batch's codes
// stay valid, until a compaction re-encodes that column in every kept
// batch), integer columns widened when a new value needs it. A touched
// chunk need not be re-encoded whole: a spliced part (Part.Splice,
// splice.go) is the chunk's old batch with runs of its rows copied as
// encoded and the new rows encoded. The dictionary index (value to code)
// is shared by the versions, each extending the last (dictIndex). Append
// is Compose with every old batch kept and the new ones after them.
//
// Column statistics only widen: a value that left the table (deleted or
// updated away) stays in its column's dictionary and Min/Max bounds. The
// engine reads them as bounds and code spaces, never as contents (a
// group with no rows is not emitted), so a wider bound is correct and a
// dictionary grows until it would pass maxDict values; then it is
// compacted to the values in use (compactDict), or stored as plain
// strings when those nearly fill it (plainDict).

// Part is one batch of a composed version: batch Keep of the previous
// version when Keep >= 0, else New, rows with one column per field as a
// load reads them (arrowexec.SchemaFor), encoded by Compose. With Splice,
// a part is batch Keep edited: its rows are the runs of Splice, of batch
// Keep's rows and of New's (nil when no run reads it), encoded rows
// copied and only New's encoded (splice.go). The caller still owns New.
type Part struct {
	Keep   int
	New    arrow.RecordBatch
	Splice []Run
}

// Compose returns a new version of t whose batches are parts, in order
// (a New part with no rows makes no batch). t is not modified; the
// batches it shares with the new version are retained. The new version's
// Refresh is incremental with Added the rows of the New parts (spliced
// ones too); Loaded, LoadTook and Position are the caller's.
func (t *Table) Compose(parts []Part) (*Table, error) {
	return t.ComposeWith(memory.NewGoAllocator(), parts)
}

// ComposeWith is Compose allocating the new batches from mem.
func (t *Table) ComposeWith(mem memory.Allocator, parts []Part) (*Table, error) {
	var fresh []arrow.RecordBatch // the New parts with rows
	var added, rows int64
	for _, p := range parts {
		switch {
		case p.Keep >= len(t.Batches):
			return nil, fmt.Errorf("pinned: compose keeps batch %d of %d", p.Keep, len(t.Batches))
		case p.Keep >= 0 && p.Splice != nil:
			n, err := checkSplice(p, t.Batches[p.Keep].NumRows())
			if err != nil {
				return nil, err
			}
			rows += n
			if p.New == nil || p.New.NumRows() == 0 {
				continue
			}
			if int(p.New.NumCols()) != len(t.Fields) {
				return nil, &RebuildError{fmt.Sprintf("the new rows have %d columns, the pinned table %d", p.New.NumCols(), len(t.Fields))}
			}
			fresh = append(fresh, p.New)
			added += p.New.NumRows()
			rows -= p.New.NumRows() // counted in added
		case p.Keep >= 0:
			rows += t.Batches[p.Keep].NumRows()
		case p.New == nil:
			return nil, fmt.Errorf("pinned: compose part has neither a kept nor a new batch")
		case int(p.New.NumCols()) != len(t.Fields):
			return nil, &RebuildError{fmt.Sprintf("the new rows have %d columns, the pinned table %d", p.New.NumCols(), len(t.Fields))}
		case p.New.NumRows() > 0:
			fresh = append(fresh, p.New)
			added += p.New.NumRows()
		}
	}
	nt := &Table{DB: t.DB, Name: t.Name, Source: t.Source, Whole: t.Whole, Fields: t.Fields,
		split: t.split, Rows: rows + added, Refresh: Refresh{Incremental: true, Added: added}}
	afields := slices.Clone(t.Schema.Fields())
	cols := make([][]arrow.Array, len(t.Cols)) // per column, per fresh batch
	widened := make([]bool, len(t.Cols))
	recoded := make([]map[int]arrow.Array, len(t.Cols)) // per column, per kept batch (compactDict)
	release := func() {
		for c, arrs := range cols {
			for _, a := range arrs {
				a.Release()
			}
			for _, a := range recoded[c] {
				a.Release()
			}
		}
	}
	fail := func(err error) (*Table, error) {
		release()
		return nil, err
	}
	for c, old := range t.Cols {
		col := *old
		col.Dict, col.dictVals = slices.Clip(col.Dict), slices.Clip(col.dictVals)
		nt.Cols = append(nt.Cols, &col)
		arrs := make([]arrow.Array, len(fresh))
		for j, b := range fresh {
			arrs[j] = b.Column(c)
		}
		if len(arrs) > 0 {
			if err := sameKind(&col, arrs[0].DataType()); err != nil {
				return fail(err)
			}
		}
		var err error
		switch col.kind {
		case KindDict:
			cols[c], recoded[c], err = t.appendDict(mem, c, &col, afields[c].Type.(*arrow.DictionaryType), arrs, parts)
			if col.kind == KindString { // plainDict
				afields[c].Type = arrow.BinaryTypes.String
			}
		case KindInt:
			col.bounds(arrs)
			lo, hi := col.Min, col.Max
			if !col.HasVals {
				lo, hi = 0, 0
			}
			dt := narrowType(lo, hi)
			if wider(dt, afields[c].Type) {
				afields[c].Type, widened[c] = dt, true
			}
			cols[c], err = narrow(mem, arrs, afields[c].Type)
		default:
			col.bounds(arrs)
			cols[c], err = ownAll(mem, arrs)
		}
		if err != nil {
			return fail(err)
		}
		for _, a := range cols[c] {
			col.Nulls = col.Nulls || a.NullN() > 0
		}
	}
	nt.Schema = arrow.NewSchema(afields, nil)
	j := 0
	for _, p := range parts {
		var arrs []arrow.Array // p's New rows encoded
		if (p.Keep < 0 || p.Splice != nil) && p.New != nil && p.New.NumRows() > 0 {
			arrs = make([]arrow.Array, len(cols))
			for c := range cols {
				arrs[c] = cols[c][j]
			}
			j++
		}
		switch {
		case p.Keep >= 0 && p.Splice != nil:
			kept := reuse(t, p.Keep, nt.Schema, widened, recoded)
			b, err := spliceBatch(mem, nt.Schema, kept, arrs, p.Splice)
			kept.Release()
			if err != nil {
				for _, b := range nt.Batches {
					b.Release()
				}
				return fail(err)
			}
			nt.Batches = append(nt.Batches, b)
		case p.Keep >= 0:
			nt.Batches = append(nt.Batches, reuse(t, p.Keep, nt.Schema, widened, recoded))
		case arrs != nil:
			nt.Batches = append(nt.Batches, array.NewRecordBatch(nt.Schema, arrs, p.New.NumRows()))
		}
	}
	release() // the record batches hold them
	nt.Bytes = tableBytes(nt.Batches)
	return nt, nil
}

// BuildWith is Build allocating from mem.
func BuildWith(mem memory.Allocator, db, name string, fields []*querypb.Field, batches []arrow.RecordBatch) (*Table, error) {
	return build(mem, db, name, fields, batches)
}

// Row returns row r of batch b as MySQL values typed as the columns, the
// way queries read them (tests compare versions with it).
func (t *Table) Row(b, r int) []sqltypes.Value {
	out := make([]sqltypes.Value, len(t.Cols))
	for c, col := range t.Cols {
		out[c], _ = col.Value(t.Batches[b].Column(c), r, nil)
	}
	return out
}
