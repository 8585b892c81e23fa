package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	vtmysql "vitess.io/vitess/go/mysql"

	"github.com/shoaldb/shoal/replica"
	"github.com/shoaldb/shoal/sqlerr"
)

// TestWarnings: the warning count a client is told with a result, and
// what SHOW WARNINGS says after it, are MariaDB's for statements that
// pass through; a statement Shoal answers itself without warnings
// reports none (one that warns is answered by a replica:
// TestWarningsDistributed) and does not leave an earlier statement's
// warnings to show. Shoal told every client 0 warnings, and
// SHOW WARNINGS after a distributed statement listed the warnings of the
// statement passed through before it.
func TestWarnings(t *testing.T) {
	const distributed = "SELECT DayOfWeek, COUNT(*) FROM ontime GROUP BY DayOfWeek ORDER BY DayOfWeek"
	if ex := explain(t, distributed); !strings.Contains(ex, "split ") {
		t.Fatalf("%s is not distributed:\n%s", distributed, ex)
	}
	for _, seq := range [][]string{
		{"SELECT CAST('12abc' AS SIGNED), CAST('x' AS DOUBLE)", "SHOW WARNINGS", "SHOW COUNT(*) WARNINGS", "SELECT @@warning_count"},
		{"SELECT CAST('12abc' AS SIGNED)", distributed, "SHOW WARNINGS", "SELECT @@warning_count", "SHOW COUNT(*) WARNINGS"},
		{"SELECT CAST('12abc' AS SIGNED)", "SELECT 1", distributed, "SELECT 2", "SHOW WARNINGS"},
		// A constant statement answered by the coordinator (its second
		// time, engine/constant.go) must leave the warnings alone too.
		{"SELECT 3", "SELECT CAST('12abc' AS SIGNED)", "SELECT 3", "SHOW WARNINGS", "SELECT 3", "SELECT @@warning_count"},
		// A statement without a result set (an OK packet, which vitess
		// writes while the statement runs) after one with warnings: the
		// count is its own, not the earlier statement's. Shoal told a SET
		// the warning count of the statement before it.
		{"SELECT CAST('12abc' AS SIGNED)", "SET @x = 1", "SELECT CAST('1x' AS SIGNED), CAST('2y' AS SIGNED)", "SET NAMES utf8mb4",
			"SELECT CAST('12abc' AS SIGNED)", "USE ontime", "SELECT CAST('12abc' AS SIGNED)", "DO 1", "SHOW WARNINGS",
			distributed, "SET @y = CAST('3z' AS SIGNED)", "SHOW WARNINGS", "SET @z = 2", "SELECT @@warning_count"},
		// Transactions, autocommit and NO_BACKSLASH_ESCAPES in the status
		// flags, over statements passed through, distributed and answered
		// by the coordinator. (Not a table read under autocommit = 0,
		// which opens a transaction on MariaDB but not on Shoal's
		// read-only replica connection: docs/sql.md.)
		{"SELECT 1", "BEGIN", distributed, "SELECT 1", "COMMIT", "START TRANSACTION READ ONLY", distributed, "ROLLBACK",
			"SET autocommit = 0", "SELECT 2", "COMMIT", "SET autocommit = 1",
			"SET SESSION TRANSACTION READ ONLY", "BEGIN", "SELECT 3", "COMMIT", "SET SESSION TRANSACTION READ WRITE",
			"SET sql_mode = 'NO_BACKSLASH_ESCAPES'", "SELECT 'a\\b'", distributed, "SET sql_mode = DEFAULT", distributed},
		// An error Shoal answers itself (its parser's, its planner's) is
		// what SHOW WARNINGS, SHOW ERRORS and @@error_count show next, as
		// MariaDB's own errors are; the statement after clears it.
		{"SELEC 1", "SHOW WARNINGS", "SELECT nosuchcol FROM ontime", "SHOW WARNINGS", "SELECT @@warning_count, @@error_count",
			"SHOW ERRORS", "SHOW COUNT(*) ERRORS", "SELECT Carrier, nosuch FROM ontime GROUP BY Carrier", "SHOW ERRORS",
			"SELEC 2", distributed, "SHOW WARNINGS", "SELEC 3", "SELECT 1", "SHOW WARNINGS", "SELECT COUNT(*) FROM nosuchtable", "SHOW WARNINGS",
			"SELECT Carrier, COUNT(*) FROM ontime GROUP BY nosuch", "SHOW COUNT(*) WARNINGS", "SHOW WARNINGS"},
		// Savepoints (an ORM's nested transactions) and UNLOCK TABLES
		// (mysqldump) pass through.
		{"BEGIN", "SAVEPOINT a", distributed, "ROLLBACK TO SAVEPOINT a", "RELEASE SAVEPOINT a", "COMMIT", "UNLOCK TABLES", "SELECT 1"},
		// SELECT … INTO reports the rows it selected as affected.
		{"SELECT 1 INTO @x", "SELECT COUNT(*) INTO @n FROM ontime", "SELECT Carrier INTO @c FROM ontime WHERE id > 0 ORDER BY id LIMIT 1",
			"SELECT id INTO @i FROM ontime WHERE id = -5", "SELECT LAST_INSERT_ID(7) INTO @l", "SELECT @x, @n, @c, @i, @l, LAST_INSERT_ID()",
			"SELECT CAST('4q' AS SIGNED) INTO @w", "SHOW WARNINGS"},
	} {
		sameSequence(t, rawShoal, rawDirect, false, seq...)
	}
	// Every statement that leaves warnings (or none) followed by every
	// kind of statement answered with an OK packet or a result, each
	// pair on a fresh session, then SHOW WARNINGS.
	before := []string{"SELECT CAST('12abc' AS SIGNED)", distributed, "SELECT 1", "SET @w = CAST('3z' AS SIGNED)",
		"DO CAST('x' AS SIGNED), CAST('y' AS SIGNED)", "SHOW WARNINGS"}
	after := []string{"SET @x = 1", "SET NAMES utf8mb4", "SET SESSION sql_mode = DEFAULT", "USE ontime", "DO 1",
		"SET @y = CAST('3z' AS SIGNED)", "SELECT 1", distributed, "SELECT CONNECTION_ID() > 0", "SHOW SHOAL REPLICAS"}
	for _, a := range before {
		for _, b := range after {
			seq := []string{a, b, "SHOW WARNINGS"}
			if b == "SHOW SHOAL REPLICAS" { // Shoal's own: only its count is compared
				got, want := sequence(t, rawShoal, a, b)[1], "SHOW SHOAL REPLICAS -> 0 warning(s)"
				if !strings.HasPrefix(got, want) {
					t.Errorf("after %q: %s, want %s", a, got, want)
				}
				continue
			}
			sameSequence(t, rawShoal, rawDirect, false, seq...)
		}
	}
}

// sameSequence runs seq on one connection of each side and reports every
// statement whose answer (rows, warning count and, with defs, column
// definitions) differs.
func sameSequence(t *testing.T, shoal, direct *rawSide, defs bool, seq ...string) {
	t.Helper()
	got, want := sequenceDefs(t, shoal, defs, seq...), sequenceDefs(t, direct, defs, seq...)
	for i := range seq {
		if got[i] != want[i] {
			t.Errorf("statement %d of %q:\nshoal  %s\ndirect %s", i+1, seq, got[i], want[i])
		}
	}
}

// sequence runs qs in turn on one connection of side of its own and
// renders each answer with its warning count.
func sequence(t *testing.T, side *rawSide, qs ...string) []string {
	t.Helper()
	return sequenceDefs(t, side, false, qs...)
}

// sequenceDefs is sequence, rendering the column definitions too when
// defs is set. The connection is a new one, never one of side's idle
// pool: a pooled connection carries its session from other tests (CI
// once saw the first statement of a sequence, SET NAMES cp1251, answer
// with 24,000 warnings through Shoal and none directly, which no run on
// a fresh connection repeats), and a sequence compares sessions that
// start alike.
func sequenceDefs(t *testing.T, side *rawSide, defs bool, qs ...string) []string {
	t.Helper()
	c, err := vtmysql.Connect(context.Background(), &side.params)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	conn := &replica.Conn{MySQL: c}
	var out []string
	for _, q := range qs {
		st, err := conn.StartStream(q)
		if se, ok := sqlerr.As(err); ok {
			out = append(out, fmt.Sprintf("%s -> error %d (%s): %s", q, se.Num, se.State, se.Message))
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		var rows []string
		for {
			row, err := st.Next()
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			if row == nil {
				break
			}
			rows = append(rows, fmt.Sprint(row))
		}
		line := fmt.Sprintf("%s -> %d warning(s), rows %v", q, st.Warnings(), rows)
		if st.Fields() == nil { // an OK packet: its counts too
			line += fmt.Sprintf(", %d affected, insert id %d", st.RowsAffected(), st.InsertID())
		}
		// The status flags drivers act on (frontend/mysqlwire/status.go):
		// in a transaction, autocommit, NO_BACKSLASH_ESCAPES, read-only
		// transaction.
		if f, ok := st.Status(); ok {
			line += fmt.Sprintf(", status %#x", f&0x2203)
		}
		if defs {
			for _, f := range st.Fields() {
				line += "\n  " + f.Name + " " + fieldDef(f)
			}
		}
		out = append(out, line)
	}
	return out
}

// TestWarningsDistributed: a distributed statement that raises warnings
// (in a fragment on its replica, or by dividing by zero in the final
// stage) reports MariaDB's own: the replica answers it (engine/schedule: Warned),
// so the warning count of its result, SHOW WARNINGS and @@warning_count
// are the server's. A statement without warnings stays distributed, and
// so does one whose division by zero sits in a branch its rows do not
// take.
func TestWarningsDistributed(t *testing.T) {
	warned := func() float64 { return scrapeAt(t, env.coord.HTTPAddr()).get("shoal_warned_passthrough_total") }
	for _, c := range []struct {
		q     string
		warns bool
	}{
		// Fragments' warnings: a string column compared as a number
		// (1292 per row), a constant that is no number (one 1292 for
		// the statement, one per fragment if summed), a per-row CAST
		// inside a partial aggregate, a sorted row plan.
		{"SELECT COUNT(*) FROM ontime WHERE Carrier = 5", true},
		{"SELECT Carrier, COUNT(*) FROM ontime WHERE Distance > 'abc' GROUP BY Carrier ORDER BY Carrier", true},
		{"SELECT Carrier, SUM(CAST(CONCAT(Carrier, 'x') AS SIGNED)) FROM ontime GROUP BY Carrier ORDER BY Carrier", true},
		{"SELECT id, Carrier FROM ontime WHERE Carrier = 0 ORDER BY id LIMIT 5", true},
		// The final stage divides a merged value by zero (1365 per
		// row it evaluates), in an output, under IFNULL, in ORDER BY,
		// in HAVING, with DIV and MOD.
		{"SELECT Carrier, SUM(Distance) / 0 FROM ontime GROUP BY Carrier ORDER BY Carrier", true},
		{"SELECT Carrier, SUM(Distance) / 0 FROM ontime GROUP BY Carrier LIMIT 3", true},
		{"SELECT Carrier, IFNULL(SUM(Distance) / SUM(IF(Distance < 0, 1, 0)), -1) FROM ontime GROUP BY Carrier ORDER BY Carrier", true},
		{"SELECT DayOfWeek, COUNT(*) FROM ontime GROUP BY DayOfWeek ORDER BY COUNT(*) DIV 0, DayOfWeek", true},
		{"SELECT DayOfWeek, COUNT(*) FROM ontime GROUP BY DayOfWeek HAVING MOD(COUNT(*), 0) IS NULL ORDER BY DayOfWeek", true},
		// The final stage reads merged text as a number (1292 per row):
		// arithmetic, a minus, a comparison with a number in the select
		// list, HAVING and ORDER BY.
		{"SELECT DayOfWeek, MAX(Carrier) + 0 FROM ontime GROUP BY DayOfWeek ORDER BY DayOfWeek", true},
		{"SELECT DayOfWeek, -MIN(Origin) FROM ontime GROUP BY DayOfWeek ORDER BY DayOfWeek", true},
		{"SELECT DayOfWeek, MIN(TailNum) > 5 FROM ontime GROUP BY DayOfWeek ORDER BY DayOfWeek", true},
		{"SELECT DayOfWeek, COUNT(*) FROM ontime GROUP BY DayOfWeek HAVING MAX(Carrier) > 0 ORDER BY DayOfWeek", true},
		{"SELECT DayOfWeek, MAX(Carrier) FROM ontime GROUP BY DayOfWeek ORDER BY MAX(Carrier) + 0, DayOfWeek", true},
		// Text compared with a date, text that is wholly a number.
		{"SELECT DayOfWeek, COUNT(*) FROM ontime GROUP BY DayOfWeek HAVING MAX(FlightDate) > '2005-01-01' ORDER BY DayOfWeek", false},
		{"SELECT DayOfWeek, MAX(DepDelayMinutes) + '1' FROM ontime GROUP BY DayOfWeek ORDER BY DayOfWeek", false},
		// No warnings: a guarded division, NULLIF, AVG of no values
		// (its merged sum is NULL over a count of 0), NULL / 0.
		{"SELECT Carrier, CASE WHEN SUM(IF(Distance < 0, 1, 0)) = 0 THEN NULL ELSE SUM(Distance) / SUM(IF(Distance < 0, 1, 0)) END FROM ontime GROUP BY Carrier ORDER BY Carrier", false},
		{"SELECT Carrier, SUM(Distance) / NULLIF(SUM(IF(Distance < 0, 1, 0)), 0) FROM ontime GROUP BY Carrier ORDER BY Carrier", false},
		{"SELECT Carrier, AVG(IF(Distance < 0, Distance, NULL)), SUM(IF(Distance < 0, Distance, NULL)) / 0 FROM ontime GROUP BY Carrier ORDER BY Carrier", false},
		{"SELECT Carrier, AVG(Distance), SUM(Distance) DIV COUNT(*), COUNT(*) % 7 FROM ontime GROUP BY Carrier ORDER BY Carrier", false},
	} {
		if ex := explain(t, c.q); !strings.Contains(ex, "split ") {
			t.Fatalf("%s is not distributed:\n%s", c.q, ex)
		}
		before := warned()
		sameSequence(t, rawShoal, rawDirect, true, c.q, "SHOW WARNINGS", "SELECT @@warning_count")
		if ran := warned() - before; c.warns != (ran == 1) {
			t.Errorf("%s: %v statement(s) run again on a replica for warnings, want warnings=%v", c.q, ran, c.warns)
		}
		if c.warns {
			// Again: the plan remembers, the replica answers at once,
			// without fragments.
			fragments := func() float64 { return scrapeAt(t, env.coord.HTTPAddr()).get("shoal_fragments_total") }
			before, frags := warned(), fragments()
			sameSequence(t, rawShoal, rawDirect, true, c.q, "SHOW WARNINGS", "SELECT @@warning_count")
			if ran, f := warned()-before, fragments()-frags; ran != 1 || f != 0 {
				t.Errorf("%s, its second time: %v counted as answered for warnings (want 1), %v fragments run (want 0)", c.q, ran, f)
			}
		}
	}
}

// TestWarningsOverPins: over ontime pinned whole, a statement whose
// implicit conversions MariaDB warns about (a text column compared with
// a number, a number with text that is no number, a date with text that
// is no date, SUM of text, a numeric CAST of text) is not run in memory,
// which counts no warnings: the client gets MariaDB's rows, warnings and
// @@warning_count. The same forms without a value cut stay in memory.
func TestWarningsOverPins(t *testing.T) {
	shoalExec(t, "CACHE TABLE ontime.ontime")
	defer env.shoal.Exec("UNCACHE TABLE IF EXISTS ontime.ontime")
	for _, c := range []struct {
		q        string
		inMemory bool
	}{
		{"SELECT Carrier, COUNT(*) FROM ontime WHERE TailNum > 5 GROUP BY Carrier ORDER BY Carrier", false},
		{"SELECT Carrier, COUNT(*) FROM ontime WHERE DepDelayMinutes = '5x' GROUP BY Carrier ORDER BY Carrier", false},
		{"SELECT COUNT(*) FROM ontime WHERE FlightDate > '2005-13-01'", false},
		{"SELECT DayOfWeek, SUM(Origin) FROM ontime GROUP BY DayOfWeek ORDER BY DayOfWeek", false},
		{"SELECT DayOfWeek, MAX(CAST(TailNum AS SIGNED)) FROM ontime GROUP BY DayOfWeek ORDER BY DayOfWeek", false},
		{"SELECT Carrier, COUNT(*) FROM ontime WHERE DepDelayMinutes = '5' GROUP BY Carrier ORDER BY Carrier", true},
		{"SELECT COUNT(*) FROM ontime WHERE FlightDate > '2005-12-01'", true},
	} {
		if ex := explain(t, c.q); strings.Contains(ex, "in memory:") != c.inMemory {
			t.Errorf("%s: in memory %v, want %v:\n%s", c.q, !c.inMemory, c.inMemory, ex)
		}
		sameSequence(t, rawShoal, rawDirect, true, c.q, "SHOW WARNINGS", "SELECT @@warning_count")
	}
}
