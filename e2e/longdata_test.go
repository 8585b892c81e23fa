package e2e

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// TestPreparedLongData: parameters sent with COM_STMT_SEND_LONG_DATA.
// go-sql-driver sends a string or []byte argument that way once it is
// longer than maxAllowedPacket / (parameters + 1); with maxAllowedPacket
// 4096 a 3,000-byte argument goes as long data, before COM_STMT_EXECUTE.
// Distributed and passed-through statements must answer as MariaDB does.
// The connections count the COM_STMT_SEND_LONG_DATA packets they write, so
// the test fails if none was sent (as without maxAllowedPacket in the DSN).
func TestPreparedLongData(t *testing.T) {
	var sent atomic.Int64
	mysql.RegisterDialContext("longdata", func(ctx context.Context, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
		if err != nil {
			return nil, err
		}
		return &longDataCounter{Conn: c, n: &sent}, nil
	})
	open := func(dsn string) *sql.DB {
		db, err := sql.Open("mysql", dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	const small = "maxAllowedPacket=4096"
	shoal := open("root@longdata(" + env.coord.Addr().String() + ")/ontime?" + small)
	direct := open(strings.Replace(env.cluster.DSN(env.cluster.Primary), "@tcp(", "@longdata(", 1) + "?" + small)
	long := strings.Repeat("x", 1500) + "ünïcödé" + strings.Repeat("y", 1500)
	cases := []struct {
		name  string
		q     string
		args  []any
		nlong int // arguments sent as long data
	}{
		{"distributed, long string", "select Carrier, count(*) from ontime where Origin <> ? and DayOfWeek = ? group by Carrier order by Carrier", []any{long, 3}, 1},
		{"distributed, long bytes", "select count(*), sum(Distance) from ontime where TailNum <> ? or TailNum is null", []any{[]byte(long)}, 1},
		{"passthrough echo", "select length(?) as n, left(?, 4) as l, right(?, 4) as r, md5(?) as h", []any{long, long, long, long}, 4},
	}
	longArgs := 0
	for _, c := range cases {
		longArgs += c.nlong
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := queryArgs(shoal, c.q, c.args...)
			if err != nil {
				t.Fatal(err)
			}
			want, err := queryArgs(direct, c.q, c.args...)
			if err != nil {
				t.Fatal(err)
			}
			if want.err != nil || len(want.rows) == 0 {
				t.Fatalf("direct: %v, %d rows", want.err, len(want.rows))
			}
			compare(t, c.q, got, want, true)
		})
	}
	if sent.Load() < int64(2*longArgs) { // Shoal's side and MariaDB's
		t.Fatalf("%d COM_STMT_SEND_LONG_DATA packets sent: the cases did not use long data", sent.Load())
	}
	// COM_STMT_RESET (raw protocol): it drops long data sent so far and
	// keeps the statement; MariaDB answers OK and so must Shoal.
	trace := func(addr, user, pass string) []string {
		rc := rawDial(t, addr, user, pass, env.cluster.Database)
		var out []string
		id, perr := rc.prepare("SELECT COUNT(*) FROM ontime WHERE DayOfWeek = 2")
		if perr != nil {
			t.Fatalf("%s: prepare: %v", addr, perr)
		}
		n, eerr := rc.execute(id)
		out = append(out, fmt.Sprintf("execute → %d rows, %v", n, eerr))
		rc.command(0x1a, binary.LittleEndian.AppendUint32(nil, id)) // COM_STMT_RESET
		p := rc.read()
		out = append(out, fmt.Sprintf("reset → 0x%02x", p[0]))
		n, eerr = rc.execute(id)
		out = append(out, fmt.Sprintf("execute after reset → %d rows, %v", n, eerr))
		if err := rc.ping(); err != nil {
			t.Fatalf("%s: ping: %v", addr, err)
		}
		return out
	}
	got := trace(env.coord.Addr().String(), "root", "")
	want := trace(env.cluster.Primary, env.cluster.User, env.cluster.Password)
	if !slices.Equal(got, want) || want[1] != "reset → 0x00" {
		t.Errorf("COM_STMT_RESET differs\nshoal:\n  %s\nprimary:\n  %s", joinLines(got), joinLines(want))
	}
}

// longDataCounter counts the COM_STMT_SEND_LONG_DATA packets written on a
// connection: go-sql-driver writes each packet with one Write, header
// (4 bytes) then command byte.
type longDataCounter struct {
	net.Conn
	n *atomic.Int64
}

func (c *longDataCounter) Write(p []byte) (int, error) {
	if len(p) > 4 && p[4] == 0x18 {
		c.n.Add(1)
	}
	return c.Conn.Write(p)
}
