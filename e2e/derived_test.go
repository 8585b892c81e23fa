package e2e

import "testing"

// TestDerivedAndUnion: derived tables and CTEs over distributable
// aggregates, and UNION ALL of distributable branches, run distributed with
// the outer statement in memory; the answers (rows, names, types) are
// MySQL's. distributed says whether the statement must take that path or
// pass through to a replica (counted by shoal_queries_total's passthrough
// series).
func TestDerivedAndUnion(t *testing.T) {
	cases := []struct {
		sql         string
		ordered     bool
		distributed bool
	}{
		{"select Carrier, max(c), min(c), sum(c) from (select Carrier, DayOfWeek, count(*) c from ontime group by Carrier, DayOfWeek) t group by Carrier order by 2 desc, Carrier limit 5", true, true},
		{"with t as (select Origin, count(*) n, avg(ArrDelayMinutes) d from ontime group by Origin) select count(*), sum(n), max(n), round(avg(d), 4) from t where n > 100", true, true},
		{"select t.Origin, t.n from (select Origin, count(*) as n from ontime where DayOfWeek < 6 group by Origin) as t where t.n between 50 and 500 order by t.n desc, t.Origin", true, true},
		{"select YearD div 10 as decade, sum(late) from (select YearD, Carrier, sum(if(ArrDelayMinutes > 30, 1, 0)) as late from ontime group by YearD, Carrier) x group by decade order by decade", true, true},
		{"select Carrier, count(*) from ontime where YearD < 1995 group by Carrier union all select Carrier, count(*) from ontime where YearD >= 2010 group by Carrier", false, true},
		{"(select Carrier, count(*) c from ontime group by Carrier) union all (select Origin, count(*) from ontime group by Origin) order by c desc, 1 limit 5", true, true},
		{"select 'early' as era, count(*), sum(Distance) from ontime where YearD < 2000 union all select 'late', count(*), sum(Distance) from ontime where YearD >= 2000", false, true},
		// Not distributed: raw-row derived table, UNION (distinct), a
		// branch that passes through.
		{"select count(*) from (select Origin from ontime where DayOfWeek = 1) t", true, false},
		{"select Carrier from ontime where YearD = 2000 group by Carrier union select Carrier from ontime where YearD = 2001 group by Carrier", false, false},
		{"select count(*) from ontime union all select count(*) from ontime where YearD < year(now())", false, false},
	}
	for _, c := range cases {
		const passed = `shoal_queries_total{kind="passthrough",outcome="ok"}`
		before := scrape(t).get(passed)
		diff(t, c.sql, c.ordered)
		distributed := scrape(t).get(passed) == before
		if distributed != c.distributed {
			t.Errorf("%s: distributed %v, want %v", c.sql, distributed, c.distributed)
		}
	}
}
