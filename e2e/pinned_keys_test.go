package e2e

import (
	"strings"
	"testing"
)

// TestKeyTypes runs ordinary statements over tables keyed by a
// DATETIME(3), a CHAR(36) UUID and a composite (INT, INT) primary key,
// distributed and over whole-table pins. Over the pins, groups whose
// keys are equal under the collation ('Buy' and 'buy') showed the
// spelling of whichever batch loaded first: a pin's batches are now put
// in key order for those keys too (pinned.Table.OrderBatches).
func TestKeyTypes(t *testing.T) {
	directExec(t,
		"DROP TABLE IF EXISTS kt_events, kt_users, kt_orders",
		`CREATE TABLE kt_events (ts DATETIME(3) NOT NULL PRIMARY KEY, kind VARCHAR(10) NOT NULL, amount DECIMAL(10,2), uid INT)`,
		`INSERT INTO kt_events SELECT '2024-01-01' + INTERVAL seq*1537000 MICROSECOND + INTERVAL seq MINUTE,
		  ELT(1+seq%4, 'view', 'click', 'Buy', 'buy'), IF(seq%6=0, NULL, (seq%997)/3), seq%500 FROM seq_1_to_80000`,
		`CREATE TABLE kt_users (id CHAR(36) NOT NULL PRIMARY KEY, name VARCHAR(40) NOT NULL, country CHAR(2), created DATE NOT NULL, score DOUBLE)`,
		`INSERT INTO kt_users SELECT UUID(), CONCAT(ELT(1+seq%5, 'ann', 'Bob', 'carl', 'Dina', 'éve'), seq),
		  ELT(1+seq%6, 'US', 'DE', 'FR', 'us', NULL, 'JP'), '2020-01-01' + INTERVAL seq%1500 DAY, seq/7 FROM seq_1_to_60000`,
		`CREATE TABLE kt_orders (customer_id INT NOT NULL, order_no INT NOT NULL, placed DATETIME NOT NULL,
		  total DECIMAL(12,2) NOT NULL, status ENUM('new','paid','shipped'), PRIMARY KEY (customer_id, order_no))`,
		`INSERT INTO kt_orders SELECT seq%3000, seq, '2023-01-01' + INTERVAL seq*13 MINUTE, (seq%10000)/100,
		  ELT(1+seq%3, 'new', 'paid', 'shipped') FROM seq_1_to_30000`)
	t.Cleanup(func() { env.direct.Exec("DROP TABLE IF EXISTS kt_events, kt_users, kt_orders") })
	replicasAndCatalog(t)
	qs := []string{
		"SELECT kind, COUNT(*), SUM(amount), AVG(amount), MIN(ts), MAX(ts) FROM kt_events GROUP BY kind ORDER BY kind",
		"SELECT DATE(ts) d, COUNT(*) FROM kt_events GROUP BY d ORDER BY d LIMIT 10",
		"SELECT COUNT(*) FROM kt_events WHERE ts > '2024-01-10 12:00:00.5'",
		"SELECT COUNT(*) FROM kt_events WHERE ts BETWEEN '2024-01-10' AND '2024-01-10 23:59:59.999'",
		"SELECT * FROM kt_events ORDER BY ts DESC LIMIT 5",
		"SELECT HOUR(ts) h, kind, COUNT(*) FROM kt_events WHERE ts < '2024-02-01' GROUP BY h, kind ORDER BY h, kind",
		"SELECT DATE_FORMAT(ts, '%Y-%m-%d %H:00') hr, COUNT(*) FROM kt_events GROUP BY hr ORDER BY 2 DESC, hr LIMIT 5",
		"SELECT country, COUNT(*), MIN(name), MAX(created) FROM kt_users GROUP BY country ORDER BY country",
		"SELECT YEAR(created), country, COUNT(*) FROM kt_users GROUP BY 1, 2 ORDER BY 1, 2",
		"SELECT LEFT(name, 3) p, COUNT(*) FROM kt_users GROUP BY p ORDER BY p",
		"SELECT name, score FROM kt_users ORDER BY score DESC LIMIT 5",
		"SELECT status, COUNT(*), SUM(total), AVG(total) FROM kt_orders WHERE order_no % 7 <> 0 GROUP BY status ORDER BY COUNT(*), SUM(total)",
		"SELECT customer_id, COUNT(*), SUM(total) FROM kt_orders GROUP BY customer_id ORDER BY 3 DESC, 1 LIMIT 5",
		"SELECT COUNT(*), SUM(total) FROM kt_orders WHERE customer_id BETWEEN 100 AND 200",
		"SELECT MONTH(placed) m, status, SUM(total) FROM kt_orders GROUP BY m, status ORDER BY m, SUM(total)",
	}
	for _, pinned := range []bool{false, true} {
		if pinned {
			for _, tb := range []string{"kt_events", "kt_users", "kt_orders"} {
				shoalExec(t, "CACHE TABLE ontime."+tb)
				t.Cleanup(func() { env.shoal.Exec("UNCACHE TABLE IF EXISTS ontime." + tb) })
			}
		}
		for _, q := range qs {
			plan := explain(t, q)
			if want := map[bool]string{false: "split ", true: "in memory:"}[pinned]; !strings.Contains(plan, want) {
				t.Errorf("%s does not run %q:\n%s", q, want, plan)
			}
			diff(t, q, true)
		}
	}
}
