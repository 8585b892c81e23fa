package arrowexec

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/sqltypes"
)

func TestSortRows(t *testing.T) {
	cases := []struct {
		name  string
		order []Ordering
		rows  [][]sqltypes.Value
		want  []string
	}{{
		name:  "NULLs first ascending",
		order: []Ordering{{Col: 0}},
		rows:  [][]sqltypes.Value{row(i64(2)), row(null), row(i64(-1)), row(null)},
		want:  []string{"NULL", "NULL", "INT64(-1)", "INT64(2)"},
	}, {
		name:  "NULLs last descending",
		order: []Ordering{{Col: 0, Desc: true}},
		rows:  [][]sqltypes.Value{row(i64(2)), row(null), row(i64(-1))},
		want:  []string{"INT64(2)", "INT64(-1)", "NULL"},
	}, {
		name:  "numbers by value across types",
		order: []Ordering{{Col: 0}},
		rows: [][]sqltypes.Value{
			row(u64(math.MaxUint64)), row(dec("2.50")), row(f64(2.4)), row(i64(3)), row(i64(-1)),
			row(dec("-0.5")), row(i64(math.MinInt64)), row(u64(0)), row(dec("99999999999999999999999")),
		},
		want: []string{
			"INT64(-9223372036854775808)", "INT64(-1)", "DECIMAL(-0.5)", "UINT64(0)", "FLOAT64(2.4)", "DECIMAL(2.50)",
			"INT64(3)", "UINT64(18446744073709551615)", "DECIMAL(99999999999999999999999)",
		},
	}, {
		name:  "general_ci is stable among equal strings",
		order: []Ordering{{Col: 0, Collation: generalCI}},
		rows:  [][]sqltypes.Value{row(str("b"), i64(0)), row(str("A"), i64(1)), row(str("a "), i64(2)), row(str("B"), i64(3)), row(str("a"), i64(4))},
		want:  []string{`VARCHAR("A") INT64(1)`, `VARCHAR("a ") INT64(2)`, `VARCHAR("a") INT64(4)`, `VARCHAR("b") INT64(0)`, `VARCHAR("B") INT64(3)`},
	}, {
		name:  "PAD SPACE: a tab sorts before the padding space",
		order: []Ordering{{Col: 0, Collation: generalCI}},
		rows:  [][]sqltypes.Value{row(str("a")), row(str("a\t")), row(str("a!")), row(str("A"))},
		want:  []string{`VARCHAR("a\t")`, `VARCHAR("a")`, `VARCHAR("A")`, `VARCHAR("a!")`},
	}, {
		name:  "VARBINARY text under utf8mb4_bin: PAD SPACE, stable among equals",
		order: []Ordering{{Col: 0, Collation: mb4Bin}},
		rows:  [][]sqltypes.Value{row(vbin("a "), i64(0)), row(vbin("a"), i64(1)), row(vbin("a\t"), i64(2)), row(vbin("A"), i64(3))},
		want:  []string{`VARBINARY("A") INT64(3)`, `VARBINARY("a\t") INT64(2)`, `VARBINARY("a ") INT64(0)`, `VARBINARY("a") INT64(1)`},
	}, {
		name:  "binary strings by bytes",
		order: []Ordering{{Col: 0}},
		rows:  [][]sqltypes.Value{row(vbin("a ")), row(vbin("a")), row(vbin("a\t"))},
		want:  []string{`VARBINARY("a")`, `VARBINARY("a\t")`, `VARBINARY("a ")`},
	}, {
		name:  "binary comparison",
		order: []Ordering{{Col: 0}},
		rows:  [][]sqltypes.Value{row(str("b")), row(str("B")), row(str("a")), row(str("A"))},
		want:  []string{`VARCHAR("A")`, `VARCHAR("B")`, `VARCHAR("a")`, `VARCHAR("b")`},
	}, {
		name:  "two keys, second descending",
		order: []Ordering{{Col: 0}, {Col: 1, Desc: true}},
		rows:  [][]sqltypes.Value{row(i64(1), str("x")), row(i64(0), str("a")), row(i64(1), str("y")), row(i64(0), null)},
		want:  []string{`INT64(0) VARCHAR("a")`, `INT64(0) NULL`, `INT64(1) VARCHAR("y")`, `INT64(1) VARCHAR("x")`},
	}, {
		name:  "dates and datetimes",
		order: []Ordering{{Col: 0}},
		rows:  [][]sqltypes.Value{row(dt("2024-01-01 00:00:00.5")), row(dt("2024-01-01 00:00:00")), row(dt("2023-12-31 23:59:59.999999"))},
		want:  []string{`DATETIME("2023-12-31 23:59:59.999999")`, `DATETIME("2024-01-01 00:00:00")`, `DATETIME("2024-01-01 00:00:00.5")`},
	}, {
		name:  "TIME by value",
		order: []Ordering{{Col: 0, Desc: true}},
		rows:  [][]sqltypes.Value{row(tm("20:00:00")), row(tm("-838:59:59")), row(tm("100:00:00")), row(tm("-00:00:00.5"))},
		want:  []string{`TIME("100:00:00")`, `TIME("20:00:00")`, `TIME("-00:00:00.5")`, `TIME("-838:59:59")`},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := SortRows(tc.rows, tc.order, collations.MySQL8()); err != nil {
				t.Fatal(err)
			}
			if got := render(tc.rows); !slices.Equal(got, tc.want) {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
		})
	}
}

func TestSortRowsErrors(t *testing.T) {
	rows := [][]sqltypes.Value{row(dec("1")), row(sqltypes.MakeTrusted(sqltypes.Decimal, []byte("x")))}
	if err := SortRows(rows, []Ordering{{Col: 0}}, nil); err == nil {
		t.Error("sorting a malformed DECIMAL succeeded")
	}
	if err := SortRows(rows, []Ordering{{Col: 0, Collation: 9999}}, nil); err == nil {
		t.Error("sorting under an unknown collation succeeded")
	}
}

func TestCollatorPadSpace(t *testing.T) {
	for _, tc := range []struct {
		coll collations.ID
		a, b string
		want int
	}{
		{generalCI, "a", "A  ", 0},
		{generalCI, "a", "a\t", 1},
		{generalCI, "ab", "a", 1},
		{generalCI, "", "   ", 0},
		{mb4Bin, "a ", "a", 0},
		{mb4Bin, "a", "A", 1},
		{ai0900, "a ", "a", 1},
		{ai0900, "a", "A", 0},
		{0, "a ", "a", 1},
		{collations.ID(8), "a", "A ", 0}, // latin1_swedish_ci
	} {
		c, err := newCollator(collations.MySQL8(), tc.coll)
		if err != nil {
			t.Fatal(err)
		}
		got := c.compare([]byte(tc.a), []byte(tc.b))
		keys := c.compareKeys(c.appendKey(nil, []byte(tc.a)), c.appendKey(nil, []byte(tc.b)))
		if got != tc.want || keys != tc.want {
			t.Errorf("collation %d: compare(%q, %q) = %d, by keys %d; want %d", tc.coll, tc.a, tc.b, got, keys, tc.want)
		}
	}
}

func TestTopNMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"apple", "Apple", "APPLE ", "banana", "Banana", "cherry", "", " "}
	var rows [][]sqltypes.Value
	for i := range 5000 {
		var k sqltypes.Value
		switch rng.IntN(4) {
		case 0:
			k = null
		case 1:
			k = dec([]string{"1.50", "-2.00", "3.25"}[rng.IntN(3)])
		default:
			k = i64(int64(rng.IntN(30) - 10))
		}
		rows = append(rows, row(k, str(words[rng.IntN(len(words))]), i64(int64(i))))
	}
	order := []Ordering{{Col: 0, Desc: true}, {Col: 1, Collation: generalCI}}
	sorted := slices.Clone(rows)
	if err := SortRows(sorted, order, nil); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 1, 7, 100, 4999, 5000, 6000} {
		top := NewTopN(order, nil, n)
		for _, r := range rows {
			top.Push(r)
		}
		got, err := top.Rows()
		if err != nil {
			t.Fatal(err)
		}
		want := sorted[:min(n, len(sorted))]
		if !slices.Equal(render(got), render(want)) {
			t.Errorf("TopN(%d) differs from a stable sort cut to %d", n, n)
		}
	}
}
