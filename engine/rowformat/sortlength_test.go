package rowformat

import (
	"testing"

	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// TestLongSortText: an ORDER BY over a table's TEXT or BLOB column
// longer than max_sort_length bytes is not merged (MariaDB orders
// by the first 1024 bytes of the sort key, ties then by the next key:
// `ORDER BY note, id` over notes alike in their first 1030 characters
// came in id order from MariaDB, in note order from the merge); short
// columns, VARCHARs and expressions are.
func TestLongSortText(t *testing.T) {
	col := func(typ querypb.Type, n uint32) *querypb.Field {
		return &querypb.Field{Type: typ, ColumnLength: n, OrgTable: "t", OrgName: "c"}
	}
	for _, c := range []struct {
		f    *querypb.Field
		long bool
	}{
		{col(sqltypes.Blob, 262140), true},                                     // TEXT of utf8mb4
		{col(sqltypes.Blob, 65535), true},                                      // BLOB
		{col(sqltypes.VarChar, 1200), false},                                   // VARCHAR(300) of utf8mb4: sorted whole
		{col(sqltypes.VarChar, 1020), false},                                   // VARCHAR(255) of utf8mb4
		{col(sqltypes.Char, 144), false},                                       // a UUID
		{col(sqltypes.Int64, 4000), false},                                     // not text
		{&querypb.Field{Type: sqltypes.Blob, ColumnLength: 4294967295}, false}, // JSON_VALUE(j, '$.a')
		{nil, false},
	} {
		if got := LongSortText(c.f); got != c.long {
			t.Errorf("LongSortText(%v) = %v, want %v", c.f, got, c.long)
		}
	}
}
