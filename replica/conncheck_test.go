//go:build unix

package replica

import (
	"errors"
	"io"
	"net"
	"testing"
	"time"
)

// TestConnCheck: an idle live socket passes, one the peer closed reports
// EOF, and one with bytes nobody asked for is refused.
func TestConnCheck(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dial := func() (client, server net.Conn) {
		t.Helper()
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		s, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(); s.Close() })
		return c, s
	}
	// waitFor polls: the peer's FIN or byte arrives asynchronously.
	waitFor := func(c net.Conn, want error) {
		t.Helper()
		var got error
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if got = connCheck(c); errors.Is(got, want) {
				return
			}
		}
		t.Fatalf("connCheck = %v, want %v", got, want)
	}

	c, _ := dial()
	if err := connCheck(c); err != nil {
		t.Fatalf("live idle connection: %v", err)
	}
	c, s := dial()
	s.Close()
	waitFor(c, io.EOF)
	c, s = dial()
	if _, err := s.Write([]byte{1}); err != nil {
		t.Fatal(err)
	}
	waitFor(c, errUnexpectedRead)
	// A connection still usable after a passing check: the check consumed
	// nothing.
	c, s = dial()
	if err := connCheck(c); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write([]byte("ok")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 2)
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "ok" {
		t.Fatalf("read after check: %q %v", buf, err)
	}
}
