package e2e

import (
	"context"
	"database/sql"
	"strings"
	"testing"
)

// TestSessionSettings: a session that changes a setting which changes what
// a read returns — time_zone, lc_time_names, sql_mode flags that change
// parsing (PIPES_AS_CONCAT, ANSI_QUOTES), sql_select_limit,
// default_week_format — gets its replica's answers, which have its
// settings; fragments, the final stage and the in-memory engine assume a
// fresh connection's (engine/replicaset/drift.go). Each case runs on one
// connection through Shoal and one to the primary, the same SETs on both,
// and compares every column as sent; then the setting is restored and the
// statement is distributed again. A session max_statement_time ends a
// distributed statement with MariaDB's 1969.
func TestSessionSettings(t *testing.T) {
	ctx := context.Background()
	conn := func(db *sql.DB) *sql.Conn { return sessionConn(t, db) }
	// TIMESTAMP values are sent in the session's time zone.
	const tz = "tz_cols"
	for _, q := range []string{
		"DROP TABLE IF EXISTS " + tz,
		"CREATE TABLE " + tz + " (id INT NOT NULL PRIMARY KEY, Carrier VARCHAR(10) NOT NULL, ts TIMESTAMP NULL)",
		"INSERT INTO " + tz + " SELECT id, Carrier, TIMESTAMP('2021-06-01') + INTERVAL id MINUTE FROM ontime",
	} {
		if _, err := env.direct.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() { env.direct.Exec("DROP TABLE IF EXISTS " + tz) })
	replicasCaughtUp(t)
	for _, c := range []struct {
		set, reset, q string
	}{
		{"SET time_zone = '+05:30'", "SET time_zone = DEFAULT",
			"SELECT Carrier, MIN(ts), MAX(ts), COUNT(*) FROM " + tz + " GROUP BY Carrier ORDER BY Carrier"},
		{"SET time_zone = '-03:00'", "SET time_zone = DEFAULT",
			"SELECT HOUR(ts) h, COUNT(*) FROM " + tz + " WHERE ts > '2021-06-10 00:00:00' GROUP BY h ORDER BY h"},
		{"SET lc_time_names = 'de_DE'", "SET lc_time_names = DEFAULT",
			"SELECT MONTHNAME(FlightDate) m, COUNT(*) FROM ontime GROUP BY m ORDER BY m"},
		{"SET lc_time_names = 'fr_FR'", "SET lc_time_names = DEFAULT",
			"SELECT DATE_FORMAT(FlightDate, '%W %M') m, COUNT(*) FROM ontime GROUP BY m ORDER BY m"},
		{"SET sql_mode = CONCAT(@@sql_mode, ',PIPES_AS_CONCAT')", "SET sql_mode = DEFAULT",
			"SELECT Carrier || '-' || Origin co, COUNT(*) FROM ontime GROUP BY co ORDER BY 2 DESC, 1 LIMIT 5"},
		{"SET sql_mode = 'ANSI_QUOTES'", "SET sql_mode = DEFAULT",
			`SELECT "Carrier", COUNT(*) FROM ontime GROUP BY "Carrier" ORDER BY 1`},
		{"SET SESSION sql_select_limit = 3", "SET SESSION sql_select_limit = DEFAULT",
			"SELECT Carrier, COUNT(*) FROM ontime GROUP BY Carrier ORDER BY 1"},
		{"SET default_week_format = 3", "SET default_week_format = DEFAULT",
			"SELECT WEEK(MIN(FlightDate)), Carrier FROM ontime GROUP BY Carrier ORDER BY Carrier"},
		// STDDEV and VARIANCE show div_precision_increment + 4 digits, as AVG.
		{"SET div_precision_increment = 8", "SET div_precision_increment = DEFAULT",
			"SELECT Carrier, STDDEV(Distance), VAR_SAMP(ArrDelayMinutes), STD(Distance) + 0 FROM ontime GROUP BY Carrier ORDER BY Carrier"},
		{"SET div_precision_increment = 0", "SET div_precision_increment = DEFAULT",
			"SELECT STDDEV_POP(Distance), VARIANCE(Distance), AVG(Distance) FROM ontime"},
		// MariaDB refuses a read it estimates above max_join_size (1104).
		{"SET max_join_size = 1000", "SET max_join_size = DEFAULT",
			"SELECT Carrier, COUNT(*) FROM ontime GROUP BY Carrier ORDER BY 1"},
		{"SET sql_big_selects = 0, max_join_size = 10", "SET sql_big_selects = 1, max_join_size = DEFAULT",
			"SELECT DayOfWeek, SUM(Distance) FROM ontime GROUP BY DayOfWeek ORDER BY 1"},
	} {
		s, d := conn(env.shoal), conn(env.direct)
		if !strings.HasPrefix(explainOn(t, s, c.q), "split ") {
			t.Fatalf("%s is not distributed before %s: pick another statement", c.q, c.set)
		}
		for _, x := range []*sql.Conn{s, d} {
			if _, err := x.ExecContext(ctx, c.set); err != nil {
				t.Fatalf("%s: %v", c.set, err)
			}
		}
		got, err := queryArgs(s, c.q)
		if err != nil {
			t.Fatal(err)
		}
		want, err := queryArgs(d, c.q)
		if err != nil {
			t.Fatal(err)
		}
		sameErr := got.err != nil && want.err != nil && got.err.Number == want.err.Number
		if !sameErr && (got.err != nil || want.err != nil || !equalRows(got.rows, want.rows) || strings.Join(got.types, ",") != strings.Join(want.types, ",")) {
			t.Errorf("after %s, %s:\n got %v %v\nwant %v %v", c.set, c.q, got.err, head(got.rows), want.err, head(want.rows))
		}
		for _, x := range []*sql.Conn{s, d} {
			if _, err := x.ExecContext(ctx, c.reset); err != nil {
				t.Fatalf("%s: %v", c.reset, err)
			}
		}
		if !strings.HasPrefix(explainOn(t, s, c.q), "split ") {
			t.Errorf("after %s, %s is not distributed again", c.reset, c.q)
		}
	}

	// Modes that change only writes (what drivers and ORMs set at
	// connect) leave reads distributed.
	w := conn(env.shoal)
	const dq = "SELECT Carrier, COUNT(*) FROM ontime GROUP BY Carrier ORDER BY 1"
	if _, err := w.ExecContext(ctx, "SET SESSION sql_mode = 'STRICT_TRANS_TABLES,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION'"); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(explainOn(t, w, dq), "split ") {
		t.Errorf("a write-only sql_mode made %s pass through", dq)
	}

	// max_statement_time: Shoal's own deadline for the session, with
	// MariaDB's code; lifted by the SET that resets it.
	s := conn(env.shoal)
	const q = "SELECT Carrier, COUNT(*) FROM ontime GROUP BY Carrier ORDER BY 1"
	if _, err := s.ExecContext(ctx, "SET max_statement_time = 0.000001"); err != nil {
		t.Fatal(err)
	}
	r, err := queryArgs(s, q)
	if err != nil {
		t.Fatal(err)
	}
	if r.err == nil || r.err.Number != 1969 {
		t.Errorf("with max_statement_time = 0.000001: got %v, want error 1969", r.err)
	}
	if _, err := s.ExecContext(ctx, "SET max_statement_time = 0"); err != nil {
		t.Fatalf("lifting max_statement_time: %v", err)
	}
	if r, err = queryArgs(s, q); err != nil || r.err != nil {
		t.Errorf("after max_statement_time = 0: %v %v", err, r.err)
	}
}
