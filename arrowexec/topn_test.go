package arrowexec

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/sqltypes"
)

// TestSortRowsTop: for random rows full of ties and NULLs, under random
// orderings and k, the first k rows are exactly those of the stable
// sort, and no row is lost or duplicated.
func TestSortRowsTop(t *testing.T) {
	env := collations.MySQL8()
	rng := rand.New(rand.NewPCG(15, 1))
	strs := []string{"a", "A", "a ", "b", "B", "c"}
	for iter := range 400 {
		n := rng.IntN(300)
		rows := make([][]sqltypes.Value, n)
		for i := range rows {
			var v0, v1 sqltypes.Value
			switch rng.IntN(4) {
			case 0:
				v0 = null
			case 1:
				v0 = dec(fmt.Sprintf("%d.5", rng.IntN(5)))
			default:
				v0 = i64(int64(rng.IntN(6)))
			}
			if rng.IntN(5) == 0 {
				v1 = null
			} else {
				v1 = str(strs[rng.IntN(len(strs))])
			}
			rows[i] = row(v0, v1, i64(int64(i))) // column 2 tags the row
		}
		order := []Ordering{{Col: 0, Desc: rng.IntN(2) == 0}, {Col: 1, Desc: rng.IntN(2) == 0, Collation: generalCI}}
		if rng.IntN(3) == 0 {
			order = order[:1]
		}
		k := int64(rng.IntN(40))
		if iter%10 == 0 {
			k = -1
		}
		want := slices.Clone(rows)
		if err := SortRows(want, order, env); err != nil {
			t.Fatal(err)
		}
		got := slices.Clone(rows)
		if err := SortRowsTop(got, order, env, k); err != nil {
			t.Fatal(err)
		}
		m := min(int(k), n)
		if k < 0 {
			m = n
		}
		for i := range m {
			if got[i][2].ToString() != want[i][2].ToString() {
				t.Fatalf("iter %d (n %d, k %d, order %+v): row %d is %v, want %v", iter, n, k, order, i, got[i], want[i])
			}
		}
		seen := make([]bool, n)
		for _, r := range got {
			id, _ := r[2].ToInt64()
			if seen[id] {
				t.Fatalf("iter %d: row %d twice", iter, id)
			}
			seen[id] = true
		}
	}
}

func BenchmarkSortTop10(b *testing.B) {
	env := collations.MySQL8()
	rng := rand.New(rand.NewPCG(1, 2))
	base := make([][]sqltypes.Value, 5000)
	for i := range base {
		base[i] = row(i64(int64(rng.IntN(400))), str(fmt.Sprintf("K%03d", rng.IntN(300))), str(fmt.Sprintf("D%03d", rng.IntN(300))))
	}
	order := []Ordering{{Col: 0, Desc: true}, {Col: 1, Collation: generalCI}, {Col: 2, Collation: generalCI}}
	for _, top := range []bool{false, true} {
		b.Run(fmt.Sprintf("top=%v", top), func(b *testing.B) {
			rows := make([][]sqltypes.Value, len(base))
			for b.Loop() {
				copy(rows, base)
				var err error
				if top {
					err = SortRowsTop(rows, order, env, 10)
				} else {
					err = SortRows(rows, order, env)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
