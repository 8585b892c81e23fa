package evalexpr

import (
	"testing"

	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// TestBinaryOperand: a text column compared with or matched against a
// BINARY string (Django's contains, `col LIKE BINARY '%x%'`; `col =
// BINARY 'x'`, CAST('x' AS BINARY)) is compared as bytes, as MariaDB
// does: the binary operand's collation wins over the column's. The
// answers are MariaDB 10.11's.
func TestBinaryOperand(t *testing.T) {
	env, err := NewEnv("10.11.19-MariaDB")
	if err != nil {
		t.Fatal(err)
	}
	layout := NewLayout([]string{"u"}, []*querypb.Field{
		{Name: "u", Type: sqltypes.VarChar, Charset: 224},
	})
	values := []string{"Straße", "STRASSE", "ss", "ß"}
	for _, c := range []struct {
		src  string
		want []string // per value
	}{
		{"u like binary 'S%'", []string{"1", "1", "0", "0"}},
		{"u like binary _utf8mb4'S%'", []string{"1", "1", "0", "0"}},
		{"u like cast('S%' as binary)", []string{"1", "1", "0", "0"}},
		{"u like binary '%SS%'", []string{"0", "1", "0", "0"}},
		{"u > binary 'a'", []string{"0", "0", "1", "1"}},
		{"u = binary 'ss'", []string{"0", "0", "1", "0"}},
		{"binary u like 's%'", []string{"0", "0", "1", "0"}},
		{"u like 's%'", []string{"1", "1", "1", "0"}},
		{"u like binary 'S%' escape '!'", []string{"1", "1", "0", "0"}},
		{"u between binary 'a' and 'z'", []string{"0", "0", "1", "0"}},
		{"u = _binary'ss'", []string{"0", "0", "1", "1"}},
		{"u like _binary'S%'", []string{"1", "1", "1", "0"}},
		{"u like convert('S%' using binary)", []string{"1", "1", "0", "0"}},
		{"hex(cast(u as binary))", []string{"53747261C39F65", "53545241535345", "7373", "C39F"}},
	} {
		x, err := env.Compile(c.src, layout)
		if err == nil && x.Inexact() != "" {
			t.Fatalf("%s: inexact: %s", c.src, x.Inexact())
		}
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		ev := env.NewEvaluator()
		for i, v := range values {
			got, _, err := ev.Eval(x, []sqltypes.Value{sqltypes.NewVarChar(v)})
			if err != nil {
				t.Fatalf("%s over %q: %v", c.src, v, err)
			}
			if got.ToString() != c.want[i] {
				t.Errorf("%s over %q = %s, MariaDB %s", c.src, v, got.ToString(), c.want[i])
			}
		}
	}
}

// TestBinaryOperandInexact: a binary string inside a value that also
// compares text under a column's collation elsewhere is not evaluated
// (the statement runs on the replicas).
func TestBinaryOperandInexact(t *testing.T) {
	env, err := NewEnv("10.11.19-MariaDB")
	if err != nil {
		t.Fatal(err)
	}
	layout := NewLayout([]string{"u"}, []*querypb.Field{
		{Name: "u", Type: sqltypes.VarChar, Charset: 224},
	})
	for _, src := range []string{
		"coalesce(u, binary 'a') = 'ss'",
		"if(u = 'strasse', 1, 0) + (u like binary 'S%')",
		"u in (binary 'ss', 'x')",
	} {
		x, err := env.Compile(src, layout)
		if err == nil && x.Inexact() == "" {
			t.Errorf("%s is evaluated", src)
		}
	}
}
