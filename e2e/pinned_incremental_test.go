package e2e

import (
	"database/sql"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shoaldb/shoal/config"
)

// Incremental refresh of pinned tables (REFRESH TABLE … INCREMENTAL):
// only the rows past the split key's high-water mark are read and
// appended. The tests use a table of their own on the primary (other
// tests pin ontime and compare it with the primary), dropped at the end.

const incrTable = "ontime.incr_flights"

// incrRow is row i of incr_flights: a carrier from a small set (a
// dictionary column), a delay from -20..179 (an Int16 when pinned), NULL
// every 11th row.
func incrRow(i int, carrier string, delay int) string {
	d := fmt.Sprint(delay)
	if i%11 == 0 {
		d = "NULL"
	}
	return fmt.Sprintf("(%d,'%s',%s,%d,'2021-%02d-%02d')", i, carrier, d, i%7+1, i%12+1, i%28+1)
}

// insertIncr inserts rows [from, to) into incr_flights on the primary;
// row gives each row's VALUES tuple.
func insertIncr(t *testing.T, from, to int, row func(i int) string) {
	t.Helper()
	for lo := from; lo < to; lo += 1000 {
		var vals []string
		for i := lo; i < min(lo+1000, to); i++ {
			vals = append(vals, row(i))
		}
		if _, err := env.direct.Exec("INSERT INTO " + incrTable + " VALUES " + strings.Join(vals, ",")); err != nil {
			t.Fatal(err)
		}
	}
}

func plainRow(i int) string {
	return incrRow(i, []string{"AA", "UA", "DL", "WN", "B6"}[i%5], i*37%200-20)
}

// replicasAndCatalog waits for the replicas to apply the primary's writes
// and re-reads Shoal's catalog (a new table, new split-key bounds).
func replicasAndCatalog(t *testing.T) {
	t.Helper()
	replicasCaughtUp(t)
	if err := env.coord.RefreshCatalog(t.Context()); err != nil {
		t.Fatal(err)
	}
}

func createIncrTable(t *testing.T, rows int) {
	t.Helper()
	for _, q := range []string{"DROP TABLE IF EXISTS " + incrTable,
		"CREATE TABLE " + incrTable + " (id INT NOT NULL PRIMARY KEY, carrier VARCHAR(8) NOT NULL, delay INT NULL, dow TINYINT NOT NULL, day DATE NOT NULL)"} {
		if _, err := env.direct.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() {
		env.shoal.Exec("UNCACHE TABLE IF EXISTS " + incrTable)
		env.direct.Exec("DROP TABLE IF EXISTS " + incrTable)
	})
	insertIncr(t, 1, rows+1, plainRow)
	replicasAndCatalog(t)
}

// pinState is incr_flights' SHOW CACHED TABLES row: rows, version,
// refresh kind, rows added, high-water mark.
func pinState(t *testing.T) (rows, version, kind, added, hw string) {
	t.Helper()
	r := showCached(t)["incr_flights"]
	if len(r) < 16 {
		t.Fatalf("SHOW CACHED TABLES row %v: want 16 columns", r)
	}
	return r[3], r[12], r[13], r[14], r[15]
}

// incrQueries are compared with the primary after every refresh; all run
// in memory over the pin.
var incrQueries = []string{
	"SELECT carrier, COUNT(*), SUM(delay), MAX(delay), MIN(day) FROM ontime.incr_flights GROUP BY carrier ORDER BY carrier",
	"SELECT COUNT(*), MAX(id), SUM(delay), COUNT(delay) FROM ontime.incr_flights",
	"SELECT id, carrier, delay FROM ontime.incr_flights WHERE delay > 1000 OR carrier = 'ZZ' ORDER BY id",
	"SELECT dow, MAX(carrier), MIN(delay) FROM ontime.incr_flights WHERE delay IS NOT NULL GROUP BY dow ORDER BY dow",
}

func diffIncr(t *testing.T, rows int) {
	t.Helper()
	for _, q := range incrQueries {
		if ex := explain(t, q); !strings.Contains(ex, fmt.Sprintf("(%d rows)", rows)) && !strings.Contains(ex, fmt.Sprintf(", %d rows in", rows)) {
			t.Errorf("%s does not run over the %d-row pin:\n%s", q, rows, ex)
		}
		diff(t, q, true)
	}
}

// TestPinnedIncremental pins a table, inserts rows on the primary (new
// carrier values, delays past the pinned integer width), refreshes
// incrementally and compares with the primary; checks the errors, and the
// fall back to a full load when the table's columns changed.
func TestPinnedIncremental(t *testing.T) {
	createIncrTable(t, 5000)
	shoalExec(t, "CACHE TABLE "+incrTable)
	if rows, v, kind, added, hw := pinState(t); rows != "5000" || v != "1" || kind != "full" || added != "5000" || hw != "5000" {
		t.Fatalf("after CACHE: rows %s version %s refresh %s added %s high-water %s", rows, v, kind, added, hw)
	}
	diffIncr(t, 5000)

	// 300 rows: a third with a carrier the dictionary lacks, some with
	// delays an Int16 cannot hold.
	insertIncr(t, 5001, 5301, func(i int) string {
		switch {
		case i%3 == 0:
			return incrRow(i, "ZZ", i%200)
		case i%50 == 7:
			return incrRow(i, "UA", 100000+i)
		}
		return plainRow(i)
	})
	replicasAndCatalog(t)
	res, err := env.shoal.Exec("REFRESH TABLE " + incrTable + " INCREMENTAL")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 300 {
		t.Errorf("REFRESH ... INCREMENTAL reported %d rows, want the 300 added", n)
	}
	if rows, v, kind, added, hw := pinState(t); rows != "5300" || v != "2" || kind != "incremental" || added != "300" || hw != "5300" {
		t.Fatalf("after REFRESH INCREMENTAL: rows %s version %s refresh %s added %s high-water %s", rows, v, kind, added, hw)
	}
	if cols := showCached(t)["incr_flights"][6]; !strings.Contains(cols, "carrier VARCHAR dict(6)") {
		t.Errorf("columns %q: want carrier's dictionary extended to 6 values", cols)
	}
	diffIncr(t, 5300)

	// Nothing new: a new version with nothing added.
	shoalExec(t, "refresh table incr_flights incremental")
	if rows, v, kind, added, _ := pinState(t); rows != "5300" || v != "3" || kind != "incremental" || added != "0" {
		t.Fatalf("empty incremental refresh: rows %s version %s refresh %s added %s", rows, v, kind, added)
	}

	t.Run("errors", func(t *testing.T) { incrErrors(t) })
	t.Run("concurrent readers", func(t *testing.T) { incrConcurrent(t, 5300) })

	// A changed table cannot be appended to: a full load, which says so.
	for _, q := range []string{"ALTER TABLE " + incrTable + " ADD COLUMN note VARCHAR(10) NOT NULL DEFAULT 'x'",
		"INSERT INTO " + incrTable + " VALUES (20001,'AA',1,1,'2021-01-01','new')"} {
		if _, err := env.direct.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	replicasAndCatalog(t)
	shoalExec(t, "REFRESH TABLE "+incrTable+" INCREMENTAL")
	rows, _, kind, added, hw := pinState(t)
	if rows != "9301" || added != "9301" || hw != "20001" || !strings.HasPrefix(kind, "full (incremental not possible: ") {
		t.Fatalf("after ALTER TABLE: rows %s refresh %q added %s high-water %s; want a full load saying why", rows, kind, added, hw)
	}
	t.Logf("refresh after ALTER TABLE: %s", kind)
	diff(t, "SELECT note, COUNT(*) FROM ontime.incr_flights GROUP BY note ORDER BY note", true)
}

// incrErrors: incremental refreshes that cannot be done are refused with
// 1235 (or 1051 for no pin) and a message naming the full REFRESH, and
// the connection stays usable.
func incrErrors(t *testing.T) {
	db, err := sql.Open("mysql", "root@tcp("+env.coord.Addr().String()+")/ontime")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	_, v0, _, _, _ := pinState(t)
	var id0 string
	if err := db.QueryRow("SELECT CONNECTION_ID()").Scan(&id0); err != nil {
		t.Fatal(err)
	}
	shoalExec(t, "CACHE TABLE ontime.carriers") // VARCHAR primary key: no split key
	t.Cleanup(func() { env.shoal.Exec("UNCACHE TABLE IF EXISTS ontime.carriers") })
	shoalExec(t, "CACHE TABLE ontime.incr_by_carrier AS SELECT carrier, COUNT(*) AS n FROM ontime.incr_flights GROUP BY carrier")
	t.Cleanup(func() { env.shoal.Exec("UNCACHE TABLE IF EXISTS ontime.incr_by_carrier") })
	cases := []struct {
		sql  string
		code uint16
		msg  string
	}{
		{"REFRESH TABLE ontime.nosuch INCREMENTAL", 1051, "Unknown pinned table"},
		{"REFRESH TABLE ontime.carriers INCREMENTAL", 1235, "use REFRESH TABLE ontime.carriers to reload it in full"},
		{"REFRESH TABLE incr_by_carrier INCREMENTAL", 1235, "is a pinned query result: use REFRESH TABLE ontime.incr_by_carrier"},
	}
	for _, c := range cases {
		r, err := query(db, c.sql)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		if r.err == nil || r.err.Number != c.code || !strings.Contains(r.err.Message, c.msg) {
			t.Errorf("%s: got %v, want error %d containing %q", c.sql, r.err, c.code, c.msg)
		}
	}
	var id1 string
	if err := db.QueryRow("SELECT CONNECTION_ID()").Scan(&id1); err != nil || id1 != id0 {
		t.Errorf("connection after the errors: id %s (was %s), %v", id1, id0, err)
	}
	if _, v, _, _, _ := pinState(t); v != v0 {
		t.Errorf("refused refreshes changed the pin: version %s -> %s", v0, v)
	}
}

// incrConcurrent: readers counting the pinned rows while an incremental
// refresh runs see the old total or the new one, never anything between.
func incrConcurrent(t *testing.T, before int) {
	const added = 4000
	insertIncr(t, before+1, before+added+1, plainRow)
	replicasAndCatalog(t)
	valid := map[string]bool{fmt.Sprint(before): true, fmt.Sprint(before + added): true}
	var (
		stop       atomic.Bool
		sawOld     atomic.Int64
		sawNew     atomic.Int64
		started    sync.WaitGroup
		wg         sync.WaitGroup
		failures   atomic.Int64
		firstError atomic.Value
	)
	for range 4 {
		started.Add(1)
		wg.Go(func() {
			first := true
			for !stop.Load() {
				r, err := query(env.shoal, "SELECT COUNT(*), SUM(dow) FROM ontime.incr_flights")
				if first {
					started.Done()
					first = false
				}
				if err != nil || r.err != nil || len(r.rows) != 1 || !valid[r.rows[0][0]] {
					failures.Add(1)
					firstError.CompareAndSwap(nil, fmt.Sprintf("%v %v", err, r))
					continue
				}
				if r.rows[0][0] == fmt.Sprint(before) {
					sawOld.Add(1)
				} else {
					sawNew.Add(1)
				}
			}
		})
	}
	started.Wait()
	start := time.Now()
	shoalExec(t, "REFRESH TABLE "+incrTable+" INCREMENTAL")
	took := time.Since(start)
	for deadline := time.Now().Add(10 * time.Second); sawNew.Load() < 8 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	stop.Store(true)
	wg.Wait()
	if n := failures.Load(); n > 0 {
		t.Errorf("%d reads saw neither %d nor %d rows; first: %v", n, before, before+added, firstError.Load())
	}
	if sawOld.Load() == 0 || sawNew.Load() == 0 {
		t.Errorf("readers saw the old total %d times, the new %d times: want both", sawOld.Load(), sawNew.Load())
	}
	t.Logf("incremental refresh of %d rows took %v; readers saw %d old and %d new totals", added, took, sawOld.Load(), sawNew.Load())
	if rows, _, kind, n, _ := pinState(t); rows != fmt.Sprint(before+added) || kind != "incremental" || n != fmt.Sprint(added) {
		t.Errorf("after the refresh: rows %s refresh %s added %s", rows, kind, n)
	}
	diffIncr(t, before+added)
}

// TestPinnedIncrementalBudget: an incremental refresh that would take
// the pins past pinned_memory_limit fails with 1041 and changes nothing;
// a configured pin with incremental: true refreshes incrementally.
func TestPinnedIncrementalBudget(t *testing.T) {
	createIncrTable(t, 5000)
	_, db := serveCoordinator(t, config.Coordinator{
		Listen: "127.0.0.1:0", Replicas: env.replicas, MinRowsPerFragment: 1000,
		PinnedMemoryLimit: 200 << 10,
		Pins:              []config.Pin{{Table: incrTable, Refresh: config.Duration(300 * time.Millisecond), Incremental: true}},
	}, slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	state := func() (rows, version, kind, added, bytes string) {
		r, err := query(db, "SHOW CACHED TABLES")
		if err != nil || r.err != nil || len(r.rows) != 1 {
			return "", "", "", "", ""
		}
		return r.rows[0][3], r.rows[0][12], r.rows[0][13], r.rows[0][14], r.rows[0][4]
	}
	waitFor := func(what string, ok func(rows, version, kind, added string) bool) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			rows, v, kind, added, _ := state()
			if ok(rows, v, kind, added) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within 30s (rows %s version %s refresh %s added %s)", what, rows, v, kind, added)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	waitFor("configured pin loaded", func(rows, v, kind, added string) bool { return rows == "5000" && v != "" })
	insertIncr(t, 5001, 5101, plainRow)
	replicasCaughtUp(t)
	waitFor("scheduled incremental refresh", func(rows, v, kind, added string) bool {
		return rows == "5100" && kind == "incremental" && added == "100"
	})

	// Far more rows than the budget holds: every refresh fails and the
	// pin stays as it was.
	insertIncr(t, 5101, 60001, plainRow)
	replicasCaughtUp(t)
	time.Sleep(time.Second) // a scheduled refresh that began mid-insert ends
	rows0, v0, _, _, bytes0 := state()
	r, err := query(db, "REFRESH TABLE "+incrTable+" INCREMENTAL")
	if err != nil || r.err == nil || r.err.Number != 1041 || !strings.Contains(r.err.Message, "pinned_memory_limit") {
		t.Fatalf("refresh past the budget: %v %v, want error 1041 naming pinned_memory_limit", err, r)
	}
	time.Sleep(700 * time.Millisecond) // two scheduled refreshes fail as well
	if rows, v, _, _, bytes := state(); rows != rows0 || bytes != bytes0 || v != v0 {
		t.Errorf("a refused refresh changed the pin: rows %s->%s bytes %s->%s version %s->%s", rows0, rows, bytes0, bytes, v0, v)
	}
	got, err := query(db, "SELECT COUNT(*), SUM(delay) FROM incr_flights")
	if err != nil || got.err != nil || got.rows[0][0] != rows0 {
		t.Errorf("query after refused refresh: %v %v, want the pin's %s rows", err, got, rows0)
	}
}
