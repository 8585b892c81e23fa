package e2e

import (
	"fmt"
	"strings"
	"testing"
)

// bitTable holds a BIT_ aggregate argument of every type: signed and
// unsigned integers with negative and extreme values, DECIMALs at and
// past the halves and past BIGINT's range, DOUBLEs at halves (rounded
// half to even), text that reads as a number in MariaDB's ways ('9E' is
// 9, '10.9' 10, '18446744073709551615' all ones from an expression but
// BIGINT's maximum from a column), temporal values, NULLs.
const bitTable = "bit_args"

func createBitTable(t *testing.T) {
	t.Helper()
	directExec(t, "DROP TABLE IF EXISTS "+bitTable,
		"CREATE TABLE "+bitTable+` (id INT NOT NULL PRIMARY KEY, grp INT NOT NULL, i INT NULL,
		  u BIGINT UNSIGNED NULL, d DECIMAL(30,2) NULL, du DECIMAL(30,2) UNSIGNED NULL, f DOUBLE NULL,
		  v VARCHAR(24) NULL, c CHAR(10) NULL, dt DATETIME(6) NULL, dd DATE NULL,
		  l VARCHAR(10) CHARACTER SET latin1 NULL)`,
		"INSERT INTO "+bitTable+` SELECT id, id % 7,
		  IF(id % 13 = 0, NULL, (id * 7919) % 2001 - 1000),
		  CASE id % 6 WHEN 0 THEN 0 WHEN 1 THEN 18446744073709551615 WHEN 2 THEN 9223372036854775808
		    WHEN 3 THEN NULL ELSE id END,
		  CASE id % 97 WHEN 0 THEN 1e20 WHEN 1 THEN -1e20 WHEN 2 THEN NULL
		    ELSE ((id * 7919) % 20001 - 10000) / 4 END,
		  CASE id % 89 WHEN 0 THEN 15000000000000000000.5 WHEN 1 THEN 1e25 WHEN 2 THEN NULL
		    ELSE ((id * 7919) % 20001) / 4 END,
		  CASE id % 83 WHEN 0 THEN 1e20 WHEN 1 THEN -1e20 WHEN 2 THEN NULL
		    ELSE ((id * 7919) % 2001 - 1000) / 2e0 END,
		  ELT(1 + id % 13, '9E', '-1', ' 10', '10.9', 'abc', '', '1e1', '18446744073709551615',
		    '99999999999999999999', '-99999999999999999999', '+5', NULL, CONCAT(id % 50, 'x')),
		  ELT(1 + id % 5, '42', '-7x', 'zz', ' 3', NULL),
		  IF(id % 11 = 0, NULL, TIMESTAMP('2020-01-01') + INTERVAL id * 3671 SECOND + INTERVAL (id % 1000) * 1000 MICROSECOND),
		  DATE('2000-01-01') + INTERVAL id % 5000 DAY,
		  ELT(1 + id % 4, 'Zürich', '12é', '-3', NULL)
		FROM ontime`)
	t.Cleanup(func() { env.direct.Exec("DROP TABLE IF EXISTS " + bitTable) })
	replicasAndCatalog(t)
}

// bitTableArgs are the arguments the BIT_ statements aggregate: each column
// and expressions of each result type.
var bitTableArgs = []string{
	"i", "-i", "i - 100", "i * 1.5", "u", "d", "-d", "d + 0", "du", "f", "f * 2", "-f",
	"v", "CONCAT(v)", "c", "TRIM(c)", "dt", "dd", "dt + 0", "IF(i > 0, v, d)", "COALESCE(v, i)",
}

// bitStatements are BIT_AND, BIT_OR and BIT_XOR of every argument over
// bitTable: grouped, whole, over no rows, and inside expressions, HAVING
// and ORDER BY.
func bitStatements() []string {
	var out []string
	for _, a := range bitTableArgs {
		aggs := fmt.Sprintf("BIT_AND(%[1]s), BIT_OR(%[1]s), BIT_XOR(%[1]s)", a)
		out = append(out,
			"SELECT grp, "+aggs+" FROM "+bitTable+" GROUP BY grp ORDER BY grp",
			"SELECT "+aggs+" FROM "+bitTable)
	}
	return append(out,
		"SELECT BIT_AND(i), BIT_OR(v), BIT_XOR(d) FROM "+bitTable+" WHERE id < 0",
		"SELECT grp, BIT_AND(i), BIT_OR(f), BIT_XOR(v) FROM "+bitTable+" WHERE id < 0 GROUP BY grp",
		"SELECT grp, BIT_XOR(i) + 0, BIT_OR(v) DIV 3, HEX(BIT_XOR(d)) FROM "+bitTable+
			" GROUP BY grp HAVING BIT_AND(i) < 100 ORDER BY BIT_XOR(i), grp",
		"SELECT BIT_XOR(i), COUNT(DISTINCT v), BIT_OR(d) FROM "+bitTable,
		"SELECT grp, BIT_XOR(f), BIT_AND(v) FROM "+bitTable+" GROUP BY grp WITH ROLLUP",
	)
}

// TestBitAggregates compares BIT_AND, BIT_OR and BIT_XOR of negative
// values, text, DECIMALs, DOUBLEs, temporal values and NULLs with
// MariaDB's answers, distributed (the fragments compute them on the
// replicas; the merge combines BIGINT UNSIGNED partials) and over pins,
// where the in-memory engine reads each argument as MariaDB does. Over a
// pin, BIT_AND(DepDelayMinutes - 100) failed with 1105 (cannot parse
// uint64 from "-100"), BIT_XOR(Carrier) with 1105 (Cannot convert value),
// and a DECIMAL was truncated instead of rounded.
func TestBitAggregates(t *testing.T) {
	createBitTable(t)
	stmts := bitStatements()
	ontime := []string{
		"SELECT BIT_AND(DepDelayMinutes - 100), BIT_OR(DepDelayMinutes - 100), BIT_XOR(DepDelayMinutes - 100) FROM ontime",
		"SELECT BIT_XOR(Carrier), BIT_OR(TailNum), BIT_AND(Origin) FROM ontime",
		"SELECT Carrier, BIT_AND(ArrDelayMinutes - DepDelayMinutes), BIT_XOR(ArrDelayMinutes - 30) FROM ontime GROUP BY Carrier ORDER BY Carrier",
		"SELECT DayOfWeek, BIT_XOR(CONCAT(Carrier, FlightNum)), BIT_OR(Distance / 7 * -1) FROM ontime GROUP BY DayOfWeek ORDER BY DayOfWeek",
	}
	check := func(t *testing.T, qs []string, inMemory bool) {
		t.Helper()
		for _, q := range qs {
			ex := explain(t, q)
			if !strings.HasPrefix(ex, "split ") {
				t.Errorf("%s: not distributed:\n%s", q, ex)
			}
			// Over a pin, text in latin1 and DECIMAL division run on
			// the replicas (pinexec modeled, columns).
			mem := inMemory && !strings.Contains(q, "(l)") && !strings.Contains(q, "/ 7")
			if got := strings.Contains(ex, "in memory:"); got != mem {
				t.Errorf("%s: in memory %v, want %v:\n%s", q, got, mem, ex)
			}
			diff(t, q, true)
		}
	}
	latin1 := []string{"SELECT grp, BIT_OR(l), BIT_XOR(l) FROM " + bitTable + " GROUP BY grp ORDER BY grp"}
	t.Run("distributed", func(t *testing.T) {
		check(t, append(append(stmts, ontime...), latin1...), false)
	})
	t.Run("pinned", func(t *testing.T) {
		shoalExec(t, "CACHE TABLE ontime."+bitTable)
		defer env.shoal.Exec("UNCACHE TABLE IF EXISTS ontime." + bitTable)
		shoalExec(t, "CACHE TABLE ontime.ontime")
		defer env.shoal.Exec("UNCACHE TABLE IF EXISTS ontime.ontime")
		check(t, append(append(stmts, ontime...), latin1...), true)
	})
	t.Run("pinned result", func(t *testing.T) {
		const def = "SELECT id, grp, i, d, f, v FROM " + bitTable + " WHERE grp < 5"
		shoalExec(t, "CACHE TABLE bit_r AS "+def)
		defer env.shoal.Exec("UNCACHE TABLE IF EXISTS bit_r")
		for _, q := range []string{
			"SELECT grp, BIT_AND(i), BIT_OR(d), BIT_XOR(v), BIT_XOR(f) FROM %s GROUP BY grp ORDER BY grp",
			"SELECT BIT_XOR(i - 7), BIT_OR(-d), BIT_AND(CONCAT(v, '')) FROM %s",
		} {
			sq := strings.Replace(q, "%s", "bit_r", 1)
			if ex := explain(t, sq); !strings.Contains(ex, "in memory:") {
				t.Errorf("%s: not in memory:\n%s", sq, ex)
			}
			diffPinned(t, sq, strings.Replace(q, "%s", "("+def+") t", 1))
		}
	})
	// A derived table's rows are held in memory for the statement and
	// the outer aggregate runs there: BIT_XOR of a grouped AVG rounds
	// each DECIMAL average (MariaDB 11, Shoal 12 before).
	t.Run("derived", func(t *testing.T) {
		for _, q := range []string{
			"SELECT BIT_XOR(s), BIT_OR(a), BIT_AND(-s) FROM (SELECT grp, SUM(i) s, AVG(d) a FROM " + bitTable + " GROUP BY grp) t",
			"SELECT BIT_XOR(a), BIT_OR(m) FROM (SELECT Carrier, AVG(DepDelayMinutes) a, MIN(TailNum) m FROM ontime GROUP BY Carrier) t",
		} {
			if ex := explain(t, q); !strings.Contains(ex, "in memory") {
				t.Errorf("%s: not held in memory:\n%s", q, ex)
			}
			diffValues(t, q, true)
		}
	})
}
