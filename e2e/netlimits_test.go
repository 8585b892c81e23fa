package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/go-sql-driver/mysql"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/shoaldb/shoal/config"
)

// Clients that hold the coordinator without finishing what they started,
// as MariaDB bounds them: connect_timeout for a handshake, net_write_timeout
// for a result the client stopped reading.

// TestConnectTimeout: clients that connect and send nothing, or half a
// handshake response, fill max_connections; the next client gets 1040 at
// once (not a hang), and after connect_timeout the coordinator closes the
// silent ones (MariaDB resets them after its connect_timeout, 10 s by
// default) and admits new clients again. A client that completed its
// handshake may stay idle past connect_timeout. Without the handshake's
// deadline (admitListener, frontend/mysqlwire/conn.go) the silent
// connections hold their slots forever: this fails.
func TestConnectTimeout(t *testing.T) {
	checkLeaks(t)
	const timeout = time.Second
	fs := startFaultShoal(t, func(c *config.Coordinator) {
		c.MaxConnections = 3
		c.ConnectTimeout = config.Duration(timeout)
	})
	ctx := context.Background()
	fs.db.SetMaxIdleConns(0)
	idle, err := fs.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	if err := idle.PingContext(ctx); err != nil {
		t.Fatal(err)
	}
	addr := fs.co.Addr().String()
	silent, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	half, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer half.Close()
	// A handshake response's header announcing 100 bytes, and 3 of them.
	if _, err := half.Write([]byte{100, 0, 0, 1, 0x8d, 0xa6, 0x0f}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	db := oneConn(t, addr)
	var me *mysql.MySQLError
	if err := db.PingContext(ctx); !errors.As(err, &me) || me.Number != 1040 || !strings.Contains(me.Message, "Too many connections") {
		t.Fatalf("a client past max_connections: %v, want 1040", err)
	}
	if d := time.Since(start); d > timeout {
		t.Errorf("1040 came after %s, want at once", d)
	}
	for name, c := range map[string]net.Conn{"silent": silent, "half a handshake": half} {
		c.SetReadDeadline(time.Now().Add(20 * time.Second))
		_, err := io.Copy(io.Discard, c) // the greeting, then the close
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Errorf("%s client still connected after 20s, want closed after connect_timeout (%s)", name, timeout)
		}
	}
	t.Logf("silent clients closed %s after connecting", time.Since(start).Round(time.Millisecond))
	settle(t, "admission", func() (bool, string) {
		err := db.PingContext(ctx)
		return err == nil, "new client: " + errString(err)
	})
	// The idle client completed its handshake before: still served.
	if err := idle.PingContext(ctx); err != nil {
		t.Errorf("a client idle %s past its handshake: %v", time.Since(start).Round(time.Millisecond), err)
	}
}

// TestNetWriteTimeout: clients that send a statement with a big result and
// never read it — a distributed scan, a passthrough — are disconnected
// after net_write_timeout, as MariaDB aborts them, and everything their
// statements held is released: the sessions leave the processlist, no
// statement runs, no query memory is held, no fragment runs on a worker,
// the replicas are back to their connections before. A session that set a
// longer net_write_timeout (MySQL Connector/J sets 600 for a streamed
// result) stalls as long and keeps its connection. Without the write
// deadline (packetConn, frontend/mysqlwire/packet.go) the stalled clients
// hold their statements forever: this fails.
func TestNetWriteTimeout(t *testing.T) {
	checkLeaks(t)
	const timeout = time.Second
	fs, metrics := writeTimeoutShoal(t, timeout)
	lt := &loadTest{t: t, fs: fs}
	base := lt.replicaConns()
	passQ := "SELECT id, REPEAT(Carrier, 200) AS pad FROM ontime WHERE RAND() >= 0"
	if ex := explainOn(t, fs.db, passQ); !strings.Contains(strings.ToLower(ex), "passthrough") {
		t.Fatalf("%s is not passed through:\n%s", passQ, ex)
	}
	if ex := explainOn(t, fs.db, rowsQuery); !strings.Contains(ex, "fragments") {
		t.Fatalf("%s is not distributed:\n%s", rowsQuery, ex)
	}
	stall := func(setting, q string) *rawConn {
		rc := rawLogin(t, fs.co.Addr().String(), "root", "", "ontime")
		t.Cleanup(func() { rc.c.Close() })
		if setting != "" {
			rc.command(3, []byte(setting))
			if p := rc.read(); len(p) == 0 || p[0] != 0 {
				t.Fatalf("%s: %q", setting, p)
			}
		}
		rc.c.(*net.TCPConn).SetReadBuffer(4 << 10)
		rc.c.SetDeadline(time.Time{})
		if err := rc.sendCommand(3, []byte(q)); err != nil {
			t.Fatal(err)
		}
		return rc
	}
	stalled := []*rawConn{stall("", rowsQuery), stall("", passQ)}
	// A session with its own, longer, timeout (MySQL Connector/J's
	// netTimeoutForStreamingResults) stalls as long and stays.
	patient := stall("SET SESSION net_write_timeout = 600", rowsQuery)
	for i, rc := range stalled {
		rc.c.SetReadDeadline(time.Now().Add(20 * time.Second))
		_, err := io.Copy(io.Discard, rc.c)
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Errorf("stalled client %d still connected after 20s, want closed after net_write_timeout (%s)", i, timeout)
		}
	}
	time.Sleep(timeout) // the patient session has stalled past the coordinator's timeout
	settle(t, "the patient session", func() (bool, string) {
		pl, err := rowsString(fs.db.Query("SHOW PROCESSLIST"))
		return err == nil && strings.Count(pl, "\n") == 2 && strings.Contains(pl, rowsQuery), pl
	})
	patient.c.Close()
	settle(t, "stalled statements", func() (bool, string) {
		pl, err := rowsString(fs.db.Query("SHOW PROCESSLIST"))
		m := scrapeURL(t, metrics)
		ok := err == nil && strings.Count(pl, "\n") == 1 && m["shoal_statements_running"] <= 1 &&
			m["shoal_query_memory_bytes"] == 0 && fs.workers[0].Running()+fs.workers[1].Running() == 0
		return ok, fmt.Sprintf("query memory %v bytes, worker fragments %d, processlist\n%s", m["shoal_query_memory_bytes"], fs.workers[0].Running()+fs.workers[1].Running(), pl)
	})
	settle(t, "replica connections", func() (bool, string) {
		now := lt.replicaConns()
		ok := true
		for i := range now {
			ok = ok && now[i].conns <= base[i].conns+replicaPoolIdle && now[i].running == 0
		}
		return ok, fmt.Sprintf("before %v, now %v", base, now)
	})
}

// errString is err's text, "" for none.
func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// writeTimeoutShoal starts a coordinator with net_write_timeout d and a
// metrics endpoint; it returns it with the metrics' URL.
func writeTimeoutShoal(t *testing.T, d time.Duration) (*faultShoal, string) {
	t.Helper()
	fs := startFaultShoal(t, func(c *config.Coordinator) {
		c.NetWriteTimeout = config.Duration(d)
		c.HTTPListen = new("127.0.0.1:0")
	})
	return fs, "http://" + fs.co.HTTPAddr().String() + "/metrics"
}

// TestFlightSQLStalledClient: a Flight SQL client that stops reading a
// large result holds nothing past net_write_timeout: the statement ends,
// its fragments and query memory go back, and a client that reads on gets
// the error (DeadlineExceeded), never a stream cut short that looks
// whole. A statement that computes long before its first batch is not
// taken for a stall.
func TestFlightSQLStalledClient(t *testing.T) {
	checkLeaks(t)
	const timeout = time.Second
	fs, metrics := writeTimeoutShoal(t, timeout)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	srv, err := fs.co.StartFlightSQL("127.0.0.1:0", mem)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		srv.Close()
		mem.AssertSize(t, 0)
	}()
	cl, err := flightsql.NewClient(srv.Addr().String(), nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithInitialWindowSize(64<<10), grpc.WithInitialConnWindowSize(64<<10))
	if err != nil {
		t.Fatal(err)
	}
	cl.Alloc = mem
	defer cl.Close()
	ctx := flightLogin(t, cl, "root", "", "ontime")

	// Slow to start, then read at once: whole.
	slow := "SELECT SLEEP(1.5) AS s, COUNT(*) AS n FROM carriers"
	if r, err := flightRun(ctx, cl, slow); err != nil || len(r.rows) != 1 {
		t.Fatalf("%s: %v %v", slow, r, err)
	}

	info, err := cl.Execute(ctx, rowsQuery)
	if err != nil {
		t.Fatal(err)
	}
	rdr, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Release()
	if !rdr.Next() {
		t.Fatalf("no first batch: %v", rdr.Err())
	}
	// Stop reading: the statement must end within net_write_timeout and
	// give back what it held.
	settle(t, "the stalled Flight SQL statement", func() (bool, string) {
		m := scrapeURL(t, metrics)
		ok := m["shoal_statements_running"] == 0 && m["shoal_query_memory_bytes"] == 0 && fs.workers[0].Running()+fs.workers[1].Running() == 0
		return ok, fmt.Sprintf("running %v, query memory %v, worker fragments %d", m["shoal_statements_running"], m["shoal_query_memory_bytes"], fs.workers[0].Running()+fs.workers[1].Running())
	})
	for rdr.Next() {
	}
	if st, ok := status.FromError(rdr.Err()); !ok || st.Code() != codes.DeadlineExceeded {
		t.Errorf("reading on after the stall: %v, want DeadlineExceeded", rdr.Err())
	}
}
