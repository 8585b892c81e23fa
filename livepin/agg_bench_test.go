package livepin

import (
	"fmt"
	"testing"

	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// BenchmarkAggChange is the cost of one row change (an update moving a
// row's amount, half of them deleting a group's MIN) to an aggregated
// pin of 100,000 rows in 50 groups, with a version's flush every 500
// changes: the pin's share of a change's staleness beside replication.
func BenchmarkAggChange(b *testing.B) {
	cols := []*querypb.Field{{Name: "k", Type: sqltypes.VarChar, Charset: 45}, {Name: "x", Type: sqltypes.Decimal, Decimals: 2}}
	pk := []*querypb.Field{{Name: "id", Type: sqltypes.Int32}}
	out := []*querypb.Field{{Name: "k", Type: sqltypes.VarChar}, {Name: "n", Type: sqltypes.Int64}, {Name: "s", Type: sqltypes.Decimal, Decimals: 2},
		{Name: "a", Type: sqltypes.Decimal, Decimals: 6}, {Name: "m", Type: sqltypes.Decimal, Decimals: 2}}
	spec := &AggSpec{Keys: []string{"k"}, Outs: []AggOut{{Key: 0}, {Func: "count"}, {Func: "sum", Col: "x"}, {Func: "avg", Col: "x"}, {Func: "min", Col: "x"}}}
	a, err := newAggState(spec, []string{"k", "x"}, cols, pk, out, nil)
	if err != nil {
		b.Fatal(err)
	}
	st := &state{index: map[string]int{}, chunk: 256, fields: out, agg: a}
	row := func(id, v int) []sqltypes.Value {
		return []sqltypes.Value{sqltypes.NewVarChar(fmt.Sprintf("g%d", id%50)), sqltypes.MakeTrusted(sqltypes.Decimal, []byte(fmt.Sprintf("%d.%02d", v/100, v%100))), sqltypes.NewInt64(int64(id))}
	}
	for id := range 100000 {
		if err := a.put(fmt.Sprint(id), row(id, id%9973)); err != nil {
			b.Fatal(err)
		}
	}
	a.flush(st)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		id := (i * 7919) % 100000
		if err := a.put(fmt.Sprint(id), row(id, (i*31)%9973)); err != nil {
			b.Fatal(err)
		}
		if i%500 == 499 {
			a.flush(st)
		}
	}
}
