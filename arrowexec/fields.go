package arrowexec

import (
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// FieldFor maps a MySQL result column to the Arrow field a worker would
// send for it (see worker's arrowType): integers as Int64 or Uint64,
// DECIMAL as Decimal128 (Decimal256 past 38 digits), FLOAT and DOUBLE as
// Float64, DATE as Date32, DATETIME and TIMESTAMP as microsecond
// timestamps, text (and TIME) as String, everything else as Binary. The
// field carries the MySQL type name in MetaMySQLType so that RecordRows
// restores YEAR, TIME and TIMESTAMP.
func FieldFor(f *querypb.Field) arrow.Field {
	var dt arrow.DataType
	name := f.Type.String()
	unsigned := f.Flags&uint32(querypb.MySqlFlag_UNSIGNED_FLAG) != 0
	switch {
	case f.Type == sqltypes.Year:
		dt, name = arrow.PrimitiveTypes.Int64, "YEAR"
	case sqltypes.IsUnsigned(f.Type) || (sqltypes.IsIntegral(f.Type) && unsigned):
		dt = arrow.PrimitiveTypes.Uint64
	case sqltypes.IsIntegral(f.Type):
		dt = arrow.PrimitiveTypes.Int64
	case f.Type == sqltypes.Decimal:
		s := int32(f.Decimals)
		p := int32(f.ColumnLength)
		if s > 0 {
			p--
		}
		if !unsigned {
			p--
		}
		p = max(p, s, 1)
		if p <= 38 {
			dt = &arrow.Decimal128Type{Precision: p, Scale: s}
		} else {
			dt = &arrow.Decimal256Type{Precision: min(p, 76), Scale: s}
		}
		name = "DECIMAL"
	case sqltypes.IsFloat(f.Type):
		dt = arrow.PrimitiveTypes.Float64
	case f.Type == sqltypes.Date:
		dt, name = arrow.FixedWidthTypes.Date32, "DATE"
	case f.Type == sqltypes.Datetime:
		dt, name = &arrow.TimestampType{Unit: arrow.Microsecond}, "DATETIME"
	case f.Type == sqltypes.Timestamp:
		dt, name = &arrow.TimestampType{Unit: arrow.Microsecond}, "TIMESTAMP"
	case f.Type == sqltypes.Time:
		dt, name = arrow.BinaryTypes.String, "TIME"
	case f.Type == sqltypes.Null:
		dt, name = arrow.BinaryTypes.String, "NULL"
	case (sqltypes.IsText(f.Type) || f.Type == sqltypes.Enum || f.Type == sqltypes.Set || f.Type == sqltypes.TypeJSON) &&
		collations.ID(f.Charset) != collations.CollationBinaryID:
		dt = arrow.BinaryTypes.String
	default:
		dt = arrow.BinaryTypes.Binary
	}
	keys := []string{MetaMySQLType}
	vals := []string{name}
	if f.Type == sqltypes.Decimal || sqltypes.IsFloat(f.Type) || sqltypes.IsDateOrTime(f.Type) {
		keys, vals = append(keys, MetaScale), append(vals, strconv.Itoa(int(f.Decimals)))
	}
	return arrow.Field{Name: f.Name, Type: dt, Nullable: true, Metadata: arrow.NewMetadata(keys, vals)}
}

// SchemaFor is FieldFor over a result's columns.
func SchemaFor(fields []*querypb.Field) *arrow.Schema {
	fs := make([]arrow.Field, len(fields))
	for i, f := range fields {
		fs[i] = FieldFor(f)
	}
	return arrow.NewSchema(fs, nil)
}

// Collator compares and keys strings under one MySQL collation, with
// MySQL's PAD SPACE rules; engines outside this package (pinned tables)
// group and order strings with it exactly as the merge does.
type Collator struct{ c collator }

// NewCollator resolves id; 0 and binary compare bytes.
func NewCollator(env *collations.Environment, id collations.ID) (*Collator, error) {
	c, err := newCollator(env, id)
	if err != nil {
		return nil, err
	}
	return &Collator{c: c}, nil
}

// Key appends to dst a byte string equal for two strings exactly when the
// collation calls them equal.
func (c *Collator) Key(dst, s []byte) []byte { return c.c.appendKey(dst, s) }

// Compare orders a and b: -1, 0 or 1.
func (c *Collator) Compare(a, b []byte) int { return c.c.compare(a, b) }

// PadSpace reports whether the collation ignores trailing spaces (MySQL's
// PAD SPACE): every collation but binary, the *_0900_* and the *_nopad_*
// ones.
func (c *Collator) PadSpace() bool { return c.c.padSpace }
