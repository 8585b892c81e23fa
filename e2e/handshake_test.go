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
func TestHandshakeVersion(t *testing.T) {
	got, want := greeting(t, rawShoal.params.Host, rawShoal.params.Port), greeting(t, rawDirect.params.Host, rawDirect.params.Port)
	if got != want+"-shoal" {
		t.Errorf("handshake version through Shoal %q, want the server's %q with -shoal", got, want)
	}
}

// greeting reads the server version from the handshake of a new
// connection to host:port, then hangs up.
func greeting(t *testing.T, host string, port int) string {
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
	v, _, _ := bytes.Cut(body[1:], []byte{0})
	return strings.Clone(string(v))
}
