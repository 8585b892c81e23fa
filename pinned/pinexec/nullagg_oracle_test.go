package pinexec

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/arrowexec"
	"github.com/shoaldb/shoal/pinned"
)

// The NULL-heavy table of the aggregate oracle: batches of nullsBatch
// rows, each with its own NULL pattern in the value columns (every row
// NULL, none, about 40%, about 2%, whole 64-row stretches), a key k in
// runs of 600 rows (one run NULL), a key k2 at random (NULL at
// times) and a key k3 in runs of 1000 rows (runs of both keys part at
// either's edges), so the aggregate loops meet every kind of validity word,
// groups in runs and groups per row.
const (
	nullsBatch   = 1100
	nullsBatches = 5
)

// nullsFields: a key in runs, a dictionary key, then one value column
// per aggregated kind: integers of each stored width (the BIGINT's sums
// pass int64), a DECIMAL, a DATE and a DOUBLE of quarters (exact sums
// in any order, so MariaDB's must be equal).
func nullsFields() []*querypb.Field {
	return []*querypb.Field{
		field("id", sqltypes.Int32, 63, 11),
		field("k", sqltypes.Int8, 63, 4),
		field("k2", sqltypes.VarChar, 45, 16),
		field("ti", sqltypes.Int8, 63, 4),
		field("si", sqltypes.Int16, 63, 6),
		field("i", sqltypes.Int32, 63, 11),
		field("bi", sqltypes.Int64, 63, 20),
		decField("de", 10, 2),
		field("d", sqltypes.Date, 63, 10),
		field("f", sqltypes.Float64, 63, 22),
		field("k3", sqltypes.Int8, 63, 4),
	}
}

const nullsDDL = "CREATE TABLE pinned_oracle_nulls (id INT, k TINYINT, k2 VARCHAR(4) COLLATE utf8mb4_general_ci, " +
	"ti TINYINT, si SMALLINT, i INT, bi BIGINT, de DECIMAL(10,2), d DATE, f DOUBLE, k3 TINYINT)"

func nullsRows() [][]sqltypes.Value {
	rng := rand.New(rand.NewPCG(15, 64))
	var out [][]sqltypes.Value
	for b := range nullsBatches {
		for j := range nullsBatch {
			id := b*nullsBatch + j
			row := make([]sqltypes.Value, 11)
			row[10] = sqltypes.NewInt8(int8(id / 1000 % 3))
			row[0] = sqltypes.NewInt32(int32(id))
			if k := id / 600; k != 4 {
				row[1] = sqltypes.NewInt8(int8(k))
			}
			if rng.IntN(9) != 0 {
				row[2] = sqltypes.NewVarChar([]string{"a", "B", "c", "D", "e"}[rng.IntN(5)])
			}
			for c := 3; c < 10; c++ {
				var null bool
				switch b {
				case 0:
					null = true
				case 2:
					null = rng.IntN(10) < 4
				case 3:
					null = rng.IntN(50) == 0
				case 4:
					null = (j/64)%3 == 1 || rng.IntN(30) == 0
				}
				if null {
					continue
				}
				switch c {
				case 3:
					row[c] = sqltypes.NewInt8(int8(rng.IntN(256) - 128))
				case 4:
					row[c] = sqltypes.NewInt16(int16(rng.IntN(65536) - 32768))
				case 5:
					row[c] = sqltypes.NewInt32(int32(rng.Int64N(4_000_000_000) - 2_000_000_000))
				case 6:
					// Mostly near the top of BIGINT: sums pass int64.
					v := int64(9_000_000_000_000_000) + rng.Int64N(200_000_000_000_000_000)
					if rng.IntN(4) == 0 {
						v = -v
					}
					row[c] = sqltypes.NewInt64(v)
				case 7:
					row[c] = sqltypes.MakeTrusted(sqltypes.Decimal, []byte(scaledText(strconv.AppendInt(nil, rng.Int64N(2e10)-1e10, 10), 2)))
				case 8:
					row[c] = sqltypes.MakeTrusted(sqltypes.Date, []byte(dateString(7000+rng.Int64N(12000))))
				case 9:
					row[c] = sqltypes.NewFloat64(float64(rng.IntN(4_000_000)-2_000_000) / 4)
				}
			}
			out = append(out, row)
		}
	}
	return out
}

// nullsTable pins nullsRows in their batches, from a checked allocator.
func nullsTable(t *testing.T) *pinned.Table {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	fields := nullsFields()
	rb := arrowexec.NewRowBuilder(mem, arrowexec.SchemaFor(fields))
	defer rb.Release()
	var batches []arrow.RecordBatch
	for i, row := range nullsRows() {
		if err := rb.Append(row); err != nil {
			t.Fatal(err)
		}
		if (i+1)%nullsBatch == 0 {
			batches = append(batches, rb.NewRecordBatch())
		}
	}
	tbl, err := pinned.Build("db", "nulls", fields, batches)
	for _, b := range batches {
		b.Release()
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(tbl.Batches) != nullsBatches {
		t.Fatalf("%d batches pinned, want %d", len(tbl.Batches), nullsBatches)
	}
	scribbleNulls(tbl)
	return tbl
}

// scribbleNulls fills the value slots of the NULLs of tbl's fixed-width
// columns with 0x5a bytes: builders leave zeros there, which a loop
// adding or comparing a NULL row's slot would get away with.
func scribbleNulls(tbl *pinned.Table) {
	for _, b := range tbl.Batches {
		for _, arr := range b.Columns() {
			fw, ok := arr.DataType().(arrow.FixedWidthDataType)
			if !ok || arr.NullN() == 0 || fw.BitWidth() < 8 {
				continue
			}
			w := fw.BitWidth() / 8
			buf := arr.Data().Buffers()[1].Bytes()
			off := arr.Data().Offset()
			for r := range arr.Len() {
				if arr.IsNull(r) {
					for j := range w {
						buf[(off+r)*w+j] = 0x5a
					}
				}
			}
		}
	}
}

// TestNullAggregatesAgainstMariaDB runs COUNT(col), SUM, MIN and MAX over
// every value column of the NULL-heavy table, with and without GROUP BY
// (a key in runs, a key per row, both NULL at times), under no filter, a
// filter keeping runs of rows, one keeping rows apart, and two passing
// every value of a column with NULLs; each on the vectorized path, and
// asks MariaDB the same question of the same rows.
func TestNullAggregatesAgainstMariaDB(t *testing.T) {
	db := oracleDB(t)
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec("DROP TABLE IF EXISTS pinned_oracle_nulls")
	exec(nullsDDL)
	defer db.Exec("DROP TABLE pinned_oracle_nulls")
	rows := nullsRows()
	for lo := 0; lo < len(rows); lo += 500 {
		var vals []string
		var args []any
		for _, r := range rows[lo:min(lo+500, len(rows))] {
			vals = append(vals, "(?,?,?,?,?,?,?,?,?,?,?)")
			for _, v := range r {
				if v.IsNull() {
					args = append(args, nil)
				} else {
					args = append(args, v.ToString())
				}
			}
		}
		exec("INSERT INTO pinned_oracle_nulls VALUES "+strings.Join(vals, ","), args...)
	}
	env := newEnv(t)
	tbl := nullsTable(t)
	fields := nullsFields()
	byName := map[string]*querypb.Field{}
	for _, f := range fields {
		byName[f.Name] = f
	}
	bigint := field("c", sqltypes.Int64, 63, 21)
	for _, col := range []string{"ti", "si", "i", "bi", "de", "d", "f"} {
		cf := byName[col]
		aggs := []string{"COUNT(`" + col + "`)", "MIN(`" + col + "`)", "MAX(`" + col + "`)", "COUNT(*)"}
		aggFields := []*querypb.Field{bigint, cf, cf, bigint}
		if col != "d" {
			sum := decField("s", 40, cf.Decimals)
			if col == "f" {
				sum = field("s", sqltypes.Float64, 63, 22)
			}
			aggs = append(aggs, "SUM(`"+col+"`)")
			aggFields = append(aggFields, sum)
		}
		// COUNT(col) alone counts for itself; beside the others it shares
		// their count (shareCounts).
		lists := []struct {
			aggs   []string
			fields []*querypb.Field
		}{{aggs, aggFields}, {[]string{"COUNT(`" + col + "`)"}, []*querypb.Field{bigint}}}
		for _, where := range []string{"", "`id` BETWEEN 1500 AND 3700", "`id` % 3 <> 1", "`k` >= 0", "`k` NOT BETWEEN 100 AND 120"} {
			for _, key := range []string{"", "k", "k2", "k, k3"} {
				for _, list := range lists {
					sel, fs := strings.Join(list.aggs, ", "), list.fields
					if key != "" {
						keys := strings.Split(key, ", ")
						sel = "`" + strings.Join(keys, "`, `") + "`, " + sel
						for i := len(keys) - 1; i >= 0; i-- {
							fs = append([]*querypb.Field{byName[keys[i]]}, fs...)
						}
					}
					q := "SELECT " + sel + " FROM {t}"
					if where != "" {
						q += " WHERE " + where
					}
					if key != "" {
						q += " GROUP BY " + key
					}
					var want []string
					for _, r := range oracleRows(t, db, strings.ReplaceAll(q, "{t}", "pinned_oracle_nulls")) {
						for i, c := range r {
							r[i] = cellText(c == "NULL", c, col == "f")
						}
						want = append(want, strings.Join(r, "|"))
					}
					slices.Sort(want)
					got, fast := runAs(t, env, tbl, strings.ReplaceAll(q, "{t}", "`db`.`nulls`"), fs, true, func(v sqltypes.Value) string {
						return cellText(v.IsNull(), v.ToString(), col == "f")
					})
					if !fast {
						t.Errorf("%s: not vectorized", q)
					}
					if !slices.Equal(got, want) {
						t.Errorf("%s:\npinned  %v\nMariaDB %v", strings.ReplaceAll(q, "{t}", "t"), got, want)
					}
				}
			}
		}
	}
}

// cellText is a value as the oracle compares it: NULL, or its text; a
// DOUBLE column's aggregates (and anything numeric beside them) as the
// shortest decimal of the double, which MariaDB and Go write apart.
func cellText(null bool, s string, float bool) string {
	if null {
		return "NULL"
	}
	if float {
		if x, err := strconv.ParseFloat(s, 64); err == nil {
			return strconv.FormatFloat(x, 'f', -1, 64)
		}
	}
	return s
}
