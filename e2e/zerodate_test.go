package e2e

import (
	"strings"
	"testing"
)

// TestZeroDates: MariaDB accepts zero dates ('0000-00-00', '2024-00-10')
// unless sql_mode forbids them, and no Arrow value holds one. The
// fragments returned them as NULL, so GROUP BY d showed a NULL group and
// MIN(d) skipped them. A fragment now fails on one and the statement runs
// on a replica (statements that do not read the column still distribute);
// a pin of such a table is refused, naming the column.
func TestZeroDates(t *testing.T) {
	const name = "zero_dates"
	directExec(t,
		"DROP TABLE IF EXISTS "+name,
		"CREATE TABLE "+name+" (id INT NOT NULL PRIMARY KEY, d DATE NULL, dt DATETIME NULL, n INT NOT NULL)",
		"SET STATEMENT sql_mode = '' FOR INSERT INTO "+name+` SELECT seq,
		  IF(seq % 50 = 0, '0000-00-00', IF(seq % 77 = 0, '2024-00-10', '2020-01-01' + INTERVAL seq % 400 DAY)),
		  IF(seq % 60 = 0, '0000-00-00 00:00:00', '2021-03-01' + INTERVAL seq HOUR), seq % 7 FROM seq_1_to_5000`)
	t.Cleanup(func() { env.direct.Exec("DROP TABLE IF EXISTS " + name) })
	replicasAndCatalog(t)
	for _, q := range []string{
		"SELECT d, COUNT(*) FROM " + name + " GROUP BY d ORDER BY d LIMIT 5",
		"SELECT MIN(d), MAX(d), MIN(dt), COUNT(d) FROM " + name,
		"SELECT n, MIN(dt), COUNT(*) FROM " + name + " GROUP BY n ORDER BY n",
		"SELECT id, d, dt FROM " + name + " WHERE id % 25 = 0 ORDER BY id LIMIT 8",
		"SELECT COUNT(*) FROM " + name + " WHERE d = '0000-00-00'",
		"SELECT YEAR(d) y, COUNT(*) FROM " + name + " GROUP BY y ORDER BY y",
	} {
		diff(t, q, true)
	}
	// A statement that does not return the dates still distributes.
	diffWhere(t, "split ", "SELECT n, COUNT(*) FROM "+name+" WHERE d > '2020-06-01' GROUP BY n ORDER BY n")
	// A pin cannot hold them: refused with the value's own error.
	_, err := env.shoal.Exec("CACHE TABLE ontime." + name)
	if err == nil || !strings.Contains(err.Error(), "1292") || !strings.Contains(err.Error(), "zero date") {
		t.Errorf("CACHE TABLE of a table with zero dates: %v, want 1292 naming the zero date", err)
		env.shoal.Exec("UNCACHE TABLE IF EXISTS ontime." + name)
	}
}
