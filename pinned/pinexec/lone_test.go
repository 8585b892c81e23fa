package pinexec

import (
	"context"
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
)

// TestLoneDistinctGroups: a vectorized aggregate run in one partition
// marks its output as distinct groups (arrowexec.MarkDistinctGroups) when
// every key's values stay distinct in the merge, and the merge of the
// marked output equals the merge of two partitions' unmarked outputs and
// of the generic path's. Keys the merge would fold ('-0' and '0' as
// DOUBLE) are not marked.
func TestLoneDistinctGroups(t *testing.T) {
	env, err := evalexpr.NewEnv("10.11.19-MariaDB")
	if err != nil {
		t.Fatal(err)
	}
	tbl := testTable(t, 1000)
	ci := uint32(45)
	bigint := func(name string) *querypb.Field { return field(name, sqltypes.Int64, 63, 21) }
	cnt, sum, mx := arrowexec.AggSpec{Kind: arrowexec.AggCount}, arrowexec.AggSpec{Kind: arrowexec.AggSum}, arrowexec.AggSpec{Kind: arrowexec.AggMax}
	cases := []struct {
		frag   string
		fields []*querypb.Field
		merge  []arrowexec.AggSpec
		marked bool
	}{
		// 'AA'/'aa' and 'Ba '/'ba' are one group each under general_ci.
		{"SELECT `Carrier`, COUNT(1), SUM(`Delay`) FROM `db`.`flights` GROUP BY `Carrier`",
			[]*querypb.Field{field("Carrier", sqltypes.VarChar, ci, 40), bigint("c"), field("s", sqltypes.Decimal, 63, 33)},
			[]arrowexec.AggSpec{cnt, sum}, true},
		{"SELECT `Dow`, YEAR(`Day`), COUNT(1), MAX(`Ratio`) FROM `db`.`flights` WHERE `Delay` > 10 GROUP BY `Dow`, YEAR(`Day`)",
			[]*querypb.Field{field("Dow", sqltypes.Int8, 63, 4), field("y", sqltypes.Int32, 63, 5), bigint("c"), field("m", sqltypes.Float64, 63, 22)},
			[]arrowexec.AggSpec{cnt, mx}, true},
		// Two texts, one DOUBLE: the merge groups -0 with 0.
		{"SELECT IF(`Dow` > 3, -0e0, 0e0), COUNT(1) FROM `db`.`flights` GROUP BY IF(`Dow` > 3, -0e0, 0e0)",
			[]*querypb.Field{field("z", sqltypes.Float64, 63, 22), bigint("c")},
			[]arrowexec.AggSpec{cnt}, false},
	}
	for _, c := range cases {
		t.Run(c.frag[:40], func(t *testing.T) {
			p, err := Compile(env, tbl, c.frag, c.fields)
			if err != nil {
				t.Fatal(err)
			}
			if !p.Fast() {
				t.Fatal("not on the vectorized path: the case tests nothing")
			}
			lone, marked := mergeRun(t, env, p, c.merge, 1)
			if marked != c.marked {
				t.Errorf("one partition: marked %v, want %v", marked, c.marked)
			}
			two, marked2 := mergeRun(t, env, p, c.merge, 2)
			if marked2 && !p.ordered {
				t.Error("two partitions marked their output as the whole input")
			}
			fast := p.fast
			p.fast = nil
			generic, _ := mergeRun(t, env, p, c.merge, 1)
			p.fast = fast
			if !slices.Equal(lone, two) || !slices.Equal(lone, generic) {
				t.Errorf("merged rows differ:\none partition  %v\ntwo partitions %v\ngeneric        %v", lone, two, generic)
			}
			if len(lone) < 2 && c.marked {
				t.Errorf("%d groups: the case tests nothing", len(lone))
			}
		})
	}
}

// mergeRun runs p in par partitions into the engine's merge (a HashAgg
// of p's keys and the partials' merge specs) and returns the merged rows,
// sorted, and whether an output batch carried the distinct-groups mark.
func mergeRun(t *testing.T, env *evalexpr.Env, p *Program, merge []arrowexec.AggSpec, par int) ([]string, bool) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	h := arrowexec.NewHashAgg(mem, env.Collations(), p.keySpecs, merge, 0)
	defer h.Release()
	var mu sync.Mutex
	marked := false
	err := p.Run(context.Background(), mem, Options{Parallel: par}, func(_ int, bs []arrow.RecordBatch) error {
		mu.Lock()
		defer mu.Unlock()
		for _, b := range bs {
			if b.Schema().Metadata().FindKey("shoal.distinct_groups") >= 0 {
				marked = true
			}
			if err := h.AddRanked(b, 0); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := h.Rows()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		var s []string
		for _, v := range r {
			s = append(s, v.String())
		}
		out = append(out, strings.Join(s, "|"))
	}
	slices.Sort(out)
	return out, marked
}
