package e2e

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestPinnedCollations pins a table whose text columns are not
// utf8mb4_general_ci — utf8mb4_bin, utf8mb4_unicode_ci, latin1 and
// latin1_bin — whole, live and as a query result, and compares ordinary
// statements over the pins with MariaDB's answers. A client on a utf8mb4
// connection is told every such column is utf8mb4_general_ci, and the
// pins took that description: GROUP BY b merged 'b' with 'B' (utf8mb4_bin),
// WHERE u = 'ss' missed 'ß' (utf8mb4_unicode_ci), GROUP BY l merged 'Åsa'
// with 'asa' (latin1_swedish_ci), and LENGTH counted utf8mb4 bytes.
// Pins now carry each column's own collation (engine/pinfields.go, live
// pins: livepin ownCollations); statements that read a latin1 column run
// on the replicas (pinexec modeled), the others in memory.
func TestPinnedCollations(t *testing.T) {
	const name = "pin_coll"
	directExec(t,
		"DROP TABLE IF EXISTS "+name,
		"CREATE TABLE "+name+` (id INT NOT NULL PRIMARY KEY, b VARCHAR(10) COLLATE utf8mb4_bin NOT NULL,
		  u VARCHAR(10) COLLATE utf8mb4_unicode_ci NULL, l VARCHAR(10) CHARACTER SET latin1 NOT NULL,
		  lb VARCHAR(10) CHARACTER SET latin1 COLLATE latin1_bin NOT NULL, n INT NOT NULL)`,
		"INSERT INTO "+name+` SELECT id, ELT(1 + id % 5, 'b', 'B', 'é', 'E', 'ä'),
		  IF(id % 11 = 0, NULL, ELT(1 + id % 6, 'ß', 'ss', 'Straße', 'STRASSE', 'ä', 'a')),
		  ELT(1 + id % 7, 'délta', 'Delta', 'ümlaut', 'ymlaut', 'Åsa', 'asa', 'zeta'),
		  ELT(1 + id % 4, 'x', 'X', 'é', 'E'), id % 13 FROM ontime`)
	t.Cleanup(func() { env.direct.Exec("DROP TABLE IF EXISTS " + name) })
	replicasAndCatalog(t)

	// Values equal under a collation ('a' and 'ä' under
	// utf8mb4_unicode_ci) are one group; which of them the server shows
	// for it depends on its plan, so these statements do not show it.
	cases := []tc{
		{"SELECT b, COUNT(*), SUM(n) FROM " + name + " GROUP BY b ORDER BY b", true},
		{"SELECT MIN(id), COUNT(*) FROM " + name + " GROUP BY u ORDER BY 1", true},
		{"SELECT COUNT(DISTINCT b), COUNT(DISTINCT u) FROM " + name, true},
		{"SELECT MIN(b), MAX(b), MIN(u) = 'A', MAX(u) = 'strasse' FROM " + name, true},
		{"SELECT COUNT(*) FROM " + name + " WHERE b = 'b'", true},
		{"SELECT COUNT(*) FROM " + name + " WHERE u = 'ss'", true},
		{"SELECT COUNT(*) FROM " + name + " WHERE u IN ('strasse', 'a')", true},
		{"SELECT COUNT(*) FROM " + name + " WHERE b LIKE 'B%' AND u LIKE 's%'", true},
		{"SELECT b, COUNT(*) FROM " + name + " WHERE b > 'a' GROUP BY b ORDER BY b", true},
		{"SELECT b, COUNT(*) FROM " + name + " GROUP BY b HAVING MAX(u) = 'strasse' ORDER BY b", true},
		{"SELECT UPPER(b) ub, COUNT(*) FROM " + name + " GROUP BY ub ORDER BY ub", true},
		{"SELECT b, CHAR_LENGTH(b), LOWER(b), COUNT(*) FROM " + name + " GROUP BY b ORDER BY b", true},
		{"SELECT id, b FROM " + name + " ORDER BY b DESC, id LIMIT 7", true},
		{"SELECT l, COUNT(*) FROM " + name + " GROUP BY l ORDER BY l", false},
		{"SELECT l, LENGTH(l), COUNT(*) FROM " + name + " GROUP BY l ORDER BY l", false},
		{"SELECT lb, COUNT(*) FROM " + name + " GROUP BY lb ORDER BY lb", false},
		{"SELECT CONCAT(l, '-', lb) k, COUNT(*) FROM " + name + " GROUP BY k ORDER BY k", false},
		{"SELECT COUNT(*) FROM " + name + " WHERE l = 'delta'", false},
	}
	check := func(t *testing.T, cases []tc) {
		t.Helper()
		for _, c := range cases {
			ex := explain(t, c.q)
			if mem := strings.Contains(ex, "in memory:"); mem != c.inMemory {
				t.Errorf("%s: in memory %v, want %v:\n%s", c.q, mem, c.inMemory, ex)
			}
			diff(t, c.q, true)
		}
	}

	t.Run("whole", func(t *testing.T) {
		shoalExec(t, "CACHE TABLE ontime."+name)
		defer env.shoal.Exec("UNCACHE TABLE IF EXISTS ontime." + name)
		check(t, cases)
		check(t, collationStatements(name, 60))
	})

	t.Run("live", func(t *testing.T) {
		// A live pin follows text in utf8mb4, utf8mb3 or ascii only: a
		// table of the other columns.
		const live = "pin_coll_live"
		directExec(t, "DROP TABLE IF EXISTS "+live,
			"CREATE TABLE "+live+` (id INT NOT NULL PRIMARY KEY, b VARCHAR(10) COLLATE utf8mb4_bin NOT NULL,
			  u VARCHAR(10) COLLATE utf8mb4_unicode_ci NULL, n INT NOT NULL)`,
			"INSERT INTO "+live+" SELECT id, b, u, n FROM "+name)
		defer env.direct.Exec("DROP TABLE IF EXISTS " + live)
		replicasAndCatalog(t)
		shoalExec(t, "CACHE TABLE ontime."+live+" OPTIONS ('refresh' = 'live')")
		defer env.shoal.Exec("UNCACHE TABLE IF EXISTS ontime." + live)
		directExec(t, "UPDATE "+live+" SET b = 'B', u = 'SS' WHERE id % 10 = 3")
		liveCaughtUp(t, live)
		var cs []tc
		for _, c := range cases {
			if c.inMemory {
				cs = append(cs, tc{strings.ReplaceAll(c.q, "FROM "+name, "FROM "+live), true})
			}
		}
		check(t, cs)
	})

	// Derived tables held in memory for a statement (each side of a join
	// of aggregates, a CTE): their text columns keep the collation they
	// were computed in. GROUP BY b's 'b' joined 'B' and WHERE b = 'B'
	// found two rows.
	t.Run("derived", func(t *testing.T) {
		for _, q := range []string{
			"SELECT x.b, c, s FROM (SELECT b, COUNT(*) c FROM " + name + " GROUP BY b) x JOIN (SELECT b, SUM(n) s FROM " + name + " GROUP BY b) y USING (b) ORDER BY x.b",
			"SELECT COUNT(*) FROM (SELECT b, COUNT(*) c FROM " + name + " GROUP BY b) x JOIN (SELECT UPPER(b) ub, SUM(n) s FROM " + name + " GROUP BY ub) y ON x.b = y.ub",
			"WITH a AS (SELECT b, COUNT(*) c FROM " + name + " GROUP BY b) SELECT b, c FROM a WHERE b = 'B' ORDER BY b",
			"SELECT b, c FROM (SELECT b, COUNT(*) c FROM " + name + " GROUP BY b) t WHERE b > 'a' ORDER BY b",
			"SELECT COUNT(*) FROM (SELECT u, COUNT(*) c FROM " + name + " GROUP BY u) t WHERE u = 'strasse'",
		} {
			if ex := explain(t, q); !strings.Contains(ex, "in memory") {
				t.Errorf("%s: not held in memory:\n%s", q, ex)
			}
			diffValues(t, q, true)
		}
	})

	t.Run("result", func(t *testing.T) {
		const def = "SELECT id, b, u, n FROM " + name + " WHERE n < 10"
		shoalExec(t, "CACHE TABLE pin_coll_r AS "+def)
		defer env.shoal.Exec("UNCACHE TABLE IF EXISTS pin_coll_r")
		for _, q := range []string{
			"SELECT b, COUNT(*), SUM(n) FROM %s GROUP BY b ORDER BY b",
			"SELECT COUNT(*) FROM %s WHERE u = 'ss'",
			"SELECT MIN(id), COUNT(*) FROM %s GROUP BY u ORDER BY 1",
			"SELECT b, COUNT(*) FROM %s GROUP BY b HAVING MAX(u) = 'strasse' ORDER BY b",
		} {
			sq := strings.Replace(q, "%s", "pin_coll_r", 1)
			if ex := explain(t, sq); !strings.Contains(ex, "in memory:") {
				t.Errorf("%s: not in memory:\n%s", sq, ex)
			}
			diffPinned(t, sq, strings.Replace(q, "%s", "("+def+") t", 1))
		}
	})
}

type tc struct {
	q        string
	inMemory bool
}

// collationStatements generates n statements over table (columns b
// utf8mb4_bin, u utf8mb4_unicode_ci) that compare, match and group
// those columns against literals in every case and accent variant of
// their values, none of which shows which of several equal values a
// group or MIN/MAX picks (the plan's choice).
func collationStatements(table string, n int) []tc {
	rng := rand.New(rand.NewPCG(5, 11))
	lits := []string{"b", "B", "é", "É", "E", "e", "ä", "Ä", "a", "A", "ß", "ss", "SS", "Straße", "STRASSE", "strasse", "s", "st"}
	ops := []string{"=", "<>", "<", ">=", "LIKE"}
	cols := []string{"b", "u"}
	pred := func() string {
		c, op, l := cols[rng.IntN(2)], ops[rng.IntN(len(ops))], lits[rng.IntN(len(lits))]
		if op == "LIKE" {
			l = string([]rune(l)[:1]) + "%"
		}
		if rng.IntN(4) == 0 {
			return fmt.Sprintf("%s IN ('%s', '%s')", c, l, lits[rng.IntN(len(lits))])
		}
		return fmt.Sprintf("%s %s '%s'", c, op, l)
	}
	var out []tc
	for len(out) < n {
		var q string
		switch rng.IntN(4) {
		case 0:
			q = fmt.Sprintf("SELECT COUNT(*) FROM %s WHERE %s", table, pred())
		case 1:
			q = fmt.Sprintf("SELECT MIN(id), COUNT(*) FROM %s WHERE %s GROUP BY %s ORDER BY 1", table, pred(), cols[rng.IntN(2)])
		case 2:
			q = fmt.Sprintf("SELECT b, COUNT(*) FROM %s GROUP BY b HAVING %s ORDER BY b", table,
				strings.Replace(strings.Replace(pred(), "u ", "MAX(u) ", 1), "b ", "MIN(b) ", 1))
		default:
			q = fmt.Sprintf("SELECT COUNT(DISTINCT %s), COUNT(*) FROM %s WHERE %s AND %s", cols[rng.IntN(2)], table, pred(), pred())
		}
		out = append(out, tc{q, true})
	}
	return out
}
