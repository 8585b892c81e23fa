package pinned

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/arrowexec"
)

// Kind is how a column is stored.
type Kind uint8

const (
	KindInt Kind = iota + 1
	KindUint
	KindFloat
	KindDecimal // Decimal128 or Decimal256
	KindDate
	KindTimestamp
	KindDict // String values, dictionary-encoded with Int16 codes
	KindString
	KindBinary
)

// Column describes one column of a pinned table.
type Column struct {
	Name  string
	Field *querypb.Field
	kind  Kind
	// Dict holds a KindDict column's distinct values (codes index it) and
	// dictVals the same as MySQL values typed as the column.
	Dict     []string
	dictVals []sqltypes.Value
	// index is the dictionary index the versions composed from this
	// one extend (dictIndex): nil until a compose made it.
	index *dictIndex
	// Min and Max bound a KindInt or KindDate column's non-NULL values; HasVals
	// is false when it has none. Nulls is true when any value is NULL.
	Min, Max int64
	HasVals  bool
	Nulls    bool
}

// Kind is how the column is stored.
func (c *Column) Kind() Kind { return c.kind }

// DictValues is a KindDict column's dictionary as MySQL values typed as
// the column, indexed by code (nil for other kinds). Shared: read only.
func (c *Column) DictValues() []sqltypes.Value { return slices.Clip(c.dictVals) }

// extendIndex is the dictionary index to extend c's dictionary with: the
// shared one when c is its tip (no compose extended it past c's values),
// returned locked until the caller calls done, else a new one of c's
// values (built once; the version composed with it shares it on).
func (c *Column) extendIndex() (d *dictIndex, done func()) {
	if d := c.index; d != nil {
		d.mu.Lock()
		if len(d.values) == len(c.Dict) && len(d.vals) == len(c.dictVals) {
			return d, d.mu.Unlock
		}
		d.mu.Unlock()
	}
	d = newDictIndex(c.Dict)
	d.vals = slices.Clip(c.dictVals)
	return d, func() {}
}

// Value is row r of arr, an array of the column in one of the table's
// batches, as a MySQL value typed as the column. Its text is appended to
// arena, which it returns (a dictionary value is the column's own and
// takes no arena).
func (col *Column) Value(arr arrow.Array, r int, arena []byte) (sqltypes.Value, []byte) {
	if arr.IsNull(r) {
		return sqltypes.NULL, arena
	}
	typ := col.Field.Type
	start := len(arena)
	switch col.kind {
	case KindDict:
		return col.dictVals[arr.(*array.Dictionary).GetValueIndex(r)], arena
	case KindInt:
		arena = strconv.AppendInt(arena, intAt(arr, r), 10)
	case KindUint:
		arena = strconv.AppendUint(arena, arr.(*array.Uint64).Value(r), 10)
	case KindFloat:
		arena = strconv.AppendFloat(arena, arr.(*array.Float64).Value(r), 'g', -1, 64)
	case KindString:
		arena = append(arena, arr.(*array.String).Value(r)...)
	case KindBinary:
		arena = append(arena, arr.(*array.Binary).Value(r)...)
	case KindTimestamp:
		// DATETIME(3) is "…00.000" in every expression over it.
		digits := -1
		if col.Field.Decimals <= 6 {
			digits = int(col.Field.Decimals)
		}
		ts := arr.(*array.Timestamp)
		arena = arrowexec.AppendDatetime(arena, int64(ts.Value(r)), ts.DataType().(*arrow.TimestampType).Unit, digits)
	default:
		v := arrowexec.Value(arr, r)
		return sqltypes.MakeTrusted(typ, v.Raw()), arena
	}
	return sqltypes.MakeTrusted(typ, arena[start:len(arena):len(arena)]), arena
}

// classify sets the column's storage kind from its Arrow type.
func (c *Column) classify(dt arrow.DataType) error {
	switch dt.ID() {
	case arrow.INT64:
		c.kind = KindInt
	case arrow.UINT64:
		c.kind = KindUint
	case arrow.FLOAT64:
		c.kind = KindFloat
	case arrow.DECIMAL128, arrow.DECIMAL256:
		c.kind = KindDecimal
	case arrow.DATE32:
		c.kind = KindDate
	case arrow.TIMESTAMP:
		c.kind = KindTimestamp
	case arrow.STRING:
		c.kind = KindString
	case arrow.BINARY:
		c.kind = KindBinary
	default:
		return fmt.Errorf("pinned: column %s has Arrow type %s, which workers do not send", c.Name, dt)
	}
	return nil
}

// bounds records the range of an integer or date column.
func (c *Column) bounds(arrs []arrow.Array) {
	for _, a := range arrs {
		switch x := a.(type) {
		case *array.Int64:
			vals := x.Int64Values()
			for i, v := range vals {
				if x.NullN() > 0 && x.IsNull(i) {
					continue
				}
				c.see(v)
			}
		case *array.Date32:
			vals := x.Date32Values()
			for i, v := range vals {
				if x.NullN() > 0 && x.IsNull(i) {
					continue
				}
				c.see(int64(v))
			}
		}
	}
}

func (c *Column) see(v int64) {
	if !c.HasVals {
		c.Min, c.Max, c.HasVals = v, v, true
		return
	}
	c.Min, c.Max = min(c.Min, v), max(c.Max, v)
}

// Describe is a one-line summary for SHOW CACHED TABLES.
func (c *Column) Describe() string {
	s := c.Name + " " + c.Field.Type.String()
	if c.kind == KindDict {
		s += " dict(" + strconv.Itoa(len(c.Dict)) + ")"
	}
	return s
}
