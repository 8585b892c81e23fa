package evalexpr

import (
	"testing"

	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/sqlerr"
)

func TestEval(t *testing.T) {
	env, err := NewEnv("10.11.19-MariaDB")
	if err != nil {
		t.Fatal(err)
	}
	layout := NewLayout([]string{"__a0", "__a1", "__g0"}, nil)
	row := []sqltypes.Value{
		sqltypes.MakeTrusted(sqltypes.Decimal, []byte("7")),
		sqltypes.NewInt64(3),
		sqltypes.NewVarChar("AA"),
	}
	cases := []struct{ src, want string }{
		{"ROUND(`__a0`/`__a1`, 2)", "2.33"},
		{"(`__a0`)/(`__a1`)", "2.3333"},
		{"`__a1` DIV 2", "1"},
		{"`__g0`!=_UTF8MB4'AA'", "0"},
		{"`__g0`=_UTF8MB4'aa'", "1"},
		{"`__a1`>_UTF8MB4'1990'", "0"},
		{"`__a0`/0", "NULL"},
		{"IF(`__a1`>2, 1, 0)", "1"},
		// vitess' evalengine drops NOT from NOT LIKE with a constant
		// pattern; Compile rewrites it (rewriteNotLike).
		{"`__g0` NOT LIKE _UTF8MB4'A%'", "0"},
		{"`__g0` NOT LIKE 'B%'", "1"},
		{"`__g0` LIKE 'A%'", "1"},
		{"NULL NOT LIKE 'A%'", "NULL"},
	}
	ev := env.NewEvaluator()
	for _, c := range cases {
		x, err := env.Compile(c.src, layout)
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		v, _, err := ev.Eval(x, row)
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		got := v.ToString()
		if v.IsNull() {
			got = "NULL"
		}
		if got != c.want {
			t.Errorf("%s = %s (%v), want %s", c.src, got, v.Type(), c.want)
		}
	}
}

// TestReads: an expression reports the layout columns it reads, so a merge
// can tell whether a value it could not compute matters.
func TestReads(t *testing.T) {
	env, err := NewEnv("10.11.19-MariaDB")
	if err != nil {
		t.Fatal(err)
	}
	layout := NewLayout([]string{"__a0", "__a1", "__g0"}, nil)
	cases := []struct {
		src  string
		cols []int
		want bool
	}{
		{"`__a0` > 1", []int{0}, true},
		{"`__a0` > 1", []int{1, 2}, false},
		{"IF(`__a1` IS NULL, `__g0`, 0)", []int{2}, true},
		{"LENGTH(`__g0`) + `__a1`", []int{0}, false},
		{"1 + 1", []int{0, 1, 2}, false},
	}
	for _, c := range cases {
		x, err := env.Compile(c.src, layout)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		if got := x.Reads(c.cols...); got != c.want {
			t.Errorf("%s reads %v = %v, want %v", c.src, c.cols, got, c.want)
		}
	}
}

// TestDoubleOutOfRange: a DOUBLE result that overflows is MariaDB's error
// 1690, not +Inf.
func TestDoubleOutOfRange(t *testing.T) {
	env, err := NewEnv("10.11.19-MariaDB")
	if err != nil {
		t.Fatal(err)
	}
	layout := NewLayout([]string{"__a0"}, []*querypb.Field{{Type: sqltypes.Float64}})
	ev := env.NewEvaluator()
	for src, code := range map[string]int{"`__a0` * 1e308": 1690, "`__a0` * 2": 0, "-`__a0` * 1e308": 1690} {
		x, err := env.Compile(src, layout)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		_, _, err = ev.Eval(x, []sqltypes.Value{sqltypes.NewFloat64(1.4e300)})
		got := 0
		if e, ok := sqlerr.As(err); ok {
			got = int(e.Num)
		}
		if got != code {
			t.Errorf("%s: error %v, want code %d", src, err, code)
		}
	}
}
