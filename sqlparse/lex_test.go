package sqlparse

import "testing"

// TestSecond: where MariaDB, not asked for multi statements, says its
// syntax error is (near '…' at line N), for the texts it was asked.
func TestSecond(t *testing.T) {
	for _, c := range []struct {
		q, near string
		line    int
	}{
		{"select 1;select 2", "select 2", 1},
		{"select count(*) from t where a = 'x'; select 3", "select 3", 1},
		{"select 1 ;\n select 2", "select 2", 2},
		{"select 1; -- c\nselect 2", "select 2", 2},
		{"select 1; /* c */ select 2 from t", "select 2 from t", 1},
		{"select 1; /*!select 2 */", "/*!select 2 */", 1},
	} {
		stmts, err := Parse(c.q)
		if err != nil || len(stmts) < 2 {
			t.Fatalf("%q: %d statements, %v", c.q, len(stmts), err)
		}
		near, line := Second(c.q, stmts[0])
		if near != c.near || line != c.line {
			t.Errorf("%q: near %q at line %d, want %q at line %d", c.q, near, line, c.near, c.line)
		}
	}
}
