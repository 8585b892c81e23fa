package e2e

import (
	"strings"
	"testing"
)

// TestRuntimeErrorsAsServer: an expression the final stage evaluates over
// merged values that fails there (an integer overflow) gets the server's
// own error — code, SQLSTATE and message naming MariaDB's rendering of the
// expression — because the statement then runs on a replica
// (evalexpr.RuntimeError, engine.runPrepared); it used to be 1105 with the
// evaluator's message. Over a pinned result, which no replica holds as
// such, the statement runs over the pin's definition. The connection stays
// usable after each.
func TestRuntimeErrorsAsServer(t *testing.T) {
	stmts := []string{
		"SELECT Carrier, CAST(SUM(Distance) AS SIGNED) * 1000000000000 FROM ontime GROUP BY Carrier ORDER BY 1",
		"SELECT Carrier, COUNT(*) FROM ontime GROUP BY Carrier HAVING CAST(SUM(Distance) AS SIGNED) * 9223372036854775807 > 0",
		// (CAST … AS UNSIGNED of an aggregate now passes through: evalexpr.unsignedCast.)
		"SELECT Carrier, COUNT(*) FROM ontime GROUP BY Carrier ORDER BY -9223372036854775807 - COUNT(*) - 100000000 LIMIT 3",
		"SELECT YearD, COUNT(*) * 9223372036854775807 FROM ontime GROUP BY YearD",
	}
	for _, q := range stmts {
		if !strings.HasPrefix(explain(t, q), "split ") {
			t.Errorf("%s: not distributed, so the final stage is not tested:\n%s", q, explain(t, q))
		}
		got, want := bothSides(t, q)
		if want.err == nil {
			t.Fatalf("%s: MariaDB does not fail: pick another overflow", q)
		}
		if got.err == nil || got.err.Number != want.err.Number || got.err.Message != want.err.Message {
			t.Errorf("%s:\n got %v\nwant %v", q, got.err, want.err)
		}
		diff(t, "SELECT COUNT(*) FROM ontime", true)
	}

	// Over a pinned result the statement runs in memory; its overflow
	// gets MariaDB's code (the message names the pin's definition).
	shoalExec(t, "CACHE TABLE ontime.rt_pin AS SELECT * FROM ontime.ontime WHERE id < 20000")
	t.Cleanup(func() { env.shoal.Exec("UNCACHE TABLE IF EXISTS ontime.rt_pin") })
	for _, q := range []string{
		"SELECT Carrier, CAST(SUM(Distance) AS SIGNED) * 1000000000000000 FROM rt_pin GROUP BY Carrier ORDER BY 1",
		"SELECT YearD, COUNT(*) * 9223372036854775807 FROM rt_pin GROUP BY YearD",
	} {
		if ex := explain(t, q); !strings.Contains(ex, "in memory") {
			t.Errorf("%s: not in memory:\n%s", q, ex)
		}
		got, err := rawShoal.query(q)
		if err != nil {
			t.Fatalf("shoal: %s: %v", q, err)
		}
		if got.err == nil || got.err.Number != 1690 {
			t.Errorf("%s: got %v, want error 1690 (BIGINT value is out of range)", q, got.err)
		}
	}
	// A date summed over the pin, as a number (pinexec/literal TemporalNumber).
	got, err := rawShoal.query("SELECT Carrier, SUM(FlightDate), AVG(FlightDate), BIT_OR(FlightDate) FROM rt_pin GROUP BY Carrier ORDER BY 1")
	if err != nil {
		t.Fatal(err)
	}
	want, err := rawDirect.query("SELECT Carrier, SUM(FlightDate), AVG(FlightDate), BIT_OR(FlightDate) FROM (SELECT * FROM ontime.ontime WHERE id < 20000) rt_pin GROUP BY Carrier ORDER BY 1")
	if err != nil {
		t.Fatal(err)
	}
	if got.err != nil || want.err != nil || !equalRows(got.rows, want.rows) {
		t.Errorf("SUM/AVG/BIT_OR of a DATE over a pin:\n got %v %v\nwant %v %v", got.err, head(got.rows), want.err, head(want.rows))
	}
}

func equalRows(a, b [][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if strings.Join(a[i], "\x00") != strings.Join(b[i], "\x00") {
			return false
		}
	}
	return true
}

func head(rows [][]string) [][]string { return rows[:min(len(rows), 3)] }
