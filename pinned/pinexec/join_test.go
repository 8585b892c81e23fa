package pinexec

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/arrowexec"
	"github.com/shoaldb/shoal/evalexpr"
	"github.com/shoaldb/shoal/pinned"
	"github.com/shoaldb/shoal/sqlerr"
)

// buildTable pins rows (text values, "NULL" for NULL) under db.name.
func buildTable(t *testing.T, name string, fields []*querypb.Field, rows [][]string) *pinned.Table {
	t.Helper()
	rb := arrowexec.NewRowBuilder(memory.NewGoAllocator(), arrowexec.SchemaFor(fields))
	defer rb.Release()
	for _, r := range rows {
		vals := make([]sqltypes.Value, len(r))
		for i, s := range r {
			if s != "NULL" {
				vals[i] = sqltypes.MakeTrusted(fields[i].Type, []byte(s))
			}
		}
		if err := rb.Append(vals); err != nil {
			t.Fatal(err)
		}
	}
	b := rb.NewRecordBatch()
	defer b.Release()
	tbl, err := pinned.Build("db", name, fields, []arrow.RecordBatch{b})
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// joinTables is the flights table of testTable joined to two dimensions:
// carriers keyed by a utf8mb4_general_ci code ('AA' matches 'AA' and 'aa',
// 'BA' matches 'Ba ' and 'ba' under PAD SPACE, a NULL code matches
// nothing, DL and WN have no row) and dows keyed by a DECIMAL day number
// that must match the TINYINT Dow by value (3.0 = 3).
func joinTables(t *testing.T) (*pinned.Table, Resolver) {
	flights := testTable(t, 700)
	carriers := buildTable(t, "carriers", []*querypb.Field{
		field("code", sqltypes.VarChar, 45, 40), field("name", sqltypes.VarChar, 45, 400)},
		[][]string{{"AA", "American"}, {"ua", "United"}, {"BA", "British"}, {"NULL", "Nobody"}, {"XX", "Unused"}})
	dows := buildTable(t, "dows", []*querypb.Field{
		&querypb.Field{Name: "d", Type: sqltypes.Decimal, Charset: 63, ColumnLength: 5, Decimals: 1}, field("label", sqltypes.VarChar, 45, 12)},
		[][]string{{"1.0", "Mon"}, {"2.0", "Tue"}, {"3.0", "Wed"}, {"4.0", "Thu"}, {"5.0", "Fri"}, {"6.5", "Odd"}})
	tables := map[string]*pinned.Table{"carriers": carriers, "dows": dows}
	return flights, func(db, name string) *pinned.Table {
		if db != "db" {
			return nil
		}
		return tables[name]
	}
}

// runJoin runs a join fragment with n partitions and returns its rows
// sorted.
func runJoin(t *testing.T, env *evalexpr.Env, split *pinned.Table, tables Resolver, frag string, fields []*querypb.Field, n int) []string {
	t.Helper()
	p, err := CompileJoin(env, split, tables, frag, fields)
	if err != nil {
		t.Fatalf("%s: %v", frag, err)
	}
	if p.Fast() {
		t.Fatalf("a join took the single-table vectorized path")
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	var mu sync.Mutex
	var out []string
	err = p.Run(context.Background(), mem, Options{Parallel: n}, func(_ int, bs []arrow.RecordBatch) error {
		mu.Lock()
		defer mu.Unlock()
		for _, b := range bs {
			for _, r := range arrowexec.RecordRows(b) {
				var s []string
				for _, v := range r {
					s = append(s, v.String())
				}
				out = append(out, strings.Join(s, "|"))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("%s: %v", frag, err)
	}
	slices.Sort(out)
	return out
}

func TestPinnedJoin(t *testing.T) {
	env, err := evalexpr.NewEnv("10.11.19-MariaDB")
	if err != nil {
		t.Fatal(err)
	}
	flights, tables := joinTables(t)
	name := field("name", sqltypes.VarChar, 45, 400)
	count := field("c", sqltypes.Int64, 63, 21)
	// Reference answers computed here from testTable's formulas.
	dow := func(i int) int { return i%7 + 1 }
	delayOver := func(i int, x int) bool { return i%11 != 0 && i*37%200-20 > x }
	matched := func(i int) bool { return i%7 != 3 && i%7 != 4 } // carriers DL and WN have no row
	wedBig, monMatched, wedMatched := 0, 0, 0
	for i := 0; i < 700; i++ {
		if dow(i) == 3 && delayOver(i, 100) {
			wedBig++
		}
		if dow(i) == 1 && matched(i) {
			monMatched++
		}
		if dow(i) == 3 && matched(i) {
			wedMatched++
		}
	}
	cases := []struct {
		name   string
		frag   string
		fields []*querypb.Field
		want   []string
	}{
		{"inner, collation and PAD SPACE key, NULL never matches",
			"SELECT `c`.`name`, COUNT(1) FROM `db`.`flights` AS `f` JOIN `db`.`carriers` AS `c` ON `c`.`code`=`f`.`Carrier` WHERE TRUE GROUP BY `c`.`name`",
			[]*querypb.Field{name, count}, []string{"VARCHAR(\"American\")|INT64(200)", "VARCHAR(\"British\")|INT64(200)", "VARCHAR(\"United\")|INT64(100)"}},
		{"comma join, equality in WHERE",
			"SELECT COUNT(1) FROM `db`.`flights` AS `f`, `db`.`carriers` AS `c` WHERE `f`.`Carrier`=`c`.`code` AND TRUE",
			[]*querypb.Field{count}, []string{"INT64(500)"}},
		{"comma join of three as the planner renders it",
			"SELECT COUNT(1) FROM ((`db`.`flights` AS `f`) JOIN `db`.`carriers` AS `c`) JOIN `db`.`dows` AS `w` WHERE (`f`.`Carrier`=`c`.`code` AND `w`.`d`=`f`.`Dow` AND `w`.`label`=_UTF8MB4'WED') AND TRUE",
			[]*querypb.Field{count}, []string{fmt.Sprintf("INT64(%d)", wedMatched)}},
		{"left join keeps unmatched rows with NULLs",
			"SELECT `c`.`name`, COUNT(1) FROM `db`.`flights` AS `f` LEFT JOIN `db`.`carriers` AS `c` ON `c`.`code`=`f`.`Carrier` WHERE TRUE GROUP BY `c`.`name`",
			[]*querypb.Field{name, count}, []string{"NULL|INT64(200)", "VARCHAR(\"American\")|INT64(200)", "VARCHAR(\"British\")|INT64(200)", "VARCHAR(\"United\")|INT64(100)"}},
		{"WHERE over a left-joined table filters after NULL extension",
			"SELECT COUNT(1) FROM `db`.`flights` AS `f` LEFT JOIN `db`.`carriers` AS `c` ON `c`.`code`=`f`.`Carrier` WHERE `c`.`code` IS NULL",
			[]*querypb.Field{count}, []string{"INT64(200)"}},
		{"left join ON with a non-equi condition",
			"SELECT COUNT(`c`.`name`), COUNT(1) FROM `db`.`flights` AS `f` LEFT JOIN `db`.`carriers` AS `c` ON `c`.`code`=`f`.`Carrier` AND `f`.`Dow`=1",
			[]*querypb.Field{count, count}, []string{fmt.Sprintf("INT64(%d)|INT64(700)", monMatched)}},
		{"numeric key of different types by value, extra condition",
			"SELECT `w`.`label`, COUNT(1) FROM `db`.`flights` AS `f` JOIN `db`.`dows` AS `w` ON `w`.`d`=`f`.`Dow` AND `f`.`Delay`>100 WHERE `w`.`label`=_UTF8MB4'wed' GROUP BY `w`.`label`",
			[]*querypb.Field{field("label", sqltypes.VarChar, 45, 12), count}, []string{fmt.Sprintf("VARCHAR(\"Wed\")|INT64(%d)", wedBig)}},
		{"self join under two aliases",
			"SELECT COUNT(1) FROM `db`.`flights` AS `f` JOIN `db`.`flights` AS `g` ON `g`.`id`=`f`.`id`+3 WHERE `g`.`Dow`=2",
			[]*querypb.Field{count}, []string{"INT64(100)"}},
		{"three tables, split table not first",
			"SELECT COUNT(1) FROM `db`.`carriers` AS `c` JOIN `db`.`flights` AS `f` ON `c`.`code`=`f`.`Carrier` LEFT JOIN `db`.`dows` AS `w` ON `w`.`d`=`f`.`Dow` WHERE `w`.`d` IS NULL",
			[]*querypb.Field{count}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := runJoin(t, env, flights, tables, c.frag, c.fields, 1)
			if c.want == nil {
				// Carriers matched on days 6 and 7 (no dows row).
				n := 0
				cs := []string{"AA", "aa", "UA", "DL", "WN", "Ba ", "ba"}
				for i := 0; i < 700; i++ {
					if cs[i%7] != "DL" && cs[i%7] != "WN" && dow(i) > 5 {
						n++
					}
				}
				c.want = []string{fmt.Sprintf("INT64(%d)", n)}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("got  %v\nwant %v", got, c.want)
			}
		})
	}
}

// TestPinnedJoinNullKeys: a NULL string key matches nothing, not even a
// NULL key (the string key decides equality alone, without evalengine).
func TestPinnedJoinNullKeys(t *testing.T) {
	env, _ := evalexpr.NewEnv("10.11.19-MariaDB")
	_, tables := joinTables(t)
	tails := buildTable(t, "tails", []*querypb.Field{field("id", sqltypes.Int32, 63, 11), field("tail", sqltypes.VarChar, 45, 40)},
		[][]string{{"1", "AA"}, {"2", "NULL"}, {"3", "aa "}, {"4", "NULL"}, {"5", "QQ"}})
	count := field("c", sqltypes.Int64, 63, 21)
	got := runJoin(t, env, tails, tables,
		"SELECT COUNT(1), COUNT(`c`.`name`) FROM `db`.`tails` AS `t` LEFT JOIN `db`.`carriers` AS `c` ON `c`.`code`=`t`.`tail`",
		[]*querypb.Field{count, count}, 1)
	if want := []string{"INT64(5)|INT64(2)"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestPinnedJoinRows checks a row statement: every partition count gives
// the same rows, and a pushed LIMIT bounds them.
func TestPinnedJoinRows(t *testing.T) {
	env, _ := evalexpr.NewEnv("10.11.19-MariaDB")
	flights, tables := joinTables(t)
	frag := "SELECT `f`.`id`, `c`.`name`, `f`.`Carrier` FROM `db`.`flights` AS `f` JOIN `db`.`carriers` AS `c` ON `c`.`code`=`f`.`Carrier` WHERE `f`.`Dow`=2 AND TRUE"
	fields := []*querypb.Field{field("id", sqltypes.Int32, 63, 11), field("name", sqltypes.VarChar, 45, 400), field("Carrier", sqltypes.VarChar, 45, 40)}
	one := runJoin(t, env, flights, tables, frag, fields, 1)
	four := runJoin(t, env, flights, tables, frag, fields, 4)
	if !slices.Equal(one, four) || len(one) == 0 {
		t.Fatalf("1 partition: %d rows, 4 partitions: %d rows", len(one), len(four))
	}
	limited := runJoin(t, env, flights, tables, frag+" LIMIT 7", fields, 1)
	if len(limited) != 7 {
		t.Errorf("LIMIT 7 gave %d rows", len(limited))
	}
}

// TestPinnedJoinRefused: what the engine does not run is refused with
// ErrUnsupported (the coordinator then uses the replicas, or answers 1235).
func TestPinnedJoinRefused(t *testing.T) {
	env, _ := evalexpr.NewEnv("10.11.19-MariaDB")
	flights, tables := joinTables(t)
	count := []*querypb.Field{field("c", sqltypes.Int64, 63, 21)}
	for _, frag := range []string{
		"SELECT COUNT(1) FROM `db`.`flights` AS `f` JOIN `db`.`planes` AS `p` ON `p`.`tail`=`f`.`Carrier`",
		"SELECT COUNT(1) FROM `db`.`flights` AS `f` RIGHT JOIN `db`.`carriers` AS `c` ON `c`.`code`=`f`.`Carrier`",
		"SELECT COUNT(1) FROM `db`.`flights` AS `f` JOIN `db`.`carriers` AS `c` USING (`code`)",
		"SELECT COUNT(1) FROM `db`.`flights` AS `f` JOIN `db`.`carriers` AS `c` ON `c`.`code`=`f`.`Carrier` WHERE `f`.`id` IN (SELECT 1)",
	} {
		if _, err := CompileJoin(env, flights, tables, frag, count); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: %v, want ErrUnsupported", frag, err)
		}
	}
	if _, err := Compile(env, flights, "SELECT COUNT(1) FROM `db`.`flights` AS `f` JOIN `db`.`carriers` AS `c` ON `c`.`code`=`f`.`Carrier`", count); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Compile of a join: %v, want ErrUnsupported", err)
	}
}

// TestPinnedJoinBudget: hash tables past the memory limit fail with a
// MySQL error, before any partition starts.
func TestPinnedJoinBudget(t *testing.T) {
	env, _ := evalexpr.NewEnv("10.11.19-MariaDB")
	flights, tables := joinTables(t)
	p, err := CompileJoin(env, flights, tables, "SELECT COUNT(1) FROM `db`.`flights` AS `f` JOIN `db`.`carriers` AS `c` ON `c`.`code`=`f`.`Carrier`", []*querypb.Field{field("c", sqltypes.Int64, 63, 21)})
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	err = p.Run(context.Background(), mem, Options{MemLimit: 64}, func(int, []arrow.RecordBatch) error { return nil })
	if e, ok := sqlerr.As(err); !ok || e.Num != sqlerr.ErrOutOfResources {
		t.Errorf("over budget: %v", err)
	}
	if d := p.JoinDescribe(); !strings.Contains(d, "probe inner db.carriers AS c") || !strings.Contains(d, "key c.code=Carrier") {
		t.Errorf("describe: %s", d)
	}
}
