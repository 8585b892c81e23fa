// Package pintest holds the fixtures the tests of pinned and
// pinned/pinexec share: the rows of a small flights table as Arrow
// batches, in the form workers send them. It imports no package of the
// pinned engine (their internal tests import it), only arrowexec to
// build batches; nothing but tests imports it.
package pintest

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/arrowexec"
)

// Field is a column definition.
func Field(name string, t querypb.Type, charset uint32, length uint32) *querypb.Field {
	return &querypb.Field{Name: name, Type: t, Charset: charset, ColumnLength: length}
}

// FlightsFields are the columns of Flights: ids, a carrier
// (utf8mb4_general_ci, 'aa' and 'AA' are one group), a nullable delay, a
// day of week, a date and a double.
var FlightsFields = []*querypb.Field{
	Field("id", sqltypes.Int32, 63, 11),
	Field("Carrier", sqltypes.VarChar, 45, 40),
	Field("Delay", sqltypes.Int32, 63, 11),
	Field("Dow", sqltypes.Int8, 63, 4),
	Field("Day", sqltypes.Date, 63, 10),
	Field("Ratio", sqltypes.Float64, 63, 22),
}

// Flights is rows rows of FlightsFields in batches of 100 (ids 0, 3, 6,
// ...); the caller releases them.
func Flights(t testing.TB, mem memory.Allocator, rows int) []arrow.RecordBatch {
	t.Helper()
	carriers := []string{"AA", "aa", "UA", "DL", "WN", "Ba ", "ba"}
	return build(t, mem, FlightsFields, 0, rows, func(i int) []sqltypes.Value {
		return []sqltypes.Value{
			sqltypes.NewInt64(int64(i * 3)),
			sqltypes.NewVarChar(carriers[i%len(carriers)]),
			delay(i),
			sqltypes.NewInt64(int64(i%7 + 1)),
			sqltypes.MakeTrusted(sqltypes.Date, []byte(fmt.Sprintf("2020-%02d-%02d", i%12+1, i%28+1))),
			sqltypes.MakeTrusted(sqltypes.Float64, []byte(fmt.Sprintf("%d.25", i%13))),
		}
	}, nil)
}

// AppendFields are the columns of the append tests' flights table: an
// integer key, a dictionary string, a nullable narrow integer, a date.
var AppendFields = []*querypb.Field{
	Field("id", sqltypes.Int32, 63, 11),
	Field("Carrier", sqltypes.VarChar, 45, 40),
	Field("Delay", sqltypes.Int32, 63, 11),
	Field("Day", sqltypes.Date, 63, 10),
}

// FlightRows makes rows [from, to) of AppendFields as the workers would
// send them, in batches of 100; edit may change a row.
func FlightRows(t testing.TB, mem memory.Allocator, from, to int, edit func(i int, row []sqltypes.Value)) []arrow.RecordBatch {
	t.Helper()
	carriers := []string{"AA", "aa", "UA", "DL", "WN"}
	return build(t, mem, AppendFields, from, to, func(i int) []sqltypes.Value {
		return []sqltypes.Value{
			sqltypes.NewInt64(int64(i)),
			sqltypes.NewVarChar(carriers[i%len(carriers)]),
			delay(i),
			sqltypes.MakeTrusted(sqltypes.Date, fmt.Appendf(nil, "2021-%02d-%02d", i%12+1, i%28+1)),
		}
	}, edit)
}

// Release releases batches.
func Release(bs []arrow.RecordBatch) {
	for _, b := range bs {
		b.Release()
	}
}

func delay(i int) sqltypes.Value {
	if i%11 == 0 {
		return sqltypes.NULL
	}
	return sqltypes.NewInt64(int64(i*37%200 - 20))
}

func build(t testing.TB, mem memory.Allocator, fields []*querypb.Field, from, to int, row func(int) []sqltypes.Value, edit func(int, []sqltypes.Value)) []arrow.RecordBatch {
	rb := arrowexec.NewRowBuilder(mem, arrowexec.SchemaFor(fields))
	defer rb.Release()
	var out []arrow.RecordBatch
	for i := from; i < to; i++ {
		r := row(i)
		if edit != nil {
			edit(i, r)
		}
		if err := rb.Append(r); err != nil {
			t.Fatal(err)
		}
		if (i+1)%100 == 0 {
			out = append(out, rb.NewRecordBatch())
		}
	}
	return append(out, rb.NewRecordBatch())
}
