package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/shoaldb/shoal/bench/pinbench"
)

// TestLoadAndQuery loads a small tab-separated table as openPeer does and
// runs a dashboard chart over it with a varying condition: the rows come
// back as MySQL's text protocol would print them.
func TestLoadAndQuery(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "rows.tsv")
	data := "1\tAA\t2015-01-02\t100\t1.5\t0\n" +
		"2\tAA\t2015-01-03\t200\t\\N\t1\n" +
		"3\tDL\t2016-02-01\t300\t-2.25\t0\n"
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	cols := []pinbench.DuckColumn{
		{Name: "id", DuckDBType: "INTEGER"}, {Name: "Carrier", DuckDBType: "VARCHAR"},
		{Name: "FlightDate", DuckDBType: "DATE"}, {Name: "Distance", DuckDBType: "INTEGER"},
		{Name: "ArrDelay", DuckDBType: "DECIMAL(6,2)", Nullable: true}, {Name: "Cancelled", DuckDBType: "TINYINT"},
	}
	p, err := openDuck(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.threads != 1 {
		t.Errorf("threads = %d, want 1", p.threads)
	}
	n, err := p.load(ctx, "recent", cols, path)
	if err != nil || n != 3 {
		t.Fatalf("loaded %d rows, %v", n, err)
	}
	tests := []struct {
		q    string
		want [][]string
	}{
		{"SELECT Carrier, COUNT(*), SUM(Cancelled), MAX(FlightDate), SUM(ArrDelay) FROM recent WHERE Distance <> 100005 GROUP BY Carrier ORDER BY Carrier",
			[][]string{{"AA", "2", "1", "2015-01-03", "1.5"}, {"DL", "1", "0", "2016-02-01", "-2.25"}}},
		{"SELECT ArrDelay, AVG(Distance) FROM recent WHERE FlightDate BETWEEN '2015-01-01' AND '2015-12-31' AND Carrier IN ('AA') GROUP BY ArrDelay ORDER BY ArrDelay NULLS FIRST",
			[][]string{{"NULL", "200"}, {"1.5", "100"}}},
	}
	for _, tc := range tests {
		got, err := p.Query(ctx, tc.q)
		if err != nil {
			t.Fatalf("%s: %v", tc.q, err)
		}
		if !slices.EqualFunc(got, tc.want, slices.Equal[[]string]) {
			t.Errorf("%s:\n got %v\nwant %v", tc.q, got, tc.want)
		}
	}
}
