package derivedmerge

import (
	"testing"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/shoaldb/shoal/sqlparse"
)

// TestMerge: a derived table of plain rows merges into the statement that
// reads it ("" when it must not: the statement is then unchanged but for
// its fields' names).
func TestMerge(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"SELECT `source`.`Carrier` AS `Carrier`, count(*) AS `count` FROM (SELECT `ontime`.`Carrier` AS `Carrier`, `ontime`.`Distance` AS `Distance` FROM `ontime` WHERE `ontime`.`Distance` > 1000) `source` GROUP BY `source`.`Carrier` ORDER BY `count` DESC, `source`.`Carrier` ASC LIMIT 2000",
			"SELECT `ontime`.`Carrier` AS `Carrier`,COUNT(1) AS `count` FROM `ontime` WHERE `ontime`.`Distance`>1000 GROUP BY `ontime`.`Carrier` ORDER BY `count` DESC,`ontime`.`Carrier` LIMIT 2000"},
		{"SELECT source.Carrier, sum(source.km), avg(km) a FROM (SELECT Carrier, Distance * 1.609 AS km FROM ontime WHERE YearD > 2000) source WHERE source.km > 10 GROUP BY source.Carrier HAVING a > 1",
			"SELECT `Carrier` AS `Carrier`,SUM((`Distance`*1.609)) AS `sum(source.km)`,AVG((`Distance`*1.609)) AS `a` FROM `ontime` WHERE ((`Distance`*1.609)>10) AND (`YearD`>2000) GROUP BY `Carrier` HAVING `a`>1"},
		{"SELECT s.y, count(*) FROM (SELECT YEAR(FlightDate) y FROM ontime o JOIN carriers c ON c.code = o.Carrier) s GROUP BY s.y",
			"SELECT (YEAR(`FlightDate`)) AS `y`,COUNT(1) AS `count(*)` FROM `ontime` AS `o` JOIN `carriers` AS `c` ON `c`.`code`=`o`.`Carrier` GROUP BY (YEAR(`FlightDate`))"},
		// Not merged.
		{"SELECT s.Carrier, count(*) FROM (SELECT Carrier FROM ontime LIMIT 100) s GROUP BY 1", ""},
		{"SELECT s.Carrier, count(*) FROM (SELECT DISTINCT Carrier FROM ontime) s GROUP BY 1", ""},
		{"SELECT s.Carrier, max(s.n) FROM (SELECT Carrier, count(*) n FROM ontime GROUP BY Carrier) s GROUP BY 1", ""},
		{"SELECT s.Carrier FROM (SELECT Carrier FROM ontime ORDER BY Distance) s", ""},
		{"SELECT s.k FROM (SELECT Carrier AS k FROM ontime WHERE Carrier IN (SELECT code FROM carriers)) s", ""},
		{"SELECT s.k FROM (SELECT Carrier AS k, @v FROM ontime) s", ""},
		{"SELECT s.k FROM (SELECT Carrier AS k FROM (SELECT Carrier FROM ontime) t) s", ""},
		{"SELECT Origin FROM (SELECT Carrier FROM ontime) s GROUP BY Origin", ""},
		// A renamed column (MariaDB's org_name is the column's).
		{"SELECT x.c, count(*) FROM (SELECT Carrier AS c, Distance AS Carrier FROM ontime) x GROUP BY Carrier", ""},
		// GROUP BY names the derived table's column, not the select
		// list's alias, as MariaDB resolves it.
		{"SELECT UPPER(x.Carrier) AS Origin, count(*) FROM (SELECT Carrier, Origin FROM ontime) x GROUP BY Origin", ""},
		{"SELECT x.Carrier AS c, count(*) FROM (SELECT Carrier, (Distance) AS d FROM ontime) x GROUP BY d",
			"SELECT `Carrier` AS `c`,COUNT(1) AS `count(*)` FROM `ontime` GROUP BY ((`Distance`))"},
		{"SELECT s.Carrier AS d, count(*) FROM (SELECT Carrier, Distance AS d FROM ontime) s GROUP BY d", ""},
		{"SELECT * FROM (SELECT Carrier FROM ontime) s", ""},
		{"SELECT s.* FROM (SELECT Carrier FROM ontime) s", ""},
		{"SELECT COUNT(*) FROM (SELECT * FROM ontime) s", ""},
		{"SELECT s.Carrier FROM (SELECT Carrier FROM ontime) s WHERE s.Carrier IN (SELECT code FROM carriers)", ""},
		{"SELECT s.Carrier FROM (SELECT Carrier FROM ontime) s JOIN carriers c ON c.code = s.Carrier", ""},
		{"SELECT s.a FROM (SELECT Carrier AS a, Origin AS a FROM ontime) s", ""},
		{"SELECT s.Carrier FROM (SELECT UPPER(Carrier) FROM ontime) s", ""},
		{"SELECT t.Carrier FROM (SELECT Carrier FROM ontime) s", ""},
	} {
		st, err := sqlparse.ParseOne(c.in)
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		sel := st.(*ast.SelectStmt)
		before, _ := sqlparse.Restore(sel.From)
		ok := Merge(sel)
		got, _ := sqlparse.Restore(sel)
		switch {
		case c.want == "" && ok:
			t.Errorf("%s: merged\n%s", c.in, got)
		case c.want == "":
			if after, _ := sqlparse.Restore(sel.From); after != before {
				t.Errorf("%s: not merged, but FROM changed:\n%s", c.in, after)
			}
		case !ok || got != c.want:
			t.Errorf("%s: merged %v\n got %s\nwant %s", c.in, ok, got, c.want)
		}
	}
}

func TestWithInnerPredicate(t *testing.T) {
	got, ok := WithInnerPredicate("SELECT s.m, count(*) FROM (SELECT MONTH(FlightDate) m FROM ontime WHERE Distance > 10) s GROUP BY s.m", "`ontime`.`id` < 5")
	want := "SELECT `s`.`m` AS `m`,COUNT(1) AS `count(*)` FROM (SELECT MONTH(`FlightDate`) AS `m` FROM `ontime` WHERE (`Distance`>10) AND `ontime`.`id`<5) AS `s` GROUP BY `s`.`m`"
	if !ok || got != want {
		t.Errorf("got %v %s\nwant %s", ok, got, want)
	}
	if _, ok := WithInnerPredicate("SELECT Carrier FROM ontime", "id < 5"); ok {
		t.Error("a statement over a table has no derived table to probe")
	}
}
