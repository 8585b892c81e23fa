package pinexec

import (
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// bitsColumns are the columns of the BIT_ aggregate oracle's table: each
// type an argument can have, with the definition MariaDB gives it.
var bitsColumns = []struct {
	name, ddl string
	field     *querypb.Field
}{
	{"id", "INT", field("id", sqltypes.Int32, 63, 11)},
	{"i", "INT", field("i", sqltypes.Int32, 63, 11)},
	{"u", "BIGINT UNSIGNED", unsignedField(field("u", sqltypes.Uint64, 63, 20))},
	{"d", "DECIMAL(30,2)", decField("d", 30, 2)},
	{"du", "DECIMAL(30,2) UNSIGNED", unsignedField(decField("du", 30, 2))},
	{"f", "DOUBLE", withDecimals(field("f", sqltypes.Float64, 63, 22), 31)},
	{"fl", "FLOAT", withDecimals(field("fl", sqltypes.Float32, 63, 12), 31)},
	{"v", "VARCHAR(40)", field("v", sqltypes.VarChar, utf8mb4GeneralCI, 160)},
	{"c", "CHAR(10)", field("c", sqltypes.Char, utf8mb4GeneralCI, 40)},
	{"dt", "DATETIME(6)", withDecimals(field("dt", sqltypes.Datetime, 63, 26), 6)},
	{"tm", "TIME(3)", withDecimals(field("tm", sqltypes.Time, 63, 14), 3)},
	{"dd", "DATE", field("dd", sqltypes.Date, 63, 10)},
}

func unsignedField(f *querypb.Field) *querypb.Field {
	f.Flags |= uint32(querypb.MySqlFlag_UNSIGNED_FLAG)
	return f
}

func withDecimals(f *querypb.Field, d uint32) *querypb.Field {
	f.Decimals = d
	return f
}

// bitsRows are the oracle's rows, one value of each column per row (SQL
// literals), chosen around every rounding, clamping and parsing rule of
// package bitarg.
var bitsRows = [][]string{
	{"1", "-1", "0", "1.5", "1.5", "2.5", "2.5", "'9E'", "'9E'", "'2000-01-01 12:00:00.5'", "'-1:02:03.7'", "'1988-01-01'"},
	{"2", "-100", "18446744073709551615", "-1.5", "0", "-2.5", "-0.5", "'-1'", "' 10'", "'2000-01-01 12:00:00.4'", "'1:02:03.5'", "'2000-02-29'"},
	{"3", "2147483647", "9223372036854775808", "1e20", "1.5e19", "1e20", "1e20", "'abc'", "'10.9'", "NULL", "'-838:59:59'", "NULL"},
	{"4", "-2147483648", "5", "-1e20", "0.5", "-1e20", "-1e20", "''", "'1e1'", "'1999-12-31 23:59:59.999999'", "'00:00:00.001'", "'1000-01-01'"},
	{"5", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL"},
	{"6", "0", "1", "-0.5", "0.49", "0.5", "1.5", "'18446744073709551615'", "'-9223372036854775809'", "'2020-01-01'", "'-00:00:01'", "'2020-12-31'"},
	{"7", "7", "2", "2.5", "2.5", "1.5", "3.5", "'99999999999999999999'", "'+5'", "'1970-01-01 00:00:01'", "'12:00:00'", "'1970-01-01'"},
	{"8", "8", "3", "-2.5", "9999999999999999999", "-1e19", "1e19", "'-99999999999999999999'", "'\\t7x'", "NULL", "NULL", "NULL"},
	{"9", "9", "4", "9223372036854775807.5", "18446744073709551615.49", "9.2e18", "-9.3e18", "' -3x'", "'- 5'", "NULL", "NULL", "NULL"},
	{"10", "10", "6", "-9223372036854775808.5", "18446744073709551615.5", "4.5", "-4.5", "'9223372036854775808'", "'0x1F'", "NULL", "NULL", "NULL"},
}

// bitsArgs are BIT_ aggregate arguments over bitsColumns: bare columns
// of every type and expressions of each result type. A FLOAT inside an
// expression (`fl` * 1) is not among them: the pin holds a FLOAT as the 6
// digits MariaDB sends, MariaDB computes with the float's bits, and the
// evaluator refuses it (evalexpr inexactConversion), so such a statement
// runs on the replicas.
var bitsArgs = []string{
	"`i`", "-`i`", "`i` - 100", "`i` * 1.5", "`u`", "`d`", "`d` + 0", "-`d`", "`du`", "`du` + 0", "`f`", "`f` * 2", "-`f`", "`fl`",
	"`v`", "CONCAT(`v`)", "REPLACE(`v`, 'a', 'b')", "CONCAT(`v`, 'x')", "`c`", "TRIM(`c`)", "IF(`i` > 0, `v`, `d`)", "IF(`i` > 0, `v`, `f`)", "IF(`i` > 0, `dt`, `v`)", "CASE WHEN `i` > 5 THEN `d` ELSE `v` END", "COALESCE(`v`, `i`)",
	"`dt`", "`tm`", "`dd`", "`dt` + 0", "`dd` + 0", "ROUND(`f`)", "`i` DIV 2", "`i` | 0", "0x41", "0x0102030405060708090A", "b'1000001'", "X'41'", "'-7'",
}

// TestBitArgumentsAgainstMariaDB computes BIT_OR, BIT_AND and BIT_XOR of
// each of bitsArgs per row and over the whole table in memory, and asks
// MariaDB the same of the same rows: the partials must be equal.
func TestBitArgumentsAgainstMariaDB(t *testing.T) {
	db := oracleDB(t)
	const table = "pinned_oracle_bits"
	var ddl, names []string
	var fields []*querypb.Field
	for _, c := range bitsColumns {
		ddl = append(ddl, c.name+" "+c.ddl)
		names = append(names, c.name)
		fields = append(fields, c.field)
	}
	var tuples []string
	for _, r := range bitsRows {
		tuples = append(tuples, "("+strings.Join(r, ", ")+")")
	}
	for _, q := range []string{
		"DROP TABLE IF EXISTS " + table,
		"CREATE TABLE " + table + " (" + strings.Join(ddl, ", ") + ")",
		"SET SESSION sql_mode = ''",
		"INSERT INTO " + table + " VALUES " + strings.Join(tuples, ", "),
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	defer db.Exec("DROP TABLE " + table)
	// The pin holds the rows as MariaDB stored and sends them.
	stored := oracleRows(t, db, "SELECT "+strings.Join(names, ", ")+" FROM "+table+" ORDER BY id")
	tbl := buildTable(t, "bits", fields, stored)
	env := newEnv(t)
	out := func(name string) *querypb.Field {
		return unsignedField(field(name, sqltypes.Uint64, 63, 21))
	}
	for _, arg := range bitsArgs {
		aggs := fmt.Sprintf("BIT_OR(%[1]s), BIT_AND(%[1]s), BIT_XOR(%[1]s)", arg)
		for _, grouped := range []bool{true, false} {
			frag := "SELECT " + aggs + " FROM `db`.`bits`"
			fs := []*querypb.Field{out("o"), out("a"), out("x")}
			if grouped {
				frag = "SELECT `id`, " + aggs + " FROM `db`.`bits` GROUP BY `id`"
				fs = append([]*querypb.Field{field("id", sqltypes.Int32, 63, 11)}, fs...)
			}
			got, _ := runAs(t, env, tbl, frag, fs, false, func(v sqltypes.Value) string { return v.ToString() })
			var want []string
			for _, r := range oracleRows(t, db, strings.ReplaceAll(frag, "`db`.`bits`", table)) {
				want = append(want, strings.Join(r, "|"))
			}
			if fmt.Sprint(got) != fmt.Sprint(slices.Sorted(slices.Values(want))) {
				t.Errorf("%s:\npinned  %v\nMariaDB %v", frag, got, slices.Sorted(slices.Values(want)))
			}
		}
	}
}

// oracleRows runs q on the oracle and returns its rows as text ("NULL"
// for NULL).
func oracleRows(t *testing.T, db *sql.DB, q string) [][]string {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		r := make([]string, len(cols))
		for i, v := range vals {
			r[i] = "NULL"
			if v.Valid {
				r[i] = v.String
			}
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return out
}

// TestBitOverEnumRefused: MariaDB adds an ENUM or SET column's member
// numbers, which the pin does not hold; such a statement runs elsewhere.
func TestBitOverEnumRefused(t *testing.T) {
	for _, typ := range []querypb.Type{sqltypes.Enum, sqltypes.Set} {
		tbl := buildTable(t, "e", []*querypb.Field{field("id", sqltypes.Int32, 63, 11), field("e", typ, utf8mb4GeneralCI, 4)},
			[][]string{{"1", "b"}, {"2", "a"}})
		_, err := Compile(newEnv(t), tbl, "SELECT BIT_OR(`e`) FROM `db`.`e`", []*querypb.Field{unsignedField(field("o", sqltypes.Uint64, 63, 21))})
		if !errors.Is(err, ErrUnsupported) {
			t.Errorf("BIT_OR over %s: %v, want ErrUnsupported", typ, err)
		}
	}
}
