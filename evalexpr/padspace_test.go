package evalexpr

import (
	"strconv"
	"testing"

	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// evalCase is an expression and MariaDB 10.11's answer for each value
// ("NULL" for NULL).
type evalCase struct {
	src  string
	want []string
}

// checkCases evaluates each case over one row per value, the value in
// every column of the layout, and compares with MariaDB's answers
// (numbers by value: the client MariaDB's answers were read with prints
// DOUBLEs its own way).
func checkCases(t *testing.T, layout *Layout, fields []*querypb.Field, values []*string, cases []evalCase) {
	t.Helper()
	env, err := NewEnv("10.11.19-MariaDB")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		x, err := env.Compile(c.src, layout)
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		ev := env.NewEvaluator()
		for i, v := range values {
			row := make([]sqltypes.Value, len(fields))
			for j, f := range fields {
				if v != nil {
					row[j] = sqltypes.MakeTrusted(f.Type, []byte(*v))
				}
			}
			got, _, err := ev.Eval(x, row)
			if err != nil {
				t.Errorf("%s over %q: %v", c.src, str(v), err)
				continue
			}
			g := got.ToString()
			if got.IsNull() {
				g = "NULL"
			}
			if g != c.want[i] && !sameNumber(g, c.want[i]) {
				t.Errorf("%s over %q = %q, MariaDB %q", c.src, str(v), g, c.want[i])
			}
		}
	}
}

func str(v *string) string {
	if v == nil {
		return "NULL"
	}
	return *v
}

func sameNumber(a, b string) bool {
	x, err1 := strconv.ParseFloat(a, 64)
	y, err2 := strconv.ParseFloat(b, 64)
	return err1 == nil && err2 == nil && x == y
}

func strs(vs ...string) []*string {
	out := make([]*string, len(vs))
	for i := range vs {
		if vs[i] != "NULL" {
			out[i] = &vs[i]
		}
	}
	return out
}

// TestPadSpace: comparisons of text under PAD SPACE collations compare as
// if the shorter string were padded with spaces ('abc' = 'abc  ', 'abc' >
// 'abc\t'), under utf8mb4_general_ci (g), utf8mb4_unicode_ci (u),
// utf8mb4_bin (b, typed VARBINARY for its BINARY flag) and latin1 (l);
// LIKE does not pad. vitess' evalengine compared 'abc' < 'abc ' and
// ignored LIKE's ESCAPE. The answers are MariaDB's over a table of those
// columns holding each value.
func TestPadSpace(t *testing.T) {
	fields := []*querypb.Field{
		{Name: "g", Type: sqltypes.VarChar, Charset: 45},
		{Name: "u", Type: sqltypes.VarChar, Charset: 224},
		{Name: "b", Type: sqltypes.VarBinary, Charset: 46, Flags: uint32(querypb.MySqlFlag_BINARY_FLAG)},
		{Name: "l", Type: sqltypes.VarChar, Charset: 8},
	}
	layout := NewLayout([]string{"g", "u", "b", "l"}, fields)
	values := strs("abc", "abc ", "ABC  ", "abc\t", "ab", "abd", "", " ", "Straße ", "strasse", "NULL")
	F := func(s ...string) []string { return s }
	checkCases(t, layout, fields, values, []evalCase{
		{"g = 'ABC'", F("1", "1", "1", "0", "0", "0", "0", "0", "0", "0", "NULL")},
		{"g <=> 'abc '", F("1", "1", "1", "0", "0", "0", "0", "0", "0", "0", "0")},
		{"g <> 'abc'", F("0", "0", "0", "1", "1", "1", "1", "1", "1", "1", "NULL")},
		{"g < 'abc'", F("0", "0", "0", "1", "1", "0", "1", "1", "0", "0", "NULL")},
		{"g <= 'abc'", F("1", "1", "1", "1", "1", "0", "1", "1", "0", "0", "NULL")},
		{"g > 'abc'", F("0", "0", "0", "0", "0", "1", "0", "0", "1", "1", "NULL")},
		{"g >= 'abc '", F("1", "1", "1", "0", "0", "1", "0", "0", "1", "1", "NULL")},
		{"NOT (g <> 'ABC')", F("1", "1", "1", "0", "0", "0", "0", "0", "0", "0", "NULL")},
		{"g BETWEEN 'abc' AND 'abc'", F("1", "1", "1", "0", "0", "0", "0", "0", "0", "0", "NULL")},
		{"g NOT BETWEEN 'abc ' AND 'abd'", F("0", "0", "0", "1", "1", "0", "1", "1", "1", "1", "NULL")},
		{"g IN ('ABC', 'ab ')", F("1", "1", "1", "0", "1", "0", "0", "0", "0", "0", "NULL")},
		{"g NOT IN ('abc', NULL)", F("0", "0", "0", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL")},
		{"g IN ('x', NULL)", F("NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL")},
		{"u = 'strasse '", F("0", "0", "0", "0", "0", "0", "0", "0", "1", "1", "NULL")},
		{"u < 'abc '", F("0", "0", "0", "1", "1", "0", "1", "1", "0", "0", "NULL")},
		{"u IN ('abc ')", F("1", "1", "1", "0", "0", "0", "0", "0", "0", "0", "NULL")},
		{"STRCMP(u, 'abc ')", F("0", "0", "0", "-1", "-1", "1", "-1", "-1", "1", "1", "NULL")},
		{"b = 'abc'", F("1", "1", "0", "0", "0", "0", "0", "0", "0", "0", "NULL")},
		{"b = 'abc   '", F("1", "1", "0", "0", "0", "0", "0", "0", "0", "0", "NULL")},
		{"b > 'abc'", F("0", "0", "0", "0", "0", "1", "0", "0", "0", "1", "NULL")},
		{"b = g", F("1", "1", "1", "1", "1", "1", "1", "1", "1", "1", "NULL")},
		{"l = 'abc'", F("1", "1", "1", "0", "0", "0", "0", "0", "0", "0", "NULL")},
		{"l < 'abc '", F("0", "0", "0", "1", "1", "0", "1", "1", "0", "0", "NULL")},
		{"STRCMP(l, 'ABC')", F("0", "0", "0", "-1", "-1", "1", "-1", "-1", "1", "1", "NULL")},
		{"FIELD(g, 'x', 'abc ')", F("2", "2", "2", "0", "0", "0", "0", "0", "0", "0", "0")},
		{"NULLIF(g, 'abc ')", F("NULL", "NULL", "NULL", "abc\t", "ab", "abd", "", " ", "Straße ", "strasse", "NULL")},
		{"CASE g WHEN 'abc ' THEN 'y' ELSE 'n' END", F("y", "y", "y", "n", "n", "n", "n", "n", "n", "n", "n")},
		{"LEAST(g, 'abc ')", F("abc", "abc ", "ABC  ", "abc\t", "ab", "abc ", "", " ", "abc ", "abc ", "NULL")},
		{"GREATEST(b, 'abc')", F("abc", "abc ", "abc", "abc", "abc", "abd", "abc", "abc", "abc", "strasse", "NULL")},
		{"g = concat(g, ' ')", F("1", "1", "1", "1", "1", "1", "1", "1", "1", "1", "NULL")},
		{"g = concat(g, '\\t')", F("0", "0", "0", "0", "0", "0", "0", "0", "0", "0", "NULL")},
		{"IF(b = 'abc ', 1, 0)", F("1", "1", "0", "0", "0", "0", "0", "0", "0", "0", "0")},
		{"g LIKE 'abc'", F("1", "0", "0", "0", "0", "0", "0", "0", "0", "0", "NULL")},
		{"g LIKE 'abc '", F("0", "1", "0", "0", "0", "0", "0", "0", "0", "0", "NULL")},
		{"g LIKE 'a!%' ESCAPE '!'", F("0", "0", "0", "0", "0", "0", "0", "0", "0", "0", "NULL")},
		{"g LIKE 'a|_c%' ESCAPE '|'", F("0", "0", "0", "0", "0", "0", "0", "0", "0", "0", "NULL")},
		{"g NOT LIKE 'ab|c%' ESCAPE '|'", F("0", "0", "0", "0", "1", "1", "1", "1", "1", "1", "NULL")},
		{"b LIKE 'A%' ESCAPE '!'", F("0", "0", "1", "0", "0", "0", "0", "0", "0", "0", "NULL")},
		{"u LIKE 'STRA_E%' ESCAPE '_'", F("0", "0", "0", "0", "0", "0", "0", "0", "0", "0", "NULL")},
		{"g LIKE '%' ESCAPE '%'", F("1", "1", "1", "1", "1", "1", "1", "1", "1", "1", "NULL")},
	})
}

// TestTextAsNumber: text read as a number takes the longest numeric
// prefix after white space, an exponent mark without digits excluded
// ('9E' is 9); vitess read '9E', '9e-' and '\n5' as 0 and 'inf' as
// infinity. The answers are MariaDB's.
func TestTextAsNumber(t *testing.T) {
	fields := []*querypb.Field{{Name: "n", Type: sqltypes.VarChar, Charset: 45}}
	layout := NewLayout([]string{"n"}, fields)
	values := strs("9E", "9e-", "9E+", "10a", "1e1", "\n5", "inf", "", "abc", "-9E+x", "0x10", " 12.5e", ".5E", "NULL")
	F := func(s ...string) []string { return s }
	checkCases(t, layout, fields, values, []evalCase{
		{"n + 0", F("9", "9", "9", "10", "10", "5", "0", "0", "0", "-9", "0", "12.5", "0.5", "NULL")},
		{"n * 2", F("18", "18", "18", "20", "20", "10", "0", "0", "0", "-18", "0", "25", "1", "NULL")},
		{"-n", F("-9", "-9", "-9", "-10", "-10", "-5", "0", "0", "0", "9", "0", "-12.5", "-0.5", "NULL")},
		{"n > 5", F("1", "1", "1", "1", "1", "0", "0", "0", "0", "0", "0", "1", "0", "NULL")},
		{"n = 9", F("1", "1", "1", "0", "0", "0", "0", "0", "0", "0", "0", "0", "0", "NULL")},
		{"n IN (9, 10)", F("1", "1", "1", "1", "1", "0", "0", "0", "0", "0", "0", "0", "0", "NULL")},
		{"n BETWEEN 8 AND 10", F("1", "1", "1", "1", "1", "0", "0", "0", "0", "0", "0", "0", "0", "NULL")},
		{"ABS(n)", F("9", "9", "9", "10", "10", "5", "0", "0", "0", "9", "0", "12.5", "0.5", "NULL")},
		{"ROUND(n)", F("9", "9", "9", "10", "10", "5", "0", "0", "0", "-9", "0", "12", "0", "NULL")},
		{"n || 0", F("1", "1", "1", "1", "1", "1", "0", "0", "0", "1", "0", "1", "1", "NULL")},
		{"n AND 1", F("1", "1", "1", "1", "1", "1", "0", "0", "0", "1", "0", "1", "1", "NULL")},
		{"NOT n", F("0", "0", "0", "0", "0", "0", "1", "1", "1", "0", "1", "0", "0", "NULL")},
		{"IF(n, 'y', 'n')", F("y", "y", "y", "y", "y", "y", "n", "n", "n", "y", "n", "y", "y", "n")},
		{"n IS TRUE", F("1", "1", "1", "1", "1", "1", "0", "0", "0", "1", "0", "1", "1", "0")},
		{"CASE WHEN n THEN 1 ELSE 0 END", F("1", "1", "1", "1", "1", "1", "0", "0", "0", "1", "0", "1", "1", "0")},
		{"MOD(n, 4)", F("1", "1", "1", "2", "2", "1", "0", "0", "0", "-1", "0", "0.5", "0.5", "NULL")},
		{"n % 4", F("1", "1", "1", "2", "2", "1", "0", "0", "0", "-1", "0", "0.5", "0.5", "NULL")},
		{"FLOOR(n)", F("9", "9", "9", "10", "10", "5", "0", "0", "0", "-9", "0", "12", "0", "NULL")},
		{"CAST(n AS DOUBLE)", F("9", "9", "9", "10", "10", "5", "0", "0", "0", "-9", "0", "12.5", "0.5", "NULL")},
		{"n / 2", F("4.5", "4.5", "4.5", "5", "5", "2.5", "0", "0", "0", "-4.5", "0", "6.25", "0.25", "NULL")},
		{"n = '9'", F("0", "0", "0", "0", "0", "0", "0", "0", "0", "0", "0", "0", "0", "NULL")},
		{"n XOR 0", F("1", "1", "1", "1", "1", "1", "0", "0", "0", "1", "0", "1", "1", "NULL")},
		{"CEIL(n)", F("9", "9", "9", "10", "10", "5", "0", "0", "0", "-9", "0", "13", "1", "NULL")},
		{"n - 0.5", F("8.5", "8.5", "8.5", "9.5", "9.5", "4.5", "-0.5", "-0.5", "-0.5", "-9.5", "-0.5", "12", "0", "NULL")},
	})
}
