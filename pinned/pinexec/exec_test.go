package pinexec

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"go.uber.org/goleak"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/arrowexec"
	"github.com/shoaldb/shoal/evalexpr"
	"github.com/shoaldb/shoal/pinned"
	"github.com/shoaldb/shoal/pinned/pintest"
)

// vitess starts glog's flush daemon at init; everything else must end.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		goleak.IgnoreAnyFunction("github.com/golang/glog.(*fileSink).flushDaemon"),
		goleak.IgnoreAnyFunction("github.com/golang/glog.(*loggingT).flushDaemon"))
}

// run executes fragment over tbl with fields as its output metadata and
// returns the output rows as sorted strings; fast selects the path. One
// partition, so that aggregate output is fully merged (the e2e suite runs
// every partition count against MySQL).
func run(t *testing.T, env *evalexpr.Env, tbl *pinned.Table, fragment string, fields []*querypb.Field, fast bool) ([]string, bool) {
	t.Helper()
	return runAs(t, env, tbl, fragment, fields, fast, sqltypes.Value.String)
}

// runAs is run with each value written by format.
func runAs(t *testing.T, env *evalexpr.Env, tbl *pinned.Table, fragment string, fields []*querypb.Field, fast bool, format func(sqltypes.Value) string) ([]string, bool) {
	t.Helper()
	p, err := Compile(env, tbl, fragment, fields)
	if err != nil {
		t.Fatalf("%s: %v", fragment, err)
	}
	hadFast := p.fast != nil
	if !fast {
		p.fast = nil
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	var out []string
	var mu = make(chan struct{}, 1)
	err = p.Run(context.Background(), mem, Options{Parallel: 1}, func(_ int, bs []arrow.RecordBatch) error {
		mu <- struct{}{}
		defer func() { <-mu }()
		for _, b := range bs {
			for _, r := range arrowexec.RecordRows(b) {
				var s []string
				for _, v := range r {
					s = append(s, format(v))
				}
				out = append(out, strings.Join(s, "|"))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("%s: %v", fragment, err)
	}
	slices.Sort(out)
	return out, hadFast
}

// TestFastMatchesGeneric runs each fragment on both paths: the vectorized
// one must give the generic (row at a time, evalengine) answer exactly,
// partition by partition merged.
func TestFastMatchesGeneric(t *testing.T) {
	env, err := evalexpr.NewEnv("10.11.19-MariaDB")
	if err != nil {
		t.Fatal(err)
	}
	tbl := testTable(t, 1000)
	ci := uint32(45) // utf8mb4_general_ci
	dec := func(name string) *querypb.Field { return field(name, sqltypes.Decimal, 63, 33) }
	bigint := func(name string) *querypb.Field { return field(name, sqltypes.Int64, 63, 21) }
	cases := []struct {
		frag   string
		fields []*querypb.Field
		fast   bool
	}{
		{"SELECT `Carrier`, COUNT(1), SUM(`Delay`), MIN(`Dow`), MAX(`Day`) FROM `db`.`flights` WHERE `Dow` NOT IN (6,7) AND TRUE GROUP BY `Carrier`",
			[]*querypb.Field{field("Carrier", sqltypes.VarChar, ci, 40), bigint("c"), dec("s"), field("m", sqltypes.Int8, 63, 4), field("d", sqltypes.Date, 63, 10)}, true},
		{"SELECT COUNT(1), COUNT(`Delay`), SUM(IF(`Delay`>30, 1, 0)), MAX(`Carrier`), MIN(`Carrier`) FROM `db`.`flights` WHERE `Carrier` NOT LIKE _UTF8MB4'a%'",
			[]*querypb.Field{bigint("c"), bigint("c2"), dec("s"), field("mx", sqltypes.VarChar, ci, 40), field("mn", sqltypes.VarChar, ci, 40)}, true},
		{"SELECT `Dow`, YEAR(`Day`), SUM(`Ratio`), MAX(`Ratio`), COUNT(1) FROM `db`.`flights` WHERE `Delay` BETWEEN 0 AND 100 GROUP BY `Dow`, YEAR(`Day`)",
			[]*querypb.Field{field("Dow", sqltypes.Int8, 63, 4), field("y", sqltypes.Int32, 63, 5), field("s", sqltypes.Float64, 63, 22), field("m", sqltypes.Float64, 63, 22), bigint("c")}, true},
		{"SELECT FLOOR(`Delay`/7)*7, COUNT(1) FROM `db`.`flights` WHERE `Delay`/3 > 10 GROUP BY FLOOR(`Delay`/7)*7",
			[]*querypb.Field{bigint("band"), bigint("c")}, true},
		{"SELECT COUNT(1), SUM(`Delay`) FROM `db`.`flights` WHERE FALSE",
			[]*querypb.Field{bigint("c"), dec("s")}, true},
		{"SELECT `Carrier`, COUNT(1) FROM `db`.`flights` WHERE `id`+`Delay` > 100 GROUP BY `Carrier`",
			[]*querypb.Field{field("Carrier", sqltypes.VarChar, ci, 40), bigint("c")}, false},
		{"SELECT `id`, `Carrier`, `Delay`*2 FROM `db`.`flights` WHERE `Dow`=3 AND `Carrier`=_UTF8MB4'ua'",
			[]*querypb.Field{field("id", sqltypes.Int32, 63, 11), field("Carrier", sqltypes.VarChar, ci, 40), field("x", sqltypes.Int64, 63, 12)}, true},
	}
	for _, c := range cases {
		t.Run(c.frag[:40], func(t *testing.T) {
			want, _ := run(t, env, tbl, c.frag, c.fields, false)
			got, fast := run(t, env, tbl, c.frag, c.fields, true)
			if fast != c.fast {
				t.Errorf("fast path: %v, want %v", fast, c.fast)
			}
			if !slices.Equal(got, want) {
				t.Errorf("fast and generic differ:\nfast    %v\ngeneric %v", got, want)
			}
			if len(want) == 0 {
				t.Errorf("no rows: the case tests nothing")
			}
		})
	}
}

// TestCollationGroups checks that keys equal under the column's collation
// form one group ('AA' and 'aa'; 'Ba ' and 'ba' under PAD SPACE).
func TestCollationGroups(t *testing.T) {
	env, _ := evalexpr.NewEnv("10.11.19-MariaDB")
	tbl := testTable(t, 700)
	fields := []*querypb.Field{field("Carrier", sqltypes.VarChar, 45, 40), field("c", sqltypes.Int64, 63, 21)}
	for _, fast := range []bool{true, false} {
		got, _ := run(t, env, tbl, "SELECT `Carrier`, COUNT(1) FROM `db`.`flights` GROUP BY `Carrier`", fields, fast)
		// 7 carriers cycle evenly over 700 rows: 100 each; AA+aa and
		// Ba +ba merge.
		var counts []string
		for _, r := range got {
			counts = append(counts, r[strings.LastIndexByte(r, '|')+1:])
		}
		slices.Sort(counts)
		if want := []string{"INT64(100)", "INT64(100)", "INT64(100)", "INT64(200)", "INT64(200)"}; !slices.Equal(counts, want) {
			t.Errorf("fast=%v: groups %v, want counts %v", fast, got, want)
		}
	}
}

// field is a column definition (pintest.Field).
var field = pintest.Field

// testTable is pintest.Flights as a pinned table: ids, a carrier
// (utf8mb4_general_ci, 'aa' and 'AA' are one group), a nullable delay, a
// day of week, a date and a double.
func testTable(t *testing.T, rows int) *pinned.Table {
	t.Helper()
	batches := pintest.Flights(t, memory.NewGoAllocator(), rows)
	defer pintest.Release(batches)
	tbl, err := pinned.Build("db", "flights", pintest.FlightsFields, batches)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// TestGroupFirstSpelling: a group of keys equal under the collation shows
// the spelling of its first row in table order, as MySQL's scan does —
// also when a filter skips the table's first spelling — on the vectorized
// and the generic path, whatever partitions were asked for.
func TestGroupFirstSpelling(t *testing.T) {
	env, _ := evalexpr.NewEnv("10.11.19-MariaDB")
	tbl := testTable(t, 700)
	fields := []*querypb.Field{field("Carrier", sqltypes.VarChar, 45, 40), field("c", sqltypes.Int64, 63, 21)}
	// Row i (id 3i) is AA, aa, UA, DL, WN, 'Ba ', ba for i % 7 = 0…6:
	// id % 7 is 0 for AA, 1 for 'Ba '.
	for _, c := range []struct {
		where string
		want  []string // spellings shown for the AA and Ba groups
	}{
		{"", []string{"AA", "Ba "}},
		{" WHERE `id` % 7 <> 0", []string{"aa", "Ba "}},
		{" WHERE `id` % 7 NOT IN (1, 0)", []string{"aa", "ba"}},
	} {
		q := "SELECT `Carrier`, COUNT(1) FROM `db`.`flights`" + c.where + " GROUP BY `Carrier`"
		for _, fast := range []bool{true, false} {
			got, _ := run(t, env, tbl, q, fields, fast)
			var shown []string
			for _, r := range got {
				for _, w := range []string{"AA", "aa", "Ba ", "ba"} {
					if strings.Contains(r, "(\""+w+"\")") {
						shown = append(shown, w)
					}
				}
			}
			slices.Sort(shown)
			want := slices.Clone(c.want)
			slices.Sort(want)
			if !slices.Equal(shown, want) {
				t.Errorf("%s fast=%v: rows %v, want spellings %v", q, fast, got, want)
			}
		}
	}
}
