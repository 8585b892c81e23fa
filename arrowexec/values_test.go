package arrowexec

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"vitess.io/vitess/go/sqltypes"
)

func TestValue(t *testing.T) {
	big256, _ := decimal256.FromString("-12345678901234567890123456789012345678901234567890123456789012345", 65, 0)
	cases := []struct {
		name  string
		build func(memory.Allocator) arrow.Array
		want  []string
	}{
		{"int64", func(mem memory.Allocator) arrow.Array {
			b := array.NewInt64Builder(mem)
			defer b.Release()
			b.AppendValues([]int64{0, -1, math.MinInt64, math.MaxInt64}, nil)
			b.AppendNull()
			return b.NewArray()
		}, []string{"INT64(0)", "INT64(-1)", "INT64(-9223372036854775808)", "INT64(9223372036854775807)", "NULL"}},
		{"uint64", func(mem memory.Allocator) arrow.Array {
			b := array.NewUint64Builder(mem)
			defer b.Release()
			b.AppendValues([]uint64{0, math.MaxUint64}, nil)
			return b.NewArray()
		}, []string{"UINT64(0)", "UINT64(18446744073709551615)"}},
		{"decimal128 scale 2", func(mem memory.Allocator) arrow.Array {
			b := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 10, Scale: 2})
			defer b.Release()
			for _, v := range []int64{1230, -50, 0, 5, -100000, 99} {
				b.Append(decimal128.FromI64(v))
			}
			b.AppendNull()
			return b.NewArray()
		}, []string{"DECIMAL(12.30)", "DECIMAL(-0.50)", "DECIMAL(0.00)", "DECIMAL(0.05)", "DECIMAL(-1000.00)", "DECIMAL(0.99)", "NULL"}},
		{"decimal128 scale 0 and wide", func(mem memory.Allocator) arrow.Array {
			b := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 38, Scale: 0})
			defer b.Release()
			b.Append(decimal128.FromI64(7))
			b.Append(decimal128.GetMaxValue(38))
			b.Append(decimal128.GetMaxValue(38).Negate())
			return b.NewArray()
		}, []string{"DECIMAL(7)", "DECIMAL(" + nines(38) + ")", "DECIMAL(-" + nines(38) + ")"}},
		{"decimal256 65 digits scale 30", func(mem memory.Allocator) arrow.Array {
			b := array.NewDecimal256Builder(mem, &arrow.Decimal256Type{Precision: 65, Scale: 30})
			defer b.Release()
			b.Append(big256)
			b.Append(decimal256.FromI64(-1))
			return b.NewArray()
		}, []string{"DECIMAL(-12345678901234567890123456789012345.678901234567890123456789012345)", "DECIMAL(-0.000000000000000000000000000001)"}},
		{"float64", func(mem memory.Allocator) arrow.Array {
			b := array.NewFloat64Builder(mem)
			defer b.Release()
			b.AppendValues([]float64{0.1, 1e20, 123456789012345678, math.Copysign(0, -1), 0, -2.5, 1e-20, 1.5e15, 123.456}, nil)
			return b.NewArray()
		}, []string{"FLOAT64(0.1)", "FLOAT64(1e20)", "FLOAT64(1.2345678901234568e17)", "FLOAT64(-0)", "FLOAT64(0)", "FLOAT64(-2.5)", "FLOAT64(1e-20)", "FLOAT64(1.5e15)", "FLOAT64(123.456)"}},
		{"date32", func(mem memory.Allocator) arrow.Array {
			b := array.NewDate32Builder(mem)
			defer b.Release()
			b.AppendValues([]arrow.Date32{0, -1, 19723, 2932896, -719162}, nil)
			return b.NewArray()
		}, []string{"DATE(\"1970-01-01\")", "DATE(\"1969-12-31\")", "DATE(\"2024-01-01\")", "DATE(\"9999-12-31\")", "DATE(\"0001-01-01\")"}},
		{"timestamp us", func(mem memory.Allocator) arrow.Array {
			b := array.NewTimestampBuilder(mem, &arrow.TimestampType{Unit: arrow.Microsecond})
			defer b.Release()
			b.AppendValues([]arrow.Timestamp{0, 1704067200123456, 1704067200500000, -1, 1704067199000000}, nil)
			return b.NewArray()
		}, []string{"DATETIME(\"1970-01-01 00:00:00\")", "DATETIME(\"2024-01-01 00:00:00.123456\")", "DATETIME(\"2024-01-01 00:00:00.500000\")", "DATETIME(\"1969-12-31 23:59:59.999999\")", "DATETIME(\"2023-12-31 23:59:59\")"}},
		{"timestamp s", func(mem memory.Allocator) arrow.Array {
			b := array.NewTimestampBuilder(mem, &arrow.TimestampType{Unit: arrow.Second})
			defer b.Release()
			b.Append(1704067200)
			return b.NewArray()
		}, []string{"DATETIME(\"2024-01-01 00:00:00\")"}},
		{"string and binary", func(mem memory.Allocator) arrow.Array {
			b := array.NewStringBuilder(mem)
			defer b.Release()
			b.AppendValues([]string{"héllo", ""}, nil)
			return b.NewArray()
		}, []string{"VARCHAR(\"héllo\")", "VARCHAR(\"\")"}},
		{"binary", func(mem memory.Allocator) arrow.Array {
			b := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
			defer b.Release()
			b.Append([]byte{0, 1, 'x'})
			return b.NewArray()
		}, []string{"VARBINARY(\"\\x00\\x01x\")"}},
		{"null type", func(mem memory.Allocator) arrow.Array {
			return array.NewNull(2)
		}, []string{"NULL", "NULL"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			arr := tc.build(mem)
			var got []string
			for i := range arr.Len() {
				got = append(got, Value(arr, i).String())
			}
			arr.Release()
			if !slices.Equal(got, tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func nines(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = '9'
	}
	return string(b)
}

func TestRecordRowsAndRowBuilder(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{
		field("y", arrow.PrimitiveTypes.Int64, "YEAR"),
		field("t", arrow.BinaryTypes.String, "TIME"),
		field("ts", &arrow.TimestampType{Unit: arrow.Microsecond}, "TIMESTAMP"),
		field("d", &arrow.Decimal128Type{Precision: 12, Scale: 3}, "DECIMAL"),
		field("big", &arrow.Decimal256Type{Precision: 65, Scale: 2}, "DECIMAL"),
		field("u", arrow.PrimitiveTypes.Uint64, ""),
		field("s", arrow.BinaryTypes.String, "VARCHAR"),
		field("n", arrow.Null, ""),
	}, nil)
	bigText := "123456789012345678901234567890123456789012345678901234567890.25"
	in := [][]sqltypes.Value{
		row(i64(2024), tm("-12:30:00"), dt("2024-02-29 12:00:00.000001"), dec("-1.5"), dec(bigText), u64(math.MaxUint64), str("x"), null),
		row(null, null, null, null, null, null, null, null),
	}
	rec := batch(t, mem, schema, in...)
	rows := RecordRows(rec)
	rec.Release()
	want := []string{
		`YEAR(2024) TIME("-12:30:00") TIMESTAMP("2024-02-29 12:00:00.000001") DECIMAL(-1.500) DECIMAL(` + bigText + `) UINT64(18446744073709551615) VARCHAR("x") NULL`,
		`NULL NULL NULL NULL NULL NULL NULL NULL`,
	}
	if got := render(rows); !slices.Equal(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}

	rb := NewRowBuilder(mem, schema)
	defer rb.Release()
	for _, bad := range [][]sqltypes.Value{
		row(i64(1)),
		row(str("x"), null, null, null, null, null, null, null),
		row(null, null, null, dec("1.2345"), null, null, null, null),
		row(null, null, null, dec("1234567890123456789012345678901234567890"), null, null, null, null),
		row(null, null, null, null, null, null, null, i64(1)),
	} {
		if err := rb.Append(bad); err == nil {
			t.Errorf("Append(%v) succeeded, want an error", bad)
		}
	}
}

// TestScaledInt64 checks the fast DECIMAL parse against parseDecimal: the
// same value whenever it answers, and no answer past 18 digits.
func TestScaledInt64(t *testing.T) {
	inputs := []string{"0", "-0", "+7", "12.5", "12.50", "12.500", "-12.345", "0.05", ".5", "5.", "007.10",
		"999999999999999999", "9999999999999999.99", "99999999999999999.9", "-999999999999999999",
		"1000000000000000000", "123.456", "1.2.3", "", "-", "12a", "0.000000000000000001"}
	for i := 0; i < 2000; i++ {
		inputs = append(inputs, fmt.Sprintf("%d.%0*d", i*7919-5000000, i%5, i%100000))
	}
	for _, in := range inputs {
		for _, scale := range []int32{0, 1, 2, 4, 6, 18} {
			n, ok := scaledInt64([]byte(in), scale)
			x, err := parseDecimal([]byte(in), scale)
			switch {
			case !ok:
				if err == nil && x.IsInt64() && len(strings.TrimLeft(strings.TrimPrefix(x.String(), "-"), "0")) <= 18 && in != "" && in != "-" {
					t.Errorf("%q at scale %d: no fast answer for %s", in, scale, x)
				}
			case err != nil:
				t.Errorf("%q at scale %d: fast %d, parseDecimal %v", in, scale, n, err)
			case !x.IsInt64() || x.Int64() != n:
				t.Errorf("%q at scale %d: fast %d, parseDecimal %s", in, scale, n, x)
			}
		}
	}
}
