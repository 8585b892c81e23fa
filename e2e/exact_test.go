package e2e

import (
	"reflect"
	"strings"
	"testing"
)

// TestStringFunctionsOverGroupKeys: LOWER/UPPER over a group key ran in
// the final stage without a case mapping for utf8mb4_general_ci and
// failed with 1105 (issue 13). They run distributed now, with each
// collation's own mapping read from the replica, equal to MariaDB's for
// accented, Greek, titlecase and non-BMP letters, in the select list,
// HAVING and ORDER BY, over utf8mb4 and latin1 columns.
func TestStringFunctionsOverGroupKeys(t *testing.T) {
	for _, q := range []string{
		"SELECT Carrier, LOWER(Carrier) AS lc, COUNT(*) FROM ontime GROUP BY Carrier ORDER BY 1",
		"SELECT Carrier, UPPER(LOWER(Carrier)) AS uc, COUNT(*) FROM ontime GROUP BY Carrier ORDER BY 1",
		"SELECT LCASE(Origin), COUNT(*) c FROM ontime GROUP BY Origin HAVING LOWER(Origin) LIKE 'a%' ORDER BY 1",
		"SELECT u8, LOWER(u8), UPPER(u8), UCASE(u8) = u8, COUNT(*) FROM " + mixedTable + " GROUP BY u8 ORDER BY 1",
		"SELECT u8, CONCAT(LOWER(u8), '/', UPPER(u8)) k, SUM(n) FROM " + mixedTable + " GROUP BY u8 ORDER BY 1",
		"SELECT u8, COUNT(*) FROM " + mixedTable + " GROUP BY u8 ORDER BY UPPER(u8) DESC, 1",
		"SELECT u8, MAX(n) FROM " + mixedTable + " GROUP BY u8 HAVING UPPER(u8) <> u8 ORDER BY 1",
		"SELECT LOWER(MAX(u8)), UPPER(MIN(l1)), LENGTH(MAX(u8)), CHAR_LENGTH(LOWER(MAX(u8))) FROM " + mixedTable,
	} {
		plan := explain(t, q)
		if !strings.HasPrefix(plan, "split ") {
			t.Errorf("%s passes through:\n%s", q, plan)
		}
		diff(t, q, true)
	}
	// Over the latin1 column the values are equal, but Shoal orders the
	// groups by the utf8mb4 collation the replica reports for the
	// converted result column, not by latin1_swedish_ci (Å after Z):
	// compared unordered until the final stage learns the column's own
	// collation (see the report of issue 13).
	for _, q := range []string{
		"SELECT l1, LOWER(l1), UPPER(l1), COUNT(*) FROM " + mixedTable + " GROUP BY l1",
		"SELECT CONCAT(LOWER(l1), '/', UPPER(u8)) k, SUM(n) FROM " + mixedTable + " GROUP BY l1, u8",
	} {
		plan := explain(t, q)
		if !strings.HasPrefix(plan, "split ") {
			t.Errorf("%s passes through:\n%s", q, plan)
		}
		diff(t, q, false)
	}
}

// TestDoubleDecimals: a DOUBLE result whose column definition carries
// fixed decimals (STDDEV/VARIANCE over INT and DECIMAL: 4 more than the
// argument's) is written with exactly those decimals, as MariaDB writes
// it; Shoal wrote the shortest form (827.6467305633213 for 827.6467).
func TestDoubleDecimals(t *testing.T) {
	for _, q := range []string{
		"SELECT STDDEV_POP(Distance), VAR_SAMP(ArrDelayMinutes) FROM ontime WHERE YearD = 2005",
		"SELECT Carrier, STDDEV_SAMP(Distance), VAR_POP(DepDelayMinutes), STD(ArrDelayMinutes), VARIANCE(Distance) FROM ontime GROUP BY Carrier ORDER BY 1",
		"SELECT u8, STDDEV(n), VAR_SAMP(n), STDDEV_SAMP(n), MAX(d), MIN(d) * 2 FROM " + mixedTable + " GROUP BY u8 ORDER BY 1",
		"SELECT Carrier, STDDEV_POP(Distance) * 2, ROUND(VAR_POP(Distance)), AVG(Distance) FROM ontime GROUP BY Carrier ORDER BY 1",
	} {
		plan := explain(t, q)
		if !strings.HasPrefix(plan, "split ") {
			t.Errorf("%s passes through:\n%s", q, plan)
		}
		diff(t, q, true)
	}
	// Over a DECIMAL with a scale MariaDB shows scale + 4 decimals,
	// beyond the digits where the merged sums and its running recurrence
	// agree: such statements run on a replica (planner: "shown with more
	// than 4 decimals"), and answer as it does.
	q := "SELECT u8, STDDEV(amount), VAR_SAMP(amount), STDDEV_SAMP(n), MAX(d), MIN(d) * 2 FROM " + mixedTable + " GROUP BY u8 ORDER BY 1"
	if plan := explain(t, q); !strings.HasPrefix(plan, "passthrough") {
		t.Errorf("%s is distributed:\n%s", q, plan)
	}
	diff(t, q, true)
}

// TestRoundZeroText: vitess' evaluator returns a zero DECIMAL given to
// ROUND or TRUNCATE unchanged, at the argument's scale, so a percentage
// label over a group with no cancellations read 0.0000% where MariaDB
// writes 0.0% (found through the binary protocol on a 50k-row cluster,
// where one carrier had none). The output column's own scale hides it;
// text taken from it (CONCAT, LENGTH, CAST) does not.
func TestRoundZeroText(t *testing.T) {
	for _, q := range []string{
		"SELECT Carrier, CONCAT(ROUND(100*SUM(Cancelled)/COUNT(*), 1), '%') FROM ontime GROUP BY Carrier ORDER BY 1",
		"SELECT Carrier, CONCAT(ROUND(0*SUM(Distance)/COUNT(*), 1), '%'), LENGTH(TRUNCATE(0*AVG(Distance), 2)) FROM ontime GROUP BY Carrier ORDER BY 1",
		"SELECT CONCAT('x', ROUND(SUM(Distance)*0/7, 2)), CAST(TRUNCATE(0*SUM(Distance)/3, 1) AS CHAR) FROM ontime",
	} {
		diff(t, q, true)
	}
}

// TestDoubleDecimalsBinary: in the binary protocol (a prepared statement
// with arguments) a fixed-decimals DOUBLE is sent with all its bits, as
// MariaDB sends it. Two ways it went wrong: a merged STDDEV/VARIANCE is
// exact up to its final DOUBLE division while MariaDB accumulates in
// DOUBLE row by row in scan order, so the last digits differed
// (938.7346254056716 for 938.734625405667); and a statement that passed
// through ran in the text protocol, which prints the column's decimals
// only (938.7346). Such statements now run on a replica as prepared
// statements, whatever their plan: the values must be equal to the bit,
// on the distributed, the routed-small and the pinned path.
func TestDoubleDecimalsBinary(t *testing.T) {
	for _, q := range []string{
		"SELECT STDDEV_POP(Distance), VAR_SAMP(ArrDelayMinutes) FROM ontime WHERE YearD = ?",
		"SELECT Carrier, STDDEV_SAMP(Distance), VAR_POP(DepDelayMinutes) FROM ontime WHERE YearD >= ? GROUP BY Carrier ORDER BY 1",
		"SELECT STD(Distance), VARIANCE(ArrDelayMinutes), COUNT(*) FROM ontime WHERE id < ? + 50",
		"SELECT STD(Distance), VAR_SAMP(Distance) FROM ontime WHERE id BETWEEN ? AND 12000",
		"SELECT STDDEV(Distance), VAR_POP(ArrDelayMinutes) FROM ontime WHERE YearD = ? AND id IN (SELECT id FROM ontime WHERE Carrier = 'AA')",
		"SELECT Carrier, STDDEV(Distance) s FROM ontime WHERE YearD >= ? GROUP BY Carrier HAVING s > 0 ORDER BY s DESC LIMIT 3",
	} {
		got, err := queryArgs(env.shoal, q, 2005)
		if err != nil {
			t.Fatal(err)
		}
		want, err := queryArgs(env.direct, q, 2005)
		if err != nil {
			t.Fatal(err)
		}
		if len(want.rows) == 0 {
			t.Fatalf("%s: no rows on MariaDB", q)
		}
		if !reflect.DeepEqual(got.rows, want.rows) {
			t.Errorf("%s (binary protocol: every bit):\nShoal   %v\nMariaDB %v", q, got.rows, want.rows)
		}
	}
}

// TestTypedColumns: ENUM and SET values sort by their member numbers on
// the server and are numbers in numeric context, BIT values are numbers
// to BIN/HEX/CONV, and a sum of FLOAT or DOUBLE values depends on the
// order of addition. The merge sorted ENUMs as text, BIN(flags) over a
// BIT group key gave 0, and merged partial DOUBLE sums differed in the
// last digits (found with ordinary SQL over a table of such columns).
// Such statements now pass through, with the reason in EXPLAIN; the rest
// of the same table still distributes.
func TestTypedColumns(t *testing.T) {
	const name = "typed_cols"
	for _, q := range []string{
		"DROP TABLE IF EXISTS " + name,
		"CREATE TABLE " + name + ` (id INT NOT NULL PRIMARY KEY,
		  status ENUM('new','paid','shipped','cancelled') NULL, tags SET('a','b','c') NOT NULL,
		  flags BIT(8) NOT NULL, ratio DOUBLE NULL, f FLOAT NOT NULL, qty INT NULL, at DATETIME(3) NULL)`,
		"INSERT INTO " + name + ` SELECT id, ELT(1 + id % 4, 'new','paid','shipped','cancelled'),
		  ELT(1 + id % 5, 'a','b','a,c','','b,c'), id % 256, ArrDelayMinutes / 7, Distance / 3, DepDelayMinutes,
		  TIMESTAMP(FlightDate) + INTERVAL id % 86400 SECOND FROM ontime`,
	} {
		if _, err := env.direct.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() { env.direct.Exec("DROP TABLE IF EXISTS " + name) })
	replicasCaughtUp(t)
	for _, c := range []struct {
		q    string
		pass string // "" when it distributes, else a word of the reason
	}{
		{"SELECT status, COUNT(*), SUM(qty) FROM " + name + " GROUP BY status ORDER BY status", "ENUM"},
		{"SELECT DISTINCT status FROM " + name + " ORDER BY status DESC", "ENUM"},
		{"SELECT tags, COUNT(*) FROM " + name + " GROUP BY tags ORDER BY tags", "ENUM"},
		{"SELECT id, status FROM " + name + " ORDER BY status, id LIMIT 20", "ENUM"},
		{"SELECT status, COUNT(*) FROM " + name + " GROUP BY status ORDER BY COUNT(*), 1", "ENUM"},
		{"SELECT BIN(flags), HEX(flags), COUNT(*) FROM " + name + " GROUP BY flags ORDER BY 3 DESC, 1 LIMIT 5", "BIT"},
		{"SELECT CONV(flags, 10, 2), COUNT(*) FROM " + name + " GROUP BY flags ORDER BY 2 DESC, 1 LIMIT 3", "BIT"},
		{"SELECT SUM(ratio), AVG(ratio), STD(ratio) FROM " + name, "DOUBLE"},
		{"SELECT status, SUM(f) FROM " + name + " GROUP BY status ORDER BY 2", "DOUBLE"},
		// Still distributed: the values as sent, MIN/MAX (compared as
		// text by the server too), integer sums, member numbers computed
		// in the fragments.
		{"SELECT MIN(status), MAX(status), COUNT(DISTINCT tags), SUM(qty) FROM " + name, ""},
		{"SELECT status + 0, COUNT(*) FROM " + name + " GROUP BY 1 ORDER BY 1", ""},
		{"SELECT COUNT(*), MAX(ratio), MIN(f) FROM " + name + " WHERE status = 'paid'", ""},
		// DATETIME(3) after the merge keeps its three digits ("…00.000")
		// in an expression over it.
		{"SELECT qty % 3 q, COALESCE(MAX(at), 'none'), CONCAT(MIN(at), '|') FROM " + name + " GROUP BY q ORDER BY q", ""},
	} {
		plan := explain(t, c.q)
		switch dist := strings.HasPrefix(plan, "split "); {
		case c.pass == "" && !dist:
			t.Errorf("%s passes through:\n%s", c.q, plan)
		case c.pass != "" && (dist || !strings.Contains(plan, c.pass)):
			t.Errorf("%s: want a passthrough naming %s:\n%s", c.q, c.pass, plan)
		}
		diff(t, c.q, true)
	}
}

// TestCollationsAndSpellings: a group key under a column's own collation
// (utf8mb4_bin, utf8mb4_unicode_ci) or a COLLATE clause groups and sorts
// by it, not by the utf8mb4_general_ci a converted description reports;
// of keys equal under the collation ('Alice', 'alice') the group shows
// the spelling the server read first — the lowest key's, since it scans
// in key order — and MIN/MAX keep it too, whichever fragment answers
// first; MySQL syntax MariaDB lacks (->>) gets MariaDB's own error.
func TestCollationsAndSpellings(t *testing.T) {
	const name = "spellings"
	for _, q := range []string{
		"DROP TABLE IF EXISTS " + name,
		"CREATE TABLE " + name + ` (id INT NOT NULL PRIMARY KEY,
		  who VARCHAR(20) COLLATE utf8mb4_unicode_ci NOT NULL, code VARCHAR(4) COLLATE utf8mb4_bin NOT NULL,
		  k VARCHAR(4) NOT NULL, js JSON NULL, n INT NULL)`,
		"INSERT INTO " + name + ` SELECT id, CONCAT(ELT(1 + id % 7, 'Alice', 'alice', 'ALICE', 'straße', 'STRASSE', 'Émile', 'emile'), ' ', id % 5),
		  ELT(1 + id % 4, 'ab', 'AB', 'Ab', 'cd'), ELT(1 + (id DIV 7) % 3, 'xy', 'XY', 'Xy'), JSON_OBJECT('k', id % 3), Distance FROM ontime`,
	} {
		if _, err := env.direct.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() { env.direct.Exec("DROP TABLE IF EXISTS " + name) })
	replicasCaughtUp(t)
	diffWhere(t, "split ",
		"SELECT who, COUNT(*), SUM(n) FROM "+name+" GROUP BY who ORDER BY who",
		"SELECT code, COUNT(*), MIN(k), MAX(k) FROM "+name+" GROUP BY code ORDER BY code",
		"SELECT k, COUNT(*), MIN(who), MAX(who) FROM "+name+" GROUP BY k ORDER BY 1",
		"SELECT who COLLATE utf8mb4_bin w, COUNT(*) FROM "+name+" GROUP BY w ORDER BY w",
		"SELECT LOWER(who) l, COUNT(*) FROM "+name+" GROUP BY l ORDER BY l",
		"SELECT k, code, COUNT(*) FROM "+name+" WHERE k = 'xy' GROUP BY k, code ORDER BY 2",
		"SELECT id, who FROM "+name+" ORDER BY who DESC, id LIMIT 30",
		"SELECT DISTINCT code FROM "+name+" ORDER BY code DESC")
	diff(t, "SELECT js->>'$.k' v, COUNT(*) FROM "+name+" GROUP BY v ORDER BY v", true)

	// Pinned, a group shows its first row's spelling in key order too,
	// with or without a filter that skips the table's first one (the
	// engine showed the dictionary's first spelling of the group).
	shoalExec(t, "CACHE TABLE ontime."+name)
	t.Cleanup(func() { env.shoal.Exec("UNCACHE TABLE IF EXISTS ontime." + name) })
	diffWhere(t, "in memory:",
		"SELECT who, COUNT(*), SUM(n) FROM "+name+" GROUP BY who ORDER BY who",
		"SELECT who, COUNT(*) FROM "+name+" WHERE id % 7 <> 0 GROUP BY who ORDER BY who",
		"SELECT code, COUNT(*) FROM "+name+" WHERE id > 1000 GROUP BY code ORDER BY code",
		"SELECT k, code, COUNT(*) FROM "+name+" WHERE n > 1000 GROUP BY k, code ORDER BY 1, 2",
		"SELECT CONCAT(who, '|') w, COUNT(*) FROM "+name+" WHERE id % 3 = 1 GROUP BY w ORDER BY w")
}

// TestYearConstantsAndWideProducts compares, distributed and over a
// whole-table pin, two things MariaDB computes its own way: a constant
// compared with a YEAR column is stored as a year first (70 is 1970, '05'
// 2005, '0' 2000), in WHERE over the pin and in HAVING after the merge,
// where `y = 70` matched nothing (so is text compared with a BIGINT
// column: the integer it spells, not a DOUBLE, which made
// `u = '18446744073709551615'` match every row near it over a pin); and
// a product of DECIMAL(65,30) values
// passes MariaDB's 81-digit buffer, which drops fraction words of the
// operands (SUM(d) * SUM(d), MAX(d) * MAX(d)): the merge computed the
// exact product, different in the last digits. Such products now run on
// a replica.
func TestYearConstantsAndWideProducts(t *testing.T) {
	const name = "year_dec"
	directExec(t,
		"DROP TABLE IF EXISTS "+name,
		"CREATE TABLE "+name+` (id INT NOT NULL PRIMARY KEY, y YEAR NULL, d DECIMAL(65,30) NULL, s DECIMAL(12,2) NOT NULL, k TINYINT NOT NULL,
		  u BIGINT UNSIGNED NOT NULL, b BIGINT NOT NULL)`,
		"INSERT INTO "+name+` SELECT id, IF(id % 11 = 0, NULL, 1970 + id % 60), IF(id % 10 = 0, NULL, id / 7 + 0.000000000000000000000000000001),
		  id % 1000 / 4, id % 5, 18446744073709551615 - id % 1000, CAST(id % 1000 AS SIGNED) - 9223372036854775807 FROM ontime WHERE id <= 30000`)
	t.Cleanup(func() { env.direct.Exec("DROP TABLE IF EXISTS " + name) })
	replicasAndCatalog(t)
	qs := []string{
		"SELECT COUNT(*) FROM year_dec WHERE y = 70",
		"SELECT COUNT(*) FROM year_dec WHERE y = '05' OR y = '0'",
		"SELECT COUNT(*) FROM year_dec WHERE y IN (1, 99) OR y BETWEEN 70 AND 72",
		"SELECT COUNT(*) FROM year_dec WHERE y < 75",
		"SELECT y, COUNT(*) FROM year_dec GROUP BY y HAVING y = 70 OR y IN (5, '06') ORDER BY y",
		"SELECT IF(y = 71, 'y', 'n') f, COUNT(*) FROM year_dec GROUP BY f ORDER BY f",
		"SELECT k, SUM(d) * SUM(d), MAX(d) * MAX(d), SUM(s) * SUM(s), SUM(d) * 2 FROM year_dec GROUP BY k ORDER BY k",
		"SELECT SUM(d) * SUM(d), SUM(d) * COUNT(*) FROM year_dec",
		"SELECT k, SUM(d * d) FROM year_dec GROUP BY k ORDER BY k",
		"SELECT COUNT(*) FROM year_dec WHERE u = '18446744073709551615' OR b IN ('-9223372036854775807', '-9223372036854775806')",
		"SELECT u, COUNT(*) FROM year_dec GROUP BY u HAVING u >= '18446744073709551613' ORDER BY u",
	}
	for _, q := range qs {
		diff(t, q, true)
	}
	shoalExec(t, "CACHE TABLE ontime."+name)
	defer env.shoal.Exec("UNCACHE TABLE IF EXISTS ontime." + name)
	for _, q := range qs {
		diff(t, q, true)
	}
}

// TestDistinctLimitWithoutOrder: SELECT DISTINCT and GROUP BY … ORDER BY
// NULL are not sorted on MariaDB, which returns the rows in the order its
// scan met them, so a LIMIT keeps the first ones met; the merge sorted
// them (DISTINCT) or kept its hash order (ORDER BY NULL), and returned
// other rows. They run on a replica; with ORDER BY they distribute.
func TestDistinctLimitWithoutOrder(t *testing.T) {
	for _, q := range []string{
		"SELECT DISTINCT DayOfWeek FROM ontime LIMIT 3",
		"SELECT DISTINCT Carrier, YearD FROM ontime WHERE Distance > 500 LIMIT 5",
		"SELECT DISTINCT Origin FROM ontime LIMIT 2, 3",
		"SELECT Carrier, COUNT(*) FROM ontime GROUP BY Carrier ORDER BY NULL LIMIT 4",
	} {
		diff(t, q, true)
	}
	diffWhere(t, "split ", "SELECT DISTINCT DayOfWeek FROM ontime ORDER BY DayOfWeek DESC LIMIT 3")
}

// TestFormatDistributed: FORMAT of an exact aggregate (a report's
// FORMAT(SUM(amount), 2)) is computed after the merge as MariaDB computes
// it (evalexpr/format.go), so the statement distributes; FORMAT of a
// DOUBLE still passes through. Both equal MariaDB's text.
func TestFormatDistributed(t *testing.T) {
	for _, c := range []struct {
		q    string
		dist bool
	}{
		{"SELECT Carrier, FORMAT(SUM(Distance), 2) FROM ontime GROUP BY Carrier ORDER BY Carrier", true},
		{"SELECT DayOfWeek, FORMAT(AVG(Distance), 1), FORMAT(COUNT(*), 0) FROM ontime GROUP BY DayOfWeek ORDER BY DayOfWeek", true},
		{"SELECT FORMAT(SUM(ArrDelayMinutes) / COUNT(*), 3), FORMAT(-SUM(Distance) * 1.5, 0) FROM ontime", true},
		{"SELECT Carrier, CONCAT(FORMAT(100 * SUM(Cancelled) / COUNT(*), 2), '%') AS pct FROM ontime GROUP BY Carrier ORDER BY SUM(Cancelled) / COUNT(*) DESC, Carrier LIMIT 5", true},
		{"SELECT Origin, FORMAT(MAX(Distance), 2, 'en_US') FROM ontime GROUP BY Origin ORDER BY Origin LIMIT 10", true},
		{"SELECT Carrier, FORMAT(STDDEV_POP(Distance), 2) FROM ontime GROUP BY Carrier ORDER BY Carrier", false},
	} {
		ex := explain(t, c.q)
		if got := strings.HasPrefix(ex, "split "); got != c.dist {
			t.Errorf("%s: distributed %v, want %v:\n%s", c.q, got, c.dist, ex)
		}
		diff(t, c.q, true)
	}
}
