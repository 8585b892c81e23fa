package pinexec

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/arrowexec"
	"github.com/shoaldb/shoal/evalexpr"
	"github.com/shoaldb/shoal/pinned"
)

// ontimeLike builds n rows shaped like ontime's columns of Percona's
// queries, with typed builders (fast enough for 10^7 rows).
func ontimeLike(b *testing.B, n int) *pinned.Table {
	fields := []*querypb.Field{
		field("YearD", sqltypes.Int16, 63, 6),
		field("DayOfWeek", sqltypes.Int8, 63, 4),
		field("Carrier", sqltypes.VarChar, 45, 40),
		field("OriginState", sqltypes.Char, 45, 8),
		field("DestState", sqltypes.Char, 45, 8),
		field("ArrDelayMinutes", sqltypes.Int32, 63, 11),
		field("Quarter", sqltypes.Int8, 63, 4),
		field("DepDelayMinutes", sqltypes.Int32, 63, 11),
		field("Cancelled", sqltypes.Int8, 63, 4),
		field("Diverted", sqltypes.Int8, 63, 4),
	}
	schema := arrowexec.SchemaFor(fields)
	mem := memory.NewGoAllocator()
	carriers := []string{"AA", "UA", "DL", "WN", "US", "NW", "CO", "MQ", "OO", "XE", "EV", "B6", "AS", "FL", "YV", "9E", "OH", "F9", "HA", "TW"}
	states := []string{"CA", "TX", "FL", "NY", "IL", "GA", "AK", "HI", "PR", "VI", "CO", "AZ", "WA", "NV", "NC", "MI", "PA", "OH", "MN", "MA"}
	var batches []arrow.RecordBatch
	const batch = 65536
	for lo := 0; lo < n; lo += batch {
		rb := array.NewRecordBuilder(mem, schema)
		for i := lo; i < min(lo+batch, n); i++ {
			h := uint64(i) * 0x9e3779b97f4a7c15
			rb.Field(0).(*array.Int64Builder).Append(int64(1988 + i*29/n))
			rb.Field(1).(*array.Int64Builder).Append(int64(i%7 + 1))
			rb.Field(2).(*array.StringBuilder).Append(carriers[h>>59%uint64(len(carriers))])
			rb.Field(3).(*array.StringBuilder).Append(states[h>>40%20])
			rb.Field(4).(*array.StringBuilder).Append(states[h>>20%20])
			if h%17 == 0 {
				rb.Field(5).AppendNull()
			} else {
				rb.Field(5).(*array.Int64Builder).Append(int64(h>>8%300) - 30)
			}
			rb.Field(6).(*array.Int64Builder).Append(int64(i*29*4/n%4 + 1))
			if h>>24%60 == 0 {
				rb.Field(7).AppendNull()
			} else {
				rb.Field(7).(*array.Int64Builder).Append(int64(h >> 12 % 400))
			}
			rb.Field(8).(*array.Int64Builder).Append(int64(b2i(h>>32%1000 < 17)))
			rb.Field(9).(*array.Int64Builder).Append(int64(b2i(h>>42%1000 < 3)))
		}
		batches = append(batches, rb.NewRecordBatch())
		rb.Release()
	}
	t, err := pinned.Build("ontime", "ontime", fields, batches)
	for _, x := range batches {
		x.Release()
	}
	if err != nil {
		b.Fatal(err)
	}
	return t
}

// benchTable is the table the benchmarks read: SHOAL_BENCH_ROWS rows
// (default 10^6) of ontimeLike, and an evaluation environment.
func benchTable(b *testing.B) (*pinned.Table, *evalexpr.Env) {
	n := 1_000_000
	if s := os.Getenv("SHOAL_BENCH_ROWS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	tbl := ontimeLike(b, n)
	env, err := evalexpr.NewEnv("10.11.19-MariaDB")
	if err != nil {
		b.Fatal(err)
	}
	return tbl, env
}

// BenchmarkPercona runs the fragments of Percona's queries 1 and 2 over a
// pinned table (SHOAL_BENCH_ROWS rows, default 10^6), on both paths.
// Report: go test ./pinned/pinexec -bench Percona -benchtime 5x; the ns/row metric
// is per input row.
func BenchmarkPercona(b *testing.B) {
	tbl, env := benchTable(b)
	b.Logf("%d rows, %d bytes pinned (%d bytes/row)", tbl.Rows, tbl.Bytes, tbl.Bytes/tbl.Rows)
	dec := field("s", sqltypes.Decimal, 63, 33)
	bigint := field("c", sqltypes.Int64, 63, 21)
	queries := []struct {
		name   string
		frag   string
		fields []*querypb.Field
	}{
		{"q1", "SELECT `Carrier`, MIN(`YearD`), MAX(`YearD`), COUNT(1), SUM(IF(`ArrDelayMinutes`>30, 1, 0)) FROM `ontime`.`ontime` WHERE (`DayOfWeek` NOT IN (6,7) AND `OriginState` NOT IN (_UTF8MB4'AK',_UTF8MB4'HI',_UTF8MB4'PR',_UTF8MB4'VI') AND `DestState` NOT IN (_UTF8MB4'AK',_UTF8MB4'HI',_UTF8MB4'PR',_UTF8MB4'VI')) AND (TRUE) GROUP BY `Carrier`",
			[]*querypb.Field{field("Carrier", sqltypes.VarChar, 45, 40), field("a", sqltypes.Int16, 63, 6), field("b", sqltypes.Int16, 63, 6), bigint, dec}},
		{"q2", "SELECT `DayOfWeek`, COUNT(1) FROM `ontime`.`ontime` WHERE (TRUE) GROUP BY `DayOfWeek`",
			[]*querypb.Field{field("DayOfWeek", sqltypes.Int8, 63, 4), bigint}},
	}
	for _, q := range queries {
		for _, fast := range []bool{true, false} {
			name := q.name + "/vectorized"
			if !fast {
				name = q.name + "/generic"
				if tbl.Rows > 2_000_000 {
					continue
				}
			}
			b.Run(name, func(b *testing.B) {
				p, err := Compile(env, tbl, q.frag, q.fields)
				if err != nil {
					b.Fatal(err)
				}
				if fast && p.fast == nil {
					b.Fatal("not vectorized")
				}
				if !fast {
					p.fast = nil
				}
				mem := memory.NewGoAllocator()
				b.ResetTimer()
				for range b.N {
					err := p.Run(context.Background(), mem, Options{}, func(int, []arrow.RecordBatch) error { return nil })
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(tbl.Rows), "ns/row")
			})
		}
	}
}

// BenchmarkDashboard runs the pin's fragments of two dashboard charts
// (bench/dashboard) over the table of BenchmarkPercona: kpi_tiles (no
// GROUP BY) and quarterly_delays (AVG split into SUM and COUNT), both
// aggregating nullable columns. ns/row is per input row.
func BenchmarkDashboard(b *testing.B) {
	tbl, env := benchTable(b)
	dec := field("s", sqltypes.Decimal, 63, 33)
	bigint := field("c", sqltypes.Int64, 63, 21)
	queries := []struct {
		name   string
		frag   string
		fields []*querypb.Field
	}{
		{"kpi_tiles", "SELECT COUNT(1), SUM(`Cancelled`), SUM(`Diverted`), SUM(`ArrDelayMinutes`), COUNT(`ArrDelayMinutes`), MAX(`DepDelayMinutes`) FROM `ontime`.`ontime` WHERE (`YearD` >= 1988) AND (TRUE)",
			[]*querypb.Field{bigint, dec, dec, dec, bigint, field("m", sqltypes.Int32, 63, 11)}},
		{"quarterly_delays", "SELECT `YearD`, `Quarter`, SUM(`DepDelayMinutes`), COUNT(`DepDelayMinutes`), SUM(`ArrDelayMinutes`), COUNT(`ArrDelayMinutes`), SUM(`Diverted`), COUNT(1) FROM `ontime`.`ontime` WHERE (`YearD` >= 1988) AND (TRUE) GROUP BY `YearD`, `Quarter`",
			[]*querypb.Field{field("YearD", sqltypes.Int16, 63, 6), field("Quarter", sqltypes.Int8, 63, 4), dec, bigint, dec, bigint, dec, bigint}},
	}
	for _, q := range queries {
		b.Run(q.name, func(b *testing.B) {
			p, err := Compile(env, tbl, q.frag, q.fields)
			if err != nil {
				b.Fatal(err)
			}
			if p.fast == nil {
				b.Fatal("not vectorized")
			}
			mem := memory.NewGoAllocator()
			b.ResetTimer()
			for range b.N {
				err := p.Run(context.Background(), mem, Options{Parallel: 1}, func(int, []arrow.RecordBatch) error { return nil })
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(tbl.Rows), "ns/row")
		})
	}
}

var _ = fmt.Sprint
