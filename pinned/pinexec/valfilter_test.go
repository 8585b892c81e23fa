package pinexec

import (
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/arrowexec"
	"github.com/shoaldb/shoal/pinned"
)

// decField is a DECIMAL(prec, scale) column as MariaDB describes it.
func decField(name string, prec, scale uint32) *querypb.Field {
	f := field(name, sqltypes.Decimal, 63, prec+2)
	f.Decimals = scale
	return f
}

// amountsFields are the columns value filters read: a wide BIGINT, a
// DECIMAL(10,2), a DECIMAL(18,4) whose sums pass int64, a DOUBLE, a
// DECIMAL(30,2) too wide for them, and coded columns beside.
func amountsFields() []*querypb.Field {
	price := field("price", sqltypes.Float64, 63, 22)
	price.Decimals = 31
	at := field("at", sqltypes.Datetime, 63, 23)
	at.Decimals = 3
	return []*querypb.Field{
		field("id", sqltypes.Int64, 63, 20),
		decField("amount", 10, 2),
		decField("big", 18, 4),
		price,
		field("kind", sqltypes.Int32, 63, 11),
		field("grp", sqltypes.VarChar, utf8mb4GeneralCI, 8),
		decField("wide", 30, 2),
		field("day", sqltypes.Date, 63, 10),
		at,
	}
}

// scaled writes v / 10^scale as DECIMAL text.
func scaled(v int64, scale int) string {
	s := fmt.Sprintf("%d", v)
	return string(scaledText([]byte(s), int32(scale)))
}

// amountsRows are deterministic rows of amountsFields, both signs, NULLs
// in amount and price, and duplicate values to compare equal with.
func amountsRows(n int) [][]sqltypes.Value {
	var out [][]sqltypes.Value
	for i := 0; i < n; i++ {
		dec := func(s string) sqltypes.Value { return sqltypes.MakeTrusted(sqltypes.Decimal, []byte(s)) }
		amount := dec(scaled(int64(i*7919%200001-100000), 2))
		if i%17 == 0 {
			amount = sqltypes.NULL
		}
		price := sqltypes.MakeTrusted(sqltypes.Float64, []byte(fmt.Sprint(float64(i*37%1000)/8-20.5)))
		if i%11 == 0 {
			price = sqltypes.NULL
		}
		at := sqltypes.MakeTrusted(sqltypes.Datetime, []byte(fmt.Sprintf("2021-%02d-%02d %02d:%02d:%02d.%03d", i%12+1, i%28+1, i%24, i%60, i%6*10, i%3*500)))
		if i%13 == 0 {
			at = sqltypes.NULL
		}
		big := int64(i)*982451653*100003%(1e18-1) - 15e16
		out = append(out, []sqltypes.Value{
			sqltypes.NewInt64(int64(i)*1_000_003 - 1_500_000_000),
			amount,
			dec(scaled(big, 4)),
			price,
			sqltypes.NewInt64(int64(i % 5)),
			sqltypes.NewVarChar(fmt.Sprintf("g%d", i%8)),
			dec(scaled(int64(i)*12345678901, 2)),
			sqltypes.MakeTrusted(sqltypes.Date, []byte(fmt.Sprintf("2020-%02d-%02d", i%12+1, i%28+1))),
			at,
		})
	}
	return out
}

func amountsTable(t testing.TB, rows [][]sqltypes.Value) *pinned.Table {
	t.Helper()
	fields := amountsFields()
	rb := arrowexec.NewRowBuilder(memory.NewGoAllocator(), arrowexec.SchemaFor(fields))
	defer rb.Release()
	for _, r := range rows {
		if err := rb.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	b := rb.NewRecordBatch()
	defer b.Release()
	tbl, err := pinned.Build("db", "amounts", fields, []arrow.RecordBatch{b})
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// Expected kinds beside the filter kinds: not vectorized, or either.
const (
	genericPath filterKind = 255
	anyKind     filterKind = 254
)

// valueFilterCases are WHERE conjuncts over amountsFields and the filter
// each compiles to (generic: the statement is not vectorized).
var valueFilterCases = []struct {
	where string
	kind  filterKind
}{
	{"`amount` > 100", fVals},
	{"`amount` >= 100.005", fVals},
	{"`amount` < -12.5", fVals},
	{"`amount` <= 0", fVals},
	{"`amount` = -920.81", fVals},
	{"`amount` <> -920.81", fVals},
	{"`amount` = 12.345", fVals},
	{"`amount` <> 12.345", fVals},
	{"`amount` > -12.345", fVals},
	{"`amount` <= -12.345", fVals},
	{"500 < `amount`", fVals},
	{"`amount` BETWEEN -10 AND 10.5", fVals},
	{"`amount` NOT BETWEEN -10 AND 10.5", fVals},
	{"`amount` IN (-920.81, 1, 2.5, 12.345)", fVals},
	{"`amount` NOT IN (-920.81, 3)", fVals},
	{"`amount` > 10*10", fVals},
	{"`amount` > -99999999999999999999", fVals},
	{"`amount` < 99999999999999999999.5", fVals},
	{"`amount` > 1e2", genericPath},
	{"`amount` > '100'", genericPath},
	{"`big` > 12345.6789", fVals},
	{"`big` < -10000000000000", fVals},
	{"`big` BETWEEN -5000000000000.00005 AND 5000000000000", fVals},
	{"`price` > 10", fVals},
	{"`price` >= 10.125", fVals},
	{"`price` < -3.5", fVals},
	{"`price` = 12.375", fVals},
	{"`price` <> 12.375", fVals},
	{"`price` IN (1.125, 2.5, 1e1)", fVals},
	{"`price` > 1e1", fVals},
	{"`price` BETWEEN 0 AND 5.5", fVals},
	{"`price` > '10'", genericPath},
	{"`id` > 0", fVals},
	{"`id` <= -1000000000", fVals},
	{"`id` BETWEEN -5 AND 500000000", fVals},
	{"`id` IN (1000003, 7, -1498999997)", fVals},
	{"`id` = 1.5", fVals},
	{"`id` > -1499999999.5", fVals},
	{"`id` > 1000000 + 3", fVals},
	{"`id` < 99999999999999999999", genericPath},
	{"`id` > -9223372036854775807", fVals},
	{"`id` > 1e3", genericPath},
	{"`wide` > 100", genericPath},
	{"`at` >= '2021-06-01'", fVals},
	{"`at` < DATE '2021-03-15'", fVals},
	{"`at` > '2021-05-05 04:04:20'", fVals},
	{"`at` = '2021-05-05 04:04:20.500'", fVals},
	{"`at` <> '2021-05-05 04:04:20.5'", fVals},
	{"`at` BETWEEN '2021-02-01' AND '2021-02-28 23:59:59.999'", fVals},
	{"`at` >= TIMESTAMP '2021-07-01 12:00:00'", fVals},
	{"`at` >= DATE '2021-01-01' + INTERVAL 100 DAY", anyKind},
	{"`at` > '2021-05-05T04:04:20'", genericPath},
	{"`day` >= DATE '2020-01-01' + INTERVAL 45 DAY", fRange},
	{"`day` < DATE '2020-03-01' - INTERVAL 1 DAY", fRange},
	{"`grp` = CONCAT('g', 3)", fRange},
	{"`grp` IN (CONCAT('g', 3), CONCAT('G', 2+3))", fTable},
	{"`kind` <> 2 + 1", fRange},
	{"`amount` > ROUND(12.345, 1)", anyKind},
	{"`amount` > 100 AND `price` < 50 AND `id` > 0", anyKind},
	{"`day` >= NOW() - INTERVAL 1 DAY", genericPath},
}

// amountsAgg is the aggregate the cases run: every aggregate the value
// columns feed, per coded key.
const amountsAgg = "SELECT `kind`, COUNT(1), SUM(`amount`), MIN(`amount`), MAX(`amount`), SUM(`big`), MIN(`big`), COUNT(`price`), MAX(`id`) FROM `db`.`amounts` WHERE %s GROUP BY `kind`"

func amountsAggFields() []*querypb.Field {
	return []*querypb.Field{
		field("kind", sqltypes.Int32, 63, 11), field("c", sqltypes.Int64, 63, 21),
		decField("s", 32, 2), decField("mn", 10, 2), decField("mx", 10, 2), decField("sb", 38, 4), decField("mb", 18, 4),
		field("cp", sqltypes.Int64, 63, 21), field("mi", sqltypes.Int64, 63, 20),
	}
}

// TestValueFilters checks which filter each case compiles to and that the
// vectorized answer is the generic (evalengine, row at a time) one, for
// an aggregate statement and a row statement.
func TestValueFilters(t *testing.T) {
	env := newEnv(t)
	tbl := amountsTable(t, amountsRows(3000))
	defer tbl.Release()
	for _, c := range valueFilterCases {
		t.Run(c.where, func(t *testing.T) {
			frag := fmt.Sprintf(amountsAgg, c.where)
			p, err := Compile(env, tbl, frag, amountsAggFields())
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case c.kind == anyKind:
			case c.kind == genericPath:
				if p.fast != nil {
					t.Errorf("vectorized; want the generic path")
				}
			case p.fast == nil:
				t.Fatalf("not vectorized")
			case len(p.fast.filters) != 1 || p.fast.filters[0].kind != c.kind:
				t.Errorf("filter kind %d, want %d", p.fast.filters[0].kind, c.kind)
			}
			want, _ := run(t, env, tbl, frag, amountsAggFields(), false)
			got, _ := run(t, env, tbl, frag, amountsAggFields(), true)
			if !slices.Equal(got, want) {
				t.Errorf("vectorized %v\ngeneric    %v", got, want)
			}
			rfrag := "SELECT `id` FROM `db`.`amounts` WHERE " + c.where
			rf := []*querypb.Field{field("id", sqltypes.Int64, 63, 20)}
			want, _ = run(t, env, tbl, rfrag, rf, false)
			if got, _ := run(t, env, tbl, rfrag, rf, true); !slices.Equal(got, want) {
				t.Errorf("row statement: vectorized %d rows, generic %d", len(got), len(want))
			}
		})
	}
}

// TestValueFiltersAgainstMariaDB asks MariaDB each case's aggregate over
// the same rows and compares the text it sends with the pin's.
func TestValueFiltersAgainstMariaDB(t *testing.T) {
	db := oracleDB(t)
	rows := amountsRows(3000)
	if _, err := db.Exec("DROP TABLE IF EXISTS pinned_oracle_amounts"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE pinned_oracle_amounts (id BIGINT, amount DECIMAL(10,2), big DECIMAL(18,4), price DOUBLE, " +
		"kind INT, grp VARCHAR(8) COLLATE utf8mb4_general_ci, wide DECIMAL(30,2), day DATE, at DATETIME(3))"); err != nil {
		t.Fatal(err)
	}
	defer db.Exec("DROP TABLE pinned_oracle_amounts")
	for start := 0; start < len(rows); start += 500 {
		var ph []string
		var args []any
		for _, r := range rows[start:min(start+500, len(rows))] {
			ph = append(ph, "(?,?,?,?,?,?,?,?,?)")
			for _, v := range r {
				if v.IsNull() {
					args = append(args, nil)
				} else {
					args = append(args, v.ToString())
				}
			}
		}
		if _, err := db.Exec("INSERT INTO pinned_oracle_amounts VALUES "+strings.Join(ph, ","), args...); err != nil {
			t.Fatal(err)
		}
	}
	env := newEnv(t)
	tbl := amountsTable(t, rows)
	defer tbl.Release()
	text := func(v sqltypes.Value) string {
		if v.IsNull() {
			return "NULL"
		}
		return v.ToString()
	}
	for _, c := range valueFilterCases {
		if strings.Contains(c.where, "NOW()") {
			continue // the pin and the server would read different clocks
		}
		q := strings.ReplaceAll(strings.ReplaceAll(fmt.Sprintf(amountsAgg, c.where), "`db`.`amounts`", "pinned_oracle_amounts"), "COUNT(1)", "COUNT(*)")
		want, err := queryText(db, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		got, _ := runAs(t, env, tbl, fmt.Sprintf(amountsAgg, c.where), amountsAggFields(), true, text)
		if !slices.Equal(got, want) {
			t.Errorf("%s:\npinned  %v\nMariaDB %v", c.where, got, want)
		}
		if len(want) == 0 && !strings.Contains(c.where, "12.345") && !strings.Contains(c.where, "1.5") && !strings.Contains(c.where, "20.5") {
			t.Errorf("%s: no rows, the case tests nothing", c.where)
		}
	}
}

// queryText runs q and returns its rows as the text MariaDB sent, '|'
// between values, sorted.
func queryText(db *sql.DB, q string) ([]string, error) {
	rs, err := db.Query(q)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	cols, _ := rs.Columns()
	var out []string
	for rs.Next() {
		vals := make([]sql.RawBytes, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			return nil, err
		}
		var s []string
		for _, v := range vals {
			if v == nil {
				s = append(s, "NULL")
			} else {
				s = append(s, string(v))
			}
		}
		out = append(out, strings.Join(s, "|"))
	}
	slices.Sort(out)
	return out, rs.Err()
}
