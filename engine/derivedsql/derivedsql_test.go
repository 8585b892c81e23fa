package derivedsql

import (
	"testing"

	"github.com/shoaldb/shoal/sqlparse"
)

// TestRewriteUsing: a USING join over ephemeral tables becomes an ON join
// with the USING columns qualified as MySQL resolves them, or is refused
// when the rewrite could change the statement's meaning.
func TestRewriteUsing(t *testing.T) {
	cols := map[string][]string{
		"a": {"Carrier", "c"},
		"b": {"Carrier", "c2"},
		"c": {"Carrier", "YearD", "c3"},
	}
	cases := []struct{ in, want string }{
		{"SELECT Carrier AS Carrier, c, c2 FROM d.a AS a JOIN d.b AS b USING (Carrier) ORDER BY Carrier",
			"SELECT `a`.`Carrier` AS `Carrier`,`c`,`c2` FROM `d`.`a` AS `a` JOIN `d`.`b` AS `b` ON `a`.`Carrier`=`b`.`Carrier` ORDER BY `a`.`Carrier`"},
		{"SELECT Carrier AS Carrier FROM d.a AS a LEFT JOIN d.b AS b USING (Carrier) JOIN d.c AS c USING (Carrier) WHERE Carrier > 'A'",
			"SELECT `a`.`Carrier` AS `Carrier` FROM (`d`.`a` AS `a` LEFT JOIN `d`.`b` AS `b` ON `a`.`Carrier`=`b`.`Carrier`) JOIN `d`.`c` AS `c` ON `a`.`Carrier`=`c`.`Carrier` WHERE `a`.`Carrier`>_UTF8MB4'A'"},
		{"SELECT a.c FROM d.a AS a JOIN d.b AS b ON a.Carrier = b.Carrier", "SELECT `a`.`c` FROM `d`.`a` AS `a` JOIN `d`.`b` AS `b` ON `a`.`Carrier`=`b`.`Carrier`"},
		// Refused: a wildcard, a column missing on one side, a select item
		// named like the USING column that is another table's column, an
		// alias over an expression, an unqualified USING name in an ON.
		{"SELECT * FROM d.a AS a JOIN d.b AS b USING (Carrier)", ""},
		{"SELECT c FROM d.a AS a JOIN d.b AS b USING (c)", ""},
		{"SELECT b.Carrier AS Carrier FROM d.a AS a LEFT JOIN d.b AS b USING (Carrier)", ""},
		{"SELECT c AS Carrier FROM d.a AS a JOIN d.b AS b USING (Carrier) ORDER BY Carrier", ""},
		{"SELECT c3 FROM d.a AS a JOIN d.b AS b USING (Carrier) JOIN d.c AS c ON Carrier = c.Carrier", ""},
		// Carrier is a's (merged) and c's: ambiguous at the top.
		{"SELECT c3 FROM d.a AS a JOIN d.b AS b USING (Carrier) JOIN d.c AS c ON a.Carrier = c.YearD WHERE Carrier = 'x'", ""},
	}
	for _, c := range cases {
		sel, ok := Reparse(c.in)
		if !ok {
			t.Fatalf("parse %s", c.in)
		}
		got := ""
		if RewriteUsing(sel, cols) {
			var err error
			if got, err = sqlparse.Restore(sel); err != nil {
				t.Fatal(err)
			}
		}
		if got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}
