package constant

import (
	"testing"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/shoaldb/shoal/sqlparse"
)

func TestConstantSelect(t *testing.T) {
	for _, c := range []struct {
		q    string
		want bool
	}{
		{"SELECT 1", true},
		{"select 1;", true},
		{"SELECT 1 AS ok, 2 two", true},
		{"SELECT 1 FROM DUAL", true},
		{"SELECT 1e3, 18446744073709551615", true},
		{"SELECT /*+ comment */ 1", true},
		{"SELECT 2.5", false},      // decimal
		{"SELECT 'a'", false},      // charset of the connection
		{"SELECT x'41'", false},    // binary string
		{"SELECT NULL", false},     // no numeric literal
		{"SELECT -1", false},       // an expression
		{"SELECT 1 AS `é`", false}, // alias bytes depend on character_set_results
		{"SELECT 1 LIMIT 1", false},
		{"SELECT 1 WHERE 1 = 0", false},
		{"SELECT 1 FROM ontime", false},
		{"SELECT SQL_CALC_FOUND_ROWS 1", false},
		{"SELECT 1 INTO OUTFILE '/tmp/x'", false},
		{"SELECT 1 FOR UPDATE", false},
		{"SELECT @@version", false},
		{"SELECT NOW()", false},
		{"SELECT * FROM (SELECT 1) t", false},
		{"WITH a AS (SELECT 1) SELECT 1", false},
	} {
		stmt, err := sqlparse.ParseOne(c.q)
		if err != nil {
			t.Fatalf("%s: %v", c.q, err)
		}
		sel, ok := stmt.(*ast.SelectStmt)
		if got := ok && Select(sel); got != c.want {
			t.Errorf("Select(%q) = %v, want %v", c.q, got, c.want)
		}
	}
}
