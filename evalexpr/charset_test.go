package evalexpr

import (
	"strings"
	"testing"

	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// TestLatin1Column: a group key declared latin1_swedish_ci (collation 8)
// holds latin1 bytes and is evaluated in latin1, as MariaDB evaluates the
// column: LENGTH counts bytes of latin1, ASCII reads its first byte, LIKE
// and comparisons use latin1_swedish_ci, and a text result keeps the
// column's collation (the caller converts it for the client).
func TestLatin1Column(t *testing.T) {
	env, err := NewEnv("10.11.19-MariaDB")
	if err != nil {
		t.Fatal(err)
	}
	l1 := &querypb.Field{Name: "l1", Type: sqltypes.VarChar, Charset: 8, ColumnLength: 20}
	u8 := &querypb.Field{Name: "u8", Type: sqltypes.VarChar, Charset: 45, ColumnLength: 80}
	layout := NewLayout([]string{"__g0", "__g1"}, []*querypb.Field{l1, u8})
	row := []sqltypes.Value{
		sqltypes.MakeTrusted(sqltypes.VarChar, []byte("Z\xfcrich")), // Zürich in latin1
		sqltypes.MakeTrusted(sqltypes.VarChar, []byte("Zürich")),
	}
	cases := []struct {
		src, want string
		coll      uint32 // of a text result
	}{
		{"LENGTH(`__g0`)", "6", 0},
		{"LENGTH(`__g1`)", "7", 0},
		{"CHAR_LENGTH(`__g0`)", "6", 0},
		{"HEX(`__g0`)", "5AFC72696368", 45},
		{"ASCII(SUBSTRING(`__g0`, 2))", "252", 0},
		{"ORD(SUBSTRING(`__g0`, 2))", "252", 0},
		{"`__g0` LIKE 'Zu%'", "0", 0},
		{"`__g0` = 'ZYRICH'", "1", 0}, // ü sorts as y in latin1_swedish_ci
		{"LOCATE('r', `__g0`)", "3", 0},
		{"`__g0`", "Z\xfcrich", 8},
		{"UPPER(`__g0`)", "Z\xdcRICH", 8},
		{"CONCAT(`__g0`, '|', `__g1`)", "Zürich|Zürich", 45},
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
		if got := v.ToString(); got != c.want {
			t.Errorf("%s = %q, want %q", c.src, got, c.want)
		}
		if got := uint32(x.Collation()); got != c.coll {
			t.Errorf("%s: collation %d, want %d", c.src, got, c.coll)
		}
	}
}

// TestOrdRefused: ORD of utf8mb4 text does not compile (MariaDB's answer
// above U+FFFF depends on its plan); ORD of latin1 text does.
func TestOrdRefused(t *testing.T) {
	env, err := NewEnv("10.11.19-MariaDB")
	if err != nil {
		t.Fatal(err)
	}
	layout := NewLayout([]string{"__g0", "__g1"}, []*querypb.Field{
		{Name: "l1", Type: sqltypes.VarChar, Charset: 8},
		{Name: "u8", Type: sqltypes.VarChar, Charset: 45},
	})
	if _, err := env.Compile("ORD(`__g1`)", layout); err == nil || !strings.Contains(err.Error(), "ORD over utf8mb4") {
		t.Errorf("ORD over utf8mb4 compiled: %v", err)
	}
	if _, err := env.Compile("ORD(`__g0`) + 1", layout); err != nil {
		t.Errorf("ORD over latin1: %v", err)
	}
}
