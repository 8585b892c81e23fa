package e2e

import (
	"bytes"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestHandshakeVersion: the version in the handshake a client reads is
// the server's as MariaDB writes it there ("5.5.5-10.11…-MariaDB…" for
// MariaDB 10), with "-shoal" after it. Shoal advertised SELECT
// VERSION()'s form, without "5.5.5-", which MySQL's drivers read as a
// MySQL version past 8.0: MySQL Connector/J then reads
// @@transaction_isolation at connect, which MariaDB 10 does not know.
// (vitess' client strips the prefix: the greeting is read raw here.)
//
// The collation the handshake offers is the server's too: vitess offered
// 255 (MySQL 8's utf8mb4_0900_ai_ci, unknown to MariaDB 10), which
// drivers without a charset setting of their own adopt. And the status
// flags say autocommit, as a fresh MariaDB session's do.
func TestHandshakeVersion(t *testing.T) {
	got, want := greeting(t, rawShoal.params.Host, rawShoal.params.Port), greeting(t, rawDirect.params.Host, rawDirect.params.Port)
	if got.version != want.version+"-shoal" {
		t.Errorf("handshake version through Shoal %q, want the server's %q with -shoal", got.version, want.version)
	}
	if got.charset != want.charset || got.status != want.status {
		t.Errorf("handshake collation %d, status %#x through Shoal; the server's %d, %#x", got.charset, got.status, want.charset, want.status)
	}
}

type hello struct {
	version string
	charset byte
	status  uint16
}

// greeting reads the server version, collation and status flags from the
// handshake of a new connection to host:port, then hangs up.
func greeting(t *testing.T, host string, port int) hello {
	t.Helper()
	c, err := net.DialTimeout("tcp", net.JoinHostPort(host, strconv.Itoa(port)), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	var hdr [4]byte
	if _, err := io.ReadFull(c, hdr[:]); err != nil {
		t.Fatal(err)
	}
	body := make([]byte, int(hdr[0])|int(hdr[1])<<8|int(hdr[2])<<16)
	if _, err := io.ReadFull(c, body); err != nil {
		t.Fatal(err)
	}
	if len(body) < 2 || body[0] != 10 {
		t.Fatalf("not a protocol 10 handshake from %s:%d: %q", host, port, body)
	}
	v, rest, _ := bytes.Cut(body[1:], []byte{0})
	// connection id 4, auth data 8, filler 1, capabilities 2, then the
	// collation and the status flags.
	if len(rest) < 18 {
		t.Fatalf("short handshake from %s:%d: %q", host, port, body)
	}
	return hello{version: strings.Clone(string(v)), charset: rest[15], status: uint16(rest[16]) | uint16(rest[17])<<8}
}
