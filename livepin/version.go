package livepin

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"vitess.io/vitess/go/sqltypes"

	"github.com/shoaldb/shoal/arrowexec"
	"github.com/shoaldb/shoal/pinned"
)

// Building a version. Encoding a row from its binary log values (text:
// decimals, dates, integers parsed) is what a version costs; a burst of
// changes spread over the table touches most chunks, so re-encoding every
// row of each touched chunk costs nearly the table. Instead each chunk's
// rows are kept as last encoded (st.raw, unencoded Arrow as a load reads
// them), and a touched chunk is rebuilt from that batch's unchanged runs
// (sliced and concatenated: copies, no parsing) and its changed rows
// alone, encoded afresh. Only new chunks and full builds (the first load,
// compaction, an encoding that must start over) encode every row.

// next builds the version of d: the changed chunks rebuilt, the others
// the last version's batches (pinned.Table.Compose), or a table built
// from scratch (pinned.Build) when d says so or there is no last version:
// of every row encoded afresh (d.all: the slots moved) or of the raw
// chunks (d.fresh). It becomes st.ver. A *pinned.RebuildError says the
// chunks cannot be composed: the raw chunks are kept (they hold d) and
// the caller marks the state for a build from scratch (rebuildNext). On
// another error st keeps its last version and raw chunks.
func (st *state) next(mem memory.Allocator, spec Spec, d delta) (*pinned.Table, error) {
	schema := arrowexec.SchemaFor(st.fields)
	batchOf := make([]int, d.chunks)
	raw := make([]arrow.RecordBatch, d.chunks)
	rawSlots := make([][]int32, d.chunks)
	ok := false
	defer func() {
		if !ok {
			releaseAll(raw)
		}
	}()
	var parts []pinned.Part
	var fresh []arrow.RecordBatch
	scratch := d.all || d.fresh || st.ver == nil
	built, err := st.buildChunks(mem, schema, d, raw, rawSlots)
	if err != nil {
		return nil, err
	}
	n := 0
	for k := range d.chunks {
		batchOf[k] = -1
		if !built[k] {
			if d.all || st.ver == nil {
				return nil, fmt.Errorf("livepin: chunk %d is missing from a full build", k)
			}
			if k < len(st.raw) && st.raw[k] != nil {
				st.raw[k].Retain()
				raw[k], rawSlots[k] = st.raw[k], st.rawSlots[k]
			}
			if scratch { // built from scratch of the raw chunks, unchanged
				if raw[k] != nil {
					fresh = append(fresh, raw[k])
					batchOf[k] = n
					n++
				}
				continue
			}
			if k < len(st.batchOf) && st.batchOf[k] >= 0 {
				parts = append(parts, pinned.Part{Keep: st.batchOf[k]})
				batchOf[k] = n
				n++
			}
			continue
		}
		if raw[k] == nil {
			continue
		}
		fresh = append(fresh, raw[k])
		parts = append(parts, pinned.Part{Keep: -1, New: raw[k]})
		batchOf[k] = n
		n++
	}
	var t *pinned.Table
	if scratch {
		if len(fresh) == 0 {
			cols := emptyCols(mem, schema)
			empty := array.NewRecordBatch(schema, cols, 0) // the schema of an empty pin
			for _, c := range cols {
				c.Release()
			}
			defer empty.Release()
			fresh = append(fresh, empty)
		}
		t, err = pinned.BuildWith(mem, spec.DB, spec.Name, st.fields, fresh)
		if t != nil {
			t.Source, t.Whole = spec.Source, spec.Whole
		}
	} else {
		t, err = st.ver.ComposeWith(mem, parts)
		var rebuild *pinned.RebuildError
		if errors.As(err, &rebuild) {
			ok = true // the raw chunks hold d: keep them for the build from scratch
			releaseAll(st.raw)
			st.raw, st.rawSlots = raw, rawSlots
		}
	}
	if err != nil {
		return nil, err
	}
	t.Loaded = time.Now()
	ok = true
	releaseAll(st.raw)
	st.ver, st.batchOf, st.raw, st.rawSlots = t, batchOf, raw, rawSlots
	return t, nil
}

// buildChunks encodes the chunks d changed into raw and rawSlots: a
// chunk d holds whole is encoded from its rows, an edited one rebuilt
// from its last raw batch (rebuildChunk). built says which chunks it
// made. The chunks are independent, so several goroutines take them from
// a shared counter: on idle cores a version builds in parallel, and on
// cores busy with statements the build is not one goroutine queued
// behind all of theirs (Go's scheduler shares the cores between runnable
// goroutines, not between tasks), which is what made a pin's staleness
// follow the dashboards' load (docs/benchmarks.md, 2026-12-06). On error
// the batches made so far stay in raw for the caller to release.
func (st *state) buildChunks(mem memory.Allocator, schema *arrow.Schema, d delta, raw []arrow.RecordBatch, rawSlots [][]int32) ([]bool, error) {
	built := make([]bool, d.chunks)
	var jobs []int
	for k := range d.chunks {
		if _, whole := d.changed[k]; whole {
			built[k] = true
		} else if _, edited := d.edits[k]; edited && !d.all && st.ver != nil {
			built[k] = true
		}
		if built[k] {
			jobs = append(jobs, k)
		}
	}
	one := func(k int) error {
		var err error
		if cr, whole := d.changed[k]; whole {
			raw[k], err = encodeRows(mem, schema, cr.rows)
			rawSlots[k] = cr.slots
		} else {
			raw[k], rawSlots[k], err = st.rebuildChunk(mem, schema, k, d.edits[k])
		}
		return err
	}
	workers := min(buildWorkers*runtime.GOMAXPROCS(0), (len(jobs)+minChunksPerWorker-1)/minChunksPerWorker)
	if workers <= 1 {
		for _, k := range jobs {
			if err := one(k); err != nil {
				return built, err
			}
		}
		return built, nil
	}
	var (
		next   atomic.Int64
		failed atomic.Bool
		wg     sync.WaitGroup
		errs   = make([]error, workers)
	)
	for w := range workers {
		wg.Go(func() {
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= len(jobs) {
					return
				}
				if err := one(jobs[i]); err != nil {
					errs[w] = err
					failed.Store(true)
				}
			}
		})
	}
	wg.Wait()
	return built, errors.Join(errs...)
}

// buildWorkers is how many goroutines per core build a version's chunks
// (buildChunks); minChunksPerWorker keeps small bursts on one goroutine.
const (
	buildWorkers       = 4
	minChunksPerWorker = 8
)

// rebuildNext makes the next version a build from scratch of the raw
// chunks, after next failed with a *pinned.RebuildError. The caller holds
// the pin's mutex.
func (st *state) rebuildNext() {
	st.rebuild, st.changed = true, true
}

// release drops the raw chunks a state holds, once nothing builds from
// it any more (tests, whose checked allocators must see them returned; a
// running pin leaves a replaced state to the garbage collector, as the
// publisher may still be building from it).
func (st *state) release() {
	releaseAll(st.raw)
	st.raw, st.rawSlots = nil, nil
}

func releaseAll(bs []arrow.RecordBatch) {
	for _, b := range bs {
		if b != nil {
			b.Release()
		}
	}
}

func emptyCols(mem memory.Allocator, schema *arrow.Schema) []arrow.Array {
	cols := make([]arrow.Array, schema.NumFields())
	for i, f := range schema.Fields() {
		cols[i] = array.MakeArrayOfNull(mem, f.Type, 0)
	}
	return cols
}

// encodeRows encodes rows into one batch (nil when there are none).
func encodeRows(mem memory.Allocator, schema *arrow.Schema, rows [][]sqltypes.Value) (arrow.RecordBatch, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	rb := arrowexec.NewRowBuilder(mem, schema)
	defer rb.Release()
	for _, r := range rows {
		if err := rb.Append(r); err != nil {
			return nil, err
		}
	}
	return rb.NewRecordBatch(), nil
}

// piece is a run of rows of one source batch: the chunk's last raw
// batch (0) or its changed rows (1).
type piece struct{ src, off, n int }

// rebuildChunk is chunk k after the edits es (sorted by slot): the rows
// of its last raw batch whose slots did not change, in runs, and the
// changed slots' new rows, in slot order. It returns the chunk's raw
// batch (nil: no rows) and the slot of each of its rows.
func (st *state) rebuildChunk(mem memory.Allocator, schema *arrow.Schema, k int, es []edit) (arrow.RecordBatch, []int32, error) {
	var old arrow.RecordBatch
	var oldSlots []int32
	if k < len(st.raw) {
		old, oldSlots = st.raw[k], st.rawSlots[k]
	}
	var rows [][]sqltypes.Value
	for _, e := range es {
		if e.row != nil {
			rows = append(rows, e.row)
		}
	}
	nb, err := encodeRows(mem, schema, rows)
	if err != nil {
		return nil, nil, err
	}
	if nb != nil {
		defer nb.Release()
	}
	var pieces []piece
	take := func(src, off int) {
		if l := len(pieces) - 1; l >= 0 && pieces[l].src == src && pieces[l].off+pieces[l].n == off {
			pieces[l].n++
			return
		}
		pieces = append(pieces, piece{src: src, off: off, n: 1})
	}
	slots := make([]int32, 0, len(oldSlots)+len(rows))
	i, j, ni := 0, 0, 0
	for i < len(oldSlots) || j < len(es) {
		if j >= len(es) || (i < len(oldSlots) && oldSlots[i] < es[j].slot) {
			take(0, i)
			slots = append(slots, oldSlots[i])
			i++
			continue
		}
		if i < len(oldSlots) && oldSlots[i] == es[j].slot {
			i++ // the slot's row changed or left
		}
		if es[j].row != nil {
			take(1, ni)
			slots = append(slots, es[j].slot)
			ni++
		}
		j++
	}
	if len(slots) == 0 {
		return nil, nil, nil
	}
	srcs := [2]arrow.RecordBatch{old, nb}
	cols := make([]arrow.Array, schema.NumFields())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	arrs := make([]arrow.Array, len(pieces))
	for c := range cols {
		for p, pc := range pieces {
			arrs[p] = array.NewSlice(srcs[pc.src].Column(c), int64(pc.off), int64(pc.off+pc.n))
		}
		cols[c], err = array.Concatenate(arrs, mem)
		for _, a := range arrs {
			a.Release()
		}
		if err != nil {
			return nil, nil, fmt.Errorf("livepin: rebuilding chunk %d: %w", k, err)
		}
	}
	return array.NewRecordBatch(schema, cols, int64(len(slots))), slots, nil
}

// rawBytes is the memory of the raw chunks (their buffers): what a live
// pin holds beside its versions to rebuild chunks without re-encoding.
func (st *state) rawBytes() int64 {
	var n int64
	for _, b := range st.raw {
		if b == nil {
			continue
		}
		for _, c := range b.Columns() {
			for _, buf := range c.Data().Buffers() {
				if buf != nil {
					n += int64(buf.Len())
				}
			}
		}
	}
	return n
}
