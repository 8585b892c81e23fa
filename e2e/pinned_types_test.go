package e2e

import (
	"strings"
	"testing"
)

// TestPinnedTypedColumns pins a table of BIT, TIME, ENUM, SET, YEAR and
// temporal columns whole and compares ordinary statements over it with
// MariaDB's answers. The in-memory engine holds BIT as bytes and TIME as
// text, and has no ENUM member numbers: b + 0, BIT_COUNT(b), MIN(b),
// BIT_XOR(b), AVG(b), e + 0 failed or came out wrong, and tm < '-11:00:00'
// compared text. Statements over those now run on the replicas (pinexec
// Program.modeled), and SUM/AVG of DATE, DATETIME and TIMESTAMP in memory
// (literal.TemporalNumber); the rest still run in memory.
func TestPinnedTypedColumns(t *testing.T) {
	const name = "pin_types"
	for _, q := range []string{
		"DROP TABLE IF EXISTS " + name,
		"CREATE TABLE " + name + ` (id INT NOT NULL PRIMARY KEY, b BIT(8) NOT NULL, tm TIME NULL,
		  e ENUM('red','green','blue') NULL, st SET('a','b','c') NOT NULL, yr YEAR NULL, dt DATETIME(6) NULL,
		  ts TIMESTAMP NULL, d DECIMAL(12,3) NULL, g VARCHAR(10) NOT NULL, dt3 DATETIME(3) NULL)`,
		"INSERT INTO " + name + ` SELECT id, id % 256, SEC_TO_TIME(CAST(id % 90000 AS SIGNED) - 40000),
		  ELT(1 + id % 3, 'red', 'green', 'blue'), ELT(1 + id % 4, 'a', 'a,b', 'c', ''), 1990 + id % 40,
		  TIMESTAMP('2020-01-01') + INTERVAL id * 3671 SECOND + INTERVAL (id % 1000) MICROSECOND,
		  IF(id % 9 = 0, NULL, TIMESTAMP('2021-06-01') + INTERVAL id MINUTE), (id % 1000) * 1.125, Carrier,
		  IF(id % 7 = 0, NULL, TIMESTAMP('2019-03-01') + INTERVAL id * 61 SECOND + INTERVAL (id % 3) * 1000 MICROSECOND) FROM ontime`,
	} {
		if _, err := env.direct.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() { env.direct.Exec("DROP TABLE IF EXISTS " + name) })
	replicasAndCatalog(t)
	shoalExec(t, "CACHE TABLE ontime."+name)
	t.Cleanup(func() { env.shoal.Exec("UNCACHE TABLE IF EXISTS ontime." + name) })
	for _, c := range []struct {
		q        string
		inMemory bool
	}{
		{"SELECT b + 0 bn, COUNT(*) FROM " + name + " GROUP BY bn ORDER BY COUNT(*) DESC, bn LIMIT 3", false},
		{"SELECT BIT_COUNT(b) bc, COUNT(*) FROM " + name + " GROUP BY bc ORDER BY bc", false},
		{"SELECT MIN(b), MAX(b), COUNT(*) FROM " + name, false},
		{"SELECT yr, BIT_XOR(b), BIT_OR(yr) FROM " + name + " GROUP BY yr ORDER BY yr LIMIT 5", false},
		{"SELECT AVG(b), AVG(yr) FROM " + name, false},
		{"SELECT e + 0 en, COUNT(*) FROM " + name + " GROUP BY en ORDER BY en", false},
		{"SELECT g, SUM(e), AVG(st), BIT_OR(e) FROM " + name + " GROUP BY g ORDER BY g", false},
		{"SELECT FIND_IN_SET('b', st) f, COUNT(*) FROM " + name + " GROUP BY f ORDER BY f", false},
		{"SELECT id, tm FROM " + name + " WHERE tm < '-11:00:00' ORDER BY tm, id LIMIT 3", false},
		{"SELECT MIN(tm), MAX(tm), COUNT(*) FROM " + name, true},
		{"SELECT g, SUM(dt), AVG(dt), SUM(ts), AVG(yr), SUM(d) FROM " + name + " GROUP BY g ORDER BY g", true},
		{"SELECT g, MIN(e), MAX(st), COUNT(*) FROM " + name + " GROUP BY g ORDER BY g", true},
		{"SELECT g, MIN(dt), MAX(ts), COUNT(*) FROM " + name + " GROUP BY g ORDER BY g", true},
		// A DATETIME(3) value is "…00.000" in every expression over it,
		// not the microseconds the engine holds.
		{"SELECT CONCAT(dt3, '|') s, LENGTH(dt3) l, COUNT(*) FROM " + name + " GROUP BY s, l ORDER BY s LIMIT 5", true},
		{"SELECT CAST(dt3 AS CHAR) s, HEX(dt3) FROM " + name + " WHERE id % 5 = 1 ORDER BY dt3 LIMIT 4", true},
		{"SELECT g, COALESCE(MAX(dt3), 'none'), MAX(dt3) - MIN(dt3) FROM " + name + " GROUP BY g ORDER BY g", true},
	} {
		ex := explain(t, c.q)
		if mem := strings.Contains(ex, "in memory:"); mem != c.inMemory {
			t.Errorf("%s: in memory %v, want %v:\n%s", c.q, mem, c.inMemory, ex)
		}
		diff(t, c.q, true)
	}
}
