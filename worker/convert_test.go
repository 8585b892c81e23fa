package worker

import (
	"database/sql"
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestParseDecimal(t *testing.T) {
	for _, c := range []struct {
		in    string
		scale int32
		want  string // ToString at scale; "" means error
	}{
		{"-123.45", 2, "-123.45"},
		{"123.45", 2, "123.45"},
		{"0.00", 2, "0.00"},
		{"-0.01", 2, "-0.01"},
		{"0.05", 2, "0.05"},
		{"5", 2, "5.00"},    // short fraction is padded
		{"1.5", 3, "1.500"}, // likewise
		{"+7", 0, "7"},
		{"99999999999999999999999999999999999999", 0, "99999999999999999999999999999999999999"},
		{"-99999999999999999999999999999999999999", 0, "-99999999999999999999999999999999999999"},
		{"0.00000000000000000000000000000000000001", 38, "0.00000000000000000000000000000000000001"},
		{"1234567890123456789.0123456789", 10, "1234567890123456789.0123456789"},
		{"1.230", 2, "1.23"}, // trailing zeros past the scale are harmless
		{"1.234", 2, ""},     // lost digits are not
		{"999999999999999999999999999999999999999", 0, ""}, // 39 digits
		{"", 0, ""},
		{"-", 0, ""},
		{"1.2.3", 2, ""},
		{"12a", 0, ""},
		{".", 0, ""},
	} {
		got, err := parseDecimal128([]byte(c.in), c.scale)
		if c.want == "" {
			if err == nil {
				t.Errorf("parseDecimal128(%q) = %s, want error", c.in, got.ToString(c.scale))
			}
			continue
		}
		if err != nil {
			t.Errorf("parseDecimal128(%q): %v", c.in, err)
			continue
		}
		if s := got.ToString(c.scale); s != c.want {
			t.Errorf("parseDecimal128(%q, %d) = %s, want %s", c.in, c.scale, s, c.want)
		}
		// The 256-bit parser agrees.
		g256, err := parseDecimal256([]byte(c.in), c.scale)
		if err != nil || g256.ToString(c.scale) != c.want {
			t.Errorf("parseDecimal256(%q) = %s, %v", c.in, g256.ToString(c.scale), err)
		}
	}
	big := "-12345678901234567890123456789012345.123456789012345678901234567890"
	n, err := parseDecimal256([]byte(big), 30)
	if err != nil || n.ToString(30) != big {
		t.Errorf("DECIMAL(65,30) = %s, %v", n.ToString(30), err)
	}
	if _, err := parseDecimal256([]byte(strings.Repeat("9", 77)), 0); err == nil {
		t.Errorf("77-digit value fit in decimal256")
	}
}

func TestParseTemporal(t *testing.T) {
	for _, c := range []struct {
		in   string
		days int32
		err  error
	}{
		{"1970-01-01", 0, nil},
		{"1969-12-31", -1, nil},
		{"2000-03-01", 11017, nil},
		{"2024-02-29", 19782, nil},
		{"0001-01-01", -719162, nil},
		{"9999-12-31", 2932896, nil},
		{"0000-00-00", 0, errZeroDate},
		{"2024-00-10", 0, errZeroDate},
		{"2024-05-00", 0, errZeroDate},
		{"2024-13-01", 0, errRange},
		{"2024-1-01", 0, errSyntax},
	} {
		d, err := parseDate([]byte(c.in))
		if err != c.err || (err == nil && d != c.days) {
			t.Errorf("parseDate(%q) = %d, %v; want %d, %v", c.in, d, err, c.days, c.err)
		}
	}
	for _, c := range []struct {
		in string
		us int64
		ok bool
	}{
		{"1970-01-01 00:00:00", 0, true},
		{"1970-01-01 00:00:01.5", 1_500_000, true},
		{"1969-12-31 23:59:59.999999", -1, true},
		{"2024-02-29 23:59:58.123456", 1709251198123456, true},
		{"2024-02-29", 1709164800000000, true},
		{"2024-02-29 24:00:00", 0, false},
		{"2024-02-29 23:59:58.", 0, false},
		{"2024-02-29 23:59:58.1234567", 0, false},
	} {
		us, err := parseDatetime([]byte(c.in))
		if (err == nil) != c.ok || (c.ok && us != c.us) {
			t.Errorf("parseDatetime(%q) = %d, %v; want %d ok=%v", c.in, us, err, c.us, c.ok)
		}
	}
}

func TestParseInt(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"-1", -1, true}, {"9223372036854775807", math.MaxInt64, true},
		{"-9223372036854775808", math.MinInt64, true}, {"9223372036854775808", 0, false},
		{"", 0, false}, {"1x", 0, false},
	} {
		got, err := parseInt([]byte(c.in))
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("parseInt(%q) = %d, %v", c.in, got, err)
		}
	}
	if u, err := parseUint([]byte("18446744073709551615")); err != nil || u != math.MaxUint64 {
		t.Errorf("parseUint(max) = %d, %v", u, err)
	}
	if _, err := parseUint([]byte("18446744073709551616")); err == nil {
		t.Errorf("parseUint(max+1) did not fail")
	}
}

func TestParsersDoNotAllocate(t *testing.T) {
	dec := []byte("-12345678901234567890123456789012345.123456789012345678901234567890")
	dt := []byte("2024-02-29 23:59:58.123456")
	allocs := testing.AllocsPerRun(100, func() {
		_, _ = parseDecimal128([]byte("-123456.78"), 2)
		_, _ = parseDecimal256(dec, 30)
		_, _ = parseDatetime(dt)
		_, _ = parseInt([]byte("-42"))
	})
	if allocs != 0 {
		t.Errorf("parsers allocate %v times per run", allocs)
	}
}

type fakeCol struct {
	name, typ string
	prec, sc  int64
	dec       bool
	length    int64
	hasLength bool
}

func (f fakeCol) Name() string                      { return f.name }
func (f fakeCol) DatabaseTypeName() string          { return f.typ }
func (f fakeCol) DecimalSize() (int64, int64, bool) { return f.prec, f.sc, f.dec }
func (f fakeCol) Length() (int64, bool)             { return f.length, f.hasLength }

func TestArrowTypeMapping(t *testing.T) {
	for _, c := range []struct {
		col  fakeCol
		want string
	}{
		{fakeCol{typ: "NULL"}, "utf8"},
		{fakeCol{typ: "GEOMETRY"}, "binary"},
		{fakeCol{typ: "VECTOR"}, "binary"},
		{fakeCol{typ: "SOMETHING NEW"}, "binary"},
		{fakeCol{typ: "UNSIGNED MEDIUMINT"}, "uint64"},
		{fakeCol{typ: "DECIMAL", prec: 38, sc: 10, dec: true}, "decimal(38, 10)"},
		{fakeCol{typ: "DECIMAL", prec: 39, sc: 10, dec: true}, "decimal256(39, 10)"},
		{fakeCol{typ: "DECIMAL", prec: 0, sc: 0, dec: true}, "decimal(1, 0)"},
		{fakeCol{typ: "DOUBLE", prec: math.MaxInt64, sc: math.MaxInt64, dec: true}, "float64"},
		{fakeCol{typ: "TIMESTAMP", prec: 3, sc: 3, dec: true}, "timestamp[us]"},
	} {
		f, _ := arrowType(c.col)
		if f.Type.String() != c.want || !f.Nullable {
			t.Errorf("%s → %s, want %s", c.col.typ, f.Type, c.want)
		}
		if _, ok := f.Metadata.GetValue(MetaScale); ok && c.col.typ == "DOUBLE" {
			t.Errorf("DOUBLE with no fixed decimals got a mysql.scale")
		}
	}
}

// The converter allocates nothing per value once its builders have grown.
func TestConverterAppendDoesNotAllocate(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	cols := []columnType{
		fakeCol{name: "i", typ: "BIGINT"},
		fakeCol{name: "d", typ: "DECIMAL", prec: 12, sc: 2, dec: true},
		fakeCol{name: "s", typ: "VARCHAR"},
		fakeCol{name: "t", typ: "DATETIME", prec: 6, sc: 6, dec: true},
		fakeCol{name: "f", typ: "FLOAT"},
	}
	c := newConverterFrom(cols, mem, 1<<16)
	defer c.Release()
	var iv, fv any = int64(7), float32(2.5)
	*c.dest[0].(*any) = iv
	*c.dest[1].(*sql.RawBytes) = []byte("-1234.50")
	*c.dest[2].(*sql.RawBytes) = []byte("héllo")
	*c.dest[3].(*sql.RawBytes) = []byte("2024-02-29 23:59:58.123456")
	*c.dest[4].(*any) = fv
	for range 1000 { // grow the builders
		if err := c.appendRow(); err != nil {
			t.Fatal(err)
		}
	}
	allocs := testing.AllocsPerRun(1000, func() { _ = c.appendRow() })
	if allocs != 0 {
		t.Errorf("appendRow allocates %v times per row", allocs)
	}
	rec := c.flush()
	defer rec.Release()
	if rec.Schema().Field(1).Type.(*arrow.Decimal128Type).Scale != 2 {
		t.Errorf("decimal scale lost")
	}
}

// BenchmarkDecimalParse compares the hand-written parser with arrow's
// FromString, which goes through math/big.
func BenchmarkDecimalParse(b *testing.B) {
	in := []byte("-1234567890123.45")
	b.Run("parseDecimal128", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = parseDecimal128(in, 2)
		}
	})
	b.Run("decimal128.FromString", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = decimal128.FromString(string(in), 15, 2)
		}
	})
	in256 := []byte("-12345678901234567890123456789012345.123456789012345678901234567890")
	b.Run("parseDecimal256", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = parseDecimal256(in256, 30)
		}
	})
	b.Run("decimal256.FromString", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = decimal256.FromString(string(in256), 65, 30)
		}
	})
}
