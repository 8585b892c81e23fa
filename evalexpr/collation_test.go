package evalexpr

import (
	"testing"

	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// TestColumnCollations evaluates comparisons, LIKE and case functions
// over columns of utf8mb4_general_ci (g), utf8mb4_unicode_ci (u) and
// utf8mb4_bin (b, which vitess types VARBINARY for its BINARY flag), with
// the answers MariaDB 10.11 gives for the same values (a table of those
// columns, `SELECT … FROM ct ORDER BY id`). evalengine typed a column as
// coercible as a literal and compared u = 'strasse' as bytes, and
// evaluated b as a binary string (CHAR_LENGTH counted bytes, UPPER(b)
// changed nothing: the e2e TestPinnedCollations covers case functions,
// which need the replica's case mappings); see
// literalCollation and textTyped.
func TestColumnCollations(t *testing.T) {
	env, err := NewEnv("10.11.19-MariaDB")
	if err != nil {
		t.Fatal(err)
	}
	layout := NewLayout([]string{"g", "u", "b"}, []*querypb.Field{
		{Name: "g", Type: sqltypes.VarChar, Charset: 45},
		{Name: "u", Type: sqltypes.VarChar, Charset: 224},
		{Name: "b", Type: sqltypes.VarBinary, Charset: 46, Flags: uint32(querypb.MySqlFlag_BINARY_FLAG)},
	})
	values := []string{"Straße", "STRASSE", "ss", "ß"}
	for _, c := range []struct {
		src  string
		want []string // per value
	}{
		{"g like 's%'", []string{"1", "1", "1", "1"}},
		{"g = 'strasse'", []string{"0", "1", "0", "0"}},
		{"g > 'st'", []string{"1", "1", "0", "0"}},
		{"u like 's%'", []string{"1", "1", "1", "0"}},
		{"u = 'strasse'", []string{"1", "1", "0", "0"}},
		{"u > 'st'", []string{"1", "1", "0", "0"}},
		{"concat(u, 'x') = 'strassex'", []string{"1", "1", "0", "0"}},
		{"b like 's%'", []string{"0", "0", "1", "0"}},
		{"b = 'strasse'", []string{"0", "0", "0", "0"}},
		{"b > 'st'", []string{"0", "0", "0", "1"}},
		{"char_length(b)", []string{"6", "7", "2", "1"}},
	} {
		x, err := env.Compile(c.src, layout)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		ev := env.NewEvaluator()
		for i, v := range values {
			row := []sqltypes.Value{sqltypes.NewVarChar(v), sqltypes.NewVarChar(v), sqltypes.MakeTrusted(sqltypes.VarBinary, []byte(v))}
			got, _, err := ev.Eval(x, row)
			if err != nil {
				t.Fatalf("%s over %q: %v", c.src, v, err)
			}
			if got.ToString() != c.want[i] {
				t.Errorf("%s over %q = %s, MariaDB %s", c.src, v, got.ToString(), c.want[i])
			}
		}
	}
}
