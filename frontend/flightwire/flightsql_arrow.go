package flightwire

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/arrowexec"
)

// Flight SQL results: the MySQL result a statement path hands its callback
// (the columns once, then rows in chunks) as Arrow record batches.
//
// Column types are arrowexec.FieldFor's (what a worker ships for the same
// MySQL type): integers Int64/Uint64, DECIMAL Decimal128 (Decimal256 past
// 38 digits), FLOAT/DOUBLE Float64, DATE Date32, DATETIME/TIMESTAMP
// microsecond timestamps without a zone, text and TIME String, binary
// Binary. Every column is nullable. Each field also carries Flight SQL's
// column metadata (ARROW:FLIGHT:SQL:TYPE_NAME, SCHEMA_NAME, TABLE_NAME,
// PRECISION and SCALE of decimals, IS_AUTO_INCREMENT, IS_READ_ONLY) and
// MetaMySQLType. MySQL's zero dates ('0000-00-00') have no Arrow value and
// arrive as NULL.

// flightBatchRows is the number of rows per record batch.
const flightBatchRows = 8192

// flightSchema is the Arrow schema of a MySQL result's columns.
func flightSchema(fields []*querypb.Field) *arrow.Schema {
	base := arrowexec.SchemaFor(fields)
	out := make([]arrow.Field, len(fields))
	for i, f := range base.Fields() {
		q := fields[i]
		md := flightsql.NewColumnMetadataBuilder().TypeName(mysqlTypeName(q)).IsReadOnly(true).
			IsAutoIncrement(q.Flags&uint32(querypb.MySqlFlag_AUTO_INCREMENT_FLAG) != 0)
		if q.Database != "" {
			md.SchemaName(q.Database)
		}
		if t := q.OrgTable; t != "" {
			md.TableName(t)
		}
		switch t := f.Type.(type) {
		case *arrow.Decimal128Type:
			md.Precision(t.Precision).Scale(t.Scale)
		case *arrow.Decimal256Type:
			md.Precision(t.Precision).Scale(t.Scale)
		}
		extra := md.Metadata()
		keys := append(f.Metadata.Keys(), extra.Keys()...)
		vals := append(f.Metadata.Values(), extra.Values()...)
		f.Metadata = arrow.NewMetadata(keys, vals)
		out[i] = f
	}
	return arrow.NewSchema(out, nil)
}

// mysqlTypeName is the column's type as MySQL names it.
func mysqlTypeName(f *querypb.Field) string {
	unsigned := f.Flags&uint32(querypb.MySqlFlag_UNSIGNED_FLAG) != 0 || sqltypes.IsUnsigned(f.Type)
	var name string
	switch f.Type {
	case sqltypes.Int8, sqltypes.Uint8:
		name = "TINYINT"
	case sqltypes.Int16, sqltypes.Uint16:
		name = "SMALLINT"
	case sqltypes.Int24, sqltypes.Uint24:
		name = "MEDIUMINT"
	case sqltypes.Int32, sqltypes.Uint32:
		name = "INT"
	case sqltypes.Int64, sqltypes.Uint64:
		name = "BIGINT"
	case sqltypes.Float32:
		name = "FLOAT"
	case sqltypes.Float64:
		name = "DOUBLE"
	case sqltypes.TypeJSON:
		name = "JSON"
	default:
		return strings.ToUpper(f.Type.String())
	}
	if unsigned {
		name += " UNSIGNED"
	}
	return name
}

// resultBatches builds the record batches of one result. It is used by one
// goroutine; Release it when done.
type resultBatches struct {
	mem    memory.Allocator
	rows   int // rows per batch
	fields []*querypb.Field
	schema *arrow.Schema
	b      *arrowexec.RowBuilder
	n      int    // rows in b
	dates  []bool // columns that may hold zero dates
	row    []sqltypes.Value
}

func newResultBatches(mem memory.Allocator, rows int) *resultBatches {
	return &resultBatches{mem: mem, rows: rows}
}

// start sets the result's columns (nil: a statement without a result set,
// whose schema has no fields).
func (r *resultBatches) start(fields []*querypb.Field) {
	r.fields = fields
	r.schema = flightSchema(fields)
	r.b = arrowexec.NewRowBuilder(r.mem, r.schema)
	r.dates = make([]bool, len(fields))
	for i, f := range fields {
		r.dates[i] = f.Type == sqltypes.Date || f.Type == sqltypes.Datetime || f.Type == sqltypes.Timestamp
	}
}

// started reports whether the columns are known.
func (r *resultBatches) started() bool { return r.schema != nil }

// add appends res's rows, handing each completed batch to emit, which takes
// ownership of it (it must Release it, sent or not). res is not modified:
// results may be shared (the result cache).
func (r *resultBatches) add(res *sqltypes.Result, emit func(arrow.RecordBatch) error) error {
	if !r.started() {
		r.start(res.Fields)
	} else if len(res.Fields) > 0 && len(res.Fields) != len(r.fields) {
		return fmt.Errorf("flight sql: a second result set (%d columns after %d)", len(res.Fields), len(r.fields))
	}
	for _, row := range res.Rows {
		if err := r.b.Append(r.noZeroDates(row)); err != nil {
			return err
		}
		r.n++
		if r.n >= r.rows {
			if err := r.flush(emit); err != nil {
				return err
			}
		}
	}
	return nil
}

// flush hands the rows appended so far to emit as one batch.
func (r *resultBatches) flush(emit func(arrow.RecordBatch) error) error {
	if r.n == 0 {
		return nil
	}
	r.n = 0
	return emit(r.b.NewRecordBatch())
}

// noZeroDates returns row, or a copy with its zero dates made NULL.
func (r *resultBatches) noZeroDates(row []sqltypes.Value) []sqltypes.Value {
	out, copied := row, false
	for i, v := range row {
		if i < len(r.dates) && r.dates[i] && !v.IsNull() && bytes.HasPrefix(v.Raw(), []byte("0000-00-00")) {
			if !copied {
				r.row = append(r.row[:0], row...)
				out, copied = r.row, true
			}
			out[i] = sqltypes.NULL
		}
	}
	return out
}

// Release frees the builder.
func (r *resultBatches) Release() {
	if r.b != nil {
		r.b.Release()
		r.b = nil
	}
}
