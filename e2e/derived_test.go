package e2e

import (
	"strings"
	"testing"
)

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
		// A derived table of raw rows is merged (planner/derivedmerge).
		{"select count(*) from (select Origin from ontime where DayOfWeek = 1) t", true, true},
		// Not distributed: a raw-row derived table over latin1 text,
		// UNION (distinct), a branch that passes through.
		// Not distributed: latin1 text held in memory would be sorted as
		// utf8mb4 ('åland' before 'école'; latin1_swedish_ci after).
		{"select k, n from (select lower(l1) k, count(*) n from mixed_cs group by k) a order by k", true, false},
		{"select Carrier from ontime where YearD = 2000 group by Carrier union select Carrier from ontime where YearD = 2001 group by Carrier", false, false},
		{"select count(*) from ontime union all select count(*) from ontime where YearD < year(sysdate())", false, false},
	}
	for _, c := range cases {
		const passed = `shoal_queries_total{kind="passthrough",outcome="ok"}`
		before := scrape(t).get(passed)
		diffValues(t, c.sql, c.ordered) // definitions: see diffValues
		distributed := scrape(t).get(passed) == before
		if distributed != c.distributed {
			t.Errorf("%s: distributed %v, want %v", c.sql, distributed, c.distributed)
		}
	}
}

// TestDerivedJoins: joins of derived tables and CTEs over distributable
// aggregates (ClickHouse OnTime Q5–Q7 shapes) run each side distributed
// and the join in memory; the answers (rows, names, types) are MySQL's,
// and EXPLAIN shows the hash join. Shapes the in-memory join cannot run
// exactly pass through.
func TestDerivedJoins(t *testing.T) {
	cases := []struct {
		sql         string
		ordered     bool
		distributed bool
	}{
		// Q5.
		{"select Carrier, c, c2, c*100/c2 as c3 from (select Carrier, count(*) as c from ontime where DepDelayMinutes > 10 and YearD = 2007 group by Carrier) a inner join (select Carrier, count(*) as c2 from ontime where YearD = 2007 group by Carrier) b using (Carrier) order by c3 desc, Carrier", true, true},
		// Q6: the ratio over a span of years, LEFT JOIN.
		{"select Carrier, c, c2, c*1000/c2 as c3 from (select Carrier, count(*) as c from ontime where DepDelayMinutes > 10 and YearD >= 2000 and YearD <= 2008 group by Carrier) a left join (select Carrier, count(*) as c2 from ontime where YearD >= 2000 and YearD <= 2008 group by Carrier) b using (Carrier) order by c3 desc, Carrier", true, true},
		// Q7-like: averages joined with ON.
		{"select a.Carrier, a.d, b.ar, a.d - b.ar as gap from (select Carrier, avg(DepDelayMinutes) d from ontime group by Carrier) a join (select Carrier, avg(ArrDelayMinutes) ar from ontime where DayOfWeek < 6 group by Carrier) b on a.Carrier = b.Carrier order by gap desc, a.Carrier", true, true},
		// CTEs.
		{"with a as (select Origin, count(*) n from ontime where YearD < 2000 group by Origin), b as (select Origin, sum(Distance) dist from ontime group by Origin) select a.Origin, n, dist, dist / n as r from a join b on a.Origin = b.Origin where n > 5 order by r desc, a.Origin limit 10", true, true},
		// Three sides, USING twice.
		{"select Carrier, c1, c2, c3 from (select Carrier, count(*) c1 from ontime where YearD < 1995 group by Carrier) x join (select Carrier, max(Distance) c2 from ontime group by Carrier) y using (Carrier) join (select Carrier, min(ArrDelayMinutes) c3 from ontime where DayOfWeek = 7 group by Carrier) z using (Carrier) order by Carrier", true, true},
		// GROUP BY, ORDER BY and LIMIT on the outer statement.
		{"select a.YearD, count(*), sum(a.c * b.m) s from (select YearD, Carrier, count(*) c from ontime group by YearD, Carrier) a join (select Carrier, max(Distance) m from ontime group by Carrier) b using (Carrier) group by a.YearD order by s desc, a.YearD limit 5", true, true},
		// LEFT JOIN with keys missing on the right: NULLs.
		{"select Carrier, a.n, b.n2, b.n2 is null from (select Carrier, count(*) n from ontime group by Carrier) a left join (select Carrier, count(*) n2 from ontime where YearD < 1990 and DayOfWeek = 1 group by Carrier) b using (Carrier) order by Carrier", true, true},
		{"select a.Origin, a.n, b.d from (select Origin, count(*) n from ontime group by Origin) a left join (select Origin, sum(Distance) d from ontime where Origin < 'M' group by Origin) b on a.Origin = b.Origin where a.n > 2 order by a.Origin", true, true},
		// A string key under a case-insensitive collation: 'ab' joins 'AB'.
		{"select k, a.n, b.d from (select lower(Carrier) k, count(*) n from ontime group by k) a join (select upper(Carrier) k, sum(Distance) d from ontime group by k) b using (k) order by k", true, true},
		// The same over a utf8mb4 column with non-ASCII values
		// ('résumé' joins 'RÉSUMÉ'); over a latin1 column it passes
		// through (below).
		{"select k, a.n, b.s from (select lower(u8) k, count(*) n from mixed_cs group by k) a left join (select upper(u8) k, sum(amount) s from mixed_cs where n > 5 group by k) b using (k) order by k", true, true},
		// Q7 as ClickHouse writes it (YearD qualified: MySQL finds a bare
		// one ambiguous), and with USING over a SMALLINT key.
		{"select a.YearD, c1/c2 from (select YearD, count(*)*100 as c1 from ontime where DepDelayMinutes > 10 group by YearD) a inner join (select YearD, count(*) as c2 from ontime group by YearD) b on a.YearD = b.YearD order by a.YearD", true, true},
		{"select YearD, c1/c2 as r from (select YearD, count(*)*100 as c1 from ontime where DepDelayMinutes > 10 group by YearD) a join (select YearD, count(*) as c2 from ontime group by YearD) b using (YearD) where c2 > 10 order by r desc, YearD limit 7", true, true},
		// An aggregate over the joined rows, and HAVING.
		{"select count(*), sum(c), avg(c2), max(c - c2) from (select Carrier, count(*) c from ontime where DayOfWeek = 1 group by Carrier) a, (select Carrier, count(*) c2 from ontime where DayOfWeek = 2 group by Carrier) b where a.Carrier = b.Carrier", true, true},
		{"select a.DayOfWeek, count(*) n, sum(b.d) from (select DayOfWeek, Carrier, count(*) c from ontime group by DayOfWeek, Carrier) a join (select Carrier, sum(Distance) d from ontime group by Carrier) b using (Carrier) group by a.DayOfWeek having n > 1 order by a.DayOfWeek", true, true},
		// A CTE joined with itself under two aliases.
		{"with t as (select Carrier, YearD, count(*) c from ontime group by Carrier, YearD) select x.Carrier, x.YearD, x.c, y.c from t x left join t y on y.Carrier = x.Carrier and y.YearD = x.YearD + 1 order by x.Carrier, x.YearD limit 20", true, true},
		// Not distributed: a bare column both sides have (MariaDB's
		// error), keys in latin1 (ordered under latin1_swedish_ci: 'åland'
		// after 'école'), SELECT * over USING, RIGHT and NATURAL joins, a raw-row
		// side, a replica table joined, a CTE read by another CTE.
		{"select YearD, c1/c2 from (select YearD, count(*)*100 as c1 from ontime group by YearD) a join (select YearD, count(*) as c2 from ontime group by YearD) b on a.YearD = b.YearD", false, false},
		{"select k, a.n, b.s from (select lower(l1) k, count(*) n from mixed_cs group by k) a join (select upper(l1) k, sum(amount) s from mixed_cs group by k) b using (k) order by k", true, false},
		{"select * from (select Carrier, count(*) c from ontime group by Carrier) a join (select Carrier, count(*) c2 from ontime group by Carrier) b using (Carrier) order by c", true, false},
		{"select Carrier, c, c2 from (select Carrier, count(*) c from ontime where YearD < 2000 group by Carrier) a right join (select Carrier, count(*) c2 from ontime group by Carrier) b using (Carrier) order by Carrier", true, false},
		{"select Carrier, c, c2 from (select Carrier, count(*) c from ontime group by Carrier) a natural join (select Carrier, count(*) c2 from ontime group by Carrier) b order by Carrier", true, false},
		{"select count(*), sum(c) from (select Carrier, count(*) c from ontime group by Carrier) a join (select Carrier from ontime where DayOfWeek = 1) b using (Carrier)", true, false},
		{"select a.Carrier, a.c, count(*) from (select Carrier, count(*) c from ontime group by Carrier) a join ontime o on o.Carrier = a.Carrier where o.YearD = 2001 group by a.Carrier, a.c order by a.Carrier", true, false},
		{"with a as (select Carrier, count(*) c from ontime group by Carrier), b as (select Carrier, c * 2 c2 from a) select a.Carrier, c, c2 from a join b using (Carrier) order by a.Carrier", true, false},
	}
	for _, c := range cases {
		// Counted as distributed when it ran so (an error, as MariaDB
		// gives for the ambiguous column, is not).
		const ran = `shoal_queries_total{kind="distributed",outcome="ok"}`
		before := scrape(t).get(ran)
		diffValues(t, c.sql, c.ordered) // definitions: see diffValues
		distributed := scrape(t).get(ran) > before
		if distributed != c.distributed {
			t.Errorf("%s: distributed %v, want %v", c.sql, distributed, c.distributed)
		}
		ex := explain(t, c.sql)
		if joined := strings.Contains(ex, "hash join of"); joined != c.distributed {
			t.Errorf("EXPLAIN %s: in-memory join %v, want %v:\n%s", c.sql, joined, c.distributed, ex)
		}
	}
}
