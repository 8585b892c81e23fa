package evalexpr

import (
	"fmt"
	"github.com/shoaldb/shoal/evalexpr/exprmemo"
	"sync"
	"testing"

	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// TestMemo: the same source over an equal layout is compiled once; a
// layout that differs in anything Compile reads (a name's position, a
// column's collation, type or nullability) gets its own expression, which
// evaluates by its own layout.
func TestMemo(t *testing.T) {
	env, err := NewEnv("10.11.6-MariaDB")
	if err != nil {
		t.Fatal(err)
	}
	ci := func() *querypb.Field { return &querypb.Field{Type: sqltypes.VarChar, Charset: 33} } // utf8mb3_general_ci
	bin := &querypb.Field{Type: sqltypes.VarBinary, Charset: 63}
	notNull := &querypb.Field{Type: sqltypes.VarChar, Charset: 33, Flags: uint32(querypb.MySqlFlag_NOT_NULL_FLAG)}
	base := NewLayout([]string{"a", "b"}, []*querypb.Field{ci(), ci()})
	x, err := env.Compile("a = 'X'", base)
	if err != nil {
		t.Fatal(err)
	}
	if y, err := env.Compile("a = 'X'", NewLayout([]string{"A", "b"}, []*querypb.Field{ci(), ci()})); err != nil || y != x {
		t.Fatalf("an equal layout compiled anew: %p vs %p, %v", y, x, err)
	}
	row := []sqltypes.Value{sqltypes.NewVarChar("x"), sqltypes.NewVarChar("x")}
	cases := []struct {
		name   string
		layout *Layout
		row    []sqltypes.Value
		want   bool
	}{
		{"collation", NewLayout([]string{"a", "b"}, []*querypb.Field{bin, ci()}), []sqltypes.Value{sqltypes.MakeTrusted(sqltypes.VarBinary, []byte("x")), row[1]}, false},
		{"position", NewLayout([]string{"b", "a"}, []*querypb.Field{ci(), bin}), []sqltypes.Value{row[0], sqltypes.MakeTrusted(sqltypes.VarBinary, []byte("x"))}, false},
		{"nullability", NewLayout([]string{"a", "b"}, []*querypb.Field{notNull, ci()}), row, true},
		{"no fields", NewLayout([]string{"a", "b"}, nil), row, true}, // the connection's collation
		{"wider", NewLayout([]string{"a", "b", "c"}, []*querypb.Field{ci(), ci(), ci()}), append(row, sqltypes.NULL), true},
	}
	ev := env.NewEvaluator()
	if got, err := ev.True(x, row); err != nil || !got {
		t.Fatalf("a = 'X' over general_ci 'x' = %v, %v; want true", got, err)
	}
	for _, c := range cases {
		y, err := env.Compile("a = 'X'", c.layout)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if y == x {
			t.Errorf("%s: another layout shared the expression", c.name)
		}
		if got, err := ev.True(y, c.row); err != nil || got != c.want {
			t.Errorf("%s: a = 'X' = %v, %v; want %v", c.name, got, err, c.want)
		}
	}
}

// TestMemoBound: distinct sources (a literal per statement) never hold
// more than exprmemo.Entries expressions, and concurrent compiles agree.
func TestMemoBound(t *testing.T) {
	env, err := NewEnv("10.11.6-MariaDB")
	if err != nil {
		t.Fatal(err)
	}
	layout := NewLayout([]string{"a"}, []*querypb.Field{{Type: sqltypes.Int64}})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			ev := env.NewEvaluator()
			for i := range exprmemo.Entries {
				k := i + g*exprmemo.Entries/2
				x, err := env.Compile(fmt.Sprintf("a <> %d", k), layout)
				if err != nil {
					t.Error(err)
					return
				}
				if got, err := ev.True(x, []sqltypes.Value{sqltypes.NewInt64(int64(k))}); err != nil || got {
					t.Errorf("a <> %d over %d = %v, %v", k, k, got, err)
					return
				}
			}
		})
	}
	wg.Wait()
	held := 0
	held += env.memo.Held()
	if held > exprmemo.Entries {
		t.Errorf("memo holds %d expressions, bound %d", held, exprmemo.Entries)
	}
	hits, misses := env.MemoStats()
	if misses < exprmemo.Entries {
		t.Errorf("%d misses for %d distinct sources", misses, 5*exprmemo.Entries/2)
	}
	if _, err := env.Compile("a <> -1", layout); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Compile("a <> -1", layout); err != nil {
		t.Fatal(err)
	}
	if h, m := env.MemoStats(); h != hits+1 || m != misses+1 {
		t.Errorf("one source compiled twice: %d hits, %d misses; want one of each", h-hits, m-misses)
	}
}
