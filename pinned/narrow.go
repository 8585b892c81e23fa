package pinned

import (
	"math"
	"slices"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Integer columns arrive from workers as Int64 whatever their MySQL width.
// A pinned table stores each at the narrowest Arrow width its values need
// (Int8, Int16, Int32 or Int64): a TINYINT flag costs one byte a row, not
// eight. Readers widen a batch's values into a scratch slice (IntValues), one
// tight loop per batch.

// narrowType is the narrowest integer type holding [lo, hi].
func narrowType(lo, hi int64) arrow.DataType {
	switch {
	case lo >= math.MinInt8 && hi <= math.MaxInt8:
		return arrow.PrimitiveTypes.Int8
	case lo >= math.MinInt16 && hi <= math.MaxInt16:
		return arrow.PrimitiveTypes.Int16
	case lo >= math.MinInt32 && hi <= math.MaxInt32:
		return arrow.PrimitiveTypes.Int32
	}
	return arrow.PrimitiveTypes.Int64
}

// narrow rewrites Int64 arrays as dt.
func narrow(mem memory.Allocator, arrs []arrow.Array, dt arrow.DataType) ([]arrow.Array, error) {
	out := make([]arrow.Array, len(arrs))
	for i, a := range arrs {
		vals := a.(*array.Int64).Int64Values()
		switch dt.ID() {
		case arrow.INT8:
			v := make([]int8, len(vals))
			for j, x := range vals {
				v[j] = int8(x)
			}
			out[i] = fromSlice(dt, v, a)
		case arrow.INT16:
			v := make([]int16, len(vals))
			for j, x := range vals {
				v[j] = int16(x)
			}
			out[i] = fromSlice(dt, v, a)
		case arrow.INT32:
			v := make([]int32, len(vals))
			for j, x := range vals {
				v[j] = int32(x)
			}
			out[i] = fromSlice(dt, v, a)
		default:
			// Int64 stays; copied so it does not pin the IPC message.
			c, err := array.Concatenate([]arrow.Array{a}, mem)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
	}
	return out, nil
}

// wider reports whether integer type a holds values b cannot.
func wider(a, b arrow.DataType) bool {
	return a.(arrow.FixedWidthDataType).BitWidth() > b.(arrow.FixedWidthDataType).BitWidth()
}

// recast rewrites a stored integer array (any width) as dt, which must
// hold all its values: an incremental refresh widens the older batches of
// a column whose new values outgrew its width.
func recast(arr arrow.Array, dt arrow.DataType) arrow.Array {
	vals := IntValues(arr, nil)
	if arr.DataType().ID() == arrow.INT64 {
		vals = slices.Clone(vals) // IntValues returned the array's own buffer
	}
	switch dt.ID() {
	case arrow.INT8:
		return fromSlice(dt, convert[int8](vals), arr)
	case arrow.INT16:
		return fromSlice(dt, convert[int16](vals), arr)
	case arrow.INT32:
		return fromSlice(dt, convert[int32](vals), arr)
	}
	return fromSlice(dt, vals, arr)
}

func convert[T int8 | int16 | int32](vals []int64) []T {
	out := make([]T, len(vals))
	for i, v := range vals {
		out[i] = T(v)
	}
	return out
}

// IntValues returns an integer array's values as int64, widened into buf when
// stored narrower.
func IntValues(arr arrow.Array, buf []int64) []int64 {
	switch a := arr.(type) {
	case *array.Int64:
		return a.Int64Values()
	case *array.Int32:
		return widen(a.Int32Values(), buf)
	case *array.Int16:
		return widen(a.Int16Values(), buf)
	case *array.Int8:
		return widen(a.Int8Values(), buf)
	}
	return nil
}

func widen[T int8 | int16 | int32](vals []T, buf []int64) []int64 {
	if cap(buf) < len(vals) {
		buf = make([]int64, len(vals))
	}
	buf = buf[:len(vals)]
	for i, v := range vals {
		buf[i] = int64(v)
	}
	return buf
}

// intAt is one value of an integer array.
func intAt(arr arrow.Array, i int) int64 {
	switch a := arr.(type) {
	case *array.Int64:
		return a.Value(i)
	case *array.Int32:
		return int64(a.Value(i))
	case *array.Int16:
		return int64(a.Value(i))
	case *array.Int8:
		return int64(a.Value(i))
	}
	return 0
}

// fromSlice makes an integer array of type dt over vals (no copy) with the
// validity of src (nil when src has no NULLs). Builders round capacities
// up and keep their growth; a pinned table is built once and kept, so its
// buffers are sized exactly.
func fromSlice[T int8 | int16 | int32 | int64](dt arrow.DataType, vals []T, src arrow.Array) arrow.Array {
	var valid *memory.Buffer
	nulls := 0
	if src != nil && src.NullN() > 0 {
		bm := make([]byte, bitutil.BytesForBits(int64(len(vals))))
		for i := range vals {
			if src.IsValid(i) {
				bitutil.SetBit(bm, i)
			}
		}
		valid = memory.NewBufferBytes(bm)
		nulls = src.NullN()
	}
	data := array.NewData(dt, len(vals), []*memory.Buffer{valid, memory.NewBufferBytes(sliceBytes(vals))}, nil, nulls, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

func sliceBytes[T int8 | int16 | int32 | int64](vals []T) []byte {
	if len(vals) == 0 {
		return nil
	}
	size := int(unsafe.Sizeof(vals[0]))
	return unsafe.Slice((*byte)(unsafe.Pointer(&vals[0])), len(vals)*size)
}
