package rowformat

import (
	"testing"

	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

func TestBinaryTemporal(t *testing.T) {
	for _, c := range []struct {
		typ      querypb.Type
		in, want string
	}{
		{sqltypes.Time, "00:00:00.0000", "00:00:00"},
		{sqltypes.Time, "-00:00:00.000", "00:00:00"},
		{sqltypes.Time, "-00:00:00", "00:00:00"},
		{sqltypes.Time, "12:30:00.000", "12:30:00"},
		{sqltypes.Time, "-00:00:00.500", "-00:00:00.500"},
		{sqltypes.Time, "838:59:59", "838:59:59"},
		{sqltypes.Datetime, "2004-01-02 00:00:00", "2004-01-02"},
		{sqltypes.Datetime, "2004-01-02 00:00:00.000", "2004-01-02"},
		{sqltypes.Datetime, "2004-01-02 00:00:00.250", "2004-01-02 00:00:00.250"},
		{sqltypes.Datetime, "2004-01-02 10:00:00.000000", "2004-01-02 10:00:00"},
		{sqltypes.Timestamp, "2004-01-02 00:00:00", "2004-01-02"},
		{sqltypes.Datetime, "0000-00-00 00:00:00", "0000-00-00"},
		{sqltypes.Date, "2004-01-02", "2004-01-02"},
		{sqltypes.VarChar, "00:00:00.000", "00:00:00.000"},
	} {
		if got := BinaryTemporal(sqltypes.MakeTrusted(c.typ, []byte(c.in))); string(got.Raw()) != c.want || got.Type() != c.typ {
			t.Errorf("%v %q: got %v %q, want %q", c.typ, c.in, got.Type(), got.Raw(), c.want)
		}
	}
}

// TestWireRowsCopies: rows that change are copies; the
// caller's rows (a cached answer) keep their text.
func TestWireRowsCopies(t *testing.T) {
	fields := []*querypb.Field{{Type: sqltypes.Int64}, {Type: sqltypes.Time}}
	rows := [][]sqltypes.Value{
		{sqltypes.NewInt64(1), sqltypes.MakeTrusted(sqltypes.Time, []byte("00:00:00.00"))},
		{sqltypes.NewInt64(2), sqltypes.MakeTrusted(sqltypes.Time, []byte("01:00:00.50"))},
	}
	out := WireRows(fields, rows)
	if string(out[0][1].Raw()) != "00:00:00" || string(out[1][1].Raw()) != "01:00:00.50" {
		t.Fatalf("got %v", out)
	}
	if string(rows[0][1].Raw()) != "00:00:00.00" {
		t.Fatalf("the caller's row changed: %v", rows[0])
	}
	if &out[1][0] != &rows[1][0] {
		t.Error("an unchanged row was copied")
	}
	if got := WireRows([]*querypb.Field{{Type: sqltypes.Int64}}, rows[:1]); &got[0] != &rows[0] {
		t.Error("rows without temporal columns were copied")
	}
}

func TestBinaryInteger(t *testing.T) {
	for _, c := range []struct {
		typ      querypb.Type
		in, want string
	}{
		{sqltypes.Int32, "4036006016", "-258961280"}, // ORD of U+10000 in an INT column
		{sqltypes.Int32, "-2147483648", "-2147483648"},
		{sqltypes.Int32, "2147483647", "2147483647"},
		{sqltypes.Uint32, "4294967296", "0"},
		{sqltypes.Uint32, "-1", "4294967295"},
		{sqltypes.Int8, "200", "-56"},
		{sqltypes.Uint16, "65537", "1"},
		{sqltypes.Int24, "8388608", "8388608"}, // sent in 4 bytes
		{sqltypes.Int64, "18446744073709551615", "18446744073709551615"},
		{sqltypes.Int32, "12.5", "12.5"},
	} {
		if got := BinaryInteger(sqltypes.MakeTrusted(c.typ, []byte(c.in))); string(got.Raw()) != c.want || got.Type() != c.typ {
			t.Errorf("%v %q: got %v %q, want %q", c.typ, c.in, got.Type(), got.Raw(), c.want)
		}
	}
}
