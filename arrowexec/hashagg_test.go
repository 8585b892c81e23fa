package arrowexec

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/mysql/sqlerror"
	"vitess.io/vitess/go/sqltypes"
)

const (
	generalCI = collations.ID(45)  // utf8mb4_general_ci, PAD SPACE
	mb4Bin    = collations.ID(46)  // utf8mb4_bin, PAD SPACE
	ai0900    = collations.ID(255) // utf8mb4_0900_ai_ci, NO PAD
)

var (
	tInt   = arrow.PrimitiveTypes.Int64
	tUint  = arrow.PrimitiveTypes.Uint64
	tFloat = arrow.PrimitiveTypes.Float64
	tStr   = arrow.BinaryTypes.String
	tBin   = arrow.BinaryTypes.Binary
	tDate  = arrow.FixedWidthTypes.Date32
	tTS    = &arrow.TimestampType{Unit: arrow.Microsecond}
)

func tDec(p, s int32) arrow.DataType    { return &arrow.Decimal128Type{Precision: p, Scale: s} }
func tDec256(p, s int32) arrow.DataType { return &arrow.Decimal256Type{Precision: p, Scale: s} }

// aggBatch is one input batch: its column types (a Null type stands for a
// fragment whose column was all NULL) and rows.
type aggBatch struct {
	types []arrow.DataType
	rows  [][]sqltypes.Value
}

func TestHashAgg(t *testing.T) {
	cnt, sum := AggSpec{Kind: AggCount}, AggSpec{Kind: AggSum}
	minA, maxA := AggSpec{Kind: AggMin}, AggSpec{Kind: AggMax}
	cases := []struct {
		name    string
		keys    []KeySpec
		aggs    []AggSpec
		meta    []string // "mysql.type" per column, optional
		batches []aggBatch
		want    []string
	}{{
		name: "int key over batches with NULL keys and NULL partials",
		keys: []KeySpec{{}},
		aggs: []AggSpec{cnt, sum, minA, maxA},
		batches: []aggBatch{
			{[]arrow.DataType{tInt, tInt, tDec(12, 2), tFloat, tFloat}, [][]sqltypes.Value{
				row(i64(1), i64(2), dec("1.10"), f64(0.5), f64(0.5)),
				row(null, i64(3), dec("-2.00"), f64(-1), f64(7)),
				row(i64(2), i64(0), null, null, null),
			}},
			{[]arrow.DataType{tInt, tInt, tDec(12, 2), tFloat, tFloat}, [][]sqltypes.Value{
				row(i64(1), i64(5), dec("0.40"), f64(-3), f64(0.25)),
				row(null, i64(1), null, null, f64(8)),
				row(i64(2), i64(0), null, null, null),
			}},
		},
		want: []string{
			"INT64(1) INT64(7) DECIMAL(1.50) FLOAT64(-3) FLOAT64(0.5)",
			"NULL INT64(4) DECIMAL(-2.00) FLOAT64(-1) FLOAT64(8)",
			"INT64(2) INT64(0) NULL NULL NULL",
		},
	}, {
		name: "general_ci groups a, A and 'a ' and keeps the first spelling",
		keys: []KeySpec{{Collation: generalCI}},
		aggs: []AggSpec{cnt, {Kind: AggMin, Collation: generalCI}, {Kind: AggMax, Collation: generalCI}, maxA},
		batches: []aggBatch{
			{[]arrow.DataType{tStr, tInt, tStr, tStr, tStr}, [][]sqltypes.Value{
				row(str("a"), i64(1), str("b"), str("b"), str("b")),
				row(str("B"), i64(1), str("x"), str("x"), str("x")),
			}},
			{[]arrow.DataType{tStr, tInt, tStr, tStr, tStr}, [][]sqltypes.Value{
				row(str("A"), i64(1), str("A"), str("A"), str("A")),
				row(str("a "), i64(1), str("C"), str("C"), str("C")),
				row(null, i64(2), str("z"), str("z"), str("z")),
				row(str("b"), i64(1), str("X"), str("X"), str("X")),
			}},
		},
		want: []string{
			`VARCHAR("a") INT64(3) VARCHAR("A") VARCHAR("C") VARCHAR("b")`,
			`VARCHAR("B") INT64(2) VARCHAR("x") VARCHAR("x") VARCHAR("x")`,
			`NULL INT64(2) VARCHAR("z") VARCHAR("z") VARCHAR("z")`,
		},
	}, {
		name: "utf8mb4_bin pads spaces but keeps case; 0900 has no pad",
		keys: []KeySpec{{Collation: mb4Bin}, {Collation: ai0900}},
		aggs: []AggSpec{cnt},
		batches: []aggBatch{{[]arrow.DataType{tStr, tStr, tInt}, [][]sqltypes.Value{
			row(str("a"), str("q"), i64(1)),
			row(str("a "), str("Q"), i64(1)),
			row(str("A"), str("q"), i64(1)),
			row(str("a"), str("q "), i64(1)),
		}}},
		want: []string{
			`VARCHAR("a") VARCHAR("q") INT64(2)`,
			`VARCHAR("A") VARCHAR("q") INT64(1)`,
			`VARCHAR("a") VARCHAR("q ") INT64(1)`,
		},
	}, {
		// A pinned utf8mb4_bin or latin1_bin column is VARBINARY to
		// vitess (an Arrow Binary array) and keeps its collation: 'a'
		// and 'a ' were two groups over a pin (e2e TestPadSpaceBinText).
		name: "VARBINARY text under utf8mb4_bin pads spaces; binary strings do not",
		keys: []KeySpec{{Collation: mb4Bin}, {}},
		aggs: []AggSpec{cnt},
		batches: []aggBatch{{[]arrow.DataType{tBin, tBin, tInt}, [][]sqltypes.Value{
			row(vbin("a"), vbin("q"), i64(1)),
			row(vbin("a "), vbin("q"), i64(1)),
			row(vbin("A"), vbin("q"), i64(1)),
			row(vbin("a"), vbin("q "), i64(1)),
		}}},
		want: []string{
			`VARBINARY("a") VARBINARY("q") INT64(2)`,
			`VARBINARY("A") VARBINARY("q") INT64(1)`,
			`VARBINARY("a") VARBINARY("q ") INT64(1)`,
		},
	}, {
		name: "decimal, float, date and datetime keys by value",
		keys: []KeySpec{{}, {}, {}, {}},
		aggs: []AggSpec{cnt},
		batches: []aggBatch{
			{[]arrow.DataType{tDec(10, 2), tFloat, tDate, tTS, tInt}, [][]sqltypes.Value{
				row(dec("1.50"), f64(0), date("2024-01-31"), dt("2024-01-31 10:00:00.5"), i64(1)),
				row(dec("1.5"), f64(math.Copysign(0, -1)), date("2024-01-31"), dt("2024-01-31 10:00:00.500000"), i64(1)),
				row(dec("-1.50"), f64(0), date("2024-01-31"), dt("2024-01-31 10:00:00.5"), i64(1)),
			}},
			{[]arrow.DataType{tDec256(40, 2), tFloat, tDate, tTS, tInt}, [][]sqltypes.Value{
				row(dec("1.50"), f64(0), date("2024-01-31"), dt("2024-01-31 10:00:00.5"), i64(1)),
				row(null, null, null, null, i64(1)),
			}},
		},
		want: []string{
			`DECIMAL(1.50) FLOAT64(0) DATE("2024-01-31") DATETIME("2024-01-31 10:00:00.500000") INT64(3)`,
			`DECIMAL(-1.50) FLOAT64(0) DATE("2024-01-31") DATETIME("2024-01-31 10:00:00.500000") INT64(1)`,
			`NULL NULL NULL NULL INT64(1)`,
		},
	}, {
		name: "int and uint keys agree on shared values",
		keys: []KeySpec{{}},
		aggs: []AggSpec{cnt},
		batches: []aggBatch{
			{[]arrow.DataType{tInt, tInt}, [][]sqltypes.Value{row(i64(5), i64(1))}},
			{[]arrow.DataType{tUint, tInt}, [][]sqltypes.Value{row(u64(5), i64(1)), row(u64(math.MaxUint64), i64(1))}},
		},
		want: []string{`INT64(5) INT64(2)`, `UINT64(18446744073709551615) INT64(1)`},
	}, {
		name: "all-NULL partials: SUM NULL, COUNT 0; Null-typed columns",
		aggs: []AggSpec{cnt, sum, minA, maxA},
		batches: []aggBatch{
			{[]arrow.DataType{arrow.Null, arrow.Null, arrow.Null, arrow.Null}, [][]sqltypes.Value{row(null, null, null, null)}},
			{[]arrow.DataType{tInt, tDec(10, 2), tStr, tDate}, [][]sqltypes.Value{row(i64(0), null, null, null)}},
		},
		want: []string{`INT64(0) NULL NULL NULL`},
	}, {
		name: "a Null-typed batch between typed ones",
		keys: []KeySpec{{}},
		aggs: []AggSpec{sum, minA},
		batches: []aggBatch{
			{[]arrow.DataType{tInt, tDec(10, 2), tStr}, [][]sqltypes.Value{row(i64(1), dec("1.00"), str("b"))}},
			{[]arrow.DataType{tInt, arrow.Null, arrow.Null}, [][]sqltypes.Value{row(i64(1), null, null), row(i64(2), null, null)}},
			{[]arrow.DataType{tInt, tDec(10, 2), tStr}, [][]sqltypes.Value{row(i64(1), dec("2.25"), str("a"))}},
		},
		want: []string{`INT64(1) DECIMAL(3.25) VARCHAR("a")`, `INT64(2) NULL NULL`},
	}, {
		name: "integer sums past int64 and uint64 become exact decimals",
		aggs: []AggSpec{sum, sum, sum},
		batches: []aggBatch{
			{[]arrow.DataType{tInt, tUint, tInt}, [][]sqltypes.Value{
				row(i64(math.MaxInt64), u64(math.MaxUint64), i64(math.MinInt64)),
				row(i64(math.MaxInt64), u64(math.MaxUint64), i64(math.MinInt64)),
			}},
			{[]arrow.DataType{tInt, tUint, tInt}, [][]sqltypes.Value{row(i64(2), u64(2), i64(-1))}},
		},
		want: []string{`DECIMAL(18446744073709551616) DECIMAL(36893488147419103232) DECIMAL(-18446744073709551617)`},
	}, {
		name: "decimal sums past decimal128 stay exact",
		keys: []KeySpec{{}},
		aggs: []AggSpec{sum, sum},
		batches: []aggBatch{
			{[]arrow.DataType{tInt, tDec(38, 0), tDec256(65, 30)}, [][]sqltypes.Value{
				row(i64(1), dec(nines(38)), dec(nines(35)+"."+nines(30))),
				row(i64(1), dec(nines(38)), dec(nines(35)+"."+nines(30))),
			}},
			{[]arrow.DataType{tInt, tDec(38, 0), tDec256(65, 30)}, [][]sqltypes.Value{
				row(i64(1), dec(nines(38)), dec("-0.000000000000000000000000000001")),
				row(i64(2), dec("-"+nines(38)), dec("-"+nines(35)+"."+nines(30))),
				row(i64(2), dec("-"+nines(38)), dec("-"+nines(35)+"."+nines(30))),
			}},
		},
		want: []string{
			`INT64(1) DECIMAL(2` + nines(37) + `7) DECIMAL(1` + nines(35) + `.` + nines(29) + `7)`,
			`INT64(2) DECIMAL(-1` + nines(37) + `8) DECIMAL(-1` + nines(35) + `.` + nines(29) + `8)`,
		},
	}, {
		name: "decimal scales widen to the largest seen; float sums",
		aggs: []AggSpec{sum, sum},
		batches: []aggBatch{
			{[]arrow.DataType{tDec(10, 1), tFloat}, [][]sqltypes.Value{row(dec("1.5"), f64(0.1))}},
			{[]arrow.DataType{tDec(10, 3), tFloat}, [][]sqltypes.Value{row(dec("0.125"), f64(0.2))}},
			{[]arrow.DataType{tInt, tFloat}, [][]sqltypes.Value{row(i64(2), f64(1e20))}},
		},
		want: []string{`DECIMAL(3.625) FLOAT64(1e20)`},
	}, {
		name: "MIN/MAX of decimals, dates, datetimes and unsigned by value",
		aggs: []AggSpec{minA, maxA, minA, maxA, minA, maxA, maxA},
		batches: []aggBatch{
			{[]arrow.DataType{tDec(10, 2), tDec(10, 2), tDate, tDate, tTS, tTS, tUint}, [][]sqltypes.Value{
				row(dec("-10.00"), dec("-10.00"), date("2000-02-29"), date("2000-02-29"), dt("1999-12-31 23:59:59.999999"), dt("1999-12-31 23:59:59.999999"), u64(1)),
				row(dec("9.99"), dec("9.99"), date("1969-07-20"), date("1969-07-20"), dt("2000-01-01 00:00:00"), dt("2000-01-01 00:00:00"), u64(math.MaxUint64)),
			}},
		},
		want: []string{`DECIMAL(-10.00) DECIMAL(9.99) DATE("1969-07-20") DATE("2000-02-29") DATETIME("1999-12-31 23:59:59.999999") DATETIME("2000-01-01 00:00:00") UINT64(18446744073709551615)`},
	}, {
		name: "YEAR key and TIME MIN/MAX from field metadata",
		keys: []KeySpec{{}},
		aggs: []AggSpec{minA, maxA},
		meta: []string{"YEAR", "TIME", "TIME"},
		batches: []aggBatch{
			{[]arrow.DataType{tInt, tStr, tStr}, [][]sqltypes.Value{
				row(i64(2024), tm("20:00:00"), tm("20:00:00")),
				row(i64(2024), tm("100:00:00"), tm("100:00:00")),
				row(i64(2024), tm("-01:00:00.5"), tm("-01:00:00.5")),
			}},
		},
		want: []string{`YEAR(2024) TIME("-01:00:00.5") TIME("100:00:00")`},
	}, {
		name: "no keys, no input: one row",
		aggs: []AggSpec{cnt, sum, minA, maxA},
		want: []string{`INT64(0) NULL NULL NULL`},
	}, {
		name:    "no keys, empty batch: one row",
		aggs:    []AggSpec{cnt, sum},
		batches: []aggBatch{{[]arrow.DataType{tInt, tDec(10, 2)}, nil}},
		want:    []string{`INT64(0) NULL`},
	}, {
		name:    "keys, no input: no rows",
		keys:    []KeySpec{{}},
		aggs:    []AggSpec{cnt},
		batches: []aggBatch{{[]arrow.DataType{tInt, tInt}, nil}},
		want:    []string{},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			h := NewHashAgg(mem, collations.MySQL8(), tc.keys, tc.aggs, 0)
			defer h.Release()
			for _, b := range tc.batches {
				fields := make([]arrow.Field, len(b.types))
				for i, typ := range b.types {
					m := ""
					if i < len(tc.meta) {
						m = tc.meta[i]
					}
					fields[i] = field(fmt.Sprintf("c%d", i), typ, m)
				}
				rec := batch(t, mem, arrow.NewSchema(fields, nil), b.rows...)
				err := h.Add(rec)
				rec.Release()
				if err != nil {
					t.Fatal(err)
				}
			}
			rows, err := h.Rows()
			if err != nil {
				t.Fatal(err)
			}
			if got := render(rows); !slices.Equal(got, tc.want) {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
			if len(tc.keys) > 0 && h.Groups() != len(tc.want) {
				t.Errorf("Groups() = %d, want %d", h.Groups(), len(tc.want))
			}
		})
	}
}

func TestHashAggMemoryLimit(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{field("k", tStr, ""), field("n", tInt, "")}, nil)
	h := NewHashAgg(mem, nil, []KeySpec{{Collation: generalCI}}, []AggSpec{{Kind: AggCount}}, 4096)
	defer h.Release()
	var rows [][]sqltypes.Value
	for i := range 1000 {
		rows = append(rows, row(str(fmt.Sprintf("key-%04d", i)), i64(1)))
	}
	rec := batch(t, mem, schema, rows...)
	defer rec.Release()
	err := h.Add(rec)
	var se *sqlerror.SQLError
	if !errors.As(err, &se) || se.Number() != sqlerror.EROutOfResources || !strings.Contains(se.Error(), "merge_memory_limit") {
		t.Fatalf("Add: got %v, want ER_OUT_OF_RESOURCES naming merge_memory_limit", err)
	}
	if h.Groups() >= 1000 {
		t.Errorf("stopped after %d groups, want fewer than 1000", h.Groups())
	}
	if err2 := h.Add(rec); err2 != err {
		t.Errorf("second Add: %v, want the sticky error", err2)
	}
	if _, err := h.Rows(); err == nil {
		t.Error("Rows after a failed Add succeeded")
	}
}

func TestHashAggErrors(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, tc := range []struct {
		name    string
		aggs    []AggSpec
		batches [][]arrow.DataType
	}{
		{"wrong column count", []AggSpec{{Kind: AggCount}}, [][]arrow.DataType{{tInt, tInt}}},
		{"SUM mixing float and decimal", []AggSpec{{Kind: AggSum}}, [][]arrow.DataType{{tFloat}, {tDec(10, 2)}}},
		{"MIN changing type", []AggSpec{{Kind: AggMin}}, [][]arrow.DataType{{tInt}, {tStr}}},
		{"COUNT of strings", []AggSpec{{Kind: AggCount}}, [][]arrow.DataType{{tStr}}},
		{"unknown collation", []AggSpec{{Kind: AggMin, Collation: 9999}}, [][]arrow.DataType{{tStr}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := NewHashAgg(mem, nil, nil, tc.aggs, 0)
			defer h.Release()
			var err error
			for _, types := range tc.batches {
				fields := make([]arrow.Field, len(types))
				vals := make([]sqltypes.Value, len(types))
				for i, typ := range types {
					fields[i] = field(fmt.Sprint(i), typ, "")
					vals[i] = null
				}
				rec := batch(t, mem, arrow.NewSchema(fields, nil), vals)
				err = h.Add(rec)
				rec.Release()
				if err != nil {
					break
				}
			}
			if err == nil {
				t.Fatal("no error")
			}
		})
	}
}

// BenchmarkHashAggMerge merges 1M partial rows in 8k-row batches: an int key
// with 20 values and a utf8mb4_general_ci string key with 10 spellings in 5
// case-folded groups, COUNT + SUM(DECIMAL(15,2)) + MIN(DECIMAL) + MAX(string).
func BenchmarkHashAggMerge(b *testing.B) {
	const total, per = 1 << 20, 8192
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(b, 0)
	schema := arrow.NewSchema([]arrow.Field{
		field("k1", tInt, ""), field("k2", tStr, ""),
		field("cnt", tInt, ""), field("sum", tDec(15, 2), ""), field("min", tDec(15, 2), ""), field("max", tStr, ""),
	}, nil)
	names := []string{"alpha", "ALPHA", "beta", "Beta", "gamma", "GAMMA ", "delta", "Delta", "eps", "EPS"}
	var recs []arrow.RecordBatch
	for base := 0; base < total; base += per {
		rows := make([][]sqltypes.Value, per)
		for i := range rows {
			n := base + i
			rows[i] = row(i64(int64(n%20)), str(names[(n/20)%len(names)]), i64(int64(n%7)),
				dec(fmt.Sprintf("%d.%02d", n%100000, n%100)), dec(fmt.Sprintf("-%d.%02d", n%1000, n%100)), str(fmt.Sprintf("v%06d", n%999999)))
		}
		recs = append(recs, batch(b, mem, schema, rows...))
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	keys := []KeySpec{{}, {Collation: generalCI}}
	aggs := []AggSpec{{Kind: AggCount}, {Kind: AggSum}, {Kind: AggMin}, {Kind: AggMax, Collation: generalCI}}
	runtime.GC() // the setup's garbage is not the merge's cost
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		h := NewHashAgg(mem, nil, keys, aggs, 0)
		for _, r := range recs {
			if err := h.Add(r); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := h.Rows(); err != nil {
			b.Fatal(err)
		}
		if h.Groups() != 100 {
			b.Fatalf("groups = %d, want 100", h.Groups())
		}
		h.Release()
	}
	b.ReportMetric(float64(total)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// TestHashAggAddNew: AddNew reports the rows whose key opens a group,
// across batches and within one, under the keys' collation, NULL a key
// of its own.
func TestHashAggAddNew(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{field("g", tInt, ""), field("k", tStr, "")}, nil)
	h := NewHashAgg(mem, nil, []KeySpec{{}, {Collation: generalCI}}, nil, 0)
	defer h.Release()
	for _, tc := range []struct {
		rows [][]sqltypes.Value
		want []bool
	}{
		{[][]sqltypes.Value{row(i64(1), str("a")), row(i64(1), str("A ")), row(i64(2), str("a")), row(i64(1), sqltypes.NULL), row(i64(1), str("b"))},
			[]bool{true, false, true, true, true}},
		{[][]sqltypes.Value{row(i64(2), str("A")), row(i64(1), sqltypes.NULL), row(i64(3), str("a")), row(i64(3), str("a"))},
			[]bool{false, false, true, false}},
	} {
		rec := batch(t, mem, schema, tc.rows...)
		got, err := h.AddNew(rec)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("AddNew = %v, want %v", got, tc.want)
		}
	}
	if h.Groups() != 5 {
		t.Errorf("Groups() = %d, want 5", h.Groups())
	}
}
