package netshape

import (
	"bytes"
	"context"
	"crypto/rand"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestParseLink(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Link
		err  bool
	}{
		{in: "delay=500us,rate=1Gbit", want: Link{Delay: 500 * time.Microsecond, Rate: 1e9}},
		{in: "rate=100mbit", want: Link{Rate: 1e8}},
		{in: " delay=2ms ", want: Link{Delay: 2 * time.Millisecond}},
		{in: "rate=2.5Gbit,delay=0s", want: Link{Rate: 2.5e9}},
		{in: "rate=64kbit", want: Link{Rate: 64e3}},
		{in: "", err: true},
		{in: "delay", err: true},
		{in: "delay=-1ms", err: true},
		{in: "delay=fast", err: true},
		{in: "rate=1GB", err: true},
		{in: "rate=0gbit", err: true},
		{in: "loss=1%", err: true},
	} {
		got, err := ParseLink(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ParseLink(%q) = %+v, %v; want %+v, error %v", tc.in, got, err, tc.want, tc.err)
		}
		if err == nil && tc.want != (Link{}) {
			back, err := ParseLink(got.String())
			if err != nil || back != got {
				t.Errorf("%+v.String() = %q reads back as %+v, %v", got, got.String(), back, err)
			}
		}
	}
}

// echoServer echoes every connection until the test ends.
func echoServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer c.Close()
				io.Copy(c, c)
			})
		}
	})
	return ln.Addr().String()
}

func startProxy(t *testing.T, target string, l Link) string {
	t.Helper()
	p, err := Listen("127.0.0.1:0", target, l)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return p.Addr()
}

// roundTrip writes b through conn and reads it back from the echo server.
func roundTrip(t *testing.T, c net.Conn, b []byte) []byte {
	t.Helper()
	errc := make(chan error, 1)
	go func() { _, err := c.Write(b); errc <- err }()
	got := make([]byte, len(b))
	if _, err := io.ReadFull(c, got); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	return got
}

func TestDelayIsPaidEachWay(t *testing.T) {
	const delay = 25 * time.Millisecond
	addr := startProxy(t, echoServer(t), Link{Delay: delay})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for range 3 {
		start := time.Now()
		if got := roundTrip(t, c, []byte("ping")); string(got) != "ping" {
			t.Fatalf("echo %q", got)
		}
		// A lower bound only: the proxy may be late, never early.
		if rtt := time.Since(start); rtt < 2*delay {
			t.Errorf("round trip %s through a %s link, want at least %s", rtt, delay, 2*delay)
		}
	}
}

func TestRateBoundsThroughputAndKeepsBytes(t *testing.T) {
	// 8 Mbit/s = 1 MB/s each way: 300 KB out and back needs at least
	// 0.3 s on the slower direction, whatever the pipelining.
	const n = 300 << 10
	addr := startProxy(t, echoServer(t), Link{Rate: 8e6})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	b := make([]byte, n)
	rand.Read(b)
	start := time.Now()
	got := roundTrip(t, c, b)
	if !bytes.Equal(got, b) {
		t.Fatal("bytes changed on the way")
	}
	if el := time.Since(start); el < 300*time.Millisecond {
		t.Errorf("%d bytes at 1 MB/s took %s, want at least 300ms", n, el)
	}
}

func TestConnectionsShareTheLink(t *testing.T) {
	// Two connections each sending 150 KB share 1 MB/s: together at least
	// 0.3 s, as one wire would take.
	const n = 150 << 10
	addr := startProxy(t, echoServer(t), Link{Rate: 8e6})
	start := time.Now()
	var wg sync.WaitGroup
	for range 2 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		wg.Go(func() {
			b := make([]byte, n)
			if got := roundTrip(t, c, b); len(got) != n {
				t.Errorf("read %d bytes", len(got))
			}
		})
	}
	wg.Wait()
	if el := time.Since(start); el < 300*time.Millisecond {
		t.Errorf("2 × %d bytes over one 1 MB/s link took %s, want at least 300ms", n, el)
	}
}

func TestHalfCloseAndTargetDown(t *testing.T) {
	addr := startProxy(t, echoServer(t), Link{Delay: time.Millisecond})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte("last words"))
	c.(*net.TCPConn).CloseWrite()
	got, err := io.ReadAll(c)
	if err != nil || string(got) != "last words" {
		t.Errorf("after half-close read %q, %v", got, err)
	}

	// Nothing listens on the target: the client sees its connection end.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := ln.Addr().String()
	ln.Close()
	c2, err := net.Dial("tcp", startProxy(t, dead, Link{}))
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	c2.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := c2.Read(make([]byte, 1)); err == nil {
		t.Errorf("read %d bytes from a proxy to nothing", n)
	}
}

// BenchmarkProxyThroughput is what the proxy itself can carry on this
// machine with no shaping (MB/s): a shaped link well below it measures the
// link, not the proxy.
func BenchmarkProxyThroughput(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(io.Discard, c); c.Close() }()
		}
	}()
	p, err := Listen("127.0.0.1:0", ln.Addr().String(), Link{})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Serve(ctx) }()
	defer func() { cancel(); <-done }()
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 1<<20)
	b.SetBytes(int64(len(buf)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := c.Write(buf); err != nil {
			b.Fatal(err)
		}
	}
	c.Close()
}
