package evalexpr

import (
	"errors"
	"testing"

	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// TestWideDecimalProduct: a product of DECIMAL(65,30) sums that passes
// MariaDB's nine-word buffer fails (the statement then runs on a
// replica, which truncates the operands as MariaDB does); one that fits,
// and products of narrow DECIMALs, are computed.
func TestWideDecimalProduct(t *testing.T) {
	env, err := NewEnv("10.11.19-MariaDB")
	if err != nil {
		t.Fatal(err)
	}
	wide := &querypb.Field{Type: sqltypes.Decimal, ColumnLength: 67, Decimals: 30}
	narrow := &querypb.Field{Type: sqltypes.Decimal, ColumnLength: 14, Decimals: 2}
	layout := NewLayout([]string{"w", "n"}, []*querypb.Field{wide, narrow})
	dec := func(s string) sqltypes.Value { return sqltypes.MakeTrusted(sqltypes.Decimal, []byte(s)) }
	ev := env.NewEvaluator()
	for _, c := range []struct {
		src  string
		w, n string
		want string // "" fails with errDecimalBuffer
	}{
		// MariaDB: 316965273523138.68063709061541126414516989043141406197
		{"`w` * `w`", "17803518.571426792000000000000000004154", "1.00", ""},
		{"`w` * `w` + 1", "17803518.571426792000000000000000004154", "1.00", ""},
		// MAX(d) * MAX(d): one integer word each and four fraction
		// words each pass the buffer too (MariaDB drops a word).
		{"`w` * `w`", "8570.714285714000000000000000000001", "1.00", ""},
		// Eight digits of scale in all: computed.
		{"`w` * `n` * `n`", "1.5", "1.25", "2.34375"},
		{"`w` * 2.5", "1.500000000000000000000000000000", "1.00", "3.7500000000000000000000000000000"},
		{"`n` * `n`", "0", "12345678901.25", "152415787532769407251.5625"},
		{"`w` * NULL", "17803518.571426792000000000000000004154", "1.00", "NULL"},
	} {
		x, err := env.Compile(c.src, layout)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		v, _, err := ev.Eval(x, []sqltypes.Value{dec(c.w), dec(c.n)})
		if c.want == "" {
			if !errors.Is(err, errDecimalBuffer) {
				t.Errorf("%s over %s: %v, %v; want errDecimalBuffer", c.src, c.w, v, err)
			}
			continue
		}
		got := v.ToString()
		if v.IsNull() {
			got = "NULL"
		}
		if err != nil || got != c.want {
			t.Errorf("%s over %s, %s = %s, %v; want %s", c.src, c.w, c.n, got, err, c.want)
		}
	}
}
