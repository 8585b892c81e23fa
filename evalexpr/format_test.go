package evalexpr

import (
	"testing"

	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// TestFormat: FORMAT of integers, DECIMALs, DOUBLEs and text as MariaDB 10.11 answers
// (each `want` read from `SELECT FORMAT(<value>, <d>)` there), and the
// forms left unsupported (the statement then passes through).
func TestFormat(t *testing.T) {
	env, err := NewEnv("10.11.19-MariaDB")
	if err != nil {
		t.Fatal(err)
	}
	fields := []*querypb.Field{
		{Name: "d", Type: sqltypes.Decimal, Decimals: 3},
		{Name: "i", Type: sqltypes.Int64},
		{Name: "f", Type: sqltypes.Float64},
	}
	layout := NewLayout([]string{"d", "i", "f"}, fields)
	for _, c := range []struct {
		src, d, i, want string
	}{
		{"FORMAT(d, 2)", "1234567.891", "0", "1,234,567.89"},
		{"FORMAT(d, 2)", "-1234567.895", "0", "-1,234,567.90"},
		{"FORMAT(d, 0)", "0.500", "0", "1"},
		{"FORMAT(d, 0)", "-0.500", "0", "-1"},
		{"FORMAT(d, 2)", "1.005", "0", "1.01"},
		{"FORMAT(d, 50)", "12345.679", "0", "12,345.67900000000000000000000000000000000000"},
		{"FORMAT(d, 2)", "NULL", "0", "NULL"},
		{"FORMAT(d, 1)", "123456789012345678901234567890.123", "0", "123,456,789,012,345,678,901,234,567,890.1"},
		{"FORMAT(d, 2)", "-0.001", "0", "0.00"},
		{"FORMAT(d, 2)", "999.995", "0", "1,000.00"},
		{"FORMAT(i, 2)", "0", "1234", "1,234.00"},
		{"FORMAT(i, 0)", "0", "1000", "1,000"},
		{"FORMAT(i, 0)", "0", "-100", "-100"},
		{"FORMAT(i * 1000, 1, 'en_US')", "0", "-123456", "-123,456,000.0"},
		{"CONCAT('$', FORMAT(d + i, 2))", "0.125", "7", "$7.13"},
	} {
		x, err := env.Compile(c.src, layout)
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		row := []sqltypes.Value{sqltypes.MakeTrusted(sqltypes.Decimal, []byte(c.d)), sqltypes.MakeTrusted(sqltypes.Int64, []byte(c.i)), sqltypes.NewFloat64(1)}
		if c.d == "NULL" {
			row[0] = sqltypes.NULL
		}
		v, _, err := env.NewEvaluator().Eval(x, row)
		got := "NULL"
		if !v.IsNull() {
			got = v.ToString()
		}
		if err != nil || got != c.want {
			t.Errorf("%s over d=%s i=%s: %s, %v; want %s", c.src, c.d, c.i, got, err, c.want)
		}
	}
	// DOUBLEs and text (read as a DOUBLE), as MariaDB 10.11 answers
	// `SELECT FORMAT(<f>e0, <d>)`.
	for _, c := range []struct {
		src  string
		f    float64
		want string
	}{
		{"FORMAT(f, 2)", 1.005, "1.00"},
		{"FORMAT(f, 2)", 0.125, "0.12"},
		{"FORMAT(f, 2)", 2.675, "2.68"},
		{"FORMAT(f, 2)", 1e20, "100,000,000,000,000,000,000.00"},
		{"FORMAT(f, 2)", -0.001, "0.00"},
		{"FORMAT(f, 1)", 123456.789, "123,456.8"},
		{"FORMAT(f, 20)", 1.0 / 3, "0.33333333333333330000"},
		{"FORMAT(f, 17)", 2.0 / 3, "0.66666666666666660"},
		{"FORMAT(f, 0)", 2.5, "2"},
		{"FORMAT(f, 0)", 1.5, "2"},
		{"FORMAT(f, 0)", -1234.5, "-1,234"},
		{"FORMAT(f, 12)", 1e-10, "0.000000000100"},
		{"FORMAT(f, 40)", 12345.678, "12,345.67800000000000000000000000000000000000"},
		{"FORMAT(f, 38)", 0.0001, "0.00010000000000000000000000000000000000"},
		{"FORMAT(f, 3)", 123456789.123456789, "123,456,789.123"},
		{"FORMAT(CONCAT(f, 'x'), 1)", 1234.5, "1,234.5"},
	} {
		x, err := env.Compile(c.src, layout)
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		v, _, err := env.NewEvaluator().Eval(x, []sqltypes.Value{sqltypes.NULL, sqltypes.NULL, sqltypes.NewFloat64(c.f)})
		if err != nil || v.ToString() != c.want {
			t.Errorf("%s over f=%v: %s, %v; want %s", c.src, c.f, v.ToString(), err, c.want)
		}
	}
	for _, src := range []string{"FORMAT(d, i)", "FORMAT(d, 2, 'de_DE')", "FORMAT(d, -1)", "FORMAT(CURDATE(), 1)"} {
		if _, err := env.Compile(src, layout); err == nil {
			t.Errorf("%s compiled: it should pass through (a computed d, another locale, a date)", src)
		}
	}
}
