package arrowexec

import (
	"bytes"
	"fmt"
	"math/big"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// RowBuilder builds Arrow record batches from rows of MySQL values, the
// reverse of RecordRows. It serves tests and small tables (pinned tables);
// it parses each value's text and is not meant for the hot path.
type RowBuilder struct {
	b *array.RecordBuilder
}

// NewRowBuilder returns a builder for schema. Release it when done.
func NewRowBuilder(mem memory.Allocator, schema *arrow.Schema) *RowBuilder {
	return &RowBuilder{b: array.NewRecordBuilder(mem, schema)}
}

// Append adds one row; it must have one value per schema field.
func (rb *RowBuilder) Append(row []sqltypes.Value) error {
	fields := rb.b.Fields()
	if len(row) != len(fields) {
		return fmt.Errorf("arrowexec: row has %d values, schema %d fields", len(row), len(fields))
	}
	for i, v := range row {
		if err := appendValue(fields[i], v); err != nil {
			return fmt.Errorf("arrowexec: column %d (%s): %w", i, rb.b.Schema().Field(i).Name, err)
		}
	}
	return nil
}

// NewRecordBatch returns the rows appended so far and resets the builder.
// The caller must Release the batch.
func (rb *RowBuilder) NewRecordBatch() arrow.RecordBatch { return rb.b.NewRecordBatch() }

// Release frees the builder's buffers.
func (rb *RowBuilder) Release() { rb.b.Release() }

func appendValue(b array.Builder, v sqltypes.Value) error {
	if v.IsNull() {
		b.AppendNull()
		return nil
	}
	switch b := b.(type) {
	case *array.Int64Builder:
		x, err := v.ToInt64()
		if err != nil {
			return err
		}
		b.Append(x)
	case *array.Uint64Builder:
		x, err := v.ToUint64()
		if err != nil {
			return err
		}
		b.Append(x)
	case *array.Float64Builder:
		x, err := v.ToFloat64()
		if err != nil {
			return err
		}
		b.Append(x)
	case *array.Decimal128Builder:
		t := b.Type().(*arrow.Decimal128Type)
		if n, ok := scaledInt64(v.Raw(), t.Scale); ok {
			b.Append(decimal128.FromI64(n))
			break
		}
		x, err := parseDecimal(v.Raw(), t.Scale)
		if err != nil {
			return err
		}
		if x.BitLen() > 127 {
			return fmt.Errorf("%s does not fit DECIMAL(%d,%d)", v.Raw(), t.Precision, t.Scale)
		}
		b.Append(decimal128.FromBigInt(x))
	case *array.Decimal256Builder:
		t := b.Type().(*arrow.Decimal256Type)
		x, err := parseDecimal(v.Raw(), t.Scale)
		if err != nil {
			return err
		}
		if x.BitLen() > 255 {
			return fmt.Errorf("%s does not fit DECIMAL(%d,%d)", v.Raw(), t.Precision, t.Scale)
		}
		b.Append(decimal256.FromBigInt(x))
	case *array.Date32Builder:
		t, err := time.Parse(time.DateOnly, v.ToString())
		if err != nil {
			return err
		}
		b.Append(arrow.Date32FromTime(t))
	case *array.TimestampBuilder:
		t, err := time.Parse("2006-01-02 15:04:05.999999", v.ToString())
		if err != nil {
			return err
		}
		ts, err := arrow.TimestampFromTime(t, b.Type().(*arrow.TimestampType).Unit)
		if err != nil {
			return err
		}
		b.Append(ts)
	case *array.StringBuilder:
		b.Append(v.ToString())
	case *array.BinaryBuilder:
		b.Append(v.Raw())
	case *array.NullBuilder:
		return fmt.Errorf("non-NULL value %q for a Null column", v.Raw())
	default:
		return fmt.Errorf("unsupported Arrow type %s", b.Type())
	}
	return nil
}

// parseDecimal reads decimal text exactly as an integer scaled by 10^scale.
// Digits beyond the scale must be zeros.
// scaledInt64 reads DECIMAL text as an integer scaled by 10^scale, the
// common case without big.Int: false when the result would pass 18
// digits, when digits past the scale are not zeros, or when the text is
// not a plain decimal (parseDecimal then decides, and reports errors).
func scaledInt64(s []byte, scale int32) (int64, bool) {
	if scale < 0 || scale > 18 {
		return 0, false
	}
	neg := false
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		neg, s = s[0] == '-', s[1:]
	}
	if len(s) == 0 {
		return 0, false
	}
	var n int64
	digits, frac := 0, -1 // significant digits; fraction digits read (-1: no point yet)
	for _, c := range s {
		switch {
		case c == '.':
			if frac >= 0 {
				return 0, false
			}
			frac = 0
			continue
		case c < '0' || c > '9':
			return 0, false
		case frac == int(scale):
			if c != '0' {
				return 0, false
			}
			continue
		case frac >= 0:
			frac++
		}
		if n != 0 || c != '0' {
			digits++
		}
		if digits > 18 {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	for f := max(frac, 0); f < int(scale); f++ {
		if n != 0 {
			digits++
		}
		n *= 10
	}
	if digits > 18 {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

func parseDecimal(s []byte, scale int32) (*big.Int, error) {
	text := s
	neg := len(s) > 0 && s[0] == '-'
	if neg || (len(s) > 0 && s[0] == '+') {
		s = s[1:]
	}
	intPart, frac, _ := bytes.Cut(s, []byte("."))
	digits := make([]byte, 0, len(intPart)+int(max(scale, 0))+1)
	if neg {
		digits = append(digits, '-')
	}
	digits = append(digits, intPart...)
	for i := range int(max(scale, 0)) {
		if i < len(frac) {
			digits = append(digits, frac[i])
		} else {
			digits = append(digits, '0')
		}
	}
	if int(scale) < len(frac) && len(bytes.Trim(frac[max(scale, 0):], "0")) > 0 {
		return nil, fmt.Errorf("%s has more than %d fraction digits", text, scale)
	}
	x, ok := new(big.Int).SetString(string(digits), 10)
	if !ok {
		return nil, fmt.Errorf("bad decimal %q", text)
	}
	return x, nil
}

// BuildBatches makes Arrow batches of the schema SchemaFor(fields) from
// rows of MySQL values, 65,536 rows a batch (at least one batch, empty
// for no rows). The caller releases them.
func BuildBatches(mem memory.Allocator, fields []*querypb.Field, rows [][]sqltypes.Value) ([]arrow.RecordBatch, error) {
	rb := NewRowBuilder(mem, SchemaFor(fields))
	defer rb.Release()
	var out []arrow.RecordBatch
	for i, row := range rows {
		if err := rb.Append(row); err != nil {
			for _, b := range out {
				b.Release()
			}
			return nil, err
		}
		if (i+1)%65536 == 0 {
			out = append(out, rb.NewRecordBatch())
		}
	}
	out = append(out, rb.NewRecordBatch())
	return out, nil
}
