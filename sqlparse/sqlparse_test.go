package sqlparse

import (
	"sync"
	"testing"

	"github.com/pingcap/tidb/pkg/parser"
)

// TestConcurrentParse parses from many goroutines and keeps every AST
// alive while the others parse: the race detector catches any sharing.
func TestConcurrentParse(t *testing.T) {
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				stmt, err := ParseOne("SELECT a, SUM(b) FROM t WHERE c IN (1,2,'x') GROUP BY a")
				if err != nil {
					t.Error(err)
					return
				}
				s, err := Restore(stmt)
				if err != nil || s != "SELECT `a`,SUM(`b`) FROM `t` WHERE `c` IN (1,2,_UTF8MB4'x') GROUP BY `a`" {
					t.Errorf("restore: %q %v", s, err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestRestoreFlags(t *testing.T) {
	cases := []struct{ in, want string }{
		{"select 'it''s', \"dq\", 'back\\\\slash' from `t``x`", "SELECT _UTF8MB4'it''s',_UTF8MB4'dq',_UTF8MB4'back\\\\slash' FROM `t``x`"},
		{"select count(*) from t where a not in (6,7)", "SELECT COUNT(1) FROM `t` WHERE `a` NOT IN (6,7)"},
	}
	for _, c := range cases {
		stmt, err := ParseOne(c.in)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Restore(stmt)
		if err != nil || got != c.want {
			t.Errorf("%s:\n got %s\nwant %s (%v)", c.in, got, c.want, err)
		}
	}
}

// TestParseResultsOutliveTheParser keeps the statements of one parse while
// the pooled parser reads others: the parser reuses its result slice, and
// a parse that returned it without a copy would see its statements
// replaced.
func TestParseResultsOutliveTheParser(t *testing.T) {
	first, err := Parse("SELECT 1; SELECT 2")
	if err != nil || len(first) != 2 {
		t.Fatalf("parse: %v %d", err, len(first))
	}
	for i := 0; i < 100; i++ {
		if _, err := Parse("SELECT 3; SELECT 4"); err != nil {
			t.Fatal(err)
		}
		if _, err := Parse("SELECT FROM WHERE"); err == nil {
			t.Fatal("a syntax error parsed")
		}
	}
	for i, want := range []string{"SELECT 1", "SELECT 2"} {
		if got, err := Restore(first[i]); err != nil || got != want {
			t.Errorf("statement %d = %q %v, want %q", i, got, err, want)
		}
	}
}

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Parse("select id, Carrier, ArrDelayMinutes from ontime where id between 1500017 and 1500216"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseNewParser is the parse with a new parser each time (what
// Parse did before the pool), for the ratio in one run.
func BenchmarkParseNewParser(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, _, err := parser.New().ParseSQL("select id, Carrier, ArrDelayMinutes from ontime where id between 1500017 and 1500216"); err != nil {
			b.Fatal(err)
		}
	}
}

// TestMySQLNames: functions the TiDB parser renames internally are
// restored under their MySQL names (INSERT_FUNC and CHAR_FUNC reached the
// replicas and failed with 1305), and the restored text parses back to
// the same text.
func TestMySQLNames(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"SELECT INSERT(a, 1, 1, 'Q') FROM t", "SELECT INSERT(`a`, 1, 1, _UTF8MB4'Q') FROM `t`"},
		{"SELECT CHAR(65, 66) FROM t", "SELECT CHAR(65, 66) FROM `t`"},
		{"SELECT char(77)", "SELECT CHAR(77)"},
		{"SELECT CHAR(65 USING latin1)", "SELECT CONVERT(CHAR(65) USING 'latin1')"},
		{"SELECT a FROM t WHERE INSERT(a, 2, 0, CHAR(66)) = 'x'", "SELECT `a` FROM `t` WHERE INSERT(`a`, 2, 0, CHAR(66))=_UTF8MB4'x'"},
		// MOD(x, y) parses to x % y's node: its arguments keep their
		// parentheses, or `a-2%7` would be a - (2 % 7).
		{"SELECT MOD(a - 2, 7) FROM t", "SELECT (`a`-2)%7 FROM `t`"},
		{"SELECT 100 * MOD(a, 3)", "SELECT 100*(`a`%3)"},
		{"SELECT MOD(a, MOD(b, 4) + 1), MOD(a, 100 DIV 3)", "SELECT `a`%((`b`%4)+1),`a`%(100 DIV 3)"},
		{"SELECT a % 7, (a - 2) % 7, a - 2 % 7, MOD(-a, 2), -MOD(a, 2)", "SELECT `a`%7,(`a`-2)%7,`a`-(2%7),(-`a`)%2,-(`a`%2)"},
		{"SELECT SUM(MOD(a - 2, 7)) FROM t HAVING MOD(COUNT(*) - 2, 7) > 0", "SELECT SUM((`a`-2)%7) FROM `t` HAVING ((COUNT(1)-2)%7)>0"},
	} {
		st, err := ParseOne(c.in)
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		got := MustRestore(st)
		if got != c.want {
			t.Errorf("%s\n got  %s\n want %s", c.in, got, c.want)
		}
		again, err := ParseOne(got)
		if err != nil {
			t.Fatalf("%s: %v", got, err)
		}
		if s := MustRestore(again); s != got {
			t.Errorf("%s restores as %s the second time", got, s)
		}
	}
}
