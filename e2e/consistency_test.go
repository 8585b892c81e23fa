package e2e

import (
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/sqlerr"
)

// consistencyTable holds the rows the consistency tests count.
const consistencyTable = "shoal_consistency.t"

// consistencyShoal starts a coordinator with the given consistency mode
// over the replicas listed (0-based, in that order: passthrough prefers
// the first healthy one), fragments cut per row.
func consistencyShoal(t *testing.T, mode string, replicas ...int) *faultShoal {
	t.Helper()
	return startFaultShoal(t, func(c *config.Coordinator) {
		var reps []config.Replica
		for _, i := range replicas {
			reps = append(reps, c.Replicas[i])
		}
		c.Replicas = reps
		c.Consistency, c.Primary = mode, env.cluster.Primary
		c.ConsistencyWait = config.Duration(time.Second)
		c.MinRowsPerFragment = 1
	})
}

// replicasCaughtUp waits until every replica has applied the primary's
// current GTID position.
func replicasCaughtUp(t *testing.T) {
	t.Helper()
	var pos string
	if err := env.direct.QueryRow("SELECT @@gtid_current_pos").Scan(&pos); err != nil {
		t.Fatal(err)
	}
	for i, r := range env.cluster.Replicas {
		db, err := sql.Open("mysql", env.cluster.DSN(r.MySQL))
		if err != nil {
			t.Fatal(err)
		}
		var res int
		err = db.QueryRow("SELECT MASTER_GTID_WAIT(?, 60)", pos).Scan(&res)
		db.Close()
		if err != nil || res != 0 {
			t.Fatalf("replica%d does not reach the primary's %s: %d %v", i+1, pos, res, err)
		}
	}
}

// count runs q through db: its single value, or the MySQL error.
func count(t *testing.T, db *sql.DB, q string) (string, uint16, string) {
	t.Helper()
	r, err := query(db, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	if r.err != nil {
		return "", r.err.Number, r.err.Message
	}
	if len(r.rows) != 1 || len(r.rows[0]) != 1 {
		t.Fatalf("%s: %v", q, r.rows)
	}
	return r.rows[0][0], 0, ""
}

// TestConsistencyPrimary: replication stops on replica2 (the coordinators
// under test poll no status, so they still think it healthy) and every row
// is updated on the primary. Under consistency none a coordinator reading
// replica2 answers the stale sum — the test's own check that replica2 is
// stale. Under consistency primary:
//   - with replica2 alone, the distributed sum and a passthrough sum fail
//     with 3781 naming the GTID position: never the stale sum;
//   - with both replicas, replica2's fragments wait consistency_wait, fail
//     and are retried on replica1: the fresh sum; a passthrough session
//     that starts on replica2 moves to replica1 the same way.
//
// Send tickets without the floor (or skip the wait in the worker, or in
// startPassthrough) and the stale sum comes back: this fails.
func TestConsistencyPrimary(t *testing.T) {
	checkLeaks(t)
	for _, s := range []string{
		"CREATE DATABASE IF NOT EXISTS shoal_consistency",
		"DROP TABLE IF EXISTS " + consistencyTable,
		"CREATE TABLE " + consistencyTable + " (id INT PRIMARY KEY AUTO_INCREMENT, v INT NOT NULL)",
		"INSERT INTO " + consistencyTable + " (v) SELECT seq FROM seq_1_to_200",
	} {
		if _, err := env.direct.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	replicasCaughtUp(t) // before the coordinators read their catalogs

	const (
		distributed = "SELECT SUM(v) FROM " + consistencyTable
		passthrough = "SELECT SUM(v) FROM " + consistencyTable + " WHERE RAND() < 2" // volatile: one replica, verbatim
		before      = "20100"                                                        // 1 + … + 200
		after       = "220100"                                                       // every row + 1000
	)
	stale := consistencyShoal(t, config.ConsistencyNone, 1)
	// One coordinator per statement: a replica found behind serves
	// nothing more until its next status poll, and these poll none.
	alone := map[string]*faultShoal{
		distributed: consistencyShoal(t, config.ConsistencyPrimary, 1),
		passthrough: consistencyShoal(t, config.ConsistencyPrimary, 1),
	}
	both := map[string]*faultShoal{
		distributed: consistencyShoal(t, config.ConsistencyPrimary, 1, 0),
		passthrough: consistencyShoal(t, config.ConsistencyPrimary, 1, 0),
	}
	replicaMin := consistencyShoal(t, config.ConsistencyReplicaMin, 0, 1)
	for _, fs := range []*faultShoal{stale, alone[distributed], alone[passthrough], both[distributed], both[passthrough], replicaMin} {
		for _, q := range []string{distributed, passthrough} {
			if n, errno, msg := count(t, fs.db, q); n != before {
				t.Fatalf("before the write: %s = %q (%d %s), want %s", q, n, errno, msg, before)
			}
		}
	}
	db := both[distributed].db
	if !strings.Contains(explainText(t, db, distributed), "fragments:") || !strings.Contains(explainText(t, db, passthrough), "passthrough") {
		t.Fatal("the counts do not run as this test expects: one distributed, one passthrough")
	}
	if ws := fragmentWorkers(t, db, distributed); ws["replica1"] == 0 || ws["replica2"] == 0 {
		t.Fatalf("fragments ran on %v; both replicas must get some", ws)
	}

	rep, err := sql.Open("mysql", env.cluster.DSN(env.cluster.Replicas[1].MySQL))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		defer rep.Close()
		if _, err := rep.Exec("START SLAVE"); err != nil {
			t.Errorf("START SLAVE: %v", err)
		}
		replicasCaughtUp(t)
		if _, err := env.direct.Exec("DROP DATABASE shoal_consistency"); err != nil {
			t.Errorf("drop: %v", err)
		}
		replicasCaughtUp(t)
		sharedHealthy(t)
	})
	if _, err := rep.Exec("STOP SLAVE"); err != nil {
		t.Fatal(err)
	}
	// Every row changes, so every fragment replica2 answers is stale.
	if _, err := env.direct.Exec("UPDATE " + consistencyTable + " SET v = v + 1000"); err != nil {
		t.Fatal(err)
	}

	for _, q := range []string{distributed, passthrough} {
		if n, errno, msg := count(t, stale.db, q); n != before {
			t.Fatalf("consistency none on the stopped replica: %s = %q (%d %s); want the stale %s, or the test proves nothing", q, n, errno, msg, before)
		}
	}
	for _, q := range []string{distributed, passthrough} {
		start := time.Now()
		n, errno, msg := count(t, alone[q].db, q)
		if n != "" || errno != sqlerr.ErrReplicaBehind || !strings.Contains(msg, "GTID position 0-1-") {
			t.Errorf("consistency primary, replica2 only: %s = %q, error %d %q; want error %d naming the position", q, n, errno, msg, sqlerr.ErrReplicaBehind)
		}
		if el := time.Since(start); el > 10*time.Second {
			t.Errorf("%s: failed after %s; consistency_wait is 1s", q, el)
		}
	}
	for _, q := range []string{distributed, passthrough} {
		if n, errno, msg := count(t, both[q].db, q); n != after {
			t.Errorf("consistency primary, both replicas: %s = %q (%d %s); want %s from replica1", q, n, errno, msg, after)
		}
	}
}

// explainText is EXPLAIN q through db as one string.
func explainText(t *testing.T, db *sql.DB, q string) string {
	t.Helper()
	r, err := query(db, "EXPLAIN "+q)
	if err != nil || r.err != nil {
		t.Fatalf("EXPLAIN %s: %v %v", q, err, r.err)
	}
	var b strings.Builder
	for _, row := range r.rows {
		b.WriteString(strings.Join(row, " "))
		b.WriteByte('\n')
	}
	return b.String()
}
