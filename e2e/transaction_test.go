package e2e

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"testing"
)

// TestTransactionSnapshot: reads in a transaction the client opened run
// in it, so they see its snapshot as they would directly. Shoal ran them
// distributed, on the workers' connections, outside the transaction: a
// second count in a REPEATABLE READ transaction saw rows committed after
// the first (mysqldump --single-transaction, or a report reading several
// tables as of one moment, would mix moments).
func TestTransactionSnapshot(t *testing.T) {
	directExec(t, "DROP TABLE IF EXISTS tx_t",
		"CREATE TABLE tx_t (id INT NOT NULL PRIMARY KEY, g TINYINT NOT NULL, v INT NOT NULL)",
		"INSERT INTO tx_t SELECT seq, seq % 7, seq % 1000 FROM seq_1_to_30000")
	t.Cleanup(func() { env.direct.Exec("DROP TABLE IF EXISTS tx_t") })
	replicasAndCatalog(t)
	const count = "SELECT g, COUNT(*), SUM(v) FROM tx_t GROUP BY g ORDER BY g"
	if plan := explain(t, count); !strings.Contains(plan, "split ") {
		t.Fatalf("%s is not distributed outside a transaction:\n%s", count, plan)
	}
	ctx := context.Background()
	reads := 0
	for _, begin := range []string{"START TRANSACTION WITH CONSISTENT SNAPSHOT", "START TRANSACTION READ ONLY", "BEGIN"} {
		c, err := env.shoal.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		read := func() string {
			reads++ // a new text each time: no cached result answers it
			q := fmt.Sprintf("SELECT g, COUNT(*), SUM(v) FROM tx_t WHERE v > -%d GROUP BY g ORDER BY g", reads)
			r, err := queryArgs(c, q)
			if err != nil || r.err != nil {
				t.Fatalf("%s: %v %v", q, err, r.err)
			}
			return strings.Join(flat(r.rows), " ")
		}
		if _, err := c.ExecContext(ctx, begin); err != nil {
			t.Fatalf("%s: %v", begin, err)
		}
		before := read()
		directExec(t, "INSERT INTO tx_t SELECT 100000 + seq, 3, 1 FROM seq_1_to_500")
		replicasCaughtUp(t)
		if got := read(); got != before {
			t.Errorf("after %s the second read saw the insert committed after the first:\nfirst  %s\nsecond %s", begin, before, got)
		}
		if _, err := c.ExecContext(ctx, "COMMIT"); err != nil {
			t.Fatal(err)
		}
		if got := read(); got == before {
			t.Errorf("after COMMIT the read still saw the transaction's snapshot: %s", got)
		}
		c.Close()
		directExec(t, "DELETE FROM tx_t WHERE id > 100000")
		replicasCaughtUp(t)
	}
}

// TestLockTablesRead: LOCK TABLES … READ is taken on the session's
// replica connection and the session's reads run there, under the lock,
// until UNLOCK TABLES or a transaction's start release it: a table it
// did not lock fails with 1100, as on MariaDB. Shoal refused the lock
// (1290), which broke mariadb-dump's default --lock-tables (TestDump).
func TestLockTablesRead(t *testing.T) {
	ctx := context.Background()
	const q = "SELECT DayOfWeek, COUNT(*), SUM(Distance) FROM ontime GROUP BY DayOfWeek ORDER BY DayOfWeek"
	if plan := explain(t, q); !strings.Contains(plan, "split ") {
		t.Fatalf("%s is not distributed:\n%s", q, plan)
	}
	// Each release ends with the session unlocked and in no transaction;
	// the third first moves the lock to another table.
	for _, release := range [][]string{{"UNLOCK TABLES"}, {"START TRANSACTION", q, "ROLLBACK"},
		{"LOCK TABLES carriers READ", q, "SELECT COUNT(*) FROM carriers", "UNLOCK TABLES"}} {
		s, err := env.shoal.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		d, err := env.direct.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		both := func(q string) (*result, *result) {
			got, err := queryArgs(s, q)
			if err != nil {
				t.Fatalf("shoal: %s: %v", q, err)
			}
			want, err := queryArgs(d, q)
			if err != nil {
				t.Fatalf("direct: %s: %v", q, err)
			}
			return got, want
		}
		for _, step := range append([]string{"LOCK TABLES ontime READ LOCAL", q, "SELECT COUNT(*) FROM carriers",
			"SELECT COUNT(*) FROM ontime o JOIN carriers c ON c.code = o.Carrier"}, release...) {
			got, want := both(step)
			compare(t, step, got, want, true)
		}
		if plan := explainOn(t, s, q); !strings.Contains(plan, "split ") {
			t.Errorf("after %s: %s is not distributed again:\n%s", release, q, plan)
		}
		got, want := both(q)
		compare(t, q, got, want, true)
		for _, c := range []interface {
			ExecContext(context.Context, string, ...any) (sql.Result, error)
		}{s, d} {
			c.ExecContext(ctx, "UNLOCK TABLES")
			c.ExecContext(ctx, "ROLLBACK")
		}
		s.Close()
		d.Close()
	}
}

// TestDump: mariadb-dump through Shoal writes what it writes from the
// primary. With --single-transaction it sends START TRANSACTION WITH
// CONSISTENT SNAPSHOT, UNLOCK TABLES and a SAVEPOINT per table, which
// Shoal refused (1290) as if they wrote; by default it takes LOCK
// TABLES … READ LOCAL, also refused (mysqldump: Got error: 1290 … when
// using LOCK TABLES), and reads under the locks.
func TestDump(t *testing.T) {
	bin := lookClient(t, "no mariadb-dump or mysqldump on PATH (apt-get install -y mariadb-client)", "mariadb-dump", "mysqldump")
	dump := func(addr string, mode ...string) string {
		host, port, _ := net.SplitHostPort(addr)
		args := append(mode, "--skip-dump-date", "--skip-ssl", "-h", host, "-P", port,
			"-u", env.cluster.User, "--password="+env.cluster.Password, env.cluster.Database, "carriers", "airports", "ontime")
		cmd := exec.Command(bin, args...)
		var errb bytes.Buffer
		cmd.Stderr = &errb
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s against %s: %v\n%s", bin, addr, err, errb.String())
		}
		var keep []string
		for _, l := range strings.Split(string(out), "\n") {
			if !strings.HasPrefix(l, "-- Server version") { // Shoal's says -shoal
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	// --single-transaction reads in one transaction; the default
	// (--lock-tables) takes LOCK TABLES … READ LOCAL and reads under it;
	// --skip-lock-tables reads each table as it is: its SELECT * is
	// distributed, and the fragments' rows come in key order as the
	// primary's scan returns them (docs/sql.md, SELECT without ORDER BY),
	// so the dumps are the same byte for byte.
	for _, mode := range [][]string{{"--single-transaction"}, nil, {"--skip-lock-tables"}} {
		got, want := dump(env.coord.Addr().String(), mode...), dump(env.cluster.Primary, mode...)
		if !strings.Contains(want, "INSERT INTO `ontime`") {
			t.Fatalf("%v: the primary's dump holds no ontime rows:\n%.500s", mode, want)
		}
		if got != want {
			i := 0
			for i < len(got) && i < len(want) && got[i] == want[i] {
				i++
			}
			t.Errorf("%v: dumps differ at byte %d of %d/%d:\nshoal  %.300q\ndirect %.300q", mode, i, len(got), len(want), got[max(i-100, 0):], want[max(i-100, 0):])
		}
	}
}
