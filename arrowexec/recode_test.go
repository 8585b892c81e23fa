package arrowexec

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"vitess.io/vitess/go/mysql/collations/charset"
	"vitess.io/vitess/go/sqltypes"
)

// TestRecode: the latin1 column's utf8mb4 values become latin1 bytes,
// NULLs stay NULL, a character latin1 lacks becomes '?', and the other
// columns are the input's.
func TestRecode(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{
		field("l1", arrow.BinaryTypes.String, "VARCHAR"),
		field("u8", arrow.BinaryTypes.String, "VARCHAR"),
		field("n", arrow.PrimitiveTypes.Int64, ""),
	}, nil)
	in := batch(t, mem, schema,
		[]sqltypes.Value{sqltypes.NewVarChar("Zürich"), sqltypes.NewVarChar("Zürich"), sqltypes.NewInt64(1)},
		[]sqltypes.Value{sqltypes.NULL, sqltypes.NewVarChar("Ωμέγα"), sqltypes.NewInt64(2)},
		[]sqltypes.Value{sqltypes.NewVarChar("Ærø Ω"), sqltypes.NULL, sqltypes.NULL},
	)
	defer in.Release()
	out := Recode(mem, in, []charset.Charset{charset.Charset_latin1{}, nil, nil})
	defer out.Release()
	want := [][]string{
		{"Z\xfcrich", "Zürich", "1"},
		{"NULL", "Ωμέγα", "2"},
		{"\xc6r\xf8 ?", "NULL", "NULL"},
	}
	for r, row := range RecordRows(out) {
		for c, v := range row {
			got := v.ToString()
			if v.IsNull() {
				got = "NULL"
			}
			if got != want[r][c] {
				t.Errorf("row %d col %d = %q, want %q", r, c, got, want[r][c])
			}
		}
	}
	if out.Column(1) != in.Column(1) {
		t.Error("a column without conversion was copied")
	}
}
