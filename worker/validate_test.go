package worker

import (
	"errors"
	"strings"
	"testing"
)

// TestReadOnlySQL checks the fragments the coordinator sends for every
// split kind pass the read-only check, and come back re-rendered with
// their range predicate and partition selection intact; and that writes
// and locks are refused.
func TestReadOnlySQL(t *testing.T) {
	cases := []struct {
		sql string
		// keep are parts of the re-rendered SQL that must survive; empty
		// with refuse set.
		keep   []string
		refuse string
	}{
		{sql: "SELECT COUNT(1) FROM `db`.`t` WHERE TRUE", keep: []string{"WHERE TRUE"}},
		{sql: "SELECT `a` FROM `db`.`t` WHERE (`t`.`d` >= '2024-01-05' AND `t`.`d` < '2024-03-18 00:59:59')",
			keep: []string{"`t`.`d`>=_UTF8MB4'2024-01-05'", "`t`.`d`<_UTF8MB4'2024-03-18 00:59:59'"}},
		{sql: "SELECT `a` FROM `db`.`t` WHERE ((`t`.`a`, `t`.`b`) >= ('AA', 7) AND (`t`.`a` > 'AA' OR `t`.`a` = 'AA' AND `t`.`b` >= 7) AND " +
			"(`t`.`a`, `t`.`b`) < ('DL', X'00ff') AND (`t`.`a` < 'DL' OR `t`.`a` = 'DL' AND `t`.`b` < X'00ff'))",
			keep: []string{"ROW(`t`.`a`,`t`.`b`)>=ROW(_UTF8MB4'AA',7)", "ROW(`t`.`a`,`t`.`b`)<ROW(_UTF8MB4'DL',x'00ff')",
				"(`t`.`a`>_UTF8MB4'AA' OR `t`.`a`=_UTF8MB4'AA' AND `t`.`b`>=7)"}},
		{sql: "SELECT SUM(`x`) FROM `db`.`t` PARTITION (`p2024`) AS `t` WHERE (`t`.`id` >= 5)",
			keep: []string{"PARTITION(`p2024`)", "`t`.`id`>=5"}},
		{sql: "SELECT `a` FROM `db`.`t` WHERE TRUE FOR UPDATE", refuse: "SELECT ... FOR UPDATE"},
		{sql: "SELECT `a` FROM `db`.`t` INTO OUTFILE '/tmp/x'", refuse: "SELECT ... INTO"},
		{sql: "DELETE FROM `db`.`t` WHERE TRUE", refuse: "DELETE statement"},
		{sql: "SELECT 1; SELECT 2", refuse: "multiple statements"},
	}
	for _, c := range cases {
		out, err := readOnlySQL(c.sql)
		if c.refuse != "" {
			var r *refusal
			if !errors.As(err, &r) || r.kind != c.refuse {
				t.Errorf("%s: got %q, %v; want refusal %q", c.sql, out, err, c.refuse)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: refused: %v", c.sql, err)
			continue
		}
		for _, k := range c.keep {
			if !strings.Contains(out, k) {
				t.Errorf("%s: re-rendered as %s, which lacks %s", c.sql, out, k)
			}
		}
	}
}
