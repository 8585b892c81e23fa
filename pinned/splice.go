package pinned

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Splicing a kept batch. A burst of changes edits a few rows of a chunk;
// re-encoding all of its rows (a dictionary lookup per string, a
// narrowing per integer, a copy per decimal) cost most of a live pin's
// version. A spliced Part keeps the encoded values of the rows that did
// not change: Compose encodes the part's new rows alone (as any New
// batch, extending the dictionaries and widening the integer columns
// they need) and copies runs of the kept batch's encoded arrays and of
// the new ones into the part's batch. The kept batch is read as the new
// version sees it (reuse: an integer column widened, a dictionary column
// recoded or decoded), so both sources of a column have one type; a
// dictionary column splices codes, valid against the new rows'
// dictionary, which extends the kept batch's (codes never change).

// Run is Len rows from row Off of a spliced part's kept batch, or of its
// New rows when New is true.
type Run struct {
	New      bool
	Off, Len int
}

// checkSplice checks that p's runs lie in the kept batch (rows kept) and
// in its New rows, and returns how many rows the part has.
func checkSplice(p Part, kept int64) (int64, error) {
	var newRows, rows int64
	if p.New != nil {
		newRows = p.New.NumRows()
	}
	for _, r := range p.Splice {
		lim := kept
		if r.New {
			lim = newRows
		}
		if r.Off < 0 || r.Len <= 0 || int64(r.Off+r.Len) > lim {
			return 0, fmt.Errorf("pinned: compose splices rows %d+%d of %d (new: %v)", r.Off, r.Len, lim, r.New)
		}
		rows += int64(r.Len)
	}
	return rows, nil
}

// spliceBatch is the part's batch: runs of kept (batch p.Keep as the new
// version reads it) and of fresh (its New rows encoded, nil when it has
// none).
func spliceBatch(mem memory.Allocator, schema *arrow.Schema, kept arrow.RecordBatch, fresh []arrow.Array, runs []Run) (arrow.RecordBatch, error) {
	var rows int64
	for _, r := range runs {
		rows += int64(r.Len)
	}
	out := make([]arrow.Array, kept.NumCols())
	defer func() {
		for _, a := range out {
			if a != nil {
				a.Release()
			}
		}
	}()
	for c := range out {
		var nc arrow.Array
		if fresh != nil {
			nc = fresh[c]
		}
		var err error
		if out[c], err = spliceArray(mem, schema.Field(c).Type, kept.Column(c), nc, runs); err != nil {
			return nil, err
		}
	}
	return array.NewRecordBatch(schema, out, rows), nil
}

// spliceArray is the runs of old and nw (of type dt; nw nil when no run
// reads it) as one array sized exactly. A dictionary array splices its
// codes over nw's dictionary when there is one (it extends old's), else
// over old's.
func spliceArray(mem memory.Allocator, dt arrow.DataType, old, nw arrow.Array, runs []Run) (arrow.Array, error) {
	if typ, ok := dt.(*arrow.DictionaryType); ok {
		od := old.(*array.Dictionary)
		dict := od.Dictionary()
		var ni arrow.Array
		if nw != nil {
			nd := nw.(*array.Dictionary)
			dict, ni = nd.Dictionary(), nd.Indices()
		}
		codes, err := spliceArray(mem, typ.IndexType, od.Indices(), ni, runs)
		if err != nil {
			return nil, err
		}
		defer codes.Release()
		return array.NewDictionaryArray(typ, codes, dict), nil
	}
	srcs := [2]arrow.ArrayData{old.Data(), nil}
	if nw != nil {
		srcs[1] = nw.Data()
	}
	src := func(r Run) arrow.ArrayData {
		if r.New {
			return srcs[1]
		}
		return srcs[0]
	}
	n := 0
	nulls := false
	for _, r := range runs {
		n += r.Len
		nulls = nulls || src(r).NullN() > 0
	}
	var valid *memory.Buffer
	nullN := 0
	if nulls {
		bm := make([]byte, bitutil.BytesForBits(int64(n)))
		pos := 0
		for _, r := range runs {
			d := src(r)
			if b := d.Buffers()[0]; b != nil && d.NullN() > 0 {
				bitutil.CopyBitmap(b.Bytes(), d.Offset()+r.Off, r.Len, bm, pos)
			} else {
				bitutil.SetBitsTo(bm, int64(pos), int64(r.Len), true)
			}
			pos += r.Len
		}
		nullN = n - bitutil.CountSetBits(bm, 0, n)
		valid = memory.NewBufferBytes(bm)
	}
	var bufs []*memory.Buffer
	switch t := dt.(type) {
	case *arrow.StringType, *arrow.BinaryType:
		var size int
		for _, r := range runs {
			offs := arrow.Int32Traits.CastFromBytes(src(r).Buffers()[1].Bytes())[src(r).Offset():]
			size += int(offs[r.Off+r.Len] - offs[r.Off])
		}
		offsets := make([]int32, n+1)
		data := make([]byte, 0, size)
		pos := 0
		for _, r := range runs {
			d := src(r)
			offs := arrow.Int32Traits.CastFromBytes(d.Buffers()[1].Bytes())[d.Offset():]
			var bytes []byte
			if b := d.Buffers()[2]; b != nil {
				bytes = b.Bytes()
			}
			base := int32(len(data)) - offs[r.Off]
			for i := range r.Len {
				offsets[pos+i+1] = offs[r.Off+i+1] + base
			}
			data = append(data, bytes[offs[r.Off]:offs[r.Off+r.Len]]...)
			pos += r.Len
		}
		bufs = []*memory.Buffer{valid, memory.NewBufferBytes(sliceBytes(offsets)), memory.NewBufferBytes(data)}
	case arrow.FixedWidthDataType:
		w := t.BitWidth() / 8
		if t.BitWidth()%8 != 0 {
			return concatRuns(mem, old, nw, runs)
		}
		vals := make([]byte, n*w)
		pos := 0
		for _, r := range runs {
			d := src(r)
			b := d.Buffers()[1].Bytes()[(d.Offset()+r.Off)*w:]
			copy(vals[pos*w:(pos+r.Len)*w], b)
			pos += r.Len
		}
		bufs = []*memory.Buffer{valid, memory.NewBufferBytes(vals)}
	default:
		return concatRuns(mem, old, nw, runs)
	}
	data := array.NewData(dt, n, bufs, nil, nullN, 0)
	defer data.Release()
	return array.MakeFromData(data), nil
}

// concatRuns is spliceArray for a type it does not copy itself (none a
// pinned table stores today): slices concatenated.
func concatRuns(mem memory.Allocator, old, nw arrow.Array, runs []Run) (arrow.Array, error) {
	arrs := make([]arrow.Array, len(runs))
	for i, r := range runs {
		a := old
		if r.New {
			a = nw
		}
		arrs[i] = array.NewSlice(a, int64(r.Off), int64(r.Off+r.Len))
	}
	defer func() {
		for _, a := range arrs {
			a.Release()
		}
	}()
	return array.Concatenate(arrs, mem)
}
