package pinned

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"go.uber.org/goleak"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/arrowexec"
)

// vitess starts glog's flush daemon at init; everything else must end.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		goleak.IgnoreAnyFunction("github.com/golang/glog.(*fileSink).flushDaemon"),
		goleak.IgnoreAnyFunction("github.com/golang/glog.(*loggingT).flushDaemon"))
}

func field(name string, t querypb.Type, charset uint32, length uint32) *querypb.Field {
	return &querypb.Field{Name: name, Type: t, Charset: charset, ColumnLength: length}
}

// testTable is a small flights table: ids, a carrier (utf8mb4_general_ci,
// 'aa' and 'AA' are one group), a nullable delay, a day of week, a date and
// a double.
func testTable(t *testing.T, rows int) *Table {
	t.Helper()
	fields := []*querypb.Field{
		field("id", sqltypes.Int32, 63, 11),
		field("Carrier", sqltypes.VarChar, 45, 40),
		field("Delay", sqltypes.Int32, 63, 11),
		field("Dow", sqltypes.Int8, 63, 4),
		field("Day", sqltypes.Date, 63, 10),
		field("Ratio", sqltypes.Float64, 63, 22),
	}
	carriers := []string{"AA", "aa", "UA", "DL", "WN", "Ba ", "ba"}
	mem := memory.NewGoAllocator()
	rb := arrowexec.NewRowBuilder(mem, arrowexec.SchemaFor(fields))
	defer rb.Release()
	var batches []arrow.RecordBatch
	for i := 0; i < rows; i++ {
		delay := sqltypes.NewInt64(int64(i*37%200 - 20))
		if i%11 == 0 {
			delay = sqltypes.NULL
		}
		row := []sqltypes.Value{
			sqltypes.NewInt64(int64(i * 3)),
			sqltypes.NewVarChar(carriers[i%len(carriers)]),
			delay,
			sqltypes.NewInt64(int64(i%7 + 1)),
			sqltypes.MakeTrusted(sqltypes.Date, []byte(fmt.Sprintf("2020-%02d-%02d", i%12+1, i%28+1))),
			sqltypes.MakeTrusted(sqltypes.Float64, []byte(fmt.Sprintf("%d.25", i%13))),
		}
		if err := rb.Append(row); err != nil {
			t.Fatal(err)
		}
		if (i+1)%100 == 0 {
			batches = append(batches, rb.NewRecordBatch())
		}
	}
	batches = append(batches, rb.NewRecordBatch())
	tbl, err := Build("db", "flights", fields, batches)
	for _, b := range batches {
		b.Release()
	}
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

func TestBuildDictionaryAndBytes(t *testing.T) {
	tbl := testTable(t, 1000)
	if tbl.Rows != 1000 {
		t.Fatalf("rows %d", tbl.Rows)
	}
	c := tbl.Cols[1]
	if c.kind != KindDict || len(c.Dict) != 7 {
		t.Fatalf("Carrier: kind %d, %d dictionary values", c.kind, len(c.Dict))
	}
	if d := tbl.Cols[2]; d.kind != KindInt || !d.Nulls || d.Min != -20 || d.Max != 179 {
		t.Fatalf("Delay: kind %d nulls %v range %d..%d", d.kind, d.Nulls, d.Min, d.Max)
	}
	// Narrowed integers (id and delay Int16, dow Int8), an 8-byte ratio,
	// a 4-byte date, 2-byte dictionary codes, plus validity bitmaps: about
	// 20 bytes a row (Int64 integers and plain strings would be ~40).
	if d := tbl.Cols[3]; tbl.Schema.Field(3).Type.ID() != arrow.INT8 || d.kind != KindInt {
		t.Errorf("Dow stored as %s", tbl.Schema.Field(3).Type)
	}
	if per := tbl.Bytes / tbl.Rows; per < 19 || per > 23 {
		t.Errorf("%d bytes per row", per)
	}
}
