package e2e

import (
	"strings"
	"testing"
)

// TestBreadth covers joins with dimension tables, subqueries, DISTINCT
// aggregates, SELECT DISTINCT and the variance family: each must be
// distributed and equal MySQL's answer.
func TestBreadth(t *testing.T) {
	cases := []struct {
		name    string
		q       string
		ordered bool
	}{
		{"join both dimensions", "select c.name, a.state, count(*), sum(o.Distance) from ontime o join carriers c on c.code = o.Carrier join airports a on a.code = o.Origin where a.state <> 'CA' group by c.name, a.state", true},
		{"left join fact preserved", "select o.Carrier, count(c.name), count(*) from ontime o left join carriers c on c.code = o.Carrier group by o.Carrier", true},
		{"in subquery on dimension", "select count(*), sum(Distance) from ontime where Origin in (select code from airports where state in ('CA', 'TX'))", true},
		{"not exists correlated on dimension", "select Carrier, count(*) from ontime o where not exists (select 1 from airports a where a.code = o.Dest and a.state = 'NY') group by Carrier", true},
		{"count distinct", "select Carrier, count(distinct TailNum), count(*) from ontime group by Carrier", true},
		{"count distinct no group", "select count(distinct Origin) from ontime where YearD > 2000", true},
		{"count distinct two columns", "select YearD, count(distinct Origin, Dest) from ontime group by YearD", true},
		{"sum avg distinct", "select sum(distinct DayOfWeek), avg(distinct DayOfWeek), count(distinct DayOfWeek) from ontime", true},
		{"count distinct empty", "select count(distinct Distance), sum(distinct Distance), avg(distinct Distance) from ontime where YearD = 1800", true},
		{"select distinct", "select distinct Carrier, YearD from ontime where Cancelled = 1", false},
		{"select distinct order limit", "select distinct Origin from ontime order by Origin desc limit 5", true},
		{"stddev variance", "select Carrier, round(stddev_pop(ArrDelayMinutes), 6), round(var_samp(Distance), 6), round(std(DepDelayMinutes), 6), round(variance(Distance), 4) from ontime group by Carrier", true},
		{"bit aggregates", "select Carrier, bit_and(Distance), bit_or(FlightNum), bit_xor(id), bit_and(FlightNum + 0) from ontime group by Carrier", true},
		{"bit aggregates empty", "select bit_and(Distance), bit_or(Distance), bit_xor(Distance) from ontime where YearD = 1800", true},
		{"rollup one key", "select Carrier, count(*), sum(Distance), max(FlightDate) from ontime group by Carrier with rollup", true},
		{"rollup two keys", "select YearD, Quarter, count(*), min(ArrDelayMinutes) from ontime where YearD > 2010 group by YearD, Quarter with rollup", true},
		{"rollup having limit", "select OriginState, Cancelled, count(*) c from ontime group by OriginState, Cancelled with rollup having c > 10 limit 20", true},
		{"group_concat distinct", "select Carrier, group_concat(distinct OriginState order by OriginState separator '|'), count(distinct OriginState) from ontime group by Carrier", true},
		{"group_concat distinct desc no group", "select group_concat(distinct Carrier order by Carrier desc) from ontime where YearD = 2000", true},
		{"group_concat distinct default order", "select DayOfWeek, group_concat(distinct UniqueCarrier) from ontime where Cancelled = 1 group by DayOfWeek", true},
		{"join with distinct", "select c.country, count(distinct o.Origin) from ontime o join carriers c on c.code = o.Carrier group by c.country", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			diff(t, c.q, c.ordered)
			if ex := explain(t, c.q); !strings.HasPrefix(ex, "split ontime.ontime") {
				t.Errorf("not distributed:\n%s", ex)
			}
		})
	}
	// The fact table under the null-supplying side passes through, and
	// still answers exactly.
	q := "select c.code, count(o.id) from carriers c left join ontime o on o.Carrier = c.code group by c.code"
	diff(t, q, true)
	if ex := explain(t, q); !strings.Contains(ex, "passthrough") {
		t.Errorf("expected passthrough:\n%s", ex)
	}
}
