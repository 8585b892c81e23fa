package evalexpr

import (
	"sync"
	"testing"

	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// TestMultiComparisonShared: GREATEST and LEAST evaluated at once by
// several evaluators sharing the compiled expression (a pinned scan's
// partitions) give their values without a data race (vitess writes the
// arguments' precision into the expression as it evaluates; run with
// -race).
func TestMultiComparisonShared(t *testing.T) {
	env, err := NewEnv("10.11.19-MariaDB")
	if err != nil {
		t.Fatal(err)
	}
	layout := NewLayout([]string{"a", "b"}, []*querypb.Field{
		{Name: "a", Type: sqltypes.Datetime, Decimals: 6, Charset: 63},
		{Name: "b", Type: sqltypes.Int32, Charset: 63},
	})
	for _, src := range []string{"greatest(a, coalesce(a, '2001-01-01'))", "least(b, 100) + 1", "greatest(a, '2001-01-01 00:00:00.5')"} {
		x, err := env.Compile(src, layout)
		if err != nil {
			t.Fatal(err)
		}
		if x.serial == nil {
			t.Fatalf("%s: evaluations not serialized", src)
		}
		var wg sync.WaitGroup
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ev := env.NewEvaluator()
				for i := 0; i < 200; i++ {
					row := []sqltypes.Value{sqltypes.MakeTrusted(sqltypes.Datetime, []byte("2010-06-01 12:00:00.500000")), sqltypes.NewInt32(int32(i))}
					if _, _, err := ev.Eval(x, row); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
	}
}
