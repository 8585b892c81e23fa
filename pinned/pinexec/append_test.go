package pinexec

import (
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/evalexpr"
	"github.com/shoaldb/shoal/pinned"
	"github.com/shoaldb/shoal/pinned/pintest"
)

// mustBuild builds rows [from, to) with mem.
func mustBuild(t *testing.T, mem memory.Allocator, from, to int, edit func(int, []sqltypes.Value)) *pinned.Table {
	t.Helper()
	in := flightRows(t, mem, from, to, edit)
	defer release(in)
	tbl, err := pinned.BuildWith(mem, "db", "flights", appendFields, in)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// TestAppendAnswers appends rows to a table (pinned.Table.Append) and
// checks that every fragment over the new version answers exactly what it
// answers over the same rows built in one go, on both paths, also after
// the old version is released (the shared batches must outlive it), and
// that both versions together leave no allocation behind. Package pinned
// checks the new version's encoding.
func TestAppendAnswers(t *testing.T) {
	env, err := evalexpr.NewEnv("10.11.19-MariaDB")
	if err != nil {
		t.Fatal(err)
	}
	ci := uint32(45)
	bigint := func(name string) *querypb.Field { return field(name, sqltypes.Int64, 63, 21) }
	frags := []struct {
		sql    string
		fields []*querypb.Field
	}{
		{"SELECT `Carrier`, COUNT(1), SUM(`Delay`), MAX(`Delay`), MIN(`Day`) FROM `db`.`flights` GROUP BY `Carrier`",
			[]*querypb.Field{field("Carrier", sqltypes.VarChar, ci, 40), bigint("c"), field("s", sqltypes.Decimal, 63, 33), field("m", sqltypes.Int32, 63, 11), field("d", sqltypes.Date, 63, 10)}},
		{"SELECT `Delay`, COUNT(1) FROM `db`.`flights` GROUP BY `Delay`",
			[]*querypb.Field{field("Delay", sqltypes.Int32, 63, 11), bigint("c")}},
		{"SELECT COUNT(1), MAX(`Carrier`), MIN(`Carrier`), MIN(`id`), MAX(`id`) FROM `db`.`flights` WHERE `Delay` IS NOT NULL",
			[]*querypb.Field{bigint("c"), field("mx", sqltypes.VarChar, ci, 40), field("mn", sqltypes.VarChar, ci, 40), field("a", sqltypes.Int32, 63, 11), field("b", sqltypes.Int32, 63, 11)}},
		{"SELECT `id`, `Carrier`, `Delay` FROM `db`.`flights` WHERE `Delay` > 170 OR `Carrier` = _UTF8MB4'zz'",
			[]*querypb.Field{field("id", sqltypes.Int32, 63, 11), field("Carrier", sqltypes.VarChar, ci, 40), field("Delay", sqltypes.Int32, 63, 11)}},
	}
	newCarrier := func(i int, row []sqltypes.Value) {
		if i%3 == 0 {
			row[1] = sqltypes.NewVarChar("ZZ")
		}
	}
	bigDelay := func(i int, row []sqltypes.Value) {
		if i%50 == 7 {
			row[2] = sqltypes.NewInt64(int64(100000 + i))
		}
	}
	cases := []struct {
		name     string
		old, new int // rows [0, old) then [old, new)
		edit     func(int, []sqltypes.Value)
	}{
		{"shares batches", 1000, 1250, nil},
		{"extends the dictionary", 1000, 1300, newCarrier},
		{"widens an integer column", 1000, 1300, bigDelay},
		{"from an empty table", 0, 400, newCarrier},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			v1 := mustBuild(t, mem, 0, c.old, nil)
			in := flightRows(t, mem, c.old, c.new, c.edit)
			v2, err := v1.AppendWith(mem, in)
			release(in)
			if err != nil {
				t.Fatal(err)
			}
			full := mustBuild(t, mem, 0, c.new, func(i int, row []sqltypes.Value) {
				if c.edit != nil && i >= c.old {
					c.edit(i, row)
				}
			})
			defer full.Release()
			compare := func(when string) {
				for _, f := range frags {
					for _, fast := range []bool{true, false} {
						got, _ := run(t, env, v2, f.sql, f.fields, fast)
						want, _ := run(t, env, full, f.sql, f.fields, fast)
						if !slices.Equal(got, want) || len(want) == 0 {
							t.Errorf("%s, fast=%v: %s\nappended %.300v\nbuilt    %.300v", when, fast, f.sql, got, want)
						}
					}
				}
			}
			compare("both versions held")
			v1.Release()
			compare("old version released")
			v2.Release()
		})
	}
}

// The append tests' flights table (pintest).
var (
	appendFields = pintest.AppendFields
	flightRows   = pintest.FlightRows
	release      = pintest.Release
)
