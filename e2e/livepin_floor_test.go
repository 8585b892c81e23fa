package e2e

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/sqlerr"
)

// TestLivePinReadYourWrites: under consistency primary a statement over a
// live pin runs on a version at the primary's position when it started.
// A client writes on the primary and at once reads through the pin: it
// sees every write, each time. With replication stopped on the replica
// the pin follows, the read fails with 3781 after consistency_wait (1s),
// naming the pin, while a coordinator without a floor answers from the
// stale pin (the test's own proof that the pin is behind). Drop the wait
// (or plan over the old version after it) and the immediate reads miss
// writes: the pin publishes a version every 100 ms.
func TestLivePinReadYourWrites(t *testing.T) {
	const tbl = "ontime.live_ryw"
	directExec(t, "DROP TABLE IF EXISTS "+tbl, "CREATE TABLE "+tbl+" (id INT NOT NULL PRIMARY KEY, v INT NOT NULL)",
		"INSERT INTO "+tbl+" SELECT seq, seq FROM seq_1_to_100")
	replicasCaughtUp(t) // before the coordinators read their catalogs
	// replica2 alone: the pins follow it, and stopping it leaves them behind.
	fresh := consistencyShoal(t, config.ConsistencyPrimary, 1)
	stale := consistencyShoal(t, config.ConsistencyNone, 1)
	for _, fs := range []*faultShoal{fresh, stale} {
		if _, err := fs.db.Exec("CACHE TABLE " + tbl + " OPTIONS ('refresh' = 'live')"); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		fresh.db.Exec("UNCACHE TABLE IF EXISTS " + tbl)
		stale.db.Exec("UNCACHE TABLE IF EXISTS " + tbl)
		env.direct.Exec("DROP TABLE IF EXISTS " + tbl)
	})
	if ex := explainText(t, fresh.db, "SELECT COUNT(*) FROM "+tbl); !strings.Contains(ex, "in memory:") {
		t.Fatalf("the count does not run in memory over the pin:\n%s", ex)
	}

	one := func(db *sql.DB, q string) (string, uint16, string) {
		t.Helper()
		return count(t, db, q)
	}
	sum := 5050 // 1 + … + 100
	n := 100
	staleReads := 0
	for i := 1; i <= 40; i++ {
		// Inserts, updates and deletes, one commit each.
		switch i % 4 {
		case 0:
			directExec(t, fmt.Sprintf("DELETE FROM %s WHERE id = %d", tbl, i))
			sum -= i
			n--
		case 1, 2:
			id := 1000 + i
			directExec(t, fmt.Sprintf("INSERT INTO %s VALUES (%d, %d)", tbl, id, id))
			sum += id
			n++
		case 3:
			directExec(t, fmt.Sprintf("UPDATE %s SET v = v + 7 WHERE id = %d", tbl, i))
			sum += 7
		}
		want := fmt.Sprintf("%d/%d", n, sum)
		// The same text each time (a plan cached for an older version)
		// and a new text each time (planned afresh).
		for _, q := range []string{
			"SELECT CONCAT(COUNT(*), '/', SUM(v)) FROM " + tbl,
			fmt.Sprintf("SELECT CONCAT(COUNT(*), '/', SUM(v)) FROM %s WHERE id <> %d", tbl, -i),
		} {
			if got, errno, msg := one(fresh.db, q); got != want {
				t.Fatalf("write %d, then %s under consistency primary: %q (%d %s), want %s", i, q, got, errno, msg, want)
			}
		}
		if got, _, _ := one(stale.db, "SELECT CONCAT(COUNT(*), '/', SUM(v)) FROM "+tbl); got != want {
			staleReads++
		}
	}
	t.Logf("consistency none read the pin before the write in %d of 40 immediate reads; consistency primary in none", staleReads)

	rep, err := sql.Open("mysql", env.cluster.DSN(env.cluster.Replicas[1].MySQL))
	if err != nil {
		t.Fatal(err)
	}
	defer rep.Close()
	if _, err := rep.Exec("STOP SLAVE"); err != nil {
		t.Fatal(err)
	}
	restarted := false
	defer func() {
		if !restarted {
			rep.Exec("START SLAVE")
		}
	}()
	directExec(t, "UPDATE "+tbl+" SET v = v + 1000")
	q := "SELECT SUM(v) FROM " + tbl
	before := fmt.Sprint(sum)
	if got, errno, msg := one(stale.db, q); got != before {
		t.Fatalf("consistency none with replication stopped: %q (%d %s); want the stale %s, or the test proves nothing", got, errno, msg, before)
	}
	start := time.Now()
	got, errno, msg := one(fresh.db, q)
	if got != "" || errno != sqlerr.ErrReplicaBehind || !strings.Contains(msg, "live pin ontime.live_ryw") || !strings.Contains(msg, "GTID position 0-1-") {
		t.Fatalf("consistency primary, the pin's replica stopped: %q, error %d %q; want error %d naming the pin and the position", got, errno, msg, sqlerr.ErrReplicaBehind)
	}
	if el := time.Since(start); el < 900*time.Millisecond || el > 10*time.Second {
		t.Errorf("failed after %s; consistency_wait is 1s", el)
	}
	if _, err := rep.Exec("START SLAVE"); err != nil {
		t.Fatal(err)
	}
	restarted = true
	after := fmt.Sprint(sum + 1000*n)
	if got, errno, msg := one(fresh.db, q); got != after {
		t.Fatalf("after START SLAVE: %q (%d %s), want %s", got, errno, msg, after)
	}
	replicasCaughtUp(t)
}
