package evalexpr

import (
	"testing"

	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// TestYearLiterals: a constant compared with a YEAR column is read as
// MariaDB stores it in the column (70 is 1970, '05' 2005, '0' 2000, 0
// stays 0000), in every comparison form; constants a YEAR cannot hold
// and expressions over the column are left alone. Text compared with a
// BIGINT is the integer it spells.
func TestYearLiterals(t *testing.T) {
	env, err := NewEnv("10.11.19-MariaDB")
	if err != nil {
		t.Fatal(err)
	}
	layout := NewLayout([]string{"y", "n", "u", "b"}, []*querypb.Field{{Type: sqltypes.Year, ColumnLength: 4}, {Type: sqltypes.Int32},
		{Type: sqltypes.Uint64}, {Type: sqltypes.Int64}})
	ev := env.NewEvaluator()
	for _, c := range []struct {
		src, y, want string
	}{
		{"`y` = 70", "1970", "1"},
		{"70 = `y`", "1970", "1"},
		{"`y` = 5", "2005", "1"},
		{"`y` = _utf8mb4'05'", "2005", "1"},
		{"`y` = '70'", "1970", "1"},
		{"`y` = '0'", "2000", "1"},
		{"`y` = '00'", "2000", "1"},
		{"`y` = 0", "2000", "0"},
		{"`y` = 0", "0", "1"},
		{"`y` = '0000'", "0", "1"},
		{"`y` <=> 99", "1999", "1"},
		{"`y` < 75", "2074", "0"},
		{"`y` < 75", "1974", "1"},
		{"`y` IN (1, 70)", "2001", "1"},
		{"`y` NOT IN (1, 70)", "1970", "0"},
		{"`y` BETWEEN 70 AND 80", "1975", "1"},
		{"`y` = 150", "2050", "0"}, // out of YEAR's range: compared as it is
		{"`y` + 0 = 70", "1970", "0"},
		{"`n` = 70", "70", "1"},
		// BIGINT: text that spells an integer the column holds is that
		// integer, not a DOUBLE (18446744073709551614 = the max as DOUBLEs).
		{"`u` = '18446744073709551615'", "", "0"},
		{"`u` IN ('18446744073709551614')", "", "1"},
		{"`b` = '-9223372036854775807'", "", "1"},
		{"`b` > '-9223372036854775808'", "", "1"},
		{"`b` < '9223372036854775806'", "", "1"},
	} {
		x, err := env.Compile(c.src, layout)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		y := sqltypes.MakeTrusted(sqltypes.Year, []byte(c.y))
		if c.y == "" {
			y = sqltypes.NULL
		}
		v, _, err := ev.Eval(x, []sqltypes.Value{y, sqltypes.NewInt64(70), sqltypes.NewUint64(18446744073709551614), sqltypes.NewInt64(-9223372036854775807)})
		if err != nil || v.ToString() != c.want {
			t.Errorf("%s with y = %s: %v, %v; want %s", c.src, c.y, v, err, c.want)
		}
	}
	for _, src := range []string{"`y` = 70.5", "`y` = 'abc'"} {
		x, err := env.Compile(src, layout)
		if err != nil {
			t.Fatal(err)
		}
		if x.Inexact() == "" {
			t.Errorf("%s: not reported inexact", src)
		}
	}
}
