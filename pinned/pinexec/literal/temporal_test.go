package literal

import (
	"testing"

	"vitess.io/vitess/go/sqltypes"
)

func TestTemporalNumber(t *testing.T) {
	for _, c := range []struct {
		v    sqltypes.Value
		want string
	}{
		{sqltypes.MakeTrusted(sqltypes.Date, []byte("1988-01-01")), "19880101"},
		{sqltypes.MakeTrusted(sqltypes.Datetime, []byte("2005-03-15 12:34:56")), "20050315123456"},
		{sqltypes.MakeTrusted(sqltypes.Datetime, []byte("2005-03-15 12:34:56.250000")), "20050315123456.250000"},
		{sqltypes.MakeTrusted(sqltypes.Time, []byte("-01:02:03")), "-10203"},
		{sqltypes.MakeTrusted(sqltypes.Time, []byte("00:00:00.5")), "0.5"},
		{sqltypes.MakeTrusted(sqltypes.Time, []byte("00:00:00")), "0"},
		{sqltypes.NewInt64(42), "42"},
		{sqltypes.NULL, ""},
	} {
		got := TemporalNumber(c.v)
		if got.ToString() != c.want {
			t.Errorf("TemporalNumber(%v) = %q, want %q", c.v, got.ToString(), c.want)
		}
		if c.v.Type() != sqltypes.Int64 && !c.v.IsNull() && got.Type() != sqltypes.Decimal {
			t.Errorf("TemporalNumber(%v) has type %v, want DECIMAL", c.v, got.Type())
		}
	}
}

func TestTemporalInteger(t *testing.T) {
	for _, c := range []struct {
		v    sqltypes.Value
		want string
		typ  sqltypes.Type
	}{
		{sqltypes.MakeTrusted(sqltypes.Date, []byte("1988-01-01")), "19880101", sqltypes.Int64},
		{sqltypes.MakeTrusted(sqltypes.Datetime, []byte("2005-03-15 12:34:56.250000")), "20050315123456", sqltypes.Int64},
		{sqltypes.NewInt64(42), "42", sqltypes.Int64},
		{sqltypes.NewVarChar("x"), "x", sqltypes.VarChar},
	} {
		got := TemporalInteger(c.v)
		if got.ToString() != c.want || got.Type() != c.typ {
			t.Errorf("TemporalInteger(%v) = %v %q, want %v %q", c.v, got.Type(), got.ToString(), c.typ, c.want)
		}
	}
}
