package replstream

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/sqltypes"

	"github.com/shoaldb/shoal/deploy/localcluster"
)

// testAddr is a MariaDB (or MySQL) server with a binary log, started for
// the package's tests.
var testAddr string

func TestMain(m *testing.M) {
	os.Exit(func() int {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		addr, stop, err := localcluster.TestMySQL(ctx)
		if err != nil {
			fmt.Fprintln(os.Stderr, "replstream tests need a MariaDB or MySQL server:", err)
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
		if _, err := c.ExecuteFetch(q, 1000, false); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

func fetch(t *testing.T, c *mysql.Conn, q string) *sqltypes.Result {
	t.Helper()
	r, err := c.ExecuteFetch(q, 10000, true)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return r
}

func str(t *testing.T, c *mysql.Conn, q string) string {
	t.Helper()
	r := fetch(t, c, q)
	if len(r.Rows) != 1 {
		t.Fatalf("%s: %d rows", q, len(r.Rows))
	}
	return r.Rows[0][0].ToString()
}

func rowText(r []sqltypes.Value) string {
	var s []string
	for _, v := range r {
		switch {
		case v.IsNull():
			s = append(s, "NULL")
		case v.Type() == sqltypes.Float32 || v.Type() == sqltypes.Float64:
			v = ShowFloat(v) // a FLOAT as a SELECT shows it
			// Equal as numbers: "1.23457e+08" is MariaDB's "123457000".
			x, _ := v.ToFloat64()
			s = append(s, v.Type().String()+":"+strconv.FormatFloat(x, 'g', -1, 64))
		default:
			s = append(s, v.Type().String()+":"+v.ToString())
		}
	}
	return strings.Join(s, "|")
}

// collect follows from start and returns the transactions on a channel.
func collect(t *testing.T, ctx context.Context, cfg Config) (<-chan Tx, <-chan error) {
	txs := make(chan Tx, 1000)
	done := make(chan error, 1)
	go func() {
		done <- Follow(ctx, cfg, func(_ context.Context, b Batch) error {
			for _, tx := range b.Txs {
				txs <- tx
			}
			return nil
		})
	}()
	return txs, done
}

func next(t *testing.T, txs <-chan Tx) Tx {
	t.Helper()
	select {
	case tx := <-txs:
		return tx
	case <-time.After(15 * time.Second):
		t.Fatal("no transaction within 15s")
	}
	return Tx{}
}

// TestFollow writes on the server and checks every decoded change against
// what SELECT shows, every transaction's GTID against @@last_gtid, and
// that a DDL arrives as a query.
func TestFollow(t *testing.T) {
	c := dial(t)
	if !c.IsMariaDB() {
		t.Skip("the test reads MariaDB's @@last_gtid")
	}
	exec(t, c, "CREATE DATABASE IF NOT EXISTS rs", "DROP TABLE IF EXISTS rs.t, rs.other",
		`CREATE TABLE rs.t (id INT PRIMARY KEY, name VARCHAR(40), amount DECIMAL(10,2), f FLOAT, g DOUBLE,
			ts TIMESTAMP(3) NULL, d DATE, dt DATETIME(6), tm TIME, y YEAR, u INT UNSIGNED, big BIGINT UNSIGNED,
			tiny TINYINT, c CHAR(5), b VARBINARY(10), tx TEXT, n INT NULL)`,
		"CREATE TABLE rs.other (id INT PRIMARY KEY)")
	// The table as SELECT * describes it, in a +02:00 session.
	exec(t, c, "SET time_zone = '+02:00'")
	fields := fetch(t, c, "SELECT * FROM rs.t LIMIT 0").Fields
	table := &Table{DB: "rs", Name: "t", Columns: fields, Loc: time.FixedZone("", 2*3600)}
	start := str(t, c, "SELECT @@gtid_binlog_pos")

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	txs, done := collect(t, ctx, Config{Addrs: []string{testAddr}, User: "root", Start: start, Tables: []*Table{table}})

	selectRow := func(id int) string {
		r := fetch(t, c, fmt.Sprintf("SELECT * FROM rs.t WHERE id = %d", id))
		if len(r.Rows) != 1 {
			t.Fatalf("row %d: %d rows", id, len(r.Rows))
		}
		return rowText(r.Rows[0])
	}
	lastGTID := func() string { return str(t, c, "SELECT @@last_gtid") }

	// A two-row insert in one transaction.
	exec(t, c, "BEGIN",
		`INSERT INTO rs.t VALUES (1, 'ä name', 12.50, 0.1, 1.0000000001, '2024-03-01 10:11:12.345', '2024-03-01',
			'2024-03-01 01:02:03.000004', '-12:30:00', 2024, 4294967295, 18446744073709551615, -7, 'ab', x'00ff', 'long text', NULL)`,
		"INSERT INTO rs.t (id, name) VALUES (2, 'two')", "COMMIT")
	g1 := lastGTID()
	tx := next(t, txs)
	if tx.GTID != g1 || len(tx.Changes) != 2 || tx.Changes[0].Kind != Insert {
		t.Fatalf("insert tx: gtid %s (want %s), %d changes", tx.GTID, g1, len(tx.Changes))
	}
	if got, want := rowText(tx.Changes[0].After), selectRow(1); got != want {
		t.Errorf("inserted row 1:\n got %s\nwant %s", got, want)
	}
	if got, want := rowText(tx.Changes[1].After), selectRow(2); got != want {
		t.Errorf("inserted row 2:\n got %s\nwant %s", got, want)
	}
	if tx.Position != str(t, c, "SELECT @@gtid_binlog_pos") {
		t.Errorf("position after the tx %s, server %s", tx.Position, str(t, c, "SELECT @@gtid_binlog_pos"))
	}

	// An update: before and after images.
	before := selectRow(1)
	exec(t, c, "UPDATE rs.t SET name = 'one', amount = -0.05, f = 123456789, ts = '1999-12-31 23:59:59.999' WHERE id = 1")
	tx = next(t, txs)
	if tx.GTID != lastGTID() || len(tx.Changes) != 1 || tx.Changes[0].Kind != Update {
		t.Fatalf("update tx: %+v", tx)
	}
	if got := rowText(tx.Changes[0].Before); got != before {
		t.Errorf("update before:\n got %s\nwant %s", got, before)
	}
	if got, want := rowText(tx.Changes[0].After), selectRow(1); got != want {
		t.Errorf("update after:\n got %s\nwant %s", got, want)
	}

	// A transaction on another table arrives without changes.
	exec(t, c, "INSERT INTO rs.other VALUES (1)")
	tx = next(t, txs)
	if tx.GTID != lastGTID() || len(tx.Changes) != 0 || len(tx.Queries) != 0 {
		t.Fatalf("other-table tx: %+v", tx)
	}

	// A delete.
	before = selectRow(2)
	exec(t, c, "DELETE FROM rs.t WHERE id = 2")
	tx = next(t, txs)
	if len(tx.Changes) != 1 || tx.Changes[0].Kind != Delete || rowText(tx.Changes[0].Before) != before || tx.Changes[0].After != nil {
		t.Fatalf("delete tx: %+v", tx)
	}

	// A DDL is a query of its own transaction; the next row event of the
	// changed table ends the stream with a SchemaError.
	exec(t, c, "ALTER TABLE rs.t ADD COLUMN extra INT")
	tx = next(t, txs)
	if len(tx.Queries) != 1 || !strings.Contains(tx.Queries[0].SQL, "ADD COLUMN extra") || tx.GTID != lastGTID() {
		t.Fatalf("ddl tx: %+v", tx)
	}
	exec(t, c, "INSERT INTO rs.t (id) VALUES (3)")
	select {
	case err := <-done:
		var se *SchemaError
		if !errors.As(err, &se) || se.Position != tx.Position {
			t.Fatalf("after the DDL: %v, want a SchemaError at %s", err, tx.Position)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Follow did not stop at the changed table")
	}
}

// TestFollowReconnects kills the server's dump thread mid-stream: Follow
// reconnects from the last transaction and delivers each one once.
func TestFollowReconnects(t *testing.T) {
	c := dial(t)
	exec(t, c, "CREATE DATABASE IF NOT EXISTS rs", "DROP TABLE IF EXISTS rs.r", "CREATE TABLE rs.r (id INT PRIMARY KEY, v INT)")
	fields := fetch(t, c, "SELECT * FROM rs.r LIMIT 0").Fields
	start := str(t, c, "SELECT @@gtid_binlog_pos")
	if !c.IsMariaDB() {
		start = str(t, c, "SELECT @@gtid_executed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	connects := make(chan string, 10)
	txs, done := collect(t, ctx, Config{Addrs: []string{testAddr}, User: "root", Start: start, ServerID: NewServerID(),
		Tables: []*Table{{DB: "rs", Name: "r", Columns: fields}}, Retry: 50 * time.Millisecond,
		OnConnect: func(a string) { connects <- a }})
	<-connects
	seen := map[string]int{}
	for i := 1; i <= 30; i++ {
		exec(t, c, fmt.Sprintf("INSERT INTO rs.r VALUES (%d, %d)", i, i))
		if i%10 == 0 {
			// Kill the dump thread serving the follower.
			r := fetch(t, c, "SELECT ID FROM information_schema.PROCESSLIST WHERE COMMAND LIKE 'Binlog Dump%'")
			for _, row := range r.Rows {
				exec(t, c, "KILL "+row[0].ToString())
			}
			select {
			case <-connects:
			case <-time.After(10 * time.Second):
				t.Fatal("no reconnect")
			}
		}
	}
	for i := 1; i <= 30; i++ {
		tx := next(t, txs)
		if len(tx.Changes) != 1 {
			t.Fatalf("tx %s: %d changes", tx.GTID, len(tx.Changes))
		}
		id := tx.Changes[0].After[0].ToString()
		seen[id]++
		if id != strconv.Itoa(i) {
			t.Fatalf("transaction %d carries row %s", i, id)
		}
	}
	select {
	case tx := <-txs:
		t.Fatalf("an extra transaction: %+v", tx)
	case <-time.After(500 * time.Millisecond):
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Follow after cancel: %v", err)
	}
}

// TestFollowUnknownPosition: a position the server cannot serve ends
// Follow with a FatalError, not endless retries.
func TestFollowUnknownPosition(t *testing.T) {
	c := dial(t)
	if !c.IsMariaDB() {
		t.Skip("MariaDB positions")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// A domain the server never logged, far past its sequence numbers.
	err := Follow(ctx, Config{Addrs: []string{testAddr}, User: "root", Start: "0-1-999999999,77-1-5"},
		func(context.Context, Batch) error { return nil })
	var fe *FatalError
	if !errors.As(err, &fe) {
		t.Fatalf("Follow from an unknown position: %v", err)
	}
}
