package rowformat

import (
	"math"
	"testing"

	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

func TestConform(t *testing.T) {
	dec := func(scale uint32) *querypb.Field { return &querypb.Field{Type: sqltypes.Decimal, Decimals: scale} }
	cases := []struct {
		v    sqltypes.Value
		f    *querypb.Field
		want string
	}{
		{sqltypes.MakeTrusted(sqltypes.Decimal, []byte("1.5")), dec(2), "1.50"},
		{sqltypes.MakeTrusted(sqltypes.Decimal, []byte("1.505")), dec(2), "1.51"},
		{sqltypes.MakeTrusted(sqltypes.Decimal, []byte("-0.125")), dec(2), "-0.13"},
		{sqltypes.MakeTrusted(sqltypes.Decimal, []byte("12.30")), dec(2), "12.30"},
		{sqltypes.MakeTrusted(sqltypes.Decimal, []byte("7")), dec(0), "7"},
		{sqltypes.NewInt64(7), dec(4), "7.0000"},
		{sqltypes.MakeTrusted(sqltypes.Decimal, []byte("5")), &querypb.Field{Type: sqltypes.Int64}, "5"},
		{sqltypes.NewInt64(42), &querypb.Field{Type: sqltypes.Int32}, "42"},
		{sqltypes.MakeTrusted(sqltypes.Decimal, []byte("0.5")), &querypb.Field{Type: sqltypes.Float64, Decimals: 31}, "0.5"},
		// STDDEV_POP over an INT column: DOUBLE with 4 decimals.
		{sqltypes.NewFloat64(827.6467305633213), &querypb.Field{Type: sqltypes.Float64, Decimals: 4}, "827.6467"},
		{sqltypes.NewFloat64(2117.602167533105), &querypb.Field{Type: sqltypes.Float64, Decimals: 4}, "2117.6022"},
		{sqltypes.NewFloat64(0), &querypb.Field{Type: sqltypes.Float64, Decimals: 4}, "0.0000"},
		{sqltypes.NewFloat64(1e20), &querypb.Field{Type: sqltypes.Float64, Decimals: 2}, "100000000000000000000.00"},
		{sqltypes.MakeTrusted(sqltypes.Decimal, []byte("1.25")), &querypb.Field{Type: sqltypes.Float64, Decimals: 1}, "1.2"},
		{sqltypes.MakeTrusted(sqltypes.Datetime, []byte("2020-01-02 03:04:05")), &querypb.Field{Type: sqltypes.Datetime, Decimals: 3}, "2020-01-02 03:04:05.000"},
		{sqltypes.MakeTrusted(sqltypes.Datetime, []byte("2020-01-02 03:04:05.123456")), &querypb.Field{Type: sqltypes.Datetime}, "2020-01-02 03:04:05"},
		{sqltypes.MakeTrusted(sqltypes.Datetime, []byte("2020-01-02 00:00:00")), &querypb.Field{Type: sqltypes.Date}, "2020-01-02"},
		{sqltypes.NULL, dec(2), "NULL"},
		// MariaDB never sends a negative zero DOUBLE (-STDDEV(x) of one
		// row, -0e0, 0e0 * -1: 0 and 0.0000), in either protocol.
		{sqltypes.NewFloat64(math.Copysign(0, -1)), &querypb.Field{Type: sqltypes.Float64, Decimals: 4}, "0.0000"},
		{sqltypes.NewFloat64(math.Copysign(0, -1)), &querypb.Field{Type: sqltypes.Float64, Decimals: 31}, "0"},
		{sqltypes.MakeTrusted(sqltypes.Float64, []byte("-0")), &querypb.Field{Type: sqltypes.Float64, Decimals: 31}, "0"},
		{sqltypes.MakeTrusted(sqltypes.Decimal, []byte("-0.000")), &querypb.Field{Type: sqltypes.Float64, Decimals: 31}, "0"},
		{sqltypes.MakeTrusted(sqltypes.Float32, []byte("-0")), &querypb.Field{Type: sqltypes.Float32, Decimals: 2}, "0.00"},
		{sqltypes.NewFloat64(-0.5), &querypb.Field{Type: sqltypes.Float64, Decimals: 31}, "-0.5"},
		{sqltypes.MakeTrusted(sqltypes.Float64, []byte("-0e0")), &querypb.Field{Type: sqltypes.Float64, Decimals: 31}, "0"},
		{sqltypes.MakeTrusted(sqltypes.Float64, []byte("-0.001")), &querypb.Field{Type: sqltypes.Float64, Decimals: 31}, "-0.001"},
		{sqltypes.MakeTrusted(sqltypes.Float64, []byte("-1e-300")), &querypb.Field{Type: sqltypes.Float64, Decimals: 31}, "-1e-300"},
	}
	for _, c := range cases {
		got := Text(c.v, c.f)
		s := got.ToString()
		if got.IsNull() {
			s = "NULL"
		}
		if s != c.want {
			t.Errorf("Text(%v, %v) = %s, want %s", c.v, c.f.Type, s, c.want)
		}
	}
}

// TestFixedFloat: MariaDB's text for a DOUBLE with fixed decimals (checked
// against MariaDB 10.11: ROUND(1e0 * x, d), VARIANCE of BIGINT values).
func TestFixedFloat(t *testing.T) {
	for _, c := range []struct {
		v    float64
		dec  int
		want string
	}{
		{123456789012345.6789, 4, "123456789012345.6700"},
		{1581649222897045504, 4, "1581649222897045500.0000"},
		{12345678901234567.89, 3, "12345678901234568.000"},
		{0.000012345678901234567, 25, "0.0000123456789012345680000"},
		{-98765432109876.54321, 5, "-98765432109876.55000"},
		{0, 4, "0.0000"},
	} {
		if got := string(fixedFloat(c.v, c.dec, 64)); got != c.want {
			t.Errorf("fixedFloat(%v, %d) = %s, want %s", c.v, c.dec, got, c.want)
		}
	}
}
