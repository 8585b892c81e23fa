package e2e

import (
	"fmt"
	"strings"
	"testing"
)

// TestTypeMatrix runs the shapes users send (group by a column, its
// aggregates, filters, the functions a BI tool wraps a key in, ordered
// tops) over every column type MariaDB has — signed and unsigned
// integers, DECIMAL, FLOAT, DOUBLE, DATETIME(3), TIMESTAMP, TIME(2),
// YEAR, DATE, latin1 CHAR with trailing spaces, utf8mb4 VARCHAR with
// case variants, utf8mb4_bin, ENUM, SET, BIT, BLOB, TEXT, JSON,
// DECIMAL(65,30) whose running sum leaves the type, with
// NULLs — distributed, then over a whole-table pin, and compares rows,
// text and column definitions with MariaDB's. It found DATETIME(3)
// values printed with six digits in expressions, SUM(enum) failing with
// 1105 over a pin, and a group's spelling ('Hello' vs 'hello') taken
// from any partition over a pin. What it skips is listed in docs/sql.md.
func TestTypeMatrix(t *testing.T) {
	name := typeMatrixTable(t)

	shapes := []string{
		"SELECT %[1]s, COUNT(*) FROM %[2]s GROUP BY %[1]s ORDER BY %[1]s LIMIT 50",
		"SELECT MIN(%[1]s), MAX(%[1]s), COUNT(%[1]s), COUNT(DISTINCT %[1]s) FROM %[2]s",
		"SELECT SUM(%[1]s), AVG(%[1]s) FROM %[2]s",
		"SELECT e, MIN(%[1]s), MAX(%[1]s), SUM(%[1]s), AVG(%[1]s), STDDEV(%[1]s), VAR_SAMP(%[1]s) FROM %[2]s GROUP BY e",
		"SELECT y %% 7 AS yy, COUNT(DISTINCT %[1]s), MAX(%[1]s) FROM %[2]s GROUP BY yy",
		"SELECT COUNT(*) FROM %[2]s WHERE %[1]s = %[3]s",
		"SELECT COUNT(*) FROM %[2]s WHERE %[1]s > %[3]s",
		"SELECT COUNT(*) FROM %[2]s WHERE %[1]s IS NULL",
		"SELECT COUNT(*) FROM %[2]s WHERE %[1]s IN (%[3]s, %[3]s)",
		"SELECT HEX(%[1]s) h, COUNT(*) FROM %[2]s GROUP BY h ORDER BY h LIMIT 20",
		"SELECT CONCAT(%[1]s, '|') h, COUNT(*) FROM %[2]s GROUP BY h ORDER BY h LIMIT 20",
		"SELECT %[1]s + 0 h, COUNT(*) FROM %[2]s GROUP BY h ORDER BY h LIMIT 20",
		"SELECT CAST(%[1]s AS CHAR) h, COUNT(*) FROM %[2]s GROUP BY h ORDER BY h LIMIT 20",
		"SELECT LOWER(%[1]s) h, LENGTH(%[1]s) l, COUNT(*) FROM %[2]s GROUP BY h, l ORDER BY h, l LIMIT 20",
		"SELECT GROUP_CONCAT(%[1]s ORDER BY k SEPARATOR ',') FROM %[2]s WHERE k < 200",
		"SELECT e, GROUP_CONCAT(DISTINCT %[1]s ORDER BY %[1]s) FROM %[2]s WHERE k < 2000 GROUP BY e",
		"SELECT k, %[1]s FROM %[2]s ORDER BY %[1]s DESC, k LIMIT 7",
		"SELECT %[1]s, e, COUNT(*) FROM %[2]s WHERE k < 5000 GROUP BY %[1]s, e ORDER BY COUNT(*) DESC, %[1]s, e LIMIT 10",
		"SELECT MAX(%[1]s) - MIN(%[1]s), MAX(%[1]s) = MIN(%[1]s), COALESCE(MAX(%[1]s), 'none') FROM %[2]s",
		"SELECT IF(%[1]s IS NULL, 'n', 'v') z, COUNT(*), MIN(%[1]s) FROM %[2]s GROUP BY z",
	}
	counted := len(shapes) // the shapes below pass through for many types: not in the share checked
	shapes = append(shapes,
		// Merged values MariaDB types or adds its own way
		// (planner/quotient.go): DISTINCT sums, a quotient compared,
		// rounded past its scale or made a time, a temporal rounded.
		"SELECT e, SUM(DISTINCT %[1]s), AVG(DISTINCT %[1]s) FROM %[2]s GROUP BY e",
		"SELECT e, AVG(%[1]s) = ROUND(AVG(%[1]s), 4), ROUND(AVG(%[1]s), 6), SEC_TO_TIME(AVG(%[1]s)) FROM %[2]s GROUP BY e",
		"SELECT e, ROUND(MIN(%[1]s), 2), FLOOR(MAX(%[1]s)) FROM %[2]s GROUP BY e",
		// Conversions after the merge the evaluator makes otherwise
		// (evalexpr inexactConversion): a FLOAT's bits, fractional
		// seconds, CAST to UNSIGNED of a negative or wide value.
		"SELECT e, MAX(%[1]s) * 1, TIME_TO_SEC(MAX(%[1]s)), CAST(MIN(%[1]s) AS UNSIGNED), CAST(SUM(%[1]s) AS UNSIGNED) FROM %[2]s GROUP BY e",
	)
	// Values only: LONG_BLOB/MEDIUM_BLOB results go out as BLOB (252).
	valuesOnly := func(col, q string) bool {
		return (col == "j" || col == "tx") && (strings.Contains(q, "MIN(") || strings.Contains(q, "MAX("))
	}
	for _, pinned := range []bool{false, true} {
		if pinned {
			shoalExec(t, "CACHE TABLE ontime."+name)
			t.Cleanup(func() { env.shoal.Exec("UNCACHE TABLE IF EXISTS ontime." + name) })
		}
		ran, skipped, explained, where, seen := 0, 0, 0, 0, 0
		for _, col := range typeMatrixCols {
			for si, shape := range shapes {
				q := fmt.Sprintf(shape, col, name, typeMatrixLits[col])
				if typeMatrixSkip(col, q, pinned) || col == "e" && strings.Contains(shape, "GROUP BY %[1]s, e") {
					skipped++
					continue
				}
				// Under the race detector one statement in raceShare
				// (scripts/test.sh runs them all without it).
				if seen++; seen%raceShare != 0 {
					continue
				}
				ran++
				if si < counted {
					// Where it runs, for every statement of the counted shapes.
					explained++
					plan := explain(t, q)
					if pinned && strings.Contains(plan, "in memory:") || !pinned && strings.HasPrefix(plan, "split ") {
						where++
					}
				}
				if valuesOnly(col, q) {
					diffValues(t, q, true)
				} else {
					diff(t, q, true)
				}
			}
		}
		t.Logf("pinned %v: %d statements (%d skipped as documented differences), %d of %d explained distributed or in memory",
			pinned, ran, skipped, where, explained)
		// Most of them run where Shoal runs them, not on a replica. Over
		// pins fewer do by design (FLOAT, TIME_TO_SEC of fractions, HEX
		// of DECIMAL, ROLLUP over text, … pass through: docs/sql.md):
		// 270 of 450 in the full matrix, 58 of 113 in the race stage's
		// share (2026-12-07), so their floor is lower.
		floor := 60 // percent
		if pinned {
			floor = 45
		}
		if where*100 < explained*floor {
			t.Errorf("pinned %v: only %d of %d statements explained distributed or in memory", pinned, where, explained)
		}
	}
}

// typeMatrixTable creates the table TestTypeMatrix and
// TestTypeMatrixRandom read: 8,000 rows of every column type, with NULLs.
func typeMatrixTable(t *testing.T) string {
	t.Helper()
	const name = "type_matrix"
	directExec(t,
		"DROP TABLE IF EXISTS "+name,
		"CREATE TABLE "+name+` (k BIGINT UNSIGNED NOT NULL PRIMARY KEY,
		  i TINYINT, u SMALLINT UNSIGNED, m MEDIUMINT, b BIGINT,
		  d DECIMAL(12,3), dn DECIMAL(30,10), dw DECIMAL(65,30), f FLOAT, g DOUBLE,
		  dt DATETIME(3), ts TIMESTAMP NULL, t TIME(2), y YEAR, day DATE,
		  c CHAR(5) CHARACTER SET latin1, v VARCHAR(20), vb VARCHAR(10) COLLATE utf8mb4_bin,
		  e ENUM('red','green','blue'), s SET('a','b','c'), bt BIT(5), bl BLOB, tx TEXT, j JSON,
		  KEY (day), KEY (e)) DEFAULT CHARSET=utf8mb4`,
		"INSERT INTO "+name+` SELECT seq*7,
		  IF(seq%17=0, NULL, CAST(seq%255 AS SIGNED)-128), seq%65536, CAST((seq*31)%16777216 AS SIGNED)-8388608,
		  IF(seq%13=0, NULL, CAST((seq*2654435761)%9223372036854775807 AS SIGNED) - 4611686018427387903),
		  IF(seq%11=0, NULL, CAST(seq%100000 AS SIGNED)/7 - 5000), (seq*1.0000000001)/3,
		  IF(seq%7=0, NULL, (CAST(seq%100 AS SIGNED) - 50) * 1000000000000000000000000000000000.123456789),
		  IF(seq%9=0, NULL, seq/3.0), seq*1.5e-3,
		  '2000-01-01' + INTERVAL seq*37 MINUTE + INTERVAL seq%1000 * 1000 MICROSECOND,
		  IF(seq%5=0, NULL, '2001-01-01' + INTERVAL seq HOUR), SEC_TO_TIME(CAST(seq%200000 AS SIGNED) - 100000),
		  1901 + seq%255, '1990-01-01' + INTERVAL seq%9000 DAY,
		  ELT(1+seq%6, 'ab', 'ab ', 'Äb', 'zz', '', NULL), ELT(1+seq%7, 'Hello', 'hello', 'HELLO ', 'wörld', 'x', '', NULL),
		  ELT(1+seq%4, 'A', 'a', 'b', 'B'), ELT(1+seq%4, 'red', 'green', 'blue', NULL), ELT(1+seq%5, 'a', 'a,b', '', 'b,c', NULL),
		  seq%32, IF(seq%3=0, NULL, UNHEX(HEX(seq))), REPEAT('t', seq%7),
		  IF(seq%4=0, NULL, JSON_OBJECT('n', seq%10, 's', CONCAT('v', seq%3)))
		FROM seq_1_to_8000`)
	t.Cleanup(func() { env.direct.Exec("DROP TABLE IF EXISTS " + name) })
	replicasAndCatalog(t)
	return name
}

var typeMatrixLits = map[string]string{"i": "5", "u": "100", "m": "-3", "b": "0", "d": "12.5", "dn": "100.3333333333", "dw": "0.5",
	"f": "10.5", "g": "3.3", "dt": "'2001-06-01 10:00:00.5'", "ts": "'2005-01-01'", "t": "'-10:00:00'", "y": "2000",
	"day": "'2000-02-29'", "c": "'ab'", "v": "'hello'", "vb": "'a'", "e": "'green'", "s": "'a,b'", "bt": "7",
	"bl": "'1'", "tx": "'ttt'", "j": "'{}'"}
var typeMatrixCols = []string{"i", "u", "m", "b", "d", "dn", "dw", "f", "g", "dt", "ts", "t", "y", "day", "c", "v", "vb", "e", "s", "bt", "bl", "tx", "j"}

// typeMatrixSkip names the documented differences (docs/sql.md): MIN/MAX
// of BIT, BLOB bytes read as a number or as
// invalid UTF-8 over a pin, an indexed ENUM's MIN/MAX over a pin.
func typeMatrixSkip(col, q string, pinned bool) bool {
	minmax := strings.Contains(q, "MIN(") || strings.Contains(q, "MAX(")
	switch {
	case col == "bt" && minmax:
		return true
	case pinned && col == "bl" && (strings.Contains(q, "+ 0") || strings.Contains(q, "CAST(")):
		return true
	case col == "e" && minmax && !strings.Contains(q, "GROUP BY"):
		// MariaDB reads an indexed ENUM's MIN/MAX off the index, in
		// member order; fragments (and a pin) compare the strings.
		// Routed by cost, the statement passes through (e2e runs
		// with routing off).
		return true
	}
	return false
}
