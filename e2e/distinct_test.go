package e2e

import "testing"

// TestDistinctOverDifferentArguments: DISTINCT aggregates over different
// arguments in one statement distribute (the fragments group by all the
// arguments, each aggregate counts, sums or joins its own values once per
// group) and answer as MariaDB does: rows, names, types. NULLs (TailNum,
// ArrDelayMinutes) count as MariaDB counts them: a combination with a NULL
// argument is not counted by that aggregate but is by the others.
func TestDistinctOverDifferentArguments(t *testing.T) {
	cases := []struct {
		sql     string
		ordered bool
	}{
		{"SELECT Carrier, COUNT(DISTINCT Origin), COUNT(DISTINCT Dest) FROM ontime GROUP BY Carrier", true},
		{"select count(distinct Origin), count(distinct Dest), count(distinct TailNum), count(*) from ontime", true},
		{"select Carrier, count(distinct TailNum), count(distinct ArrDelayMinutes), sum(ArrDelayMinutes), count(*) from ontime group by Carrier", true},
		{"select DayOfWeek, count(distinct Origin, Dest), count(distinct Origin), sum(distinct ArrDelayMinutes), avg(distinct DepDelayMinutes) from ontime where YearD >= 2000 group by DayOfWeek", true},
		{"select Carrier, group_concat(distinct OriginState order by OriginState), count(distinct Origin) n from ontime group by Carrier having n > 3 order by n desc, Carrier limit 5", true},
		{"select Carrier, count(distinct Origin, Dest), group_concat(distinct Origin order by Origin desc separator '|') from ontime where DayOfWeek = 3 group by Carrier", true},
		{"select YearD, count(distinct Carrier), count(distinct OriginState), min(Distance) from ontime group by YearD order by YearD", true},
	}
	const passed = `shoal_queries_total{kind="passthrough",outcome="ok"}`
	for _, c := range cases {
		if ex := explain(t, c.sql); len(ex) < 6 || ex[:6] != "split " {
			t.Errorf("%s: not distributed:\n%s", c.sql, ex)
		}
		before := scrape(t).get(passed)
		diff(t, c.sql, c.ordered)
		if scrape(t).get(passed) != before {
			t.Errorf("%s: passed through", c.sql)
		}
	}
}
