package pinexec

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/arrowexec"
	"github.com/shoaldb/shoal/evalexpr"
	"github.com/shoaldb/shoal/pinned"
)

// Collation IDs of the test tables.
const (
	utf8mb4GeneralCI = 45
	utf8mb4Bin       = 46
	latin1SwedishCI  = 8
)

var (
	originStates = []string{"CA", "ca", "Tx", "TX ", "ny", "NY", "AK", "ak", "hi", "Zz", "é", "É"}
	destStates   = []string{"ca", "TX", "tx", "NY ", "Ny", "ak", "HI", "HI ", "PR", "zz", "e", "É"}
)

// statesTable has two CHAR dictionary columns of one collation
// (utf8mb4_general_ci: case-insensitive, PAD SPACE), a utf8mb4_bin one, a
// latin1 one, a nullable integer with a wide range, a second integer and
// two dates. NULLs appear in every nullable column.
//
// With trim, trailing spaces are cut from every string. Under PAD SPACE
// collations (all of the table's) that changes no comparison, which is how
// the tests use it: evalengine, the generic path, compares strings without
// padding (a gap MariaDB does not have: 'TX ' = 'tx' is 1 there), so the
// generic answer over the trimmed table is MariaDB's answer over both.
func statesTable(t testing.TB, rows int, trim ...bool) *pinned.Table {
	t.Helper()
	cut := len(trim) > 0 && trim[0]
	fields := statesFields()
	mem := memory.NewGoAllocator()
	rb := arrowexec.NewRowBuilder(mem, arrowexec.SchemaFor(fields))
	defer rb.Release()
	var batches []arrow.RecordBatch
	for i, row := range statesRows(rows, cut) {
		if err := rb.Append(row); err != nil {
			t.Fatal(err)
		}
		if (i+1)%500 == 0 {
			batches = append(batches, rb.NewRecordBatch())
		}
	}
	batches = append(batches, rb.NewRecordBatch())
	tbl, err := pinned.Build("db", "states", fields, batches)
	for _, b := range batches {
		b.Release()
	}
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

func newEnv(t testing.TB) *evalexpr.Env {
	env, err := evalexpr.NewEnv("10.11.19-MariaDB")
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// TestRecognizedFilters runs WHERE shapes compiled to intervals, points
// and column pairs against the generic path (evalengine, row at a time)
// and checks which filter kind each became.
func TestRecognizedFilters(t *testing.T) {
	const generic filterKind = 255
	env := newEnv(t)
	tbl := statesTable(t, 3000)
	trimmed := statesTable(t, 3000, true)
	fields := []*querypb.Field{field("c", sqltypes.Int64, 63, 21)}
	cases := []struct {
		where string
		kind  filterKind // generic: not vectorized at all
	}{
		{"`Distance` <> 1000", fRange},
		{"`Distance` = 1000", fRange},
		{"`Distance` < 300", fRange},
		{"`Distance` <= 300", fRange},
		{"`Distance` > 5000", fRange},
		{"`Distance` >= 5000", fRange},
		{"300 > `Distance`", fRange},
		{"`Distance` > -5", fRange},
		{"`Distance` < 0", fRange},
		{"`Distance` > 99999", fRange},
		{"`Distance` BETWEEN 100 AND 2000", fRange},
		{"`Distance` NOT BETWEEN 100 AND 2000", fRange},
		{"`Distance` IN (10, 11, 500, 99999)", fPoints},
		{"`Distance` NOT IN (10, 11, 500)", fPoints},
		{"`Distance` IN (10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25)", fTable},
		{"`Distance` > 10.5", fVals},
		{"`Day` >= _UTF8MB4'2020-06-01'", fRange},
		{"`Day` < '2020-03-15'", fRange},
		{"`Day` = '2020-03-15'", fRange},
		{"`Day` BETWEEN '2020-02-01' AND '2020-02-29'", fRange},
		{"`Day` > '2020-03-15 10:00:00'", fTable},
		{"`OriginState` = _UTF8MB4'ca'", fRange},
		{"`OriginState` = 'TX'", fRange},
		{"`OriginState` <> 'tx'", fRange},
		{"`OriginState` < 'N'", fRange},
		{"`OriginState` >= 'hi'", fRange},
		{"`OriginState` > 'Hi'", fRange},
		{"`OriginState` = 'QQ'", fRange},
		{"`OriginState` IN (_UTF8MB4'AK', _UTF8MB4'HI', _UTF8MB4'PR', _UTF8MB4'VI')", fTable},
		{"`OriginState` NOT IN ('AK', 'hi', 'PR')", fTable},
		{"`OriginState` = 'é'", fTable},
		{"`OriginState` = _binary'CA'", fTable},
		{"`BinState` = 'ca'", fRange},
		{"`BinState` > 'Tx'", fRange},
		{"`OriginState` <> `DestState`", fPair},
		{"`OriginState` = `DestState`", fPair},
		{"`OriginState` < `DestState`", fPair},
		{"`DestState` >= `OriginState`", fPair},
		{"`Distance` > `Delay`", fPair},
		{"`Distance` = `Delay` + 0", generic},
		{"`Day` <= `Day2`", fPair},
		{"`Day` <> `Day2`", fPair},
		{"`OriginState` <> `BinState`", generic},
		{"`OriginState` <=> `DestState`", generic},
		// The first column: a filter's second column (unused unless a
		// pair) is 0 too, and once hid column 0's codes from the filter.
		{"`id` % 97 = 3", fTable},
		{"`id` IN (3, 31)", fTable},
		{"`id` BETWEEN 10 AND 20", fRange},
		{"`OriginState` > 'B'", fRange},
	}
	for _, c := range cases {
		t.Run(c.where, func(t *testing.T) {
			frag := "SELECT COUNT(1) FROM `db`.`states` WHERE " + c.where
			p, err := Compile(env, tbl, frag, fields)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case c.kind == generic:
				if p.fast != nil {
					t.Errorf("vectorized; want the generic path")
				}
			case p.fast == nil:
				t.Fatalf("not vectorized")
			case len(p.fast.filters) != 1 || p.fast.filters[0].kind != c.kind:
				t.Errorf("filter kind %d, want %d", p.fast.filters[0].kind, c.kind)
			}
			want, _ := run(t, env, trimmed, frag, fields, false)
			tables := []*pinned.Table{tbl, trimmed}
			if c.kind == generic {
				tables = tables[1:] // evalengine over padded strings
			}
			for _, x := range tables {
				if got, _ := run(t, env, x, frag, fields, true); !slices.Equal(got, want) {
					t.Errorf("vectorized %v, generic %v", got, want)
				}
			}
			// The same rows through a row statement (the filter alone).
			rfrag := "SELECT `id` FROM `db`.`states` WHERE " + c.where
			rf := []*querypb.Field{field("id", sqltypes.Int32, 63, 11)}
			want, _ = run(t, env, trimmed, rfrag, rf, false)
			if got, _ := run(t, env, tables[0], rfrag, rf, true); !slices.Equal(got, want) {
				t.Errorf("row statement: vectorized %d rows, generic %d", len(got), len(want))
			}
		})
	}
}

// TestColumnPairCollation checks `OriginState <> DestState` under
// utf8mb4_general_ci as MariaDB answers it: 'CA' = 'ca', 'TX ' = 'tx'
// (PAD SPACE), 'é' = 'É' = 'e', and NULL on either side is neither equal
// nor different.
func TestColumnPairCollation(t *testing.T) {
	env := newEnv(t)
	tbl := statesTable(t, 2000)
	p := &Program{t: tbl, env: env}
	po := p.pairOf(1, 2)
	if po == nil {
		t.Fatal("no pair order")
	}
	code := func(c int, s string) int32 {
		i := slices.Index(tbl.Cols[c].Dict, s)
		if i < 0 {
			t.Fatalf("%q not in column %d's dictionary %q", s, c, tbl.Cols[c].Dict)
		}
		return int32(i)
	}
	same := [][2]string{{"CA", "ca"}, {"ca", "ca"}, {"Tx", "TX"}, {"TX ", "tx"}, {"ny", "NY "}, {"NY", "Ny"}, {"hi", "HI "}, {"Zz", "zz"}, {"é", "e"}, {"É", "É"}}
	for _, s := range same {
		if a, b := po.a[code(1, s[0])], po.b[code(2, s[1])]; a != b {
			t.Errorf("%q and %q: ranks %d and %d, want equal", s[0], s[1], a, b)
		}
	}
	differ := [][2]string{{"CA", "TX"}, {"AK", "HI"}, {"Zz", "PR"}, {"ny", "ak"}}
	for _, s := range differ {
		a, b := po.a[code(1, s[0])], po.b[code(2, s[1])]
		if a == b || (a < b) != (strings.ToLower(s[0]) < strings.ToLower(s[1])) {
			t.Errorf("%q and %q: ranks %d and %d", s[0], s[1], a, b)
		}
	}
	if po.a[len(tbl.Cols[1].Dict)] != -1 || po.b[len(tbl.Cols[2].Dict)] != -1 {
		t.Error("NULL codes do not map to -1")
	}
}

// TestCompileMemoryBounded compiles statements with distinct literals
// over one pin: once the version's shared tables exist, a compile
// allocates what the statement needs, not what the 6,000-value integer
// range or the dictionaries hold, and the shared tables do not grow.
func TestCompileMemoryBounded(t *testing.T) {
	env := newEnv(t)
	tbl := statesTable(t, 5000, true)
	fields := []*querypb.Field{field("OriginState", sqltypes.Char, utf8mb4GeneralCI, 8),
		field("c", sqltypes.Int64, 63, 21), field("s", sqltypes.Decimal, 63, 33), field("m", sqltypes.Int32, 63, 11)}
	frag := func(i int) string {
		return fmt.Sprintf("SELECT `OriginState`, COUNT(1), SUM(IF(`Delay` > 15, 1, 0)), MAX(`Distance`) FROM `db`.`states` "+
			"WHERE `Distance` <> %d AND `Day` >= '2020-%02d-01' AND `OriginState` NOT IN ('AK', 'HI') AND `DestState` <> `OriginState` "+
			"GROUP BY `OriginState`", 10+i, i%12+1)
	}
	compile := func(i int) *Program {
		p, err := Compile(env, tbl, frag(i), fields)
		if err != nil {
			t.Fatal(err)
		}
		if p.fast == nil {
			t.Fatal("not vectorized")
		}
		return p
	}
	compile(0) // builds the version's shared tables
	shared := tbl.SharedBytes()
	const n = 300
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	keep := make([]*Program, 0, n) // as a plan cache would
	for i := 1; i <= n; i++ {
		keep = append(keep, compile(i))
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	perCompile := (after.TotalAlloc - before.TotalAlloc) / n
	retained := int64(after.HeapAlloc-before.HeapAlloc) / n
	// The Distance range alone is ~6,000 codes: one evaluated table of
	// sqltypes.Values over it was ~400 KB a statement.
	const bound = 128 << 10
	t.Logf("%d bytes allocated, ~%d retained per compile; shared %d bytes", perCompile, retained, shared)
	if perCompile > bound {
		t.Errorf("%d bytes allocated per compile, want <= %d", perCompile, bound)
	}
	if retained > 16<<10 {
		t.Errorf("~%d bytes retained per compiled statement", retained)
	}
	if got := tbl.SharedBytes(); got != shared {
		t.Errorf("shared tables grew from %d to %d bytes", shared, got)
	}
	allocs := testing.AllocsPerRun(50, func() { compile(len(keep)) })
	t.Logf("%.0f allocations per compile", allocs)
	if allocs > 1500 {
		t.Errorf("%.0f allocations per compile", allocs)
	}
	// The programs still answer as the generic path does, with every
	// Arrow buffer given back.
	for _, i := range []int{1, 7, n} {
		p := keep[i-1]
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		rows := 0
		err := p.Run(context.Background(), mem, Options{Parallel: 2}, func(_ int, bs []arrow.RecordBatch) error {
			for _, b := range bs {
				rows += int(b.NumRows())
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		mem.AssertSize(t, 0)
		want, _ := run(t, env, tbl, frag(i), fields, false)
		got, _ := run(t, env, tbl, frag(i), fields, true)
		if !slices.Equal(folded(got), folded(want)) || rows == 0 {
			t.Errorf("statement %d: vectorized %v, generic %v (%d partial rows)", i, got, want, rows)
		}
	}
	runtime.KeepAlive(keep)
}

// TestSharedConcurrent compiles over a fresh version from many goroutines
// at once: the shared tables are built once and every Program sees them
// whole (run with -race).
func TestSharedConcurrent(t *testing.T) {
	env := newEnv(t)
	tbl := statesTable(t, 1000, true)
	fields := []*querypb.Field{field("OriginState", sqltypes.Char, utf8mb4GeneralCI, 8), field("c", sqltypes.Int64, 63, 21)}
	frag := "SELECT `OriginState`, COUNT(1) FROM `db`.`states` WHERE `OriginState` <> `DestState` AND `Distance` > %d GROUP BY `OriginState`"
	want, _ := run(t, env, tbl, fmt.Sprintf(frag, 100), fields, false)
	done := make(chan []string)
	for range 8 {
		go func() {
			p, err := Compile(env, tbl, fmt.Sprintf(frag, 100), fields)
			if err != nil || p.fast == nil {
				done <- nil
				return
			}
			var out []string
			_ = p.Run(context.Background(), memory.NewGoAllocator(), Options{Parallel: 1}, func(_ int, bs []arrow.RecordBatch) error {
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
			slices.Sort(out)
			done <- out
		}()
	}
	for range 8 {
		if got := <-done; !slices.Equal(folded(got), folded(want)) {
			t.Errorf("concurrent compile: %v, want %v", got, want)
		}
	}
}

// BenchmarkCompileDistinct compiles dashboard-like statements with a new
// literal each time over one pin (B/op is what a new literal costs).
func BenchmarkCompileDistinct(b *testing.B) {
	env := newEnv(b)
	tbl := statesTable(b, 20000)
	fields := []*querypb.Field{field("OriginState", sqltypes.Char, utf8mb4GeneralCI, 8), field("c", sqltypes.Int64, 63, 21)}
	b.ReportAllocs()
	for i := range b.N {
		frag := fmt.Sprintf("SELECT `OriginState`, COUNT(1) FROM `db`.`states` WHERE `Distance` <> %d GROUP BY `OriginState`", i)
		if _, err := Compile(env, tbl, frag, fields); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkColumnPair is `OriginState <> DestState` on both paths.
func BenchmarkColumnPair(b *testing.B) {
	env := newEnv(b)
	tbl := statesTable(b, 100000)
	fields := []*querypb.Field{field("OriginState", sqltypes.Char, utf8mb4GeneralCI, 8), field("c", sqltypes.Int64, 63, 21)}
	frag := "SELECT `OriginState`, COUNT(1) FROM `db`.`states` WHERE `OriginState` <> `DestState` GROUP BY `OriginState`"
	for _, fast := range []bool{true, false} {
		b.Run(map[bool]string{true: "vectorized", false: "generic"}[fast], func(b *testing.B) {
			p, err := Compile(env, tbl, frag, fields)
			if err != nil {
				b.Fatal(err)
			}
			if !fast {
				p.fast = nil
			}
			mem := memory.NewGoAllocator()
			for range b.N {
				if err := p.Run(context.Background(), mem, Options{Parallel: 1}, func(int, []arrow.RecordBatch) error { return nil }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// folded lower-cases rows: a group of values equal under a case-insensitive
// collation may show any of them (MySQL's rule too), and the two paths
// pick differently when a filter skips a group's first rows.
func folded(rows []string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = strings.ToLower(strings.ReplaceAll(strings.ReplaceAll(r, "É", "e"), "é", "e"))
	}
	slices.Sort(out)
	return out
}

func statesFields() []*querypb.Field {
	return []*querypb.Field{
		field("id", sqltypes.Int32, 63, 11),
		field("OriginState", sqltypes.Char, utf8mb4GeneralCI, 8),
		field("DestState", sqltypes.Char, utf8mb4GeneralCI, 8),
		field("BinState", sqltypes.VarChar, utf8mb4Bin, 8),
		field("Lat", sqltypes.VarChar, latin1SwedishCI, 8),
		field("Distance", sqltypes.Int32, 63, 11),
		field("Delay", sqltypes.Int32, 63, 11),
		field("Day", sqltypes.Date, 63, 10),
		field("Day2", sqltypes.Date, 63, 10),
	}
}

// statesRows are statesTable's rows.
func statesRows(rows int, cut bool) [][]sqltypes.Value {
	var out [][]sqltypes.Value
	for i := 0; i < rows; i++ {
		h := uint64(i) * 0x9e3779b97f4a7c15
		str := func(vals []string, shift uint) sqltypes.Value {
			if (h>>shift)%13 == 0 {
				return sqltypes.NULL
			}
			v := vals[(h>>(shift+4))%uint64(len(vals))]
			if cut {
				v = strings.TrimRight(v, " ")
			}
			return sqltypes.NewVarChar(v)
		}
		dist := sqltypes.NewInt64(int64(h>>20%6000) + 10)
		if h%19 == 0 {
			dist = sqltypes.NULL
		}
		day := func(shift uint) sqltypes.Value {
			if (h>>shift)%17 == 0 {
				return sqltypes.NULL
			}
			return sqltypes.MakeTrusted(sqltypes.Date, []byte(fmt.Sprintf("2020-%02d-%02d", (h>>(shift+5))%12+1, (h>>(shift+9))%28+1)))
		}
		row := []sqltypes.Value{
			sqltypes.NewInt64(int64(i)),
			str(originStates, 3),
			str(destStates, 11),
			str(originStates, 19),
			str([]string{"ab", "AB", "Ab ", "cd", "CD"}, 27),
			dist,
			sqltypes.NewInt64(int64(h>>40%400) - 100),
			day(35),
			day(45),
		}
		out = append(out, row)
	}
	return out
}

// TestForeignCharsetRefused: a pin holds a latin1 column's text as
// utf8mb4 under latin1_swedish_ci (engine/pinfields.go), which no
// in-memory comparison, grouping or function reads correctly ('Åsa' and
// 'asa' grouped apart by the server, together over the utf8mb4 bytes;
// LENGTH counted utf8mb4 bytes), so a statement that reads it does not
// compile and runs on the replicas. The other columns still compile.
func TestForeignCharsetRefused(t *testing.T) {
	env := newEnv(t)
	tbl := statesTable(t, 100)
	count := []*querypb.Field{field("c", sqltypes.Int64, 63, 21)}
	for _, c := range []struct {
		frag   string
		fields []*querypb.Field
	}{
		{"SELECT COUNT(1) FROM `db`.`states` WHERE `Lat` = 'ab'", count},
		{"SELECT COUNT(1) FROM `db`.`states` WHERE `Lat` < 'b'", count},
		{"SELECT `Lat`, COUNT(1) FROM `db`.`states` GROUP BY `Lat`", []*querypb.Field{field("Lat", sqltypes.VarChar, latin1SwedishCI, 8), count[0]}},
		{"SELECT LENGTH(`Lat`) FROM `db`.`states`", []*querypb.Field{field("l", sqltypes.Int64, 63, 10)}},
	} {
		_, err := Compile(env, tbl, c.frag, c.fields)
		if err == nil || !strings.Contains(err.Error(), "a latin1 column the pin holds as utf8mb4") {
			t.Errorf("%s: %v, want a latin1 refusal", c.frag, err)
		}
	}
	if _, err := Compile(env, tbl, "SELECT COUNT(1) FROM `db`.`states` WHERE `BinState` = 'TX'", count); err != nil {
		t.Errorf("a utf8mb4_bin column refused: %v", err)
	}
}
