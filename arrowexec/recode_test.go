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

// BenchmarkRecode measures converting one latin1 column of a 64k-row batch
// back from utf8mb4 (the cost a query over a latin1 key pays per row of
// fragment output), next to a batch with nothing to convert and to
// RecordRows of the same batch (what a row plan's merge does with every
// batch anyway): compare the ratio, measured in one run.
func BenchmarkRecode(b *testing.B) {
	mem := memory.NewGoAllocator()
	schema := arrow.NewSchema([]arrow.Field{field("l1", arrow.BinaryTypes.String, "VARCHAR")}, nil)
	words := []string{"Zürich", "ÅLAND", "straße", "Ærø", "abc", "ÉCOLE"}
	rows := make([][]sqltypes.Value, 1<<16)
	for i := range rows {
		rows[i] = []sqltypes.Value{sqltypes.NewVarChar(words[i%len(words)])}
	}
	in := batch(b, mem, schema, rows...)
	defer in.Release()
	for _, c := range []struct {
		name string
		to   []charset.Charset
	}{{"latin1", []charset.Charset{charset.Charset_latin1{}}}, {"none", []charset.Charset{nil}}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				Recode(mem, in, c.to).Release()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(rows)), "ns/row")
		})
	}
	b.Run("RecordRows", func(b *testing.B) {
		for b.Loop() {
			_ = RecordRows(in)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(rows)), "ns/row")
	})
}
