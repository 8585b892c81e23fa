package evalexpr

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// TestCaseFunctions: LOWER/UPPER over a utf8mb4 column compile only with a
// case mapping (vitess has none for utf8mb4_general_ci; it answered
// UNIMPLEMENTED when the query ran) and then map with it, keeping the
// column's collation; over latin1 vitess' own mapping is used.
func TestCaseFunctions(t *testing.T) {
	env, err := NewEnv("10.11.19-MariaDB")
	if err != nil {
		t.Fatal(err)
	}
	utf8 := &querypb.Field{Name: "c", Type: sqltypes.VarChar, Charset: 45}
	latin1 := &querypb.Field{Name: "l", Type: sqltypes.VarChar, Charset: 8}
	layout := NewLayout([]string{"__g0", "__g1", "__a0"}, []*querypb.Field{utf8, latin1, nil})
	if _, err := env.Compile("LOWER(`__g0`)", layout); err == nil {
		t.Fatal("LOWER over utf8mb4_general_ci compiled without a case mapping")
	}
	asked := 0
	env.SetCaseMaps(func(coll collations.ID) (*CaseMap, error) {
		asked++
		if coll != 45 {
			t.Errorf("case mapping of collation %d asked", coll)
		}
		// As the replica answers CaseMapQuery, cut to a few code points.
		runes := []rune("AbBÉé")
		return ParseCaseMap(runes, []byte("abbéé"), []byte("ABBÉÉ"))
	})
	row := []sqltypes.Value{sqltypes.NewVarChar("AbÉ"), sqltypes.NewVarChar("Xy"), sqltypes.NewInt64(3)}
	cases := []struct{ src, want string }{
		{"LOWER(`__g0`)", "abé"},
		{"UCASE(`__g0`)", "ABÉ"},
		{"CONCAT(LOWER(`__g0`), UPPER(`__g1`), `__a0`)", "abéXY3"},
		{"LOWER(UPPER(`__g0`))", "abé"},
		{"LOWER(`__g0`) = 'ABÉ'", "1"}, // the column's collation: case-insensitive
		{"LOWER(`__g1`)", "xy"},
		{"LOWER(`__a0`)", "3"},
		{"IF(`__a0` > 1, LOWER(`__g0`), NULL)", "abé"},
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
		if v, _, err := ev.Eval(x, []sqltypes.Value{sqltypes.NULL, sqltypes.NULL, sqltypes.NULL}); err != nil || (!v.IsNull() && !strings.Contains(c.src, "=")) {
			t.Errorf("%s over NULLs = %v, %v", c.src, v, err)
		}
	}
	if asked != 1 {
		t.Errorf("case mapping read %d times, want once", asked)
	}
}

func TestCaseMapQuery(t *testing.T) {
	q, runes, err := CaseMapQuery("utf8mb4", "utf8mb4_general_ci")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(q, "SELECT LOWER(_utf8mb4 X'01") || !strings.Contains(q, "COLLATE utf8mb4_general_ci") || runes[len(runes)-1] != 0x1FFFF {
		t.Errorf("query %.80s…, last code point %x", q, runes[len(runes)-1])
	}
	if _, _, err := CaseMapQuery("ucs2", "ucs2_general_ci"); err == nil {
		t.Error("ucs2 accepted")
	}
	if _, err := ParseCaseMap([]rune("ab"), []byte("a"), []byte("AB")); err == nil {
		t.Error("a mapping that is not one to one accepted")
	}
}

// TestProbe: an expression the evaluator cannot evaluate for its argument
// types fails when compiled, not when run.
func TestProbe(t *testing.T) {
	env, err := NewEnv("10.11.19-MariaDB")
	if err != nil {
		t.Fatal(err)
	}
	fields := []*querypb.Field{{Type: sqltypes.VarChar, Charset: 45}, {Type: sqltypes.Date}, {Type: sqltypes.Decimal, Decimals: 2}}
	layout := NewLayout([]string{"__g0", "__g1", "__a0"}, fields)
	for _, src := range []string{"UPPER(`__g0`)", "CONCAT(LCASE(`__g0`), 'x')"} {
		if _, err := env.Compile(src, layout); err == nil {
			t.Errorf("%s compiled", src)
		}
	}
	for _, src := range []string{"CONCAT(`__g0`, 'x')", "LENGTH(`__g0`)", "YEAR(`__g1`)", "DATE_FORMAT(`__g1`, '%Y-%m')", "ROUND(`__a0`, 1)", "COALESCE(`__a0`, 0)", "TRIM(`__g0`)"} {
		if _, err := env.Compile(src, layout); err != nil {
			t.Errorf("%s: %v", src, err)
		}
	}
}

// TestCaseMapReadOutsideLock: a collation whose mapping is being read
// (a slow replica) does not hold up another collation's, and each is read
// once; a failed read is tried again.
func TestCaseMapReadOutsideLock(t *testing.T) {
	e, err := NewEnv("10.11.6-MariaDB")
	if err != nil {
		t.Fatal(err)
	}
	slow, release := collations.ID(45), make(chan struct{})
	var mu sync.Mutex
	reads := map[collations.ID]int{}
	fail := true
	e.SetCaseMaps(func(coll collations.ID) (*CaseMap, error) {
		mu.Lock()
		reads[coll]++
		f := fail && coll != slow
		mu.Unlock()
		if coll == slow {
			<-release
		}
		if f {
			return nil, errors.New("replica down")
		}
		return &CaseMap{}, nil
	})
	done := make(chan error, 1)
	go func() { _, err := e.caseMap(slow); done <- err }()
	if _, err := e.caseMap(224); err == nil {
		t.Fatal("a failed read gave a mapping")
	}
	mu.Lock()
	fail = false
	mu.Unlock()
	for range 2 {
		if _, err := e.caseMap(224); err != nil {
			t.Fatalf("while another collation's read waits: %v", err)
		}
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := e.caseMap(slow); err != nil {
		t.Fatal(err)
	}
	if reads[224] != 2 || reads[slow] != 1 {
		t.Errorf("reads %v, want 224 twice (one failed) and %d once", reads, slow)
	}
}

// TestCaseFunctionCollation: LOWER/UPPER of a column keeps its collation
// in comparisons and LIKE, as MariaDB's does: over a utf8mb4_unicode_ci
// pin, `LOWER(name) LIKE '%cafe%'` matched 5 of MariaDB's 16 rows
// ('Café Müller' not): the lowered text was compared with the literal
// byte for byte.
func TestCaseFunctionCollation(t *testing.T) {
	env, err := NewEnv("10.11.19-MariaDB")
	if err != nil {
		t.Fatal(err)
	}
	env.SetCaseMaps(func(coll collations.ID) (*CaseMap, error) {
		return ParseCaseMap([]rune("CÉéAFEMULR"), []byte("cééafemulr"), []byte("CÉÉAFEMULR"))
	})
	unicode := &querypb.Field{Name: "name", Type: sqltypes.VarChar, Charset: 224} // utf8mb4_unicode_ci
	layout := NewLayout([]string{"name"}, []*querypb.Field{unicode})
	ev := env.NewEvaluator()
	for _, c := range []struct{ src, want string }{
		{"LOWER(`name`) LIKE '%cafe%'", "1"},
		{"UPPER(`name`) LIKE '%CAFÉ%'", "1"},
		{"LOWER(`name`) = 'cafe muller'", "1"},
		{"LOWER(`name`) > 'cafe muller'", "0"},
		{"LOWER(`name`) LIKE '%xyz%'", "0"},
	} {
		x, err := env.Compile(c.src, layout)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		if got := x.Collation(); got != collations.Unknown {
			t.Errorf("%s: collation %d", c.src, got)
		}
		for _, v := range []string{"Café Muller", "CAFE MULLER"} {
			r, _, err := ev.Eval(x, []sqltypes.Value{sqltypes.NewVarChar(v)})
			if err != nil || r.ToString() != c.want {
				t.Errorf("%s over %q = %v, %v; want %s", c.src, v, r, err, c.want)
			}
		}
	}
	x, err := env.Compile("LOWER(`name`)", layout)
	if err != nil || x.Collation() != 224 {
		t.Errorf("LOWER(name): collation %v, %v", x.Collation(), err)
	}
}
