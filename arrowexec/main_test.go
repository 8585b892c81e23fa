package arrowexec

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"go.uber.org/goleak"
	"vitess.io/vitess/go/sqltypes"
)

func TestMain(m *testing.M) {
	// vitess' logging starts glog's flush daemon at init.
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("github.com/golang/glog.(*fileSink).flushDaemon"))
}

// field returns a nullable field, with "mysql.type" metadata when mysqlType
// is not empty.
func field(name string, t arrow.DataType, mysqlType string) arrow.Field {
	f := arrow.Field{Name: name, Type: t, Nullable: true}
	if mysqlType != "" {
		f.Metadata = arrow.NewMetadata([]string{MetaMySQLType}, []string{mysqlType})
	}
	return f
}

// batch builds a record batch from rows; the caller releases it.
func batch(t testing.TB, mem memory.Allocator, schema *arrow.Schema, rows ...[]sqltypes.Value) arrow.RecordBatch {
	t.Helper()
	rb := NewRowBuilder(mem, schema)
	defer rb.Release()
	for _, row := range rows {
		if err := rb.Append(row); err != nil {
			t.Fatal(err)
		}
	}
	return rb.NewRecordBatch()
}

// render prints rows as vitess value strings, one row per line.
func render(rows [][]sqltypes.Value) []string {
	out := make([]string, len(rows))
	for i, row := range rows {
		s := ""
		for j, v := range row {
			if j > 0 {
				s += " "
			}
			s += v.String()
		}
		out[i] = s
	}
	return out
}

// Short value constructors for tables.
var (
	null = sqltypes.NULL
	i64  = sqltypes.NewInt64
	u64  = sqltypes.NewUint64
	f64  = sqltypes.NewFloat64
	str  = sqltypes.NewVarChar
	vbin = sqltypes.NewVarBinary
	dec  = sqltypes.NewDecimal
	date = sqltypes.NewDate
	dt   = sqltypes.NewDatetime
	tm   = sqltypes.NewTime
)

func row(vs ...sqltypes.Value) []sqltypes.Value { return vs }
