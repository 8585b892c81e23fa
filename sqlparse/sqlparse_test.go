package sqlparse

import (
	"sync"
	"testing"
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
