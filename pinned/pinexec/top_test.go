package pinexec

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/arrowexec"
)

// TestTopRows runs row statements with ORDER BY and LIMIT with each
// partition keeping its first rows (and skipping rows by the first
// item's raw values where it can) and without, sorts both outputs as the
// coordinator does and cuts them to the LIMIT: the answers must be equal,
// and the partitions must have sent no more than LIMIT rows each.
func TestTopRows(t *testing.T) {
	env := newEnv(t)
	tbl := amountsTable(t, amountsRows(3000))
	defer tbl.Release()
	outs := map[string]*querypb.Field{}
	for _, f := range amountsFields() {
		outs[f.Name] = f
	}
	cases := []struct {
		cols  string // output columns
		where string
		order string
		n     int
		raw   bool // the first item is compared in place
		ties  bool // the order is not total: one partition only
	}{
		{"id,amount", "TRUE", "2 DESC, 1", 20, true, false},
		{"id,amount", "TRUE", "2, 1", 7, true, false},
		{"id,amount", "TRUE", "2", 7, true, true},
		{"id,price", "TRUE", "2 DESC, 1", 15, true, false},
		{"id,price", "TRUE", "2, 1 DESC", 25, true, false},
		{"id", "TRUE", "1", 5, true, false},
		{"id,day", "TRUE", "2 DESC, 1", 10, true, false},
		{"id,at", "TRUE", "2, 1", 30, true, false},
		{"id,at", "TRUE", "2 DESC, 1", 30, true, false},
		{"id,big", "`amount` > 100", "2 DESC, 1", 9, true, false},
		{"id,grp", "TRUE", "2 DESC, 1", 12, false, false},
		{"id,amount,grp", "`amount` > 100", "2 DESC, 1", 20, true, false},
		{"id,amount,grp", "`amount` > 1e2", "3, 2 DESC, 1", 11, false, false},
		{"id,kind", "TRUE", "`kind` DESC, `id`", 40, true, false},
		{"id,amount", "`id` = 1.5", "2, 1", 5, true, false},
		{"id,amount", "`amount` < -900", "2 DESC, 1", 2000, true, false},
	}
	for _, c := range cases {
		t.Run(c.cols+" "+c.where+" "+c.order, func(t *testing.T) {
			var fields []*querypb.Field
			var sel []string
			for _, name := range strings.Split(c.cols, ",") {
				fields = append(fields, outs[name])
				sel = append(sel, "`"+name+"` AS `"+name+"`")
			}
			frag := "SELECT " + strings.Join(sel, ", ") + " FROM `db`.`amounts` WHERE " + c.where + " ORDER BY " + c.order + " LIMIT " + itoa(c.n)
			p, err := Compile(env, tbl, frag, fields)
			if err != nil {
				t.Fatal(err)
			}
			if p.top == nil {
				t.Fatal("no top plan")
			}
			if (p.top.rawCol >= 0) != c.raw {
				t.Errorf("raw first key: %v, want %v", p.top.rawCol >= 0, c.raw)
			}
			order := p.top.order
			parallel := []int{1, 4}
			if c.ties {
				parallel = parallel[:1]
			}
			for _, par := range parallel {
				got, sent := runTop(t, p, par, order, c.n)
				if sent > par*c.n {
					t.Errorf("%d partitions sent %d rows, more than %d each", par, sent, c.n)
				}
				top := p.top
				p.top = nil
				want, all := runTop(t, p, par, order, c.n)
				p.top = top
				if !slices.Equal(got, want) {
					t.Errorf("parallel %d: kept\n%v\nall rows sorted\n%v", par, got, want)
				}
				if len(want) == 0 && c.where != "`id` = 1.5" {
					t.Errorf("no rows: the case tests nothing")
				}
				_ = all
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// runTop runs p with par partitions, sorts every row sent under order,
// cuts to n and returns them as text, with how many rows were sent.
func runTop(t *testing.T, p *Program, par int, order []arrowexec.Ordering, n int) ([]string, int) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	var mu sync.Mutex
	var rows [][]sqltypes.Value
	err := p.Run(context.Background(), mem, Options{Parallel: par}, func(_ int, bs []arrow.RecordBatch) error {
		mu.Lock()
		defer mu.Unlock()
		for _, b := range bs {
			rows = append(rows, arrowexec.RecordRows(b)...)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sent := len(rows)
	if err := arrowexec.SortRows(rows, order, p.env.Collations()); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rows[:min(n, len(rows))] {
		var s []string
		for _, v := range r {
			s = append(s, v.String())
		}
		out = append(out, strings.Join(s, "|"))
	}
	return out, sent
}
