package worker

import (
	"database/sql"
	"fmt"
	"github.com/shoaldb/shoal/sqlerr"
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// MySQL → Arrow conversion.
//
// The schema comes from the driver's column definitions (type name,
// precision, scale). Every field is nullable and carries its MySQL type in
// metadata so the coordinator can format values back exactly as MySQL
// would:
//
//	mysql.type       driver type name, e.g. "DECIMAL", "UNSIGNED BIGINT"
//	mysql.precision  digits for DECIMAL, fractional digits for temporal types
//	mysql.scale      digits after the point (DECIMAL, DATETIME(n), DOUBLE(m,n))
//	mysql.length     declared length, for text and binary types
//
// Values are scanned without copying: text and binary columns into
// sql.RawBytes (which point into the driver's read buffer), and parsed from
// those bytes by the allocation-free parsers in parse.go. go-sql-driver
// already decodes integer and floating columns of the text protocol into
// int64/uint64/float32/float64, so those are scanned into an `any` and
// appended without another parse.
//
// Zero dates ('0000-00-00', or a zero month or day) have no Arrow
// representation: the fragment fails with sqlerr.ErrZeroDate, and the
// coordinator runs the statement on a replica (a pin load fails with that
// error). Returned as NULL, they were silently wrong answers.

// Field metadata keys.
const (
	MetaType      = "mysql.type"
	MetaPrecision = "mysql.precision"
	MetaScale     = "mysql.scale"
	MetaLength    = "mysql.length"
)

// maxBatchBytes flushes a batch early when its variable-length data grows
// past this size, keeping Flight messages well under gRPC limits.
const maxBatchBytes = 32 << 20

type colKind uint8

const (
	kindInt colKind = iota
	kindUint
	kindFloat32 // FLOAT: the driver hands out float32
	kindFloat64
	kindDecimal128
	kindDecimal256
	kindDate
	kindTimestamp
	kindString
	kindBinary
)

// columnType is the subset of *sql.ColumnType the mapping needs (an
// interface so the mapping is testable without a server).
type columnType interface {
	Name() string
	DatabaseTypeName() string
	DecimalSize() (precision, scale int64, ok bool)
	Length() (length int64, ok bool)
}

// arrowType maps one MySQL column to its Arrow field and value kind.
func arrowType(ct columnType) (arrow.Field, colKind) {
	name := ct.DatabaseTypeName()
	base, unsigned := strings.CutPrefix(name, "UNSIGNED ")
	prec, scale, hasDec := ct.DecimalSize()

	var (
		dt   arrow.DataType
		kind colKind
	)
	switch base {
	case "TINYINT", "SMALLINT", "MEDIUMINT", "INT", "BIGINT":
		if unsigned {
			dt, kind = arrow.PrimitiveTypes.Uint64, kindUint
		} else {
			dt, kind = arrow.PrimitiveTypes.Int64, kindInt
		}
	case "YEAR":
		dt, kind = arrow.PrimitiveTypes.Int64, kindInt
	case "DECIMAL":
		p, s := int32(prec), int32(scale)
		if !hasDec || s < 0 {
			s = 0
		}
		p = max(p, s, 1)
		if p <= decimal128MaxPrecision {
			dt, kind = &arrow.Decimal128Type{Precision: p, Scale: s}, kindDecimal128
		} else {
			dt, kind = &arrow.Decimal256Type{Precision: min(p, 76), Scale: s}, kindDecimal256
		}
	case "FLOAT":
		dt, kind = arrow.PrimitiveTypes.Float64, kindFloat32
	case "DOUBLE":
		dt, kind = arrow.PrimitiveTypes.Float64, kindFloat64
	case "DATE":
		dt, kind = arrow.FixedWidthTypes.Date32, kindDate
	case "DATETIME", "TIMESTAMP":
		dt, kind = &arrow.TimestampType{Unit: arrow.Microsecond}, kindTimestamp
	case "TIME", "CHAR", "VARCHAR", "TEXT", "TINYTEXT", "MEDIUMTEXT", "LONGTEXT",
		"ENUM", "SET", "JSON", "NULL":
		dt, kind = arrow.BinaryTypes.String, kindString
	default: // BINARY, VARBINARY, *BLOB, BIT, GEOMETRY, VECTOR, unknown
		dt, kind = arrow.BinaryTypes.Binary, kindBinary
	}

	keys := []string{MetaType}
	vals := []string{name}
	if hasDec {
		if prec != math.MaxInt64 {
			keys, vals = append(keys, MetaPrecision), append(vals, strconv.FormatInt(prec, 10))
		}
		if scale != math.MaxInt64 {
			keys, vals = append(keys, MetaScale), append(vals, strconv.FormatInt(scale, 10))
		}
	}
	if l, ok := ct.Length(); ok && l != math.MaxInt64 {
		keys, vals = append(keys, MetaLength), append(vals, strconv.FormatInt(l, 10))
	}
	return arrow.Field{
		Name:     ct.Name(),
		Type:     dt,
		Nullable: true,
		Metadata: arrow.NewMetadata(keys, vals),
	}, kind
}

const decimal128MaxPrecision = 38

// column is one output column: its scan destination and its builder.
type column struct {
	kind  colKind
	name  string
	scale int32
	raw   sql.RawBytes // destination for text/binary/decimal/temporal
	val   any          // destination for integer/floating columns

	i64  *array.Int64Builder
	u64  *array.Uint64Builder
	f64  *array.Float64Builder
	d128 *array.Decimal128Builder
	d256 *array.Decimal256Builder
	d32  *array.Date32Builder
	ts   *array.TimestampBuilder
	bin  *array.BinaryBuilder // also the bytes of a StringBuilder
}

// converter turns scanned rows into record batches. Not safe for concurrent
// use: one per fragment.
type converter struct {
	schema *arrow.Schema
	cols   []column
	dest   []any // pointers into cols, passed to rows.Scan
	rb     *array.RecordBuilder
	batch  int
	rows   int
	bytes  int
	fbuf   []byte // scratch for FLOAT formatting
}

// newConverter builds the schema from the driver's column types. The caller
// must Release the converter.
func newConverter(cts []*sql.ColumnType, mem memory.Allocator, batch int) *converter {
	types := make([]columnType, len(cts))
	for i, ct := range cts {
		types[i] = ct
	}
	return newConverterFrom(types, mem, batch)
}

func newConverterFrom(cts []columnType, mem memory.Allocator, batch int) *converter {
	fields := make([]arrow.Field, len(cts))
	c := &converter{cols: make([]column, len(cts)), dest: make([]any, len(cts)), batch: batch}
	for i, ct := range cts {
		f, kind := arrowType(ct)
		fields[i] = f
		col := &c.cols[i]
		col.kind, col.name = kind, f.Name
		switch dt := f.Type.(type) {
		case *arrow.Decimal128Type:
			col.scale = dt.Scale
		case *arrow.Decimal256Type:
			col.scale = dt.Scale
		}
		switch kind {
		case kindInt, kindUint, kindFloat32, kindFloat64:
			c.dest[i] = &col.val
		default:
			c.dest[i] = &col.raw
		}
	}
	c.schema = arrow.NewSchema(fields, nil)
	c.rb = array.NewRecordBuilder(mem, c.schema)
	for i := range c.cols {
		col := &c.cols[i]
		switch b := c.rb.Field(i).(type) {
		case *array.Int64Builder:
			col.i64 = b
		case *array.Uint64Builder:
			col.u64 = b
		case *array.Float64Builder:
			col.f64 = b
		case *array.Decimal128Builder:
			col.d128 = b
		case *array.Decimal256Builder:
			col.d256 = b
		case *array.Date32Builder:
			col.d32 = b
		case *array.TimestampBuilder:
			col.ts = b
		case *array.StringBuilder:
			col.bin = b.BinaryBuilder
		case *array.BinaryBuilder:
			col.bin = b
		default:
			panic(fmt.Sprintf("worker: no builder case for %T", b))
		}
	}
	c.rb.Reserve(batch)
	return c
}

// Release frees the builders; batches already returned stay valid.
func (c *converter) Release() { c.rb.Release() }

// full reports whether the pending batch should be flushed.
func (c *converter) full() bool { return c.rows >= c.batch || c.bytes >= maxBatchBytes }

// appendRow appends the values last scanned into c.dest.
func (c *converter) appendRow() error {
	for i := range c.cols {
		if err := c.appendValue(&c.cols[i]); err != nil {
			return fmt.Errorf("worker: column %q: %w", c.cols[i].name, err)
		}
	}
	c.rows++
	return nil
}

func (c *converter) appendValue(col *column) error {
	switch col.kind {
	case kindInt:
		switch v := col.val.(type) {
		case nil:
			col.i64.AppendNull()
		case int64:
			col.i64.Append(v)
		case []byte:
			n, err := parseInt(v)
			if err != nil {
				return err
			}
			col.i64.Append(n)
		default:
			return fmt.Errorf("unexpected driver value %T", v)
		}
	case kindUint:
		switch v := col.val.(type) {
		case nil:
			col.u64.AppendNull()
		case uint64:
			col.u64.Append(v)
		case int64:
			if v < 0 {
				return errRange
			}
			col.u64.Append(uint64(v))
		case []byte:
			n, err := parseUint(v)
			if err != nil {
				return err
			}
			col.u64.Append(n)
		default:
			return fmt.Errorf("unexpected driver value %T", v)
		}
	case kindFloat32, kindFloat64:
		switch v := col.val.(type) {
		case nil:
			col.f64.AppendNull()
		case float64:
			col.f64.Append(v)
		case float32:
			// Widen through the shortest text of the float32, which is the
			// text MySQL sent: FLOAT 3.14159 stays 3.14159, not 3.1415901184.
			c.fbuf = strconv.AppendFloat(c.fbuf[:0], float64(v), 'g', -1, 32)
			f, err := strconv.ParseFloat(bytesString(c.fbuf), 64)
			if err != nil {
				return err
			}
			col.f64.Append(f)
		case []byte:
			f, err := strconv.ParseFloat(bytesString(v), 64)
			if err != nil {
				return errSyntax
			}
			col.f64.Append(f)
		default:
			return fmt.Errorf("unexpected driver value %T", v)
		}
	default:
		return c.appendRaw(col)
	}
	return nil
}

func (c *converter) appendRaw(col *column) error {
	b := col.raw
	if b == nil {
		switch col.kind {
		case kindDecimal128:
			col.d128.AppendNull()
		case kindDecimal256:
			col.d256.AppendNull()
		case kindDate:
			col.d32.AppendNull()
		case kindTimestamp:
			col.ts.AppendNull()
		default:
			col.bin.AppendNull()
		}
		return nil
	}
	switch col.kind {
	case kindDecimal128:
		n, err := parseDecimal128(b, col.scale)
		if err != nil {
			return err
		}
		col.d128.Append(n)
	case kindDecimal256:
		n, err := parseDecimal256(b, col.scale)
		if err != nil {
			return err
		}
		col.d256.Append(n)
	case kindDate:
		d, err := parseDate(b)
		if err == errZeroDate {
			return zeroDate(col, b)
		}
		if err != nil {
			return err
		}
		col.d32.Append(arrow.Date32(d))
	case kindTimestamp:
		us, err := parseDatetime(b)
		if err == errZeroDate {
			return zeroDate(col, b)
		}
		if err != nil {
			return err
		}
		col.ts.Append(arrow.Timestamp(us))
	default:
		col.bin.Append(b)
		c.bytes += len(b)
	}
	return nil
}

// zeroDate is the fragment's error for column col's zero date b.
func zeroDate(col *column, b []byte) error {
	return sqlerr.New(sqlerr.ErrZeroDate, "22007",
		"Incorrect date value: '%s' for column `%s`: the column %s, which Shoal cannot carry in a distributed or pinned answer; such a statement runs on a replica, and a pin must leave the value out (WHERE `%s` > '0000-00-00')",
		b, col.name, sqlerr.ZeroDateMark, col.name)
}

// flush returns the pending rows as a record batch (the caller releases it)
// and starts a new one.
func (c *converter) flush() arrow.RecordBatch {
	rec := c.rb.NewRecordBatch()
	c.rows, c.bytes = 0, 0
	c.rb.Reserve(c.batch)
	return rec
}
