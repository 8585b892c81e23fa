package e2e

import (
	"context"
	"database/sql"
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
// pin (the prefix or part of its EXPLAIN), "replicas" for distributed
// and not in memory (over a pin).
type biCase struct {
	q, where string
}

func runBICases(t *testing.T, cases []biCase) {
	t.Helper()
	for _, c := range cases {
		ex := explain(t, c.q)
		if c.where == "replicas" && (!strings.HasPrefix(ex, "split ") || strings.Contains(ex, "in memory:")) ||
			c.where != "replicas" && !strings.Contains(ex, c.where) {
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

// TestHuntBIShapes: what dashboards send for time series and breakdowns,
// compared with MariaDB and checked for where it runs. Grafana's
// $__timeGroupAlias and $__unixEpochGroup (UNIX_TIMESTAMP(col) DIV 300 *
// 300, FLOOR(UNIX_TIMESTAMP(col)/300)*300) passed through: UNIX_TIMESTAMP
// was refused as volatile, its argument or not. With an argument it is a
// function of the row (and of the session's time zone, which the
// fragments share with MariaDB: a session that changes time_zone runs on
// its replica), so those GROUP BYs now distribute; UNIX_TIMESTAMP after
// the merge is guarded to MariaDB's range (NULL outside it, where vitess
// said 0), and zone-dependent calls after the merge evaluate in the
// replicas' zone (evalexpr.Env.SetTimeZone, catalog.Zone).
func TestHuntBIShapes(t *testing.T) {
	const (
		ts  = "UNIX_TIMESTAMP(FlightDate)"
		rng = " WHERE FlightDate BETWEEN FROM_UNIXTIME(946684800) AND FROM_UNIXTIME(1262304000)"
	)
	runBICases(t, []biCase{
		// Grafana.
		{"SELECT " + ts + " DIV 86400 * 86400 AS \"time\", Carrier AS metric, count(*) AS value FROM ontime" + rng + " GROUP BY 1, 2 ORDER BY 1, 2", "split "},
		{"SELECT FLOOR(" + ts + "/604800)*604800 AS time, count(*) AS value FROM ontime GROUP BY 1 ORDER BY 1", "split "},
		{"SELECT " + ts + " AS time_sec, avg(DepDelayMinutes) AS value, Carrier AS metric FROM ontime" + rng + " GROUP BY 1, 3 ORDER BY 1, 3", "split "},
		{"SELECT count(*), SUM(" + ts + "), MIN(" + ts + " DIV 3600) FROM ontime WHERE " + ts + " > 1000000000", "split "},
		{"SELECT " + ts + " - 86400 * 365 * 30 AS t, count(*) FROM ontime GROUP BY 1 ORDER BY 1 LIMIT 5", "split "},
		{"SELECT UNIX_TIMESTAMP(CONCAT(FlightDate, ' 12:00:00.5')) AS t, count(*) FROM ontime GROUP BY 1 ORDER BY 1 LIMIT 5", "split "},
		{"SELECT UNIX_TIMESTAMP(FlightDate - INTERVAL 30 YEAR) AS t, count(*) FROM ontime GROUP BY 1 ORDER BY 1 LIMIT 5", "split "},
		// After the merge: NULL out of range on MariaDB, guarded in the
		// evaluator (evalexpr.TestUnixTimestamp).
		{"SELECT Carrier, UNIX_TIMESTAMP(MIN(FlightDate) - INTERVAL 30 YEAR), UNIX_TIMESTAMP(MAX(FlightDate)) FROM ontime GROUP BY Carrier ORDER BY Carrier", "split "},
		{"SELECT Carrier, FROM_UNIXTIME(MIN(FlightNum) * 1000) FROM ontime GROUP BY Carrier ORDER BY Carrier", "split "},
		// Metabase.
		{"SELECT str_to_date(concat(date_format(`ontime`.`FlightDate`, '%Y-%m'), '-01'), '%Y-%m-%d') AS `FlightDate`, count(*) AS `count` FROM `ontime` GROUP BY str_to_date(concat(date_format(`ontime`.`FlightDate`, '%Y-%m'), '-01'), '%Y-%m-%d') ORDER BY str_to_date(concat(date_format(`ontime`.`FlightDate`, '%Y-%m'), '-01'), '%Y-%m-%d') ASC", "split "},
		{"SELECT date_add(date(`ontime`.`FlightDate`), INTERVAL (1 - dayofweek(`ontime`.`FlightDate`)) DAY) AS `FlightDate`, count(*) AS `count` FROM `ontime` GROUP BY date_add(date(`ontime`.`FlightDate`), INTERVAL (1 - dayofweek(`ontime`.`FlightDate`)) DAY) ORDER BY date_add(date(`ontime`.`FlightDate`), INTERVAL (1 - dayofweek(`ontime`.`FlightDate`)) DAY) ASC", "split "},
		{"SELECT str_to_date(concat(yearweek(`ontime`.`FlightDate`), ' Sunday'), '%X%V %W') AS `FlightDate`, count(*) AS `count` FROM `ontime` GROUP BY 1 ORDER BY 1 ASC", "split "},
		{"SELECT (floor((`ontime`.`DepDelayMinutes` - 0) / 12.5) * 12.5) AS `b`, count(*) AS `count` FROM `ontime` GROUP BY 1 ORDER BY 1 ASC", "split "},
		{"SELECT `ontime`.`Carrier` AS `Carrier`, count(distinct `ontime`.`Origin`) AS `count`, avg(`ontime`.`Distance`) AS `avg`, sum(CASE WHEN `ontime`.`Cancelled` = 1 THEN 1 ELSE 0 END) AS `sum`, (sum(`ontime`.`ArrDelayMinutes`) / nullif(count(*), 0)) AS `ratio` FROM `ontime` GROUP BY `ontime`.`Carrier` ORDER BY `count` DESC, `ontime`.`Carrier` ASC LIMIT 2000", "split "},
		{"SELECT extract(quarter from `ontime`.`FlightDate`) AS q, quarter(FlightDate) q2, dayname(FlightDate) d, monthname(FlightDate) m, count(*) FROM `ontime` GROUP BY 1, 2, 3, 4 ORDER BY 1, 3, 4", "split "},
		// Superset.
		{"SELECT DATE_FORMAT(FlightDate, '%Y-%m-01 00:00:00') AS __timestamp, Carrier AS Carrier, COUNT(*) AS count FROM ontime GROUP BY DATE_FORMAT(FlightDate, '%Y-%m-01 00:00:00'), Carrier ORDER BY count DESC, 1, 2 LIMIT 10000", "split "},
		{"SELECT DATE(DATE_SUB(FlightDate, INTERVAL DAYOFWEEK(FlightDate) - 1 DAY)) AS __timestamp, COUNT(*) AS count FROM ontime GROUP BY DATE(DATE_SUB(FlightDate, INTERVAL DAYOFWEEK(FlightDate) - 1 DAY)) ORDER BY count DESC, 1 LIMIT 10000", "split "},
		{"SELECT Carrier AS Carrier, SUM(Distance) AS `SUM(Distance)` FROM ontime GROUP BY Carrier HAVING `SUM(Distance)` > 100 ORDER BY `SUM(Distance)` DESC LIMIT 10000", "split "},
		// Tableau and ODBC escapes.
		{"SELECT SUM(1) AS `cnt:ontime_1`, `ontime`.`Carrier` AS `Carrier` FROM `ontime` GROUP BY 2 ORDER BY 2", "split "},
		{"SELECT {fn UCASE(Carrier)} AS c, {fn YEAR(FlightDate)} AS y, {fn TIMESTAMPADD(SQL_TSI_DAY, 1, MIN(FlightDate))} AS d, COUNT(*) FROM ontime GROUP BY 1, 2 ORDER BY 1, 2", "split "},
		{"SELECT CAST(TRUNCATE(`ontime`.`Distance`/100, 0) AS SIGNED) AS c, IFNULL(TailNum IS NULL, 0) n, COUNT(*) FROM ontime GROUP BY 1, 2 ORDER BY 1, 2", "split "},
		{"SELECT TIMESTAMPDIFF(DAY, '2000-01-01', FlightDate) DIV 1000 AS t, COUNT(*) FROM ontime GROUP BY 1 ORDER BY 1", "split "},
		{"SELECT MIN(`ontime`.`FlightDate`) AS `temp:min`, MAX(`ontime`.`FlightDate`) AS `temp:max` FROM `ontime` HAVING (COUNT(1) > 0)", "split "},
		{"SELECT YearD, MonthD, COUNT(*), SUM(Distance) FROM ontime GROUP BY YearD, MonthD WITH ROLLUP", "split "},
	})
}

// TestHuntClock: Metabase's relative date filters (`FlightDate >=
// DATE(DATE_ADD(NOW(6), INTERVAL -30 day))`) passed through: NOW() was
// refused as volatile. In WHERE it now distributes, every fragment
// running at the statement's one instant (ticket.Timestamp; the worker
// sets the replica's timestamp for the fragment), as one MariaDB
// statement reads one. The ontime dates (1988-2016) are far from any
// boundary these move. A session that fixed its clock (SET timestamp)
// runs on its replica, whose session has it.
func TestHuntClock(t *testing.T) {
	runBICases(t, []biCase{
		{"SELECT `ontime`.`Carrier` AS `Carrier`, count(*) AS `count` FROM `ontime` WHERE (`ontime`.`FlightDate` >= date(date_add(now(6), INTERVAL -40 year)) AND `ontime`.`FlightDate` < date(now(6))) GROUP BY `ontime`.`Carrier` ORDER BY `ontime`.`Carrier` ASC", "split "},
		{"SELECT count(*) FROM ontime WHERE FlightDate < CURDATE() - INTERVAL 20 YEAR AND FlightDate > CURRENT_DATE - INTERVAL 40 YEAR", "split "},
		{"SELECT YEAR(FlightDate) y, count(*) FROM ontime WHERE UNIX_TIMESTAMP(FlightDate) < UNIX_TIMESTAMP() - 86400 * 365 * 20 GROUP BY 1 ORDER BY 1", "split "},
		{"SELECT count(*) FROM ontime WHERE FlightDate < UTC_DATE() - INTERVAL 20 YEAR AND CURTIME() IS NOT NULL AND NOW() > LOCALTIMESTAMP - INTERVAL 1 DAY", "split "},
		{"SELECT Carrier, NOW() > '2000-01-01', count(*) FROM ontime GROUP BY Carrier ORDER BY Carrier", "passthrough"},
		{"SELECT Carrier, count(*) FROM ontime GROUP BY Carrier HAVING MAX(FlightDate) < CURDATE() ORDER BY Carrier", "passthrough"},
	})
	ctx := t.Context()
	sc, err := env.shoal.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	dc, err := env.direct.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer dc.Close()
	for _, ts := range []string{"1482883200", "1000000000.5"} {
		for _, q := range []string{"SET timestamp = " + ts,
			"SELECT count(*), MIN(FlightDate) FROM ontime WHERE FlightDate >= DATE(NOW() - INTERVAL 90 DAY)",
			"SELECT Carrier, count(*) FROM ontime WHERE FlightDate < CURDATE() GROUP BY Carrier ORDER BY Carrier",
			"SET timestamp = DEFAULT",
			"SELECT count(*) FROM ontime WHERE FlightDate < CURDATE()",
		} {
			if strings.HasPrefix(q, "SET") {
				for _, c := range []interface {
					ExecContext(context.Context, string, ...any) (sql.Result, error)
				}{sc, dc} {
					if _, err := c.ExecContext(ctx, q); err != nil {
						t.Fatalf("%s: %v", q, err)
					}
				}
				continue
			}
			diffOnConns(t, sc, dc, ts+": "+q, q)
		}
	}
}

// TestHuntPrepare: what drivers that prepare on the server send
// (COM_STMT_PREPARE: go-sql-driver with arguments, Connector/J with
// useServerPrepStmts, ODBC's SQLPrepare). The prepare of a statement with
// ODBC escapes ({fn UCASE(x)}, {d '2000-01-01'}), which MariaDB reads
// natively, failed with 1064: the marker scan (vitess' tokenizer) stops at
// '{'. And a prepare MariaDB refuses (unknown column, function or table,
// a nested aggregate, a wrong argument count) succeeded and failed at
// each execution: the describe's error was dropped.
func TestHuntPrepare(t *testing.T) {
	for _, c := range []struct {
		q    string
		args []any
	}{
		{"SELECT {fn UCASE(Carrier)} AS c, {fn YEAR(FlightDate)} AS y, COUNT(*) FROM ontime WHERE Carrier <> ? GROUP BY 1, 2 ORDER BY 1, 2", []any{"AA"}},
		{"SELECT {d '2000-01-01'} d, {ts '2000-01-01 00:00:00'} t, COUNT(*) FROM ontime WHERE FlightDate > {d '2000-01-01'} AND Distance > ?", []any{100}},
		{"SELECT {fn CONCAT(Carrier, ?)} AS co, {fn TIMESTAMPADD(SQL_TSI_DAY, 1, MIN(FlightDate))} AS d, COUNT(*) FROM ontime GROUP BY 1 ORDER BY 1", []any{"x"}},
		{"SELECT Carrier FROM ontime WHERE Carrier = '{?}' AND Distance > ? LIMIT 1", []any{1}},
	} {
		diffArgs(t, c.q, true, c.args...)
	}
	for _, q := range []string{
		"SELECT nosuch FROM ontime GROUP BY nosuch",
		"SELECT Carrier, count(*) FROM ontime GROUP BY Carrier HAVING nosuch > ?",
		"SELECT * FROM nosuchtable WHERE a = ?",
		"SELECT nosuchfn(Carrier) FROM ontime",
		"SELECT Carrier, SUM(SUM(Distance)) FROM ontime GROUP BY Carrier",
		"SELECT CONCAT() FROM ontime",
		"SELECT Carrier, COUNT(*) FROM ontime WHERE Distance > ? GROUP BY Carrier",
	} {
		var errs [2]string
		for i, db := range []*sql.DB{env.shoal, env.direct} {
			st, err := db.Prepare(q)
			if err != nil {
				errs[i] = err.Error()
				continue
			}
			st.Close()
		}
		if errs[0] != errs[1] {
			t.Errorf("prepare %s:\nshoal  %q\ndirect %q", q, errs[0], errs[1])
		}
	}
}

// TestHuntConvertTZ: Looker converts every time with CONVERT_TZ. Computed
// by the fragments it is MariaDB's; after the merge, or over a pin, the
// evaluator converted with Go's zone database where MariaDB reads its
// mysql.time_zone tables (none loaded here: NULL), its own zone for SYSTEM
// (the evaluator said NULL), and takes offsets only up to +13:00 (NULL for
// '+14:00', the evaluator converted). Those now run on the replicas;
// offsets both read alike stay distributed and in memory.
func TestHuntConvertTZ(t *testing.T) {
	cases := []biCase{
		{"SELECT DATE_FORMAT(CONVERT_TZ(ontime.FlightDate,'+00:00','-08:00'),'%Y-%m') AS `ontime.month`, COUNT(*) AS `ontime.count` FROM ontime AS ontime GROUP BY 1 ORDER BY 1 DESC LIMIT 500", "split "},
		{"SELECT DATE(CONVERT_TZ(ontime.FlightDate,'UTC','America/Los_Angeles')) AS d, COUNT(*) FROM ontime GROUP BY 1 ORDER BY 1 LIMIT 3", "split "},
		{"SELECT Carrier, CONVERT_TZ(MIN(FlightDate),'+00:00','-08:00') a, CONVERT_TZ(MAX(FlightDate), '+10:00', '-02:30') FROM ontime GROUP BY Carrier ORDER BY Carrier", "split "},
		{"SELECT Carrier, CONVERT_TZ(MIN(FlightDate),'UTC','America/Los_Angeles') a FROM ontime GROUP BY Carrier ORDER BY Carrier", "passthrough"},
		{"SELECT Carrier, CONVERT_TZ(MIN(FlightDate),'+00:00','+14:00') a FROM ontime GROUP BY Carrier ORDER BY Carrier", "passthrough"},
		{"SELECT Carrier, CONVERT_TZ(MIN(FlightDate),'SYSTEM','+00:00') a, CONVERT_TZ(MAX(FlightDate), '+1:00', '+00:00') FROM ontime GROUP BY Carrier ORDER BY Carrier", "passthrough"},
	}
	runBICases(t, cases)
	const pin = "hunt4_days"
	directExec(t, "DROP TABLE IF EXISTS "+pin,
		"CREATE TABLE "+pin+" (id INT NOT NULL PRIMARY KEY, Carrier VARCHAR(10) NOT NULL, FlightDate DATE NOT NULL)",
		"INSERT INTO "+pin+" SELECT id, Carrier, FlightDate FROM ontime")
	t.Cleanup(func() { env.direct.Exec("DROP TABLE IF EXISTS " + pin) })
	replicasAndCatalog(t)
	shoalExec(t, "CACHE TABLE ontime."+pin)
	t.Cleanup(func() { env.shoal.Exec("UNCACHE TABLE IF EXISTS ontime." + pin) })
	runBICases(t, []biCase{
		{"SELECT DATE(CONVERT_TZ(FlightDate,'+00:00','-08:00')) AS d, COUNT(*) FROM " + pin + " GROUP BY 1 ORDER BY 1 LIMIT 3", "in memory:"},
		{"SELECT DATE(CONVERT_TZ(FlightDate,'UTC','America/Los_Angeles')) AS d, COUNT(*) FROM " + pin + " GROUP BY 1 ORDER BY 1 LIMIT 3", "replicas"},
		{"SELECT COUNT(*) FROM " + pin + " WHERE CONVERT_TZ(FlightDate,'SYSTEM','+00:00') > '2000-01-01'", "replicas"},
	})
}

// TestHuntDerivedSource: Metabase wraps a question built on another, or
// with custom columns, in `FROM (SELECT ...) source`; those passed
// through ("derived table in FROM"). A derived table of plain rows is now
// merged into the statement (planner/derivedmerge, as MariaDB's
// derived_merge does) and the statement distributes; its column
// definitions are described from the client's text, a temporary-table
// plan probed over no rows through the derived table's own WHERE
// (derivedmerge.WithInnerPredicate): count(*) was flagged BINARY, a
// MONTH() key 2 wide, where MariaDB says 1 and 3.
func TestHuntDerivedSource(t *testing.T) {
	runBICases(t, []biCase{
		{"SELECT `source`.`Carrier` AS `Carrier`, count(*) AS `count` FROM (SELECT `ontime`.`Carrier` AS `Carrier`, `ontime`.`Distance` AS `Distance` FROM `ontime` WHERE `ontime`.`Distance` > 1000) `source` GROUP BY `source`.`Carrier` ORDER BY `count` DESC, `source`.`Carrier` ASC LIMIT 2000", "split "},
		{"SELECT `source`.`Carrier` AS `Carrier`, sum(`source`.`km`) AS `sum`, avg(source.km) a FROM (SELECT `ontime`.`Carrier` AS `Carrier`, (`ontime`.`Distance` * 1.609) AS `km` FROM `ontime`) `source` GROUP BY `source`.`Carrier` ORDER BY `source`.`Carrier` ASC", "split "},
		{"SELECT `source`.`FlightDate` AS `FlightDate`, count(*) AS `count` FROM (SELECT `ontime`.`FlightDate` AS `FlightDate`, CASE WHEN `ontime`.`DepDelayMinutes` > 15 THEN 'late' ELSE 'ok' END AS `status` FROM `ontime`) `source` WHERE `source`.`status` = 'late' GROUP BY `source`.`FlightDate` ORDER BY `source`.`FlightDate` ASC LIMIT 5", "split "},
		{"SELECT `source`.`m` AS `m`, count(*) AS `count` FROM (SELECT `ontime`.`Origin` AS `Origin`, month(`ontime`.`FlightDate`) AS `m` FROM `ontime`) `source` GROUP BY `source`.`m` ORDER BY `source`.`m` ASC", "split "},
		{"SELECT s.Origin, count(*) FROM (SELECT Origin FROM ontime WHERE Distance > 500) s GROUP BY s.Origin ORDER BY 1", "split "},
		{"SELECT s.y, count(*), sum(s.late) FROM (SELECT YEAR(FlightDate) y, IF(ArrDelayMinutes > 30, 1, 0) late FROM ontime) s GROUP BY s.y ORDER BY s.y", "split "},
		{"SELECT COUNT(*) FROM (SELECT Carrier, Origin FROM ontime) t WHERE t.Carrier = 'AA'", "split "},
		{"SELECT source.Carrier, source.Distance FROM (SELECT Carrier, Distance FROM ontime WHERE Distance > 4900) source ORDER BY source.Distance DESC, 1 LIMIT 5", "split "},
		// Not merged: the derived table's clauses, names MariaDB resolves
		// otherwise, a wildcard.
		{"SELECT source.Carrier, count(*) FROM (SELECT Carrier FROM ontime LIMIT 100) source GROUP BY 1 ORDER BY 1", "passthrough"},
		{"SELECT Origin FROM (SELECT Carrier FROM ontime) s GROUP BY Origin", "passthrough"},
		{"SELECT x.c, count(*) FROM (SELECT Carrier AS c, Distance AS Carrier FROM ontime) x GROUP BY x.c ORDER BY 1", "passthrough"},
		{"SELECT COUNT(*) FROM (SELECT * FROM `ontime`.`ontime`) dbvrcnt", "passthrough"},
	})
}
