package e2e

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"vitess.io/vitess/go/mysql/replication"

	"github.com/shoaldb/shoal/config"
)

// TestLivePinFromConfig starts a coordinator whose config declares a
// whole-table pin with `refresh: live` (config.Pin.Live): it is loaded at
// start as a live pin, follows the writes on the primary without a
// REFRESH, and answers like the primary at its position.
func TestLivePinFromConfig(t *testing.T) {
	const table = "ontime.live_cfg"
	directExec(t, "DROP TABLE IF EXISTS "+table,
		"CREATE TABLE "+table+" (id INT NOT NULL PRIMARY KEY, carrier VARCHAR(8) NOT NULL, amount DECIMAL(10,2) NOT NULL, delay INT NULL, day DATE NOT NULL, ts DATETIME NOT NULL)")
	t.Cleanup(func() { env.direct.Exec("DROP TABLE IF EXISTS " + table) })
	r := rand.New(rand.NewPCG(17, 17))
	var vals []string
	for id := 1; id <= 500; id++ {
		vals = append(vals, liveRow(r, id))
	}
	directExec(t, "INSERT INTO "+table+" VALUES "+strings.Join(vals, ","))
	replicasAndCatalog(t)

	_, db := serveCoordinator(t, config.Coordinator{
		Listen: "127.0.0.1:0", Replicas: env.replicas, MinRowsPerFragment: 1000,
		Pins: []config.Pin{{Table: table, Live: true}},
	}, nil)
	caughtUp := func() {
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
			row := cachedRowOf(t, db, "live_cfg")
			if row != nil && row["Refresh_mode"] == "live" && strings.HasPrefix(row["Live_state"], "following") {
				if got, err := replication.ParseMariadbGTIDSet(row["Gtid_position"]); err == nil && got.Contains(want) {
					return
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("the configured live pin did not reach the primary's %s within 30s: %v", p, row)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	const q = "SELECT carrier, COUNT(*), SUM(amount), MAX(delay), MIN(id) FROM ontime.live_cfg GROUP BY carrier ORDER BY carrier"
	same := func(what string) {
		t.Helper()
		caughtUp()
		got, err := query(db, q)
		if err != nil || got.err != nil {
			t.Fatalf("%s: shoal: %v %v", what, err, got.err)
		}
		want, err := query(env.direct, q)
		if err != nil || want.err != nil {
			t.Fatalf("%s: direct: %v %v", what, err, want.err)
		}
		if g, w := fmt.Sprint(got.rows), fmt.Sprint(want.rows); g != w {
			t.Fatalf("%s: the configured live pin differs from the primary:\nshoal  %.600s\ndirect %.600s", what, g, w)
		}
	}
	same("loaded")
	directExec(t, "INSERT INTO "+table+" VALUES "+liveRow(r, 501)+","+liveRow(r, 502),
		"UPDATE "+table+" SET amount = amount + 1, carrier = 'UA' WHERE id % 7 = 3",
		"DELETE FROM "+table+" WHERE id % 11 = 5")
	same("after writes")
}

// cachedRowOf is cachedRow on the coordinator db.
func cachedRowOf(t *testing.T, db *sql.DB, name string) map[string]string {
	t.Helper()
	r, err := query(db, "SHOW CACHED TABLES")
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
