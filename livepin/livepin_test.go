package livepin

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/replication"
	"vitess.io/vitess/go/sqltypes"

	"github.com/shoaldb/shoal/deploy/localcluster"
	"github.com/shoaldb/shoal/evalexpr"
	"github.com/shoaldb/shoal/pinned"
)

var testAddr string

func TestMain(m *testing.M) {
	os.Exit(func() int {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		addr, stop, err := localcluster.TestMySQL(ctx)
		if err != nil {
			fmt.Fprintln(os.Stderr, "livepin tests need a MariaDB or MySQL server:", err)
			return 1
		}
		defer stop()
		testAddr = addr
		return m.Run()
	}())
}

func dial(t *testing.T) *mysql.Conn {
	t.Helper()
	host, p, _ := net.SplitHostPort(testAddr)
	port, _ := strconv.Atoi(p)
	c, err := mysql.Connect(context.Background(), &mysql.ConnParams{Host: host, Port: port, Uname: "root"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func exec(t *testing.T, c *mysql.Conn, qs ...string) {
	t.Helper()
	for _, q := range qs {
		if _, err := c.ExecuteFetch(q, 100000, false); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

func texts(rows [][]sqltypes.Value) []string {
	var out []string
	for _, r := range rows {
		var s []string
		for _, v := range r {
			if v.IsNull() {
				s = append(s, "NULL")
			} else {
				s = append(s, v.ToString())
			}
		}
		out = append(out, strings.Join(s, "|"))
	}
	slices.Sort(out)
	return out
}

func (p *Pin) rowsForTest() [][]sqltypes.Value {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.st.live()
}

// caughtUp waits until the pin's visible version is at the server's
// current position.
func caughtUp(t *testing.T, c *mysql.Conn, p *Pin) {
	t.Helper()
	r, err := c.ExecuteFetch("SELECT @@gtid_binlog_pos", 1, false)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := replication.ParseMariadbGTIDSet(r.Rows[0][0].ToString())
	deadline := time.Now().Add(20 * time.Second)
	for {
		st := p.Status()
		if got, err := replication.ParseMariadbGTIDSet(st.Position); err == nil && got.Contains(want) && st.Lag == 0 && strings.HasPrefix(st.State, "following") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the pin did not reach %s: %+v", want, st)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func same(t *testing.T, c *mysql.Conn, p *Pin, query string) {
	t.Helper()
	r, err := c.ExecuteFetch(query, 1000000, false)
	if err != nil {
		t.Fatal(err)
	}
	got, want := texts(p.rowsForTest()), texts(r.Rows)
	if !slices.Equal(got, want) {
		t.Fatalf("pin and %s differ:\n got %q\nwant %q", query, got, want)
	}
}

func start(t *testing.T, spec Spec) (*Pin, *atomic.Int64) {
	t.Helper()
	env, err := evalexpr.NewEnv("10.11.0-MariaDB")
	if err != nil {
		t.Fatal(err)
	}
	var versions atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	p, _, err := Start(ctx, spec, Config{Addrs: []string{testAddr}, User: "root", Env: env, MinInterval: 20 * time.Millisecond,
		Publish: func(*pinned.Table) error { versions.Add(1); return nil }})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); p.Stop() })
	return p, &versions
}

// TestLivePin follows inserts, updates (also of the key, and across the
// WHERE) and deletes into a whole-table pin and a filtered one, compares
// both with SELECT at the same position, then makes them reload on DDL.
func TestLivePin(t *testing.T) {
	c := dial(t)
	exec(t, c, "CREATE DATABASE IF NOT EXISTS lp", "DROP TABLE IF EXISTS lp.t",
		"CREATE TABLE lp.t (id INT PRIMARY KEY, grp VARCHAR(10), amount DECIMAL(10,2), ts TIMESTAMP NULL, note TEXT)")
	for i := range 200 {
		exec(t, c, fmt.Sprintf("INSERT INTO lp.t VALUES (%d, 'g%d', %d.25, '2024-01-01 00:00:00' + INTERVAL %d MINUTE, NULL)", i, i%5, i, i))
	}
	whole, _ := start(t, Spec{DB: "lp", Name: "t", SrcDB: "lp", SrcTable: "t", Whole: true, Source: "SELECT * FROM lp.t"})
	where := "`grp` IN ('g1', 'g2') AND `amount` > 20"
	filtered, versions := start(t, Spec{DB: "lp", Name: "f", SrcDB: "lp", SrcTable: "t", Source: "SELECT id, amount AS a FROM lp.t WHERE " + where,
		Columns: []string{"id", "amount"}, Names: []string{"id", "a"}, Where: where})
	wholeQ, filtQ := "SELECT * FROM lp.t", "SELECT id, amount FROM lp.t WHERE "+where
	same(t, c, whole, wholeQ)
	same(t, c, filtered, filtQ)

	exec(t, c,
		"INSERT INTO lp.t VALUES (1000, 'g1', 99.99, NOW(), 'new')",
		"BEGIN", "UPDATE lp.t SET grp = 'g1' WHERE id BETWEEN 30 AND 40", "UPDATE lp.t SET amount = amount + 1 WHERE grp = 'g2'", "COMMIT",
		"UPDATE lp.t SET id = id + 5000 WHERE id < 10",          // key changes
		"UPDATE lp.t SET grp = 'g9' WHERE id BETWEEN 50 AND 60", // out of the filter
		"DELETE FROM lp.t WHERE id % 7 = 0",
		"UPDATE lp.t SET note = 'x' WHERE id = 1000",
		"INSERT INTO lp.t VALUES (2000, 'g2', 5.00, NULL, NULL)",   // fails the WHERE
		"REPLACE INTO lp.t VALUES (1000, 'g2', 100.00, NULL, 'r')", // delete + insert of one key
	)
	caughtUp(t, c, whole)
	caughtUp(t, c, filtered)
	same(t, c, whole, wholeQ)
	same(t, c, filtered, filtQ)
	if st := whole.Status(); st.Applied < 100 || st.Loads != 1 {
		t.Errorf("whole pin status: %+v", st)
	}
	if versions.Load() < 2 {
		t.Errorf("the filtered pin published %d versions", versions.Load())
	}

	// A DDL on the table reloads both pins; they follow the new shape.
	exec(t, c, "ALTER TABLE lp.t ADD COLUMN extra INT DEFAULT 7")
	caughtUp(t, c, whole)
	// With no transaction after the DDL the reload's snapshot position is
	// before it: the pin must not reload again for it.
	time.Sleep(1500 * time.Millisecond)
	if st := whole.Status(); st.Loads != 2 {
		t.Fatalf("the pin reloaded %d times for one DDL: %+v", st.Loads-1, st)
	}
	exec(t, c, "UPDATE lp.t SET extra = id WHERE id < 100")
	caughtUp(t, c, whole)
	caughtUp(t, c, filtered)
	st := whole.Status()
	if st.Loads != 2 || !strings.Contains(st.LastReload, "ADD COLUMN extra") {
		t.Fatalf("after the DDL: %+v", st)
	}
	same(t, c, whole, wholeQ)
	same(t, c, filtered, filtQ)
}

func TestNotLive(t *testing.T) {
	c := dial(t)
	exec(t, c, "CREATE DATABASE IF NOT EXISTS lp", "DROP TABLE IF EXISTS lp.nopk, lp.en, lp.l1",
		"CREATE TABLE lp.nopk (a INT)", "CREATE TABLE lp.l1 (id INT PRIMARY KEY, e VARCHAR(5) CHARACTER SET latin1)")
	env, _ := evalexpr.NewEnv("")
	for _, tbl := range []string{"nopk", "l1"} {
		_, _, err := Start(context.Background(), Spec{DB: "lp", Name: tbl, SrcDB: "lp", SrcTable: tbl, Whole: true},
			Config{Addrs: []string{testAddr}, User: "root", Env: env, Publish: func(*pinned.Table) error { return nil }})
		var nl *ErrNotLive
		if !errors.As(err, &nl) {
			t.Errorf("%s: %v, want ErrNotLive", tbl, err)
		}
	}
}
