package e2e

import (
	"strings"
	"testing"
)

// The fourth exactness hunt: the SQL BI tools and dashboards send
// (Grafana, Metabase, Superset, Tableau, Looker, DBeaver, ODBC). Each case
// is compared with MariaDB's answer (rows as text, column definitions,
// errors) and checked for where it runs: a BI GROUP BY over a date bucket
// that silently passes through is a performance failure.

// biCase is a statement and where Shoal must run it: "split " for a
// distributed plan, "passthrough" for one replica, "in memory:" over a
// pin (the prefix or part of its EXPLAIN).
type biCase struct {
	q, where string
}

func runBICases(t *testing.T, cases []biCase) {
	t.Helper()
	for _, c := range cases {
		if ex := explain(t, c.q); !strings.Contains(ex, c.where) {
			t.Errorf("%s: does not run %q:\n%s", c.q, c.where, ex)
		}
		diff(t, c.q, strings.Contains(strings.ToUpper(c.q), "LIMIT") || strings.Contains(strings.ToUpper(c.q), "ORDER BY"))
	}
}

// TestHuntLimitWithoutOrder: the first rows a table browser asks for
// (DBeaver's `SELECT … LIMIT 200`, Metabase's preview, Power BI's sample)
// when every column it reads is in a secondary index. MariaDB scans the
// shortest index holding them (every InnoDB secondary index holds the
// primary key), not the table, so its first rows come in that index's
// order: `SELECT Carrier FROM ontime LIMIT 5` is five 9E rows, where the
// merge in primary key order gave DL, YV, ... Such statements now pass
// through (a LIMIT without ORDER BY reads a few rows on one replica
// anyway); the same over a whole-table pin. Columns no index holds keep
// the key order, distributed.
func TestHuntLimitWithoutOrder(t *testing.T) {
	runBICases(t, []biCase{
		{"SELECT Carrier FROM ontime LIMIT 5", "passthrough"},
		{"SELECT `ontime`.`Carrier` FROM `ontime`.`ontime` LIMIT 0, 20", "passthrough"},
		{"SELECT `ontime`.`id` AS `id`, `ontime`.`Carrier` AS `Carrier` FROM `ontime` LIMIT 2000", "passthrough"},
		{"SELECT Carrier, id FROM ontime WHERE id > 1000 LIMIT 7", "passthrough"},
		{"SELECT UPPER(Carrier) c FROM ontime ORDER BY NULL LIMIT 5", "passthrough"},
		{"SELECT * FROM ontime LIMIT 5", "split "},
		{"SELECT `Carrier`, `Origin` FROM `ontime`.`ontime` LIMIT 0, 200", "split "},
		{"SELECT Carrier FROM ontime ORDER BY Carrier, id LIMIT 5", "split "},
	})
	const pin = "hunt4_pin"
	directExec(t, "DROP TABLE IF EXISTS "+pin,
		"CREATE TABLE "+pin+" (id INT NOT NULL PRIMARY KEY, Carrier VARCHAR(10) NOT NULL, Origin CHAR(3) NOT NULL, KEY (Carrier))",
		"INSERT INTO "+pin+" SELECT id, Carrier, Origin FROM ontime")
	t.Cleanup(func() { env.direct.Exec("DROP TABLE IF EXISTS " + pin) })
	replicasAndCatalog(t)
	shoalExec(t, "CACHE TABLE ontime."+pin)
	t.Cleanup(func() { env.shoal.Exec("UNCACHE TABLE IF EXISTS ontime." + pin) })
	runBICases(t, []biCase{
		{"SELECT Carrier FROM " + pin + " LIMIT 5", "passthrough"},
		{"SELECT id, Carrier FROM " + pin + " LIMIT 5", "passthrough"},
		{"SELECT Carrier, Origin FROM " + pin + " LIMIT 5", "in memory:"},
		{"SELECT * FROM " + pin + " LIMIT 5", "in memory:"},
	})
}
