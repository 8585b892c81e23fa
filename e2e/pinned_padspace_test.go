package e2e

import (
	"strings"
	"testing"
)

// TestPadSpaceAfterMerge compares, through Shoal and directly, statements
// whose expressions compare text under PAD SPACE collations ('abc' =
// 'abc  ', 'abc' > 'abc\t'), match LIKE with an ESCAPE character and read
// text as numbers ('9E' is 9), over a table holding trailing spaces in
// utf8mb4_general_ci, utf8mb4_unicode_ci, utf8mb4_bin and latin1 columns:
// first distributed (the comparisons in HAVING and the select list run
// after the merge), then over pins of it and of ontime (in WHERE, group
// keys and the select list, on the vectorized and the evaluated paths).
// The merge's evaluator (vitess' evalengine) compared strings as if
// trailing spaces mattered, ignored ESCAPE and read '9E' as 0: HAVING
// Origin = 'SFO ' dropped the group, Carrier = 'aa ' was false for every
// row over a pin, WHERE b = 'abc' over a utf8mb4_bin pin missed 'abc ',
// Carrier LIKE 'A!A' ESCAPE '!' matched nothing and Carrier + 0 grouped
// '9E' with 0.
func TestPadSpaceAfterMerge(t *testing.T) {
	const name = "pad_text"
	directExec(t,
		"DROP TABLE IF EXISTS "+name,
		"CREATE TABLE "+name+` (id INT NOT NULL PRIMARY KEY,
		  g VARCHAR(12) COLLATE utf8mb4_general_ci NULL, u VARCHAR(12) COLLATE utf8mb4_unicode_ci NULL,
		  b VARCHAR(12) COLLATE utf8mb4_bin NULL, l VARCHAR(12) CHARACTER SET latin1 NULL,
		  s VARCHAR(12) NOT NULL, n VARCHAR(12) NULL)`,
		"INSERT INTO "+name+` SELECT id,
		  IF(id % 13 = 0, NULL, ELT(1 + id % 9, 'abc', 'abc ', 'ABC  ', CONCAT('abc', CHAR(9)), 'ab', 'abd', '', ' ', 'Abc')),
		  ELT(1 + id % 7, 'abc', 'abc ', 'straße ', 'strasse', 'ä', 'a  ', 'ab'),
		  ELT(1 + id % 6, 'abc', 'abc ', 'abc   ', 'Abc', 'abd', ' '),
		  ELT(1 + id % 5, 'abc', 'ABC ', 'é  ', 'e', 'abd'),
		  ELT(1 + id % 6, 'x_y', 'x%y', 'x|y', 'xay', 'x\\y', 'x!y'),
		  IF(id % 17 = 0, NULL, ELT(1 + id % 10, '9E', '9e-', '9E+', '10a', '1e1', 'abc', '', ' 12.5e', '-9E+x', '.5E'))
		  FROM ontime WHERE id <= 20000`)
	t.Cleanup(func() { env.direct.Exec("DROP TABLE IF EXISTS " + name) })
	replicasAndCatalog(t)

	// Values equal under a collation ('abc' and 'ABC  ') are one group,
	// and which of them the server shows depends on its plan: these
	// statements show MIN(id) and what the key's whole group shares.
	merged := []string{
		"SELECT MIN(id), COUNT(*) FROM pad_text GROUP BY g HAVING g = 'ABC'",
		"SELECT MIN(id), COUNT(*) FROM pad_text GROUP BY g HAVING g <=> 'abc '",
		"SELECT MIN(id), COUNT(*) FROM pad_text GROUP BY g HAVING g BETWEEN 'abc' AND 'abc  '",
		"SELECT MIN(id), COUNT(*) FROM pad_text GROUP BY g HAVING NOT (g <> 'abc')",
		"SELECT MIN(id), COUNT(*) FROM pad_text GROUP BY g HAVING g IN ('ABC', 'ab ') ORDER BY 1",
		"SELECT MIN(id), COUNT(*) FROM pad_text GROUP BY g HAVING g = CONCAT(g, ' ') ORDER BY 1",
		"SELECT MIN(id), COUNT(*) FROM pad_text GROUP BY g HAVING GREATEST(g, 'abc') = 'abc ' ORDER BY 1",
		"SELECT MIN(id), COUNT(*) FROM pad_text GROUP BY g HAVING g < 'abc ' ORDER BY 1",
		"SELECT MIN(id), g = 'abc ', g < 'abc ', g >= 'abc', g IN ('abc '), STRCMP(g, 'abc '), FIELD(g, 'x', 'abc '), " +
			"NULLIF(g, 'abc ') IS NULL, CASE g WHEN 'abc ' THEN 'y' ELSE 'n' END, COUNT(*) FROM pad_text GROUP BY g ORDER BY 1",
		"SELECT MIN(id), u = 'strasse ', u < 'abc ', u IN ('abc ', 'a'), STRCMP(u, 'abc '), COUNT(*) FROM pad_text GROUP BY u ORDER BY 1",
		"SELECT MIN(id), b = 'abc', b = 'abc   ', b > 'abc', b <=> 'Abc ', COUNT(*) FROM pad_text GROUP BY b ORDER BY 1",
		"SELECT MIN(id), l = 'abc', l < 'abc ', STRCMP(l, 'ABC'), l = 'e ', COUNT(*) FROM pad_text GROUP BY l ORDER BY 1",
		"SELECT MIN(id), COUNT(*) FROM pad_text GROUP BY b HAVING b = 'abc  ' OR b = 'ABC' ORDER BY 1",
		`SELECT s, s LIKE 'x|_y' ESCAPE '|', s LIKE 'x!%%' ESCAPE '!', s LIKE 'x\\y' ESCAPE '|', s LIKE 'x__' ESCAPE '_', ` +
			"COUNT(*) FROM pad_text GROUP BY s ORDER BY s",
		"SELECT s, COUNT(*) FROM pad_text GROUP BY s HAVING s LIKE 'x|_y' ESCAPE '|' OR s LIKE 'x!|y' ESCAPE '!' ORDER BY s",
		"SELECT n, n * COUNT(*), CEIL(n), ABS(n), n || '-', NOT n, IF(n, 'y', 'n'), CAST(n AS DOUBLE), COUNT(*) FROM pad_text GROUP BY n ORDER BY n",
		"SELECT n, COUNT(*) FROM pad_text GROUP BY n HAVING ABS(n) > 5 ORDER BY n",
		"SELECT n, n + 0, n * 2, COUNT(*) FROM pad_text GROUP BY n HAVING n <> 0 ORDER BY n",
		"SELECT SUM(DayOfWeek), CONCAT(Carrier, '/', OriginState) AS k1 FROM ontime GROUP BY k1 HAVING k1 <> 0 ORDER BY k1",
		"SELECT Origin, COUNT(*) FROM ontime GROUP BY Origin HAVING Origin = 'SFO '",
		"SELECT TailNum, COUNT(*) FROM ontime GROUP BY TailNum HAVING TailNum = CONCAT(TailNum, ' ') ORDER BY TailNum LIMIT 3",
		"SELECT Carrier, COUNT(*) FROM ontime GROUP BY Carrier HAVING Carrier LIKE 'A!A' ESCAPE '!' OR ABS(Carrier) > 0 ORDER BY Carrier",
	}
	// Over pins: WHERE, group keys, LIKE … ESCAPE and text as numbers,
	// in memory (the latin1 column's statements run on the replicas).
	pinned := []tc{
		{"SELECT COUNT(*) FROM pad_text WHERE b = 'abc'", true},
		{"SELECT COUNT(*) FROM pad_text WHERE b = 'abc   '", true},
		{"SELECT COUNT(*) FROM pad_text WHERE b > 'abc ' AND b < 'abd'", true},
		{"SELECT COUNT(*) FROM pad_text WHERE g = 'abc '", true},
		{"SELECT COUNT(*) FROM pad_text WHERE g IN ('ABC', 'ß', 'Ä', ' ')", true},
		{"SELECT COUNT(*) FROM pad_text WHERE g = b", true},
		{"SELECT COUNT(*) FROM pad_text WHERE g BETWEEN 'abc ' AND 'abc'", true},
		{"SELECT COUNT(*) FROM pad_text WHERE u = 'strasse  '", true},
		{"SELECT COUNT(*) FROM pad_text WHERE u IN ('a ', 'STRASSE')", true},
		{"SELECT g = 'abc ' x, COUNT(*) FROM pad_text GROUP BY x ORDER BY x", true},
		{"SELECT STRCMP(g, 'abc') x, COUNT(*) FROM pad_text GROUP BY x ORDER BY x", true},
		{"SELECT IF(b = 'abc ', 1, 0) x, COUNT(*) FROM pad_text GROUP BY x ORDER BY x", true},
		{"SELECT FIELD(u, 'strasse ', 'abc') x, COUNT(*) FROM pad_text GROUP BY x ORDER BY x", true},
		{"SELECT COUNT(*) FROM pad_text WHERE s LIKE 'x|_y' ESCAPE '|'", true},
		{"SELECT COUNT(*) FROM pad_text WHERE s LIKE 'x!%y' ESCAPE '!'", true},
		{"SELECT COUNT(*) FROM pad_text WHERE s NOT LIKE 'x%' ESCAPE '%'", true},
		{`SELECT COUNT(*) FROM pad_text WHERE s LIKE 'x\\y' ESCAPE '|'`, true},
		{"SELECT s LIKE 'x|%%' ESCAPE '|' x, COUNT(*) FROM pad_text GROUP BY x ORDER BY x", true},
		// Text read as a number (arithmetic, a comparison with a number,
		// `||` as OR): MariaDB warns (a Note for '12 ', a Warning for
		// 'abc'), which the in-memory engine does not count: the
		// replicas run these (evalexpr/convwarn).
		{"SELECT n + 0 x, COUNT(*) FROM pad_text GROUP BY x ORDER BY x", false},
		{"SELECT COUNT(*) FROM pad_text WHERE n + 0 > 0", false},
		{"SELECT n || '-' x, COUNT(*) FROM pad_text GROUP BY x ORDER BY x", false},
		{"SELECT COUNT(*) FROM pad_text WHERE n > 5", false},
		{"SELECT COUNT(*) FROM pad_text WHERE l = 'abc '", false},
		{"SELECT Carrier = 'aa ' x, COUNT(*) FROM ontime GROUP BY x ORDER BY x", true},
		{"SELECT IF(Carrier = 'AA ', 1, 0) x, COUNT(*) FROM ontime GROUP BY x ORDER BY x", true},
		{"SELECT COUNT(*) FROM ontime WHERE Carrier LIKE 'A!A' ESCAPE '!'", true},
		{"SELECT Carrier + 0 x, COUNT(*) FROM ontime GROUP BY x ORDER BY x", false},
		{"SELECT COUNT(*) FROM ontime WHERE Carrier + 0 > 0", false},
		{"SELECT Carrier || '-' x, COUNT(*) FROM ontime GROUP BY x ORDER BY x", false},
		{"SELECT COUNT(*) FROM ontime WHERE Origin IN ('SFO ', 'LAX')", true},
	}
	prepared := []struct {
		q   string
		arg any
	}{
		{"SELECT COUNT(*) FROM pad_text WHERE b = ?", "abc"},
		{"SELECT COUNT(*) FROM pad_text WHERE b = ?", "abc   "},
		{"SELECT COUNT(*) FROM pad_text WHERE g = ?", "ABC "},
		{"SELECT COUNT(*) FROM pad_text WHERE s LIKE ? ESCAPE '|'", "x|_y"},
	}

	t.Run("distributed", func(t *testing.T) {
		for _, q := range merged {
			if ex := explain(t, q); !strings.HasPrefix(ex, "split ") {
				t.Errorf("%s: not distributed:\n%s", q, ex)
			}
			diff(t, q, true)
		}
		for _, c := range pinned {
			diff(t, c.q, true)
		}
	})

	t.Run("pinned", func(t *testing.T) {
		shoalExec(t, "CACHE TABLE ontime."+name)
		defer env.shoal.Exec("UNCACHE TABLE IF EXISTS ontime." + name)
		shoalExec(t, "CACHE TABLE ontime.ontime")
		defer env.shoal.Exec("UNCACHE TABLE IF EXISTS ontime.ontime")
		for _, c := range pinned {
			ex := explain(t, c.q)
			if mem := strings.Contains(ex, "in memory:"); mem != c.inMemory {
				t.Errorf("%s: in memory %v, want %v:\n%s", c.q, mem, c.inMemory, ex)
			}
			diff(t, c.q, true)
		}
		for _, q := range merged {
			diff(t, q, true)
		}
		for _, p := range prepared {
			diffArgs(t, p.q, true, p.arg)
		}
	})
}

// TestBinTextKeysAndRollup compares, through Shoal and directly, group
// keys of text that vitess types VARBINARY (utf8mb4_bin: 'a' and 'a '
// equal under PAD SPACE, 'A' apart) and WITH ROLLUP over ENUM, SET and
// latin1 keys, distributed and over a whole-table pin. Over the pin the
// evaluated path (SUM of BIGINT UNSIGNED, COUNT(DISTINCT)) grouped the
// VARBINARY key by bytes, so 'a' and 'a ' were two groups with half the
// sums each, and ORDER BY b, id put every 'a' before every 'a '; WITH
// ROLLUP sorted ENUM and SET keys as text where MariaDB orders them by
// member number (zeta before alpha), and a subtotal showed its first
// group's spelling where MariaDB shows its last group's.
func TestBinTextKeysAndRollup(t *testing.T) {
	const name = "bin_keys"
	directExec(t,
		"DROP TABLE IF EXISTS "+name,
		"CREATE TABLE "+name+` (id INT NOT NULL PRIMARY KEY,
		  b VARCHAR(8) COLLATE utf8mb4_bin NULL, l VARCHAR(8) CHARACTER SET latin1 NOT NULL, x TINYINT NOT NULL,
		  e ENUM('zeta','alpha','mid','Beta') NULL, s SET('x','a','m') NULL, u BIGINT UNSIGNED NOT NULL, n INT NULL)`,
		"INSERT INTO "+name+` SELECT id, ELT(1 + id % 5, 'a', 'A', 'a ', 'b', NULL),
		  ELT(1 + id % 2, 'A', 'a '), id % 2, ELT(1 + id % 5, 'zeta', 'alpha', 'mid', 'Beta', NULL),
		  ELT(1 + id % 6, 'x', 'a', 'x,a', 'm,x', '', NULL), 18446744073709551615 - id % 1000, IF(id % 13 = 0, NULL, id % 50)
		  FROM ontime WHERE id <= 30000`)
	t.Cleanup(func() { env.direct.Exec("DROP TABLE IF EXISTS " + name) })
	replicasAndCatalog(t)

	qs := []string{
		"SELECT b, SUM(u), SUM(u) / COUNT(*), COUNT(*) FROM bin_keys GROUP BY b ORDER BY b",
		"SELECT b, SUM(n), MAX(u), COUNT(*) FROM bin_keys GROUP BY b ORDER BY b",
		"SELECT MIN(id), COUNT(DISTINCT n), COUNT(*) FROM bin_keys GROUP BY b ORDER BY 1",
		"SELECT b, n, COUNT(*) FROM bin_keys WHERE n < 3 GROUP BY b, n ORDER BY b, n",
		"SELECT id, b FROM bin_keys WHERE id < 40 ORDER BY b, id",
		"SELECT id, b FROM bin_keys WHERE id < 40 ORDER BY b DESC, id",
		"SELECT e, COUNT(*), SUM(n) FROM bin_keys GROUP BY e WITH ROLLUP",
		"SELECT e, x, COUNT(*) FROM bin_keys GROUP BY e, x WITH ROLLUP",
		"SELECT x, e, COUNT(*) FROM bin_keys GROUP BY x, e WITH ROLLUP",
		"SELECT s, COUNT(*) FROM bin_keys GROUP BY s WITH ROLLUP",
		"SELECT l, x, COUNT(*), MIN(id) FROM bin_keys GROUP BY l, x WITH ROLLUP",
		"SELECT n % 3 k, l, x, COUNT(*) FROM bin_keys GROUP BY k, l, x WITH ROLLUP",
	}
	t.Run("distributed", func(t *testing.T) {
		for _, q := range qs {
			diff(t, q, true)
		}
	})
	t.Run("pinned", func(t *testing.T) {
		shoalExec(t, "CACHE TABLE ontime."+name)
		defer env.shoal.Exec("UNCACHE TABLE IF EXISTS ontime." + name)
		for _, q := range qs[:6] {
			if ex := explain(t, q); !strings.Contains(ex, "in memory:") {
				t.Errorf("%s: not in memory:\n%s", q, ex)
			}
		}
		for _, q := range qs {
			diff(t, q, true)
		}
	})
}
