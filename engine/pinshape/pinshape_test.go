package pinshape

import (
	"testing"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/shoaldb/shoal/planner"
	"github.com/shoaldb/shoal/sqlparse"
)

func TestReusable(t *testing.T) {
	ontime := &planner.Table{Name: "ontime", Rows: 200000, Indexed: []string{"id", "flightdate", "carrier"}}
	cases := []struct {
		sql  string
		want bool
	}{
		{"select Carrier, count(*) from ontime where Distance <> 5 group by Carrier", true},
		{"select count(*) from ontime where (YearD >= 2005) and Distance <> 17", true},
		{"select count(*) from ontime where YearD between 2005 and 2007 and Origin in ('SFO', 'LAX') and Dest like 'S%'", true},
		{"select count(*) from ontime where not (Distance > 100 or Cancelled = 1)", true},
		{"select count(*) from ontime where OriginState <> DestState and Distance <> 9", true},
		{"select Origin, count(*) from ontime where Distance <> 1 group by Origin order by 2 desc limit 10", true},
		{"select Origin, count(*) as n from ontime where Distance <> 1 group by Origin order by n desc, Origin limit 10", true},
		{"select count(*) from ontime where -5 < Distance", true},
		// indexed columns: the literal may choose a range or a ref access
		{"select count(*) from ontime where Carrier in ('AA', 'DL')", false},
		{"select count(*) from ontime where FlightDate between '2005-01-01' and '2005-02-01'", false},
		{"select count(*) from ontime where id > 100", false},
		{"select count(*) from ontime where Carrier is null and Distance > 5", false},
		{"select count(*) from ontime where Carrier = Origin and Origin = 'AA'", false},
		// literals that fold the WHERE clause
		{"select Carrier, avg(Distance) from ontime where 1 = 0 group by Carrier", false},
		{"select count(*) from ontime where Distance = 1 and Distance = 2", false},
		{"select count(*) from ontime where Distance + 0 > 7", false},
		{"select count(*) from ontime where if(1, Distance, YearD) > 7", false},
		{"select count(*) from ontime where Distance in (select Distance from ontime where YearD = 3)", false},
		{"select count(*) from ontime where exists (select 1 from ontime)", false},
		// LIMIT
		{"select Carrier from ontime where Distance <> 1 limit 0", false},
		{"select FlightDate, count(*) from ontime where Distance <> 1 group by FlightDate order by 1 desc limit 30", false},
		{"select Carrier, count(*) from ontime where Distance <> 1 group by 1 limit 5", false},
		{"select FlightDate, count(*) from ontime where Distance <> 1 group by FlightDate order by 1", true},
		// not one table
		{"select count(*) from ontime a join ontime b on a.id = b.id where a.Distance <> 1", false},
		{"select count(*) from (select * from ontime) d where Distance <> 1", false},
	}
	for _, c := range cases {
		stmt, err := sqlparse.ParseOne(c.sql)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		got, why := Reusable(stmt.(*ast.SelectStmt), ontime)
		if got != c.want {
			t.Errorf("%s: got %v (%s), want %v", c.sql, got, why, c.want)
		}
	}
	sel, _ := sqlparse.ParseOne("select count(*) from ontime where Distance <> 1")
	for _, tb := range []*planner.Table{nil, {Rows: 100}, {Rows: 1, Indexed: []string{"id"}}} {
		if ok, _ := Reusable(sel.(*ast.SelectStmt), tb); ok {
			t.Errorf("%+v: reusable without known indexes or with one row", tb)
		}
	}
}

func TestKey(t *testing.T) {
	a := Key("ontime", "select Carrier, count(*) from recent where Distance <> 5 group by Carrier")
	b := Key("ontime", "select Carrier, count(*) from recent where Distance <> 77 group by Carrier")
	if a == "" || a != b {
		t.Errorf("new literal, new key: %q %q", a, b)
	}
	for _, q := range []string{
		"select Carrier, count(*) from recent where Distance <> '5' group by Carrier",   // literal type
		"select Carrier, count(*) + 1 from recent where Distance <> 5 group by Carrier", // select list
	} {
		if Key("ontime", q) == a {
			t.Errorf("%s: same key", q)
		}
	}
	if Key("other", "select Carrier, count(*) from recent where Distance <> 5 group by Carrier") == a {
		t.Error("another database, same key")
	}
}
