package e2e

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"vitess.io/vitess/go/mysql/replication"
)

// Live pins (CACHE TABLE … OPTIONS ('refresh' = 'live')): pins that
// follow a replica's binary log. The test writes on the primary, waits
// until each pin's position has reached the primary's, and compares the
// pin's answers with the primary's exactly.

const liveTable = "ontime.live_orders"

// liveFilter is the filtered pin's WHERE, on the primary and in the pin.
const liveFilter = "delay > 10 AND carrier <> 'UA'"

func liveRow(r *rand.Rand, id int) string {
	delay := "NULL"
	if r.IntN(8) != 0 {
		delay = strconv.Itoa(r.IntN(60) - 10)
	}
	return fmt.Sprintf("(%d,'%s',%d.%02d,%s,'2024-%02d-%02d','2024-01-01 00:00:00' + INTERVAL %d SECOND)",
		id, []string{"AA", "UA", "DL", "WN", "B6", "ÄÖ"}[r.IntN(6)], r.IntN(1000), r.IntN(100), delay, r.IntN(12)+1, r.IntN(28)+1, r.IntN(1e6))
}

func directExec(t *testing.T, qs ...string) {
	t.Helper()
	for _, q := range qs {
		if _, err := env.direct.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// cachedRow is the SHOW CACHED TABLES row of ontime.name by column name.
func cachedRow(t *testing.T, name string) map[string]string {
	t.Helper()
	r, err := query(env.shoal, "SHOW CACHED TABLES")
	if err != nil || r.err != nil {
		t.Fatalf("SHOW CACHED TABLES: %v %v", err, r.err)
	}
	for _, row := range r.rows {
		if row[0] == "ontime" && row[1] == name {
			m := map[string]string{}
			for i, c := range r.cols {
				m[c] = row[i]
			}
			return m
		}
	}
	return nil
}

// liveCaughtUp waits until the live pin ontime.name has applied
// everything the primary has committed.
func liveCaughtUp(t *testing.T, name string) map[string]string {
	t.Helper()
	var p string
	if err := env.direct.QueryRow("SELECT @@gtid_binlog_pos").Scan(&p); err != nil {
		t.Fatal(err)
	}
	want, err := replication.ParseMariadbGTIDSet(p)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		row := cachedRow(t, name)
		if row != nil && strings.HasPrefix(row["Live_state"], "following") {
			if got, err := replication.ParseMariadbGTIDSet(row["Gtid_position"]); err == nil && got.Contains(want) {
				return row
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("live pin %s did not reach the primary's %s within 30s: %v", name, p, row)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// sameRows runs shoalQ through Shoal and directQ on the primary and
// compares the rows exactly (in order: the queries order totally).
func sameRows(t *testing.T, shoalQ, directQ string) {
	t.Helper()
	got, err := query(env.shoal, shoalQ)
	if err != nil || got.err != nil {
		t.Fatalf("shoal: %s: %v %v", shoalQ, err, got.err)
	}
	want, err := query(env.direct, directQ)
	if err != nil || want.err != nil {
		t.Fatalf("direct: %s: %v %v", directQ, err, want.err)
	}
	if g, w := fmt.Sprint(got.rows), fmt.Sprint(want.rows); g != w {
		t.Fatalf("live pin answers differ from the primary:\nshoal  %s\n  %.600s\ndirect %s\n  %.600s", shoalQ, g, directQ, w)
	}
}

func TestLivePins(t *testing.T) {
	directExec(t, "DROP TABLE IF EXISTS "+liveTable,
		"CREATE TABLE "+liveTable+" (id INT NOT NULL PRIMARY KEY, carrier VARCHAR(8) NOT NULL, amount DECIMAL(10,2) NOT NULL, delay INT NULL, day DATE NOT NULL, ts DATETIME NOT NULL)")
	t.Cleanup(func() {
		env.shoal.Exec("UNCACHE TABLE IF EXISTS " + liveTable)
		env.shoal.Exec("UNCACHE TABLE IF EXISTS ontime.live_late")
		env.direct.Exec("DROP TABLE IF EXISTS " + liveTable)
	})
	r := rand.New(rand.NewPCG(7, 7))
	var vals []string
	for id := 1; id <= 3000; id++ {
		vals = append(vals, liveRow(r, id))
	}
	directExec(t, "INSERT INTO "+liveTable+" VALUES "+strings.Join(vals, ","))
	replicasAndCatalog(t)

	shoalExec(t, "CACHE TABLE "+liveTable+" OPTIONS ('refresh' = 'live')")
	shoalExec(t, "CACHE TABLE live_late OPTIONS ('refresh' = 'live') AS SELECT id, carrier, amount AS amt, delay FROM live_orders WHERE "+liveFilter)

	wholeQs := []string{
		"SELECT carrier, COUNT(*), SUM(amount), AVG(delay), MIN(day), MAX(ts), COUNT(delay) FROM live_orders GROUP BY carrier ORDER BY carrier",
		"SELECT * FROM live_orders WHERE id % 97 = 3 ORDER BY id",
		"SELECT COUNT(*), SUM(amount) FROM live_orders WHERE delay IS NULL",
	}
	filtShoal := "SELECT carrier, COUNT(*), SUM(amt), MAX(delay), MIN(id) FROM live_late GROUP BY carrier ORDER BY carrier"
	filtDirect := "SELECT carrier, COUNT(*), SUM(amount), MAX(delay), MIN(id) FROM live_orders WHERE " + liveFilter + " GROUP BY carrier ORDER BY carrier"
	check := func(what string) {
		t.Helper()
		w := liveCaughtUp(t, "live_orders")
		f := liveCaughtUp(t, "live_late")
		for _, q := range wholeQs {
			sameRows(t, q, q)
		}
		sameRows(t, filtShoal, filtDirect)
		sameRows(t, "SELECT COUNT(*), SUM(amt) FROM live_late", "SELECT COUNT(*), SUM(amount) FROM live_orders WHERE "+liveFilter)
		t.Logf("%s: whole pin at %s (%s events, lag %s ms, replica %s); filtered pin %s events", what, w["Gtid_position"], w["Events_applied"], w["Lag_ms"], w["Live_replica"], f["Events_applied"])
	}
	check("loaded")
	if row := cachedRow(t, "live_orders"); row["Refresh_mode"] != "live" || row["Kind"] != "table" {
		t.Fatalf("SHOW CACHED TABLES: %v", row)
	}

	// Rounds of writes: inserts, updates (of the key too, and moving rows
	// in and out of the filter), deletes, some in multi-statement
	// transactions.
	next := 3001
	for round := range 5 {
		var stmts []string
		for range 20 {
			switch r.IntN(6) {
			case 0, 1:
				stmts = append(stmts, "INSERT INTO "+liveTable+" VALUES "+liveRow(r, next)+","+liveRow(r, next+1))
				next += 2
			case 2:
				stmts = append(stmts, fmt.Sprintf("UPDATE %s SET delay = delay + %d, amount = amount * 2 WHERE id %% 50 = %d", liveTable, r.IntN(30)-10, r.IntN(50)))
			case 3:
				stmts = append(stmts, fmt.Sprintf("UPDATE %s SET carrier = 'UA' WHERE id BETWEEN %d AND %d", liveTable, r.IntN(next), r.IntN(next)))
			case 4:
				stmts = append(stmts, fmt.Sprintf("DELETE FROM %s WHERE id %% 40 = %d", liveTable, r.IntN(40)))
			case 5:
				stmts = append(stmts, fmt.Sprintf("UPDATE %s SET id = id + 100000 WHERE id = %d", liveTable, r.IntN(next)))
			}
		}
		if round%2 == 1 {
			stmts = append(append([]string{"BEGIN"}, stmts...), "COMMIT")
		}
		tx, err := env.direct.Begin() // one connection for BEGIN … COMMIT
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range stmts {
			if _, err := tx.Exec(q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		check(fmt.Sprintf("round %d", round))
	}

	// A write logged as a statement on the primary reaches the replicas'
	// binary logs as rows (they log ROW), so the pins keep following.
	conn, err := env.direct.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"SET SESSION binlog_format = 'STATEMENT'", "UPDATE " + liveTable + " SET delay = 11 WHERE id % 13 = 0", "SET SESSION binlog_format = 'ROW'"} {
		if _, err := conn.ExecContext(t.Context(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	discard(conn) // its binlog_format is not for other tests
	check("statement-format update")
	if st := cachedRow(t, "live_orders")["Live_state"]; st != "following" {
		t.Fatalf("after a statement-format update on the primary: %s", st)
	}

	// DDL on the source table: both pins reload, and say why.
	directExec(t, "ALTER TABLE "+liveTable+" ADD COLUMN note VARCHAR(10) NOT NULL DEFAULT 'n'",
		"UPDATE "+liveTable+" SET note = carrier WHERE id % 3 = 0")
	check("after ALTER TABLE")
	for _, name := range []string{"live_orders", "live_late"} {
		if st := cachedRow(t, name)["Live_state"]; !strings.Contains(st, "ADD COLUMN note") {
			t.Fatalf("%s after ALTER TABLE: state %q does not say it reloaded for the DDL", name, st)
		}
	}
	sameRows(t, "SELECT note, COUNT(*) FROM live_orders GROUP BY note ORDER BY note", "SELECT note, COUNT(*) FROM live_orders GROUP BY note ORDER BY note")

	// What cannot be live says so.
	for _, q := range []string{
		"CACHE TABLE live_agg OPTIONS ('refresh' = 'live') AS SELECT carrier, COUNT(DISTINCT delay) FROM live_orders GROUP BY carrier",
		"CACHE TABLE live_join OPTIONS ('refresh' = 'live') AS SELECT a.id FROM live_orders a JOIN live_orders b ON a.id = b.id",
		"CACHE TABLE live_expr OPTIONS ('refresh' = 'live') AS SELECT id + 1 FROM live_orders",
		"CACHE TABLE live_opt OPTIONS ('refresh' = 'hourly') AS SELECT id FROM live_orders",
	} {
		if _, err := env.shoal.Exec(q); err == nil || !strings.Contains(err.Error(), "live") {
			t.Errorf("%s: %v, want a refusal that names live", q, err)
		}
	}

	// REFRESH TABLE reloads a live pin, which keeps following.
	shoalExec(t, "REFRESH TABLE live_late")
	directExec(t, "DELETE FROM "+liveTable+" WHERE id % 5 = 1")
	check("after REFRESH TABLE")
	if row := cachedRow(t, "live_late"); row["Refresh_mode"] != "live" || row["Live_state"] != "following" {
		t.Fatalf("after REFRESH TABLE: %v", row)
	}

	shoalExec(t, "UNCACHE TABLE "+liveTable)
	shoalExec(t, "UNCACHE TABLE live_late")
	if cachedRow(t, "live_orders") != nil || cachedRow(t, "live_late") != nil {
		t.Fatal("UNCACHE left a live pin")
	}
}

// TestLivePinFailover kills the replica a live pin follows while the
// primary takes writes: the pin resumes from its position on the other
// replica and ends equal to the primary, nothing lost or applied twice.
func TestLivePinFailover(t *testing.T) {
	const tbl = "ontime.live_failover"
	directExec(t, "DROP TABLE IF EXISTS "+tbl,
		"CREATE TABLE "+tbl+" (id INT NOT NULL PRIMARY KEY, n INT NOT NULL, v DECIMAL(12,2) NOT NULL)")
	t.Cleanup(func() {
		env.shoal.Exec("UNCACHE TABLE IF EXISTS " + tbl)
		env.direct.Exec("DROP TABLE IF EXISTS " + tbl)
	})
	var vals []string
	for id := 1; id <= 1000; id++ {
		vals = append(vals, fmt.Sprintf("(%d, 0, %d.50)", id, id))
	}
	directExec(t, "INSERT INTO "+tbl+" VALUES "+strings.Join(vals, ","))
	replicasAndCatalog(t)
	shoalExec(t, "CACHE TABLE "+tbl+" OPTIONS ('refresh' = 'live')")
	followed := liveCaughtUp(t, "live_failover")["Live_replica"]
	victim := -1
	for i, r := range env.cluster.Replicas {
		if r.MySQL == followed {
			victim = i
		}
	}
	if victim < 0 {
		t.Fatalf("the pin follows %q, not a replica of the cluster", followed)
	}

	// A writer: inserts, increments (an update applied twice would show
	// in the sums) and deletes, one transaction each.
	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		id := 1001
		for i := 0; ; i++ {
			select {
			case <-stop:
				done <- nil
				return
			default:
			}
			var q string
			switch i % 3 {
			case 0:
				q = fmt.Sprintf("INSERT INTO %s VALUES (%d, 0, %d.25)", tbl, id, id)
				id++
			case 1:
				q = fmt.Sprintf("UPDATE %s SET n = n + 1, v = v + 1 WHERE id %% 10 = %d", tbl, i%10)
			case 2:
				q = fmt.Sprintf("DELETE FROM %s WHERE id = %d", tbl, i%1000+1)
			}
			if _, err := env.direct.Exec(q); err != nil {
				done <- fmt.Errorf("%s: %w", q, err)
				return
			}
			time.Sleep(2 * time.Millisecond)
		}
	}()
	time.Sleep(500 * time.Millisecond)
	restart := crashReplica(t, victim)
	time.Sleep(1500 * time.Millisecond)
	close(stop)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	row := liveCaughtUp(t, "live_failover")
	if row["Live_replica"] == followed {
		t.Fatalf("the pin still says it follows the killed replica %s", followed)
	}
	if !strings.HasPrefix(row["Live_state"], "following") || strings.Contains(row["Live_state"], "loads") {
		t.Fatalf("the pin reloaded instead of resuming: %s", row["Live_state"])
	}
	q := "SELECT COUNT(*), SUM(n), SUM(v), MIN(id), MAX(id), BIT_XOR(id * 31 + n) FROM " + tbl
	sameRows(t, q, q)
	t.Logf("failover from %s to %s: position %s, %s events applied", followed, row["Live_replica"], row["Gtid_position"], row["Events_applied"])
	restart()
	replicasCaughtUp(t)
}

// TestLivePinFollowsPrimary pins a table live with 'follow' = 'primary':
// with both replicas' SQL threads stopped the pin still reaches the
// primary's position (it streams the primary's binary log), and a
// TRUNCATE read from the primary before any replica has applied it makes
// a reload that waits for the replica it reads, so the pin never goes
// back to the rows before the TRUNCATE.
func TestLivePinFollowsPrimary(t *testing.T) {
	const tbl = "ontime.live_primary"
	directExec(t, "DROP TABLE IF EXISTS "+tbl,
		"CREATE TABLE "+tbl+" (id INT NOT NULL PRIMARY KEY, n INT NOT NULL, s VARCHAR(20) NOT NULL)")
	t.Cleanup(func() {
		env.shoal.Exec("UNCACHE TABLE IF EXISTS " + tbl)
		env.direct.Exec("DROP TABLE IF EXISTS " + tbl)
	})
	var vals []string
	for id := 1; id <= 500; id++ {
		vals = append(vals, fmt.Sprintf("(%d, %d, 'r%d')", id, id%7, id))
	}
	directExec(t, "INSERT INTO "+tbl+" VALUES "+strings.Join(vals, ","))
	replicasAndCatalog(t)
	shoalExec(t, "CACHE TABLE "+tbl+" OPTIONS ('refresh' = 'live', 'follow' = 'primary')")
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		got := liveCaughtUp(t, "live_primary")["Live_replica"]
		if got == env.cluster.Primary {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the pin follows %q, want the primary %s", got, env.cluster.Primary)
		}
	}

	var reps []*sql.DB
	for _, r := range env.cluster.Replicas {
		db, err := sql.Open("mysql", env.cluster.DSN(r.MySQL))
		if err != nil {
			t.Fatal(err)
		}
		reps = append(reps, db)
	}
	started := false
	startReplicas := func() {
		if started {
			return
		}
		started = true
		for _, db := range reps {
			if _, err := db.Exec("START SLAVE SQL_THREAD"); err != nil {
				t.Errorf("START SLAVE SQL_THREAD: %v", err)
			}
		}
	}
	t.Cleanup(func() {
		startReplicas()
		replicasCaughtUp(t)
		for _, db := range reps {
			db.Close()
		}
		sharedHealthy(t)
	})
	for _, db := range reps {
		if _, err := db.Exec("STOP SLAVE SQL_THREAD"); err != nil {
			t.Fatal(err)
		}
	}
	directExec(t, "UPDATE "+tbl+" SET n = n + 10 WHERE id % 3 = 0",
		"DELETE FROM "+tbl+" WHERE id > 480",
		"INSERT INTO "+tbl+" VALUES (1001, 1, 'new')")
	liveCaughtUp(t, "live_primary") // no replica has applied these
	q := "SELECT id, n, s FROM " + tbl + " ORDER BY id"
	sameRows(t, q, q)

	// The TRUNCATE reaches the pin from the primary at once; the reload
	// it makes must wait for a replica that has applied it.
	directExec(t, "TRUNCATE TABLE "+tbl, "INSERT INTO "+tbl+" VALUES (2001, 2, 'after')")
	time.Sleep(1500 * time.Millisecond)
	if st := cachedRow(t, "live_primary")["Live_state"]; !strings.HasPrefix(st, "reloading") {
		t.Errorf("with no replica past the TRUNCATE the pin is %q, want it reloading (waiting for a replica)", st)
	}
	startReplicas()
	row := liveCaughtUp(t, "live_primary")
	sameRows(t, q, q)
	sameRows(t, "SELECT COUNT(*) FROM "+tbl, "SELECT COUNT(*) FROM "+tbl)
	t.Logf("after the TRUNCATE: %s, position %s", row["Live_state"], row["Gtid_position"])
}
