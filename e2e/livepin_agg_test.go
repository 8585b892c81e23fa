package e2e

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// Aggregated live pins (CACHE TABLE … OPTIONS ('refresh' = 'live') AS
// SELECT … GROUP BY …): the groups follow the binary log. After every
// round of writes on the primary the test waits for the pin's position
// to reach the primary's and compares the pin with MariaDB's own GROUP
// BY on the primary (names, types, values), and the pin's column
// definitions with those of a static pin of the same query.

const aggTable = "ontime.live_sales"

const aggWhere = "qty IS NULL OR qty > -20"

// aggQuery is the pinned aggregation; the pins are read back ordered by
// their keys.
// Its outputs are aliased: a pin's columns are named after the query's
// restored text (COUNT(1) for COUNT(*), quoted names), static or live.
const aggQuery = "SELECT carrier, region, COUNT(*) AS n, SUM(amount) AS amount, AVG(qty) AS avg_qty, MIN(day) AS first_day, MAX(amount) AS top, COUNT(qty) AS n_qty, AVG(amount) AS avg_amount, MAX(id) AS last_id FROM live_sales WHERE " + aggWhere + " GROUP BY carrier, region"

func aggSalesRow(r *rand.Rand, id int) string {
	null := func(s string) string {
		if r.IntN(7) == 0 {
			return "NULL"
		}
		return s
	}
	return fmt.Sprintf("(%d, %s, %s, %s, %s, %s)", id,
		[]string{"'AA'", "'aa'", "'DL'", "'WN'", "'ÄÖ'", "NULL"}[r.IntN(6)], null(fmt.Sprint(r.IntN(4))),
		null(fmt.Sprintf("%d.%02d", r.IntN(4000)-1000, r.IntN(100))), null(fmt.Sprint(r.IntN(90)-30)),
		null(fmt.Sprintf("'2024-%02d-%02d'", r.IntN(12)+1, r.IntN(28)+1)))
}

func TestLiveAggregatedPin(t *testing.T) {
	directExec(t, "DROP TABLE IF EXISTS "+aggTable,
		"CREATE TABLE "+aggTable+" (id INT NOT NULL PRIMARY KEY, carrier VARCHAR(8) NULL, region INT NULL, amount DECIMAL(10,2) NULL, qty INT NULL, day DATE NULL)")
	t.Cleanup(func() {
		for _, n := range []string{"live_by", "static_by", "live_total"} {
			env.shoal.Exec("UNCACHE TABLE IF EXISTS ontime." + n)
		}
		env.direct.Exec("DROP TABLE IF EXISTS " + aggTable)
	})
	r := rand.New(rand.NewPCG(11, 5))
	var vals []string
	for id := 1; id <= 3000; id++ {
		vals = append(vals, aggSalesRow(r, id))
	}
	directExec(t, "INSERT INTO "+aggTable+" VALUES "+strings.Join(vals, ","))
	replicasAndCatalog(t)

	shoalExec(t, "CACHE TABLE live_by OPTIONS ('refresh' = 'live') AS "+aggQuery)
	shoalExec(t, "CACHE TABLE static_by AS "+aggQuery)
	const totalQ = "SELECT COUNT(*) AS n, SUM(amount) AS s, AVG(amount) AS a, MIN(day) AS d FROM live_sales WHERE region = 3"
	shoalExec(t, "CACHE TABLE live_total OPTIONS ('refresh' = 'live') AS "+totalQ)

	// The live pin's columns are a static pin's.
	live, err := rawShoal.query("SELECT * FROM live_by ORDER BY carrier, region")
	if err != nil || live.err != nil {
		t.Fatal(err, live.err)
	}
	static, err := rawShoal.query("SELECT * FROM static_by ORDER BY carrier, region")
	if err != nil || static.err != nil {
		t.Fatal(err, static.err)
	}
	if !slices.Equal(live.cols, static.cols) || !slices.Equal(live.defs, static.defs) {
		t.Fatalf("live and static pins of one query differ:\nlive   %q %q\nstatic %q %q", live.cols, live.defs, static.cols, static.defs)
	}
	if fmt.Sprint(live.rows) != fmt.Sprint(static.rows) {
		t.Fatalf("live and static pins loaded together differ:\nlive   %q\nstatic %q", live.rows, static.rows)
	}

	check := func(what string) {
		t.Helper()
		row := liveCaughtUp(t, "live_by")
		liveCaughtUp(t, "live_total")
		for _, q := range [][2]string{
			{"SELECT * FROM live_by ORDER BY carrier, region", aggQuery + " ORDER BY carrier, region"},
			{"SELECT * FROM live_total", totalQ},
			// A query over the pin, as a dashboard asks it (by region:
			// which spelling of a carrier, 'AA' or 'aa', a regrouping
			// shows is each engine's first row).
			{"SELECT region, SUM(n) AS n, SUM(amount) AS s, MAX(avg_amount) AS a FROM live_by GROUP BY region ORDER BY region",
				"SELECT region, SUM(n) AS n, SUM(s) AS s, MAX(a) AS a FROM (SELECT region, COUNT(*) n, SUM(amount) s, AVG(amount) a FROM live_sales WHERE " + aggWhere + " GROUP BY carrier, region) g GROUP BY region ORDER BY region"},
		} {
			got, err := rawShoal.query(q[0])
			if err != nil {
				t.Fatal(err)
			}
			want, err := rawDirect.query(q[1])
			if err != nil {
				t.Fatal(err)
			}
			got.defs, want.defs = nil, nil // the pin's are compared with a static pin's above
			compare(t, what+": "+q[0], got, want, true)
		}
		if t.Failed() {
			t.FailNow()
		}
		t.Logf("%s: at %s, %s events applied, state %s", what, row["Gtid_position"], row["Events_applied"], row["Live_state"])
	}
	check("loaded")
	if row := cachedRow(t, "live_by"); row["Refresh_mode"] != "live" || row["Kind"] != "query" || row["Live_state"] != "following" {
		t.Fatalf("SHOW CACHED TABLES: %v", row)
	}

	next := 3001
	for round := range 6 {
		var stmts []string
		for range 20 {
			switch r.IntN(7) {
			case 0, 1:
				stmts = append(stmts, "INSERT INTO "+aggTable+" VALUES "+aggSalesRow(r, next)+","+aggSalesRow(r, next+1))
				next += 2
			case 2: // values, to and from NULL
				stmts = append(stmts, fmt.Sprintf("UPDATE %s SET amount = amount * 2 + 0.05, qty = IF(qty IS NULL, %d, NULL) WHERE id %% 30 = %d", aggTable, r.IntN(40)-25, r.IntN(30)))
			case 3: // group moves
				stmts = append(stmts, fmt.Sprintf("UPDATE %s SET carrier = %s, region = region + 1 WHERE id BETWEEN %d AND %d", aggTable,
					[]string{"'WN'", "'aa'", "NULL", "'B6'"}[r.IntN(4)], r.IntN(next), r.IntN(next)))
			case 4:
				stmts = append(stmts, fmt.Sprintf("DELETE FROM %s WHERE id %% 40 = %d", aggTable, r.IntN(40)))
			case 5: // the last rows of a group
				stmts = append(stmts, fmt.Sprintf("DELETE FROM %s WHERE carrier = %s AND region <=> %d", aggTable, []string{"'DL'", "'B6'", "'ÄÖ'"}[r.IntN(3)], r.IntN(5)))
			case 6: // the primary key
				stmts = append(stmts, fmt.Sprintf("UPDATE IGNORE %s SET id = id + 100000 WHERE id = %d", aggTable, r.IntN(next)))
			}
		}
		if round%2 == 1 {
			stmts = append(append([]string{"BEGIN"}, stmts...), "COMMIT")
		}
		tx, err := env.direct.Begin()
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range stmts {
			if _, err := tx.Exec(q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		check(fmt.Sprintf("round %d", round))
	}
	directExec(t, "DELETE FROM "+aggTable+" WHERE region = 3")
	check("region 3 deleted")

	// What cannot be kept live is refused, with error 1235 and the reason.
	// A query MariaDB refuses gets MariaDB's error, as a static pin does.
	if _, err := env.shoal.Exec("CACHE TABLE live_no OPTIONS ('refresh' = 'live') AS SELECT carrier, SUM(nope) FROM live_sales GROUP BY carrier"); err == nil || !strings.HasPrefix(err.Error(), "Error 1054") {
		t.Errorf("an unknown column: %v, want error 1054", err)
	}
	for _, c := range [][2]string{
		{"SELECT carrier, COUNT(DISTINCT region) FROM live_sales GROUP BY carrier", "DISTINCT"},
		{"SELECT carrier, GROUP_CONCAT(id) FROM live_sales GROUP BY carrier", "GROUP_CONCAT"},
		{"SELECT carrier, SUM(amount * 2) FROM live_sales GROUP BY carrier", "columns only"},
		{"SELECT carrier, COUNT(*) FROM live_sales GROUP BY carrier HAVING COUNT(*) > 1", "HAVING"},
		{"SELECT carrier, COUNT(*) FROM live_sales GROUP BY carrier WITH ROLLUP", "ROLLUP"},
		{"SELECT carrier, MAX(carrier) FROM live_sales GROUP BY carrier", "collation"},
		{"SELECT YEAR(day), COUNT(*) FROM live_sales GROUP BY YEAR(day)", "GROUP BY"},
		{"SELECT carrier, STDDEV(qty) FROM live_sales GROUP BY carrier", "STDDEV"},
	} {
		_, err := env.shoal.Exec("CACHE TABLE live_no OPTIONS ('refresh' = 'live') AS " + c[0])
		if err == nil || !strings.Contains(err.Error(), "1235") || !strings.Contains(err.Error(), c[1]) {
			t.Errorf("%s: %v, want error 1235 saying %q", c[0], err, c[1])
		}
	}
}
