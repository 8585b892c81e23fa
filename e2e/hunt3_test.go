package e2e

import (
	"slices"
	"strings"
	"testing"
)

// huntTable is a table of other data than ontime's: NULL-heavy columns,
// negatives and zeros, empty strings beside NULL, case, accent and
// trailing-space variants of one string under utf8mb4_general_ci, _bin
// and _unicode_ci, CHAR with trailing spaces, DECIMAL(65,30) values near
// its limits, BIGINT UNSIGNED near 2^64, FLOAT beside DOUBLE, BIT, YEAR,
// zero dates, DATETIME(6), TIMESTAMP, JSON, VARBINARY, TIME(3), ENUM, and
// FLOATs that differ but print alike (1000000.1 and 1000000.2 are both
// 1e+06 in MariaDB's text protocol).
const huntTable = "hunt_vals"

func createHuntTable(t *testing.T) {
	t.Helper()
	directExec(t, "DROP TABLE IF EXISTS "+huntTable,
		"CREATE TABLE "+huntTable+` (id INT NOT NULL PRIMARY KEY, g INT NULL, neg INT NULL,
		  s VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NULL,
		  sb VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
		  su VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci NULL,
		  ch CHAR(10) NULL, d DECIMAL(65,30) NULL, u BIGINT UNSIGNED NULL, f FLOAT NULL, db DOUBLE NULL,
		  bt BIT(8) NULL, y YEAR NULL, zd DATE NULL, dt6 DATETIME(6) NULL, ts TIMESTAMP NULL DEFAULT NULL,
		  j JSON NULL, bl VARBINARY(16) NULL, ti TIME(3) NULL, e ENUM('zeta','alpha','mid') NULL,
		  fm FLOAT NULL)`,
		// sql_mode '': the zero dates.
		"SET STATEMENT sql_mode = '' FOR INSERT INTO "+huntTable+` SELECT id,
		  IF(id % 17 = 0, NULL, id % 5),
		  IF(id % 11 = 0, NULL, (id * 7919) % 201 - 100),
		  ELT(1 + id % 9, 'abc', 'ABC', 'abc ', 'Abc  ', 'äbc', '', NULL, 'xyz', 'XYZ'),
		  ELT(1 + id % 7, 'b', 'B', 'b ', '', NULL, 'a', 'A'),
		  ELT(1 + id % 6, 'strasse', 'Straße', 'STRASSE', 'e', 'é', NULL),
		  ELT(1 + id % 5, 'x', 'x  ', 'X', '', NULL),
		  IF(id % 13 = 0, NULL, CASE id % 4
		    WHEN 0 THEN 12345678901234567890123456789012345.12345678901234567890123456789
		    WHEN 1 THEN -0.000000000000000000000000000001 WHEN 2 THEN 0 ELSE (id * 7919 % 10007) / 7 END),
		  IF(id % 19 = 0, NULL, 18446744073709551615 - (id % 3)),
		  IF(id % 7 = 0, NULL, ((id * 31) % 1000) / 7),
		  IF(id % 7 = 1, NULL, ((id * 31) % 1000) / 7),
		  IF(id % 10 = 0, NULL, id % 256),
		  IF(id % 10 = 1, NULL, 1901 + id % 255),
		  IF(id % 23 = 0, '0000-00-00', IF(id % 23 = 1, NULL, DATE('2000-01-01') + INTERVAL id % 3000 DAY)),
		  IF(id % 29 = 0, NULL, TIMESTAMP('2020-02-28 23:59:59') + INTERVAL id * 37 SECOND + INTERVAL id % 1000003 MICROSECOND),
		  IF(id % 31 = 0, NULL, TIMESTAMP('2021-03-28 00:00:00') + INTERVAL id * 61 SECOND),
		  IF(id % 8 = 0, NULL, JSON_OBJECT('k', id % 4, 'v', CONCAT('s', id % 3))),
		  IF(id % 9 = 0, NULL, UNHEX(LPAD(HEX(id % 300), 4, '0'))),
		  IF(id % 14 = 0, NULL, SEC_TO_TIME((id * 7919 % 200000) - 100000) + INTERVAL 0.125 SECOND),
		  IF(id % 12 = 0, NULL, ELT(1 + id % 3, 'zeta', 'alpha', 'mid')),
		  IF(id % 15 = 0, NULL, 1000000 + (id % 10) * 0.1)
		FROM ontime`)
	t.Cleanup(func() { env.direct.Exec("DROP TABLE IF EXISTS " + huntTable) })
	replicasAndCatalog(t)
}

// TestHuntOtherData compares reporting statements over huntTable with
// MariaDB's answers and checks where each runs. The third exactness hunt
// found, all distributed and all now passed through to a replica:
//
//   - SUM/AVG of a DECIMAL(65,30): MariaDB's running sum passed 65 digits
//     and saturated row by row (warnings 1264), the merge added exactly
//     (1599999…976 where MariaDB said 99999…999);
//   - WITH ROLLUP over a utf8mb4_general_ci key holding 'abc', 'ABC',
//     'abc ': MariaDB shows the spelling its filesort put first
//     ('Abc  '), the merge another ('ABC');
//   - a FLOAT aggregate or key in arithmetic after the merge (MAX(f) + 0
//     was 142.143, MariaDB 142.14285278320312; CAST(MAX(f) AS
//     DECIMAL(10,4)) 142.1430 for 142.1429);
//   - TIME_TO_SEC of a TIME(3) or DATETIME(6) aggregate lost the fraction
//     (99955.000 for 99955.125);
//   - CAST(SUM(neg) AS UNSIGNED) of a negative DECIMAL wrapped around
//     2^64 where MariaDB clamps to 0, and a sum past 2^64-1 was clamped
//     to 2^63-1;
//   - GROUP BY, SELECT DISTINCT and COUNT(DISTINCT) of a FLOAT column
//     whose different values print alike (1e+06): the fragments send the
//     printed digits, so 10 groups merged into 1 (COUNT(DISTINCT fm) 1
//     for MariaDB's 10);
//   - -MIN(u) of a BIGINT UNSIGNED past 2^63 answered a negative DECIMAL
//     where MariaDB fails with 1690;
//   - HEX of a DECIMAL past BIGINT (over a pin) was 7FFFFFFFFFFFFFFF,
//     MariaDB's FFFFFFFFFFFFFFFF (TestTypeMatrix's dw).
//
// And, distributed and still so: MAX(db) * 1e308 answered +Inf where
// MariaDB fails with 1690; the evaluator now fails the same way.
//
// The rest (case, accent and trailing-space groups without ROLLUP, MIN
// and MAX of strings, dates, zero dates, BIT, YEAR, JSON, VARBINARY,
// BIGINT UNSIGNED sums, empty-input aggregates) stays distributed and
// equal.
func TestHuntOtherData(t *testing.T) {
	createHuntTable(t)
	from := " FROM " + huntTable
	passthrough := []string{
		"SELECT g, SUM(d), AVG(d), MIN(d), MAX(d)" + from + " GROUP BY g ORDER BY g",
		"SELECT SUM(neg), COUNT(*), MIN(s), AVG(d)" + from + " WHERE id < 0",
		"SELECT SUM(d), AVG(d), COUNT(d)" + from,
		"SELECT g, FLOOR(AVG(d)), SUM(d * 1)" + from + " GROUP BY g ORDER BY g",
		"SELECT g, MAX(f) + 0, MIN(f) * 1" + from + " GROUP BY g ORDER BY g",
		"SELECT g, CAST(MAX(f) AS DECIMAL(10,4)), MAX(f) - MIN(f)" + from + " GROUP BY g ORDER BY g",
		"SELECT f + 0, COUNT(*)" + from + " GROUP BY f ORDER BY f LIMIT 5",
		"SELECT g, COUNT(*)" + from + " GROUP BY g HAVING MAX(f) > 142.2 ORDER BY g",
		"SELECT g, TIME_TO_SEC(MAX(dt6)), TIME_TO_SEC(MIN(ti))" + from + " GROUP BY g ORDER BY g",
		"SELECT g, CAST(SUM(neg) AS UNSIGNED), CAST(AVG(neg) AS UNSIGNED), CAST(SUM(u) AS UNSIGNED)" + from + " GROUP BY g ORDER BY g",
		"SELECT g, CONVERT(MIN(neg) * 1.5, UNSIGNED)" + from + " GROUP BY g ORDER BY g",
		"SELECT g, -MIN(u)" + from + " GROUP BY g ORDER BY g",
		"SELECT fm, COUNT(*)" + from + " GROUP BY fm ORDER BY fm",
		"SELECT f, COUNT(*)" + from + " GROUP BY f ORDER BY f LIMIT 5",
		"SELECT g, COUNT(DISTINCT fm), COUNT(DISTINCT IFNULL(fm, 0))" + from + " GROUP BY g ORDER BY g",
		"SELECT DISTINCT fm" + from + " ORDER BY fm",
		"SELECT g, fm, COUNT(*)" + from + " GROUP BY g, fm ORDER BY g, fm",
	}
	distributed := []string{
		"SELECT s, COUNT(*)" + from + " GROUP BY s ORDER BY s",
		"SELECT sb, COUNT(*)" + from + " GROUP BY sb ORDER BY sb",
		"SELECT su, COUNT(*)" + from + " GROUP BY su ORDER BY su",
		"SELECT ch, COUNT(*), MIN(ch), MAX(ch)" + from + " GROUP BY ch ORDER BY ch",
		"SELECT MIN(s), MAX(s), MIN(sb), MAX(sb), MIN(su), MAX(su)" + from,
		"SELECT g, neg, COUNT(*)" + from + " GROUP BY g, neg WITH ROLLUP",
		"SELECT y, COUNT(*)" + from + " GROUP BY y WITH ROLLUP",
		"SELECT DATE_FORMAT(dt6, '%Y-%m') m, COUNT(*)" + from + " GROUP BY m WITH ROLLUP",
		"SELECT g, SUM(u), AVG(u), MIN(u), MAX(u)" + from + " GROUP BY g ORDER BY g",
		"SELECT g, MIN(f), MAX(f), MIN(db), MAX(db)" + from + " GROUP BY g ORDER BY g",
		"SELECT g, MIN(fm), MAX(fm), COUNT(fm)" + from + " GROUP BY g ORDER BY g",
		"SELECT id, fm" + from + " ORDER BY fm, id LIMIT 5",
		"SELECT g, MAX(db) + 0, CAST(MAX(db) AS DECIMAL(10,4))" + from + " GROUP BY g ORDER BY g",
		"SELECT g, BIT_AND(bt), BIT_OR(bt), BIT_XOR(bt), SUM(bt)" + from + " GROUP BY g ORDER BY g",
		"SELECT g, MIN(y), MAX(y), SUM(y), AVG(y)" + from + " GROUP BY g ORDER BY g",
		"SELECT zd, COUNT(*)" + from + " GROUP BY zd ORDER BY zd LIMIT 5",
		"SELECT g, MIN(zd), MAX(zd), SUM(zd)" + from + " GROUP BY g ORDER BY g",
		"SELECT g, MIN(dt6), MAX(dt6), SUM(dt6), AVG(dt6)" + from + " GROUP BY g ORDER BY g",
		"SELECT g, TIME_TO_SEC(MAX(zd)), MICROSECOND(MAX(ti)), TO_SECONDS(MAX(dt6))" + from + " GROUP BY g ORDER BY g",
		"SELECT g, MIN(ts), MAX(ts)" + from + " GROUP BY g ORDER BY g",
		"SELECT g, MIN(bl), MAX(bl), COUNT(DISTINCT bl)" + from + " GROUP BY g ORDER BY g",
		"SELECT g, MIN(ti), MAX(ti), SUM(ti), AVG(ti)" + from + " GROUP BY g ORDER BY g",
		"SELECT g, CAST(SUM(neg) AS SIGNED), CAST(MIN(neg) AS UNSIGNED)" + from + " GROUP BY g ORDER BY g",
		"SELECT g, CAST(COUNT(*) AS UNSIGNED), CAST(COUNT(neg) AS UNSIGNED) + 1, CONVERT(COUNT(DISTINCT s), UNSIGNED)" + from + " GROUP BY g ORDER BY g",
		"SELECT g, SUM(neg) / COUNT(*), SUM(neg) * 100 / SUM(ABS(neg)), ROUND(AVG(neg)), TRUNCATE(AVG(neg), 1), CEIL(AVG(neg))" + from + " GROUP BY g ORDER BY g",
		"SELECT g, SUM(CASE WHEN neg > 0 THEN neg ELSE 0 END), SUM(IF(s = 'abc', 1, 0)), COUNT(COALESCE(s, sb)), SUM(IFNULL(neg, 100))" + from + " GROUP BY g ORDER BY g",
		"SELECT g, COUNT(*), 1, 1.5, 'x', NULL, 1e3, DATE '2020-01-01', X'41', TRUE, -0.0, 18446744073709551615" + from + " GROUP BY g ORDER BY g",
		"SELECT neg, COUNT(*) c" + from + " GROUP BY neg ORDER BY c DESC, neg LIMIT 5 OFFSET 2",
		"SELECT SUM(neg), COUNT(*), MIN(s), AVG(neg)" + from + " WHERE id < 0",
		"SELECT COUNT(*)" + from + " WHERE s = 'abc' AND ch = 'x'",
		// A DOUBLE that overflows after the merge is MariaDB's 1690,
		// not +Inf.
		"SELECT g, MAX(db) * 1e308" + from + " GROUP BY g ORDER BY g",
		"SELECT g, MAX(db) * 1e300, MIN(db) / 1e300" + from + " GROUP BY g ORDER BY g",
	}
	// Groups MariaDB reads sorted (WITH ROLLUP, DISTINCT aggregates)
	// show the spelling of collation-equal strings its filesort put
	// first, which differs even between MariaDB servers holding the same
	// rows (their row estimates size the sort): compared folded.
	sorted := []string{
		"SELECT g, s, COUNT(*)" + from + " GROUP BY g, s WITH ROLLUP",
		"SELECT s, COUNT(*)" + from + " GROUP BY s WITH ROLLUP",
		"SELECT sb, SUM(neg)" + from + " GROUP BY sb WITH ROLLUP",
		"SELECT LOWER(su) k, COUNT(*)" + from + " GROUP BY k WITH ROLLUP",
	}
	for _, q := range append(passthrough, sorted...) {
		if ex := explain(t, q); !strings.HasPrefix(ex, "passthrough") {
			t.Errorf("%s: not passed through:\n%s", q, ex)
		}
		if slices.Contains(sorted, q) {
			diffFolded(t, q)
			continue
		}
		diff(t, q, strings.Contains(q, "ORDER BY"))
	}
	// Known difference (docs/sql.md): distributed, the spellings differ.
	for _, q := range []string{
		"SELECT g, MIN(s), MAX(s), COUNT(DISTINCT s), COUNT(DISTINCT sb, su)" + from + " GROUP BY g ORDER BY g",
		"SELECT s, COUNT(DISTINCT sb)" + from + " GROUP BY s",
	} {
		if ex := explain(t, q); !strings.HasPrefix(ex, "split ") {
			t.Errorf("%s: not distributed:\n%s", q, ex)
		}
		diffFolded(t, q)
	}
	for _, q := range distributed {
		if ex := explain(t, q); !strings.HasPrefix(ex, "split ") {
			t.Errorf("%s: not distributed:\n%s", q, ex)
		}
		diff(t, q, strings.Contains(q, "ORDER BY"))
	}
}

// diffFolded is diff of q's rows, unordered, with every value folded to
// what utf8mb4_general_ci and _unicode_ci compare ('Abc  ' is 'abc',
// 'Straße' 'strasse'): for the groups whose spelling is MariaDB's sort's
// choice.
func diffFolded(t *testing.T, q string) {
	t.Helper()
	got, want := bothSides(t, q)
	fold := strings.NewReplacer("ä", "a", "ß", "ss", "é", "e")
	for _, r := range []*result{got, want} {
		for _, row := range r.rows {
			for i, c := range row {
				row[i] = fold.Replace(strings.ToLower(strings.TrimRight(c, " ")))
			}
		}
	}
	compare(t, q, got, want, false)
}

// TestHuntOtherDataPinned runs TestHuntOtherData's statements over a
// whole-table pin of the same rows (without the zero dates, which a pin
// cannot hold). WITH ROLLUP over a key whose spellings merge, which the
// planner passes through, was planned over the pin's columns, which had
// no collation, and stayed in memory. Known difference (docs/sql.md):
// MAX of a text column holding 'xyz' and 'XYZ' (equal under
// utf8mb4_general_ci) shows the spelling last in the pin's dictionary
// ('XYZ'), MariaDB the first its scan met ('xyz'): compared folded.
func TestHuntOtherDataPinned(t *testing.T) {
	createHuntTable(t)
	const pin = "hunt_pin"
	directExec(t, "DROP TABLE IF EXISTS "+pin,
		"CREATE TABLE "+pin+" LIKE "+huntTable,
		"INSERT INTO "+pin+" SELECT * FROM "+huntTable+" WHERE zd IS NULL OR zd > '0000-00-00'")
	t.Cleanup(func() { env.direct.Exec("DROP TABLE IF EXISTS " + pin) })
	replicasAndCatalog(t)
	shoalExec(t, "CACHE TABLE ontime."+pin)
	t.Cleanup(func() { env.shoal.Exec("UNCACHE TABLE IF EXISTS ontime." + pin) })
	from := " FROM " + pin
	spellings := []string{
		"SELECT MIN(s), MAX(s), MIN(sb), MAX(sb), MIN(su), MAX(su)" + from,
		"SELECT g, MIN(s), MAX(s), MIN(sb), MAX(sb)" + from + " GROUP BY g ORDER BY g",
		"SELECT g, MAX(sb)" + from + " WHERE sb > 'a' GROUP BY g ORDER BY g",
		"SELECT ch, COUNT(*), MIN(ch), MAX(ch)" + from + " GROUP BY ch ORDER BY ch",
	}
	inMemory := []string{
		"SELECT s, COUNT(*)" + from + " GROUP BY s ORDER BY s",
		"SELECT g, COUNT(*), SUM(neg), MIN(dt6), MAX(d), MAX(y)" + from + " GROUP BY g ORDER BY g",
		"SELECT g, MIN(e), MAX(id)" + from + " GROUP BY g ORDER BY g",
	}
	for _, q := range spellings {
		if ex := explain(t, q); !strings.Contains(ex, "in memory:") {
			t.Errorf("%s: not in memory:\n%s", q, ex)
		}
		diffFolded(t, q)
	}
	for _, q := range inMemory {
		if ex := explain(t, q); !strings.Contains(ex, "in memory:") {
			t.Errorf("%s: not in memory:\n%s", q, ex)
		}
		diff(t, q, true)
	}
	for _, q := range []string{
		"SELECT g, s, COUNT(*)" + from + " GROUP BY g, s WITH ROLLUP",
		"SELECT s, COUNT(*)" + from + " GROUP BY s WITH ROLLUP",
	} {
		if ex := explain(t, q); !strings.HasPrefix(ex, "passthrough") {
			t.Errorf("%s: not passed through:\n%s", q, ex)
		}
		diffFolded(t, q)
	}
}
