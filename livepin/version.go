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
// decimals, dates, integers parsed) and then into the pinned encoding
// (dictionary codes, narrowed integers) is what a version costs; a burst
// of changes spread over the table touches most chunks, so re-encoding
// every row of each touched chunk costs nearly the table. Instead a
// touched chunk is the last version's batch spliced (pinned.Part.Splice):
// the encoded values of its unchanged rows copied in runs, and its
// changed rows alone encoded afresh. Only new chunks and full builds (the
// first load, compaction, an encoding that must start over) encode every
// row. st.slots[k] says which slot each row of chunk k's batch holds,
// which is all a splice needs of the last version besides its batches.

// next builds the version of d: the changed chunks spliced or encoded,
// the others the last version's batches (pinned.Table.Compose), or a
// table built from scratch (pinned.Build) of every row when d.all says
// so or there is no last version. It becomes st.ver. A
// *pinned.RebuildError says the chunks cannot be composed: the caller
// marks the state for a build from scratch (rebuildNext), which st.rows
// hold every change for. On another error st keeps its last version.
func (st *state) next(mem memory.Allocator, spec Spec, d delta) (*pinned.Table, error) {
	schema := arrowexec.SchemaFor(st.fields)
	scratch := d.all || st.ver == nil
	enc := make([]arrow.RecordBatch, d.chunks)
	runs := make([][]pinned.Run, d.chunks)
	slots := make([][]int32, d.chunks)
	defer releaseAll(enc)
	built, err := st.buildChunks(mem, schema, d, scratch, enc, runs, slots)
	if err != nil {
		return nil, err
	}
	batchOf := make([]int, d.chunks)
	var parts []pinned.Part
	var fresh []arrow.RecordBatch
	n := 0
	for k := range d.chunks {
		batchOf[k] = -1
		switch {
		case !built[k] && scratch:
			return nil, fmt.Errorf("livepin: chunk %d is missing from a full build", k)
		case !built[k]:
			if k < len(st.batchOf) && st.batchOf[k] >= 0 {
				parts = append(parts, pinned.Part{Keep: st.batchOf[k]})
				slots[k] = st.chunkSlots[k]
			}
		case len(slots[k]) == 0: // no rows: no batch
		case scratch:
			fresh = append(fresh, enc[k])
		case runs[k] != nil:
			parts = append(parts, pinned.Part{Keep: st.batchOf[k], New: enc[k], Splice: runs[k]})
		default:
			parts = append(parts, pinned.Part{Keep: -1, New: enc[k]})
		}
		if len(slots[k]) > 0 {
			batchOf[k] = n
			n++
		}
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
	}
	if err != nil {
		return nil, err
	}
	t.Loaded = time.Now()
	st.ver, st.batchOf, st.chunkSlots = t, batchOf, slots
	return t, nil
}

// buildChunks encodes what the chunks d changed need into enc, runs and
// slots: a chunk d holds whole (or every chunk, for a build from
// scratch) is encoded from its rows, an edited one is its changed rows
// encoded and the runs splicing them into its last batch (spliceChunk).
// built says which chunks it made. The chunks are independent, so
// several goroutines take them from a shared counter: on idle cores a
// version builds in parallel, and on cores busy with statements the
// build is not one goroutine queued behind all of theirs (Go's scheduler
// shares the cores between runnable goroutines, not between tasks),
// which is what made a pin's staleness follow the dashboards' load
// (docs/benchmarks.md, 2026-12-06). On error the batches made so far
// stay in enc for the caller to release.
func (st *state) buildChunks(mem memory.Allocator, schema *arrow.Schema, d delta, scratch bool, enc []arrow.RecordBatch, runs [][]pinned.Run, slots [][]int32) ([]bool, error) {
	built := make([]bool, d.chunks)
	var jobs []int
	for k := range d.chunks {
		if _, whole := d.changed[k]; whole {
			built[k] = true
		} else if _, edited := d.edits[k]; edited && !scratch {
			built[k] = true
		}
		if built[k] {
			jobs = append(jobs, k)
		}
	}
	one := func(k int) error {
		var err error
		if cr, whole := d.changed[k]; whole {
			enc[k], err = encodeRows(mem, schema, cr.rows)
			slots[k] = cr.slots
		} else {
			enc[k], runs[k], slots[k], err = st.spliceChunk(mem, schema, k, d.edits[k])
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

// rebuildNext makes the next version a build from scratch of every row,
// after next failed with a *pinned.RebuildError. The caller holds
// the pin's mutex.
func (st *state) rebuildNext() {
	st.rebuild, st.changed = true, true
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

// spliceChunk is chunk k after the edits es (sorted by slot) as a
// splice of its last batch (st.chunkSlots[k] the slot of each of its
// rows): the rows whose slots did not change, in runs, and the changed
// slots' new rows, in slot order. It returns the new rows encoded (nil:
// none), the runs (nil when the chunk had no batch: its rows are the new
// ones alone) and the slot of each of the chunk's rows (none: no rows).
func (st *state) spliceChunk(mem memory.Allocator, schema *arrow.Schema, k int, es []edit) (arrow.RecordBatch, []pinned.Run, []int32, error) {
	var oldSlots []int32
	if k < len(st.chunkSlots) {
		oldSlots = st.chunkSlots[k]
	}
	var rows [][]sqltypes.Value
	for _, e := range es {
		if e.row != nil {
			rows = append(rows, e.row)
		}
	}
	nb, err := encodeRows(mem, schema, rows)
	if err != nil {
		return nil, nil, nil, err
	}
	var runs []pinned.Run
	take := func(isNew bool, off int) {
		if l := len(runs) - 1; l >= 0 && runs[l].New == isNew && runs[l].Off+runs[l].Len == off {
			runs[l].Len++
			return
		}
		runs = append(runs, pinned.Run{New: isNew, Off: off, Len: 1})
	}
	slots := make([]int32, 0, len(oldSlots)+len(rows))
	i, j, ni := 0, 0, 0
	for i < len(oldSlots) || j < len(es) {
		if j >= len(es) || (i < len(oldSlots) && oldSlots[i] < es[j].slot) {
			take(false, i)
			slots = append(slots, oldSlots[i])
			i++
			continue
		}
		if i < len(oldSlots) && oldSlots[i] == es[j].slot {
			i++ // the slot's row changed or left
		}
		if es[j].row != nil {
			take(true, ni)
			slots = append(slots, es[j].slot)
			ni++
		}
		j++
	}
	if len(oldSlots) == 0 {
		runs = nil // no last batch: the new rows are the chunk
	}
	return nb, runs, slots, nil
}
