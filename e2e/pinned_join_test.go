package e2e

import (
	"fmt"
	"strings"
	"testing"
)

// TestPinnedJoin pins ontime, carriers and airports whole and a query
// result over carriers, and runs joins between them: through Shoal they
// run in memory as hash joins (EXPLAIN says so), directly they run on the
// primary; rows, column names and types must match.
func TestPinnedJoin(t *testing.T) {
	for _, name := range []string{"ontime", "carriers", "airports"} {
		shoalExec(t, "CACHE TABLE ontime."+name)
		t.Cleanup(func() { env.shoal.Exec("UNCACHE TABLE IF EXISTS ontime." + name) })
	}
	// carriers_lc: a NULL key (AA) and lower-case codes, which match
	// ontime's upper-case Carrier under utf8mb4_general_ci. The primary
	// answers over a real table of the same rows.
	const lcDef = "SELECT code, name, IF(code = 'AA', NULL, LOWER(code)) AS lcode FROM ontime.carriers"
	for _, q := range []string{"DROP TABLE IF EXISTS ontime.carriers_lc_copy", "CREATE TABLE ontime.carriers_lc_copy AS " + lcDef} {
		if _, err := env.direct.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() { env.direct.Exec("DROP TABLE IF EXISTS ontime.carriers_lc_copy") })
	shoalExec(t, "CACHE TABLE carriers_lc AS "+lcDef)
	t.Cleanup(func() { env.shoal.Exec("UNCACHE TABLE IF EXISTS ontime.carriers_lc") })

	cases := []struct {
		name    string
		sql     string
		ordered bool
	}{
		{"inner to one dimension, GROUP BY its column",
			"select c.name, count(*) as n from ontime o join carriers c on c.code = o.Carrier group by c.name", false},
		{"inner to both dimensions, two keys, ordered",
			"select a.state, c.country, count(*) as n, sum(o.Distance) from ontime o join carriers c on c.code = o.Carrier join airports a on a.code = o.Origin where o.YearD >= 2005 group by a.state, c.country order by n desc, a.state, c.country", true},
		{"comma join, COUNT(DISTINCT)",
			"select a.city, count(distinct o.Carrier) as carriers from ontime o, airports a where a.code = o.Dest group by a.city", false},
		{"ORDER BY ... LIMIT over joined rows",
			"select o.id, c.name, a.name as airport from ontime o join carriers c on c.code = o.Carrier join airports a on a.code = o.Dest where o.Distance > 1500 order by o.id desc limit 20", true},
		{"split table written last",
			"select c.name, max(o.ArrDelayMinutes) from carriers c join ontime o on o.Carrier = c.code group by c.name", false},
		{"extra non-equi ON condition, AVG",
			"select c.name, avg(o.ArrDelayMinutes), count(*) from ontime o join carriers c on c.code = o.Carrier and o.DepDelayMinutes > 60 group by c.name", false},
		{"LEFT JOIN with unmatched rows",
			"select a.state, count(*), count(a.code) from ontime o left join airports a on a.code = o.Origin and a.state in ('CA', 'TX') group by a.state", false},
		{"LEFT JOIN, WHERE on the NULL-extended side",
			"select o.Origin, count(*) from ontime o left join airports a on a.code = o.Dest and a.state = 'CA' where a.code is null and o.MonthD = 3 group by o.Origin", false},
		{"NULL probe key (TailNum) in a LEFT JOIN",
			"select count(*), count(c.code), count(o.TailNum) from ontime o left join carriers c on c.code = o.TailNum", false},
		{"non-aggregate rows of a three-way join",
			"select o.id, o.Carrier, c.country, a.city from ontime o join carriers c on c.code = o.Carrier join airports a on a.code = o.Origin where o.DayofMonth = 13 and o.Distance < 300", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ex := explain(t, c.sql)
			if !strings.Contains(ex, "in memory:") || !strings.Contains(ex, "hash join in memory: partitions scan ontime.ontime AS o and probe") {
				t.Errorf("not run as a hash join in memory:\n%s", ex)
			}
			diff(t, c.sql, c.ordered)
		})
	}

	// A pinned query result as a dimension: a NULL key that never
	// matches, and lower-case codes that match under the _ci collation.
	for i, q := range []string{
		"select l.lcode, l.name, count(*) from ontime o left join %s l on l.lcode = o.Carrier group by l.lcode, l.name",
		"select o.Carrier, count(*) from ontime o join %s l on l.lcode = o.Carrier where o.YearD < 2000 group by o.Carrier",
	} {
		t.Run(fmt.Sprintf("query result %d", i), func(t *testing.T) {
			viaPin, direct := fmt.Sprintf(q, "carriers_lc"), fmt.Sprintf(q, "carriers_lc_copy")
			if ex := explain(t, viaPin); !strings.Contains(ex, "hash join in memory") || !strings.Contains(ex, "ontime.carriers_lc AS l") {
				t.Errorf("not run in memory:\n%s", ex)
			}
			got, err := query(env.shoal, viaPin)
			if err != nil {
				t.Fatal(err)
			}
			want, err := query(env.direct, direct)
			if err != nil {
				t.Fatal(err)
			}
			if len(want.rows) < 2 {
				t.Fatalf("direct answer has %d rows: the case tests nothing", len(want.rows))
			}
			compare(t, viaPin, got, want, false)
		})
	}

	// A join with a replica table (airports, unpinned now): whole-table
	// pins fall back to the replicas (same answer), a pinned query result
	// is refused with the reason, and the connection stays usable.
	shoalExec(t, "UNCACHE TABLE ontime.airports")
	t.Run("whole pin joined with a replica table", func(t *testing.T) {
		q := "select a.state, count(*) from ontime o join airports a on a.code = o.Origin group by a.state"
		ex := explain(t, q)
		if runsInMemory(ex) || !strings.Contains(ex, "fragments:") {
			t.Errorf("did not run on the replicas:\n%s", ex)
		}
		diff(t, q, false)
	})
	t.Run("query result joined with a replica table", func(t *testing.T) {
		// Not runnable in memory, and no replica holds carriers_lc: a
		// replica runs it over the pin's definition as a derived table.
		q := "select l.lcode, count(*) from carriers_lc l join airports a on left(a.code, 1) = left(l.code, 1) group by l.lcode"
		if ex := explain(t, q); !strings.Contains(ex, "over the pin's definition") {
			t.Errorf("not passed through over the definition:\n%s", ex)
		}
		got, err := query(env.shoal, q)
		if err != nil {
			t.Fatal(err)
		}
		want, err := query(env.direct, strings.Replace(q, "carriers_lc l", "("+lcDef+") l", 1))
		if err != nil {
			t.Fatal(err)
		}
		if got.err != nil || want.err != nil || len(want.rows) == 0 {
			t.Fatalf("shoal %v, MariaDB %v (%d rows)", got.err, want.err, len(want.rows))
		}
		compare(t, q, got, want, false)
	})
}
