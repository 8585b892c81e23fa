package rowformat

import (
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// Size estimates of what caches hold (the engine's plan cache weighs its
// entries with them): they count the structures and their bytes, not the
// allocator's rounding.
const (
	FieldBytes = 160 // a querypb.Field without its strings
	ValueBytes = 32  // a sqltypes.Value without its bytes
)

// FieldsBytes estimates the memory of column definitions.
func FieldsBytes(fs []*querypb.Field) int64 {
	var n int64
	for _, f := range fs {
		n += FieldBytes + int64(len(f.Name)+len(f.OrgName)+len(f.Table)+len(f.OrgTable)+len(f.Database))
	}
	return n
}

// RowsBytes estimates the memory of result rows.
func RowsBytes(rows [][]sqltypes.Value) int64 {
	var n int64
	for _, r := range rows {
		n += 24 + int64(len(r))*ValueBytes
		for _, v := range r {
			n += int64(v.Len())
		}
	}
	return n
}
