package e2e

import "testing"

// TestStatementForms compares statement forms a reporting client may
// send and the suites' generators do not: window functions, CTEs
// (recursive too), subqueries in the select list and WHERE, INTERSECT and
// EXCEPT, VALUES and TABLE, OFFSET/FETCH … WITH TIES, LIMIT ROWS
// EXAMINED, optimizer hints, SET STATEMENT, modifiers (SQL_CALC_FOUND_ROWS,
// HIGH_PRIORITY, STRAIGHT_JOIN, SQL_NO_CACHE), index and partition
// clauses, row constructors, FULLTEXT without an index (an error on both
// sides), user variables and SELECT … INTO @v. Each runs through Shoal
// and on the primary; rows, column definitions and errors must agree,
// wherever Shoal runs it. Locking reads and INTO OUTFILE are refused
// (read-only endpoint, TestErrors).
func TestStatementForms(t *testing.T) {
	qs := []struct {
		q       string
		ordered bool
	}{
		{"SELECT Carrier, COUNT(*), RANK() OVER (ORDER BY COUNT(*) DESC) FROM ontime GROUP BY Carrier ORDER BY Carrier", true},
		{"SELECT Carrier, SUM(COUNT(*)) OVER () FROM ontime GROUP BY Carrier ORDER BY Carrier", true},
		{"WITH c AS (SELECT Carrier, COUNT(*) n FROM ontime GROUP BY Carrier) SELECT * FROM c ORDER BY n DESC, Carrier LIMIT 3", true},
		{"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r WHERE n < 5) SELECT * FROM r", true},
		{"SELECT Carrier, (SELECT COUNT(*) FROM ontime o2 WHERE o2.Carrier = o.Carrier) FROM ontime o GROUP BY Carrier ORDER BY Carrier", true},
		{"SELECT COUNT(*) FROM ontime WHERE Carrier IN (SELECT Carrier FROM ontime GROUP BY Carrier HAVING COUNT(*) > 1000)", false},
		{"SELECT COUNT(*) FROM ontime o WHERE EXISTS (SELECT 1 FROM ontime p WHERE p.id = o.id + 1)", false},
		{"SELECT Carrier FROM ontime WHERE id < 100 INTERSECT SELECT Carrier FROM ontime WHERE id > 200 ORDER BY 1", true},
		{"SELECT Carrier FROM ontime WHERE id < 100 EXCEPT SELECT Carrier FROM ontime WHERE id > 59000 ORDER BY 1", true},
		{"SELECT Carrier, COUNT(*) FROM ontime GROUP BY Carrier UNION SELECT 'ZZ', 1 ORDER BY 1", true},
		{"SELECT SQL_CALC_FOUND_ROWS Carrier FROM ontime GROUP BY Carrier ORDER BY Carrier LIMIT 2", true},
		{"SELECT HIGH_PRIORITY STRAIGHT_JOIN COUNT(*) FROM ontime", false},
		{"SELECT SQL_NO_CACHE Carrier, COUNT(*) FROM ontime GROUP BY Carrier ORDER BY Carrier", true},
		{"SELECT COUNT(*) FROM ontime FORCE INDEX (PRIMARY) WHERE id > 10", false},
		{"SELECT Carrier, COUNT(*) c FROM ontime GROUP BY Carrier ORDER BY c DESC, Carrier LIMIT 2 OFFSET 1", true},
		{"SELECT Carrier, COUNT(*) c FROM ontime GROUP BY Carrier ORDER BY c DESC, Carrier LIMIT 1, 2", true},
		{"SELECT Carrier, COUNT(*) FROM ontime GROUP BY Carrier ORDER BY NULL", false},
		{"SELECT Carrier, COUNT(*) FROM ontime GROUP BY Carrier DESC", true},
		{"SELECT Carrier, COUNT(*) FROM ontime GROUP BY Carrier ORDER BY Carrier COLLATE utf8mb4_bin DESC", true},
		{"SELECT Carrier, GROUP_CONCAT(DISTINCT Origin ORDER BY Origin SEPARATOR '|') FROM ontime WHERE id < 500 GROUP BY Carrier ORDER BY Carrier", true},
		{"SELECT MAX(FlightDate), MIN(FlightDate) - INTERVAL 1 DAY, DATE_FORMAT(MAX(FlightDate), '%W %M %Y') FROM ontime", false},
		{"SELECT YEAR(FlightDate) y, MONTH(FlightDate) m, COUNT(*), SUM(ArrDelayMinutes) FROM ontime GROUP BY y, m WITH ROLLUP", true},
		{"SELECT Carrier, COUNT(*) FROM ontime WHERE FlightDate >= CURDATE() - INTERVAL 30 YEAR GROUP BY Carrier ORDER BY Carrier", true},
		{"SELECT Carrier, COUNT(*) FROM ontime WHERE FlightDate BETWEEN '2005-01-01' AND '2005-12-31 23:59:59' GROUP BY Carrier ORDER BY Carrier", true},
		{"SELECT Carrier AS `carrier name`, COUNT(*) AS `n` FROM `ontime` AS `o` GROUP BY `carrier name` ORDER BY `n` DESC, 1", true},
		{"SELECT o.Carrier, COUNT(*) FROM ontime o GROUP BY o.Carrier HAVING COUNT(*) BETWEEN 10 AND 100000 ORDER BY 2 DESC, 1", true},
		{"SELECT COUNT(*), COUNT(1), COUNT(NULL), COUNT(DISTINCT Carrier, Origin), SUM(NULL), AVG(NULL) FROM ontime", false},
		{"SELECT * FROM (SELECT Carrier, COUNT(*) AS n FROM ontime GROUP BY Carrier) AS t WHERE n > 100 ORDER BY n DESC", true},
		{"SELECT t.Carrier, t.n, c.Description FROM (SELECT Carrier, COUNT(*) n FROM ontime GROUP BY Carrier) t JOIN carriers c ON c.Code = t.Carrier ORDER BY t.Carrier", true},
		{"SELECT Carrier, JSON_ARRAYAGG(DISTINCT DayOfWeek) FROM ontime GROUP BY Carrier ORDER BY Carrier", true},
		{"SELECT Carrier, MEDIAN(Distance) OVER (PARTITION BY Carrier) FROM ontime WHERE id < 50 ORDER BY id", true},
		{"SELECT Carrier, PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY Distance) OVER (PARTITION BY Carrier) FROM ontime WHERE id < 50 ORDER BY id", true},
		{"SELECT CONVERT_TZ(MAX(FlightDate), '+00:00', '+05:00'), UNIX_TIMESTAMP(MAX(FlightDate)) FROM ontime", false},
		{"SELECT Carrier, COUNT(*) FROM ontime WHERE Carrier REGEXP '^[A-D]' GROUP BY Carrier ORDER BY Carrier", true},
		{"SELECT Carrier, COUNT(*) FROM ontime WHERE Carrier LIKE BINARY 'a%' GROUP BY Carrier ORDER BY Carrier", true},
		{"SELECT Carrier, COUNT(*) FROM ontime WHERE MATCH(Carrier) AGAINST ('AA') GROUP BY Carrier", false},
		{"SELECT 1 FROM DUAL WHERE 1 = 0", false},
		{"VALUES (1, 'a'), (2, 'b')", true},
		{"TABLE carriers ORDER BY Code LIMIT 3", true},
		{"SELECT Carrier, COUNT(*) FROM ontime GROUP BY Carrier ORDER BY COUNT(*) DESC LIMIT ROWS EXAMINED 100", true},
		{"SELECT Carrier, COUNT(*) FROM ontime GROUP BY Carrier ORDER BY Carrier FETCH FIRST 2 ROWS ONLY", true},
		{"SELECT Carrier, COUNT(*) FROM ontime GROUP BY Carrier ORDER BY Carrier OFFSET 1 ROWS FETCH NEXT 2 ROWS WITH TIES", true},
		{"SELECT /*+ MAX_EXECUTION_TIME(10000) */ Carrier, COUNT(*) FROM ontime GROUP BY Carrier ORDER BY Carrier", true},
		{"SET STATEMENT max_statement_time=100 FOR SELECT Carrier, COUNT(*) FROM ontime GROUP BY Carrier ORDER BY Carrier", true},
		{"SELECT Carrier, COUNT(*) FROM ontime PARTITION (p0) GROUP BY Carrier", true},
		{"SELECT Carrier, COUNT(*) FROM ontime GROUP BY Carrier HAVING Carrier > 'M' ORDER BY Carrier", true},
		{"SELECT DISTINCT Carrier, YEAR(FlightDate) FROM ontime ORDER BY 2, 1 LIMIT 10", true},
		{"SELECT COUNT(*) FROM ontime WHERE (Carrier, Origin) IN (('AA','JFK'),('DL','ATL'))", false},
		{"SELECT COUNT(*) FROM ontime WHERE Carrier = _latin1'AA' COLLATE latin1_general_ci", false},
		{"SELECT Carrier, CHAR_LENGTH(GROUP_CONCAT(Origin)) FROM ontime GROUP BY Carrier ORDER BY Carrier", true},
		{"SELECT Carrier, COUNT(*) FROM ontime WHERE id IN (1,2,3,NULL) GROUP BY Carrier ORDER BY Carrier", true},
		{"SELECT COUNT(*) FROM ontime WHERE id NOT IN (1,2,NULL)", false},
		{"SELECT Carrier, STD(Distance), VAR_POP(Distance), STDDEV_SAMP(Distance) FROM ontime GROUP BY Carrier ORDER BY Carrier", true},
		{"SELECT Carrier, BIT_COUNT(SUM(Distance)), SUM(Distance) >> 2, SUM(Distance) & 255 FROM ontime GROUP BY Carrier ORDER BY Carrier", true},
		{"SELECT FORMAT(SUM(Distance), 2), FORMAT(AVG(Distance), 2, 'de_DE') FROM ontime", false},
		{"SELECT Carrier, LAST_VALUE(Origin) OVER w FROM ontime WHERE id < 20 WINDOW w AS (ORDER BY id) ORDER BY id", true},
		{"SELECT @r := COUNT(*) FROM ontime", false},
		{"SELECT COUNT(*) INTO @cnt FROM ontime", false},
	}
	for _, c := range qs {
		t.Run("", func(t *testing.T) { diff(t, c.q, c.ordered) })
	}
}
