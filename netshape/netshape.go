// Package netshape is a TCP proxy that makes a loopback connection behave
// like a network link of a given bit rate and one-way delay.
//
// Why it exists: Shoal's benchmark should show what a real network between
// the coordinator and its workers costs (issue: "workers behind links shaped
// to 1 Gbit/s and 0.5 ms"). The usual tool, tc netem, needs the kernel's
// sch_netem module, which not every machine has (the development VM does
// not); tbf and htb limit the rate but add no delay. A proxy in user space
// works everywhere, on loopback, without root.
//
// Model: each direction of a proxy is one FIFO link shared by all of its
// connections, like the wire between two hosts. A chunk of n bytes that the
// proxy reads at time t starts on the wire when the link is free
// (max(t, end of the previous chunk)), occupies it for n·8/rate seconds
// (serialization), and is written to the other side delay later
// (propagation). Chunks are pipelined, so a long stream gets the full rate
// and pays the delay once; a request/response exchange pays it twice. Each
// connection's queue is bounded (maxQueued bytes), so a fast sender is held
// back by TCP flow control instead of filling memory.
//
// Limits, stated so figures are read correctly: time comes from Go timers
// (tens of microseconds late under load, so 0.5 ms is 0.5–0.6 ms); there is
// no loss, jitter or reordering; the proxy itself costs CPU (one read and one
// write per chunk), which on a small machine is shared with what it carries.
package netshape

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Link describes one network link. The zero Link adds nothing.
type Link struct {
	// Delay is the one-way propagation delay.
	Delay time.Duration
	// Rate is the link's bit rate in bits per second; 0 is unlimited.
	Rate int64
}

// String formats l as ParseLink reads it.
func (l Link) String() string {
	var parts []string
	if l.Delay > 0 {
		parts = append(parts, "delay="+l.Delay.String())
	}
	if l.Rate > 0 {
		parts = append(parts, "rate="+formatRate(l.Rate))
	}
	return strings.Join(parts, ",")
}

// ParseLink reads a link as "delay=500us,rate=1Gbit" (either part may be
// left out; rates take the suffixes bit, kbit, mbit, gbit, case
// insensitive, decimal like tc's).
func ParseLink(s string) (Link, error) {
	var l Link
	if strings.TrimSpace(s) == "" {
		return l, fmt.Errorf("netshape: empty link: write e.g. delay=500us,rate=1Gbit")
	}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return l, fmt.Errorf("netshape: %q is not key=value: write e.g. delay=500us,rate=1Gbit", part)
		}
		switch strings.ToLower(k) {
		case "delay":
			d, err := time.ParseDuration(v)
			if err != nil || d < 0 {
				return l, fmt.Errorf("netshape: delay %q: write a Go duration such as 500us or 2ms", v)
			}
			l.Delay = d
		case "rate":
			r, err := parseRate(v)
			if err != nil {
				return l, err
			}
			l.Rate = r
		default:
			return l, fmt.Errorf("netshape: unknown key %q: use delay and rate", k)
		}
	}
	return l, nil
}

var rateUnits = []struct {
	suffix string
	mult   int64
}{{"gbit", 1e9}, {"mbit", 1e6}, {"kbit", 1e3}, {"bit", 1}}

func parseRate(v string) (int64, error) {
	lv := strings.ToLower(strings.TrimSpace(v))
	for _, u := range rateUnits {
		if num, ok := strings.CutSuffix(lv, u.suffix); ok {
			f, err := strconv.ParseFloat(num, 64)
			if err == nil && f > 0 {
				return int64(f * float64(u.mult)), nil
			}
			break
		}
	}
	return 0, fmt.Errorf("netshape: rate %q: write a positive number with bit, kbit, mbit or gbit, e.g. 1Gbit", v)
}

func formatRate(r int64) string {
	for _, u := range rateUnits {
		if r >= u.mult && r%u.mult == 0 {
			return strconv.FormatInt(r/u.mult, 10) + map[string]string{"gbit": "Gbit", "mbit": "Mbit", "kbit": "Kbit", "bit": "bit"}[u.suffix]
		}
	}
	return strconv.FormatInt(r, 10) + "bit"
}

// chunkSize is the most one read takes from a connection; maxQueued bounds
// the bytes a connection may have in flight in one direction (read, not yet
// written), which also bounds what a fast sender can get ahead of the link.
const (
	chunkSize = 64 << 10
	maxQueued = 4 << 20
)

// wire is one direction of a link, shared by every connection of a Proxy.
type wire struct {
	link Link
	mu   sync.Mutex
	free time.Time // when the last chunk handed to the wire is fully sent
}

// schedule returns when a chunk of n bytes read now reaches the far side.
func (w *wire) schedule(now time.Time, n int) time.Time {
	if w.link.Rate <= 0 {
		return now.Add(w.link.Delay)
	}
	ser := time.Duration(float64(n) * 8 / float64(w.link.Rate) * float64(time.Second))
	w.mu.Lock()
	start := w.free
	if start.Before(now) {
		start = now
	}
	w.free = start.Add(ser)
	done := w.free
	w.mu.Unlock()
	return done.Add(w.link.Delay)
}

// Proxy accepts connections on its listener and relays each to target over
// a shaped link. Serve runs it; it owns every goroutine it starts and waits
// for them before returning.
type Proxy struct {
	ln       net.Listener
	target   string
	up, down *wire // up: client → target; down: target → client
}

// Listen opens addr for a proxy to target over l.
func Listen(addr, target string, l Link) (*Proxy, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("netshape: %w", err)
	}
	return &Proxy{ln: ln, target: target, up: &wire{link: l}, down: &wire{link: l}}, nil
}

// Addr is the address the proxy listens on.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Serve relays connections until ctx is done, then closes the listener and
// every connection and returns once all of their goroutines have ended.
func (p *Proxy) Serve(ctx context.Context) error {
	var wg sync.WaitGroup
	ctx, cancel := context.WithCancel(ctx)
	defer func() {
		cancel()
		wg.Wait()
	}()
	wg.Go(func() {
		<-ctx.Done()
		p.ln.Close()
	})
	for {
		c, err := p.ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return fmt.Errorf("netshape: accept: %w", err)
		}
		wg.Go(func() { p.relay(ctx, c) })
	}
}

// relay connects c to the target and shapes both directions until either
// side is done. The target is dialled over the same link: the dial itself
// is not delayed, the bytes are.
func (p *Proxy) relay(ctx context.Context, c net.Conn) {
	defer c.Close()
	var d net.Dialer
	dctx, dcancel := context.WithTimeout(ctx, 10*time.Second)
	t, err := d.DialContext(dctx, "tcp", p.target)
	dcancel()
	if err != nil {
		return
	}
	defer t.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	wg.Go(func() {
		<-ctx.Done()
		c.Close()
		t.Close()
	})
	var once sync.Once
	stop := func() { once.Do(cancel) }
	done := make(chan struct{}, 2)
	wg.Go(func() { pump(ctx, p.up, c, t); done <- struct{}{} })
	wg.Go(func() { pump(ctx, p.down, t, c); done <- struct{}{} })
	// Each direction half-closes its destination at EOF; the connection
	// ends when both directions have, or at the first error (pump cancels).
	wg.Go(func() {
		<-done
		<-done
		stop()
	})
	wg.Wait()
}

type chunk struct {
	b  []byte
	at time.Time
}

// pump copies src to dst through w: a reader puts timed chunks on a
// bounded queue, a writer waits for each chunk's time and writes it. At
// EOF it half-closes dst; on an error it cancels the connection.
func pump(ctx context.Context, w *wire, src, dst net.Conn) {
	q := make(chan chunk, maxQueued/chunkSize)
	var wg sync.WaitGroup
	failed := false
	wg.Go(func() {
		defer close(q)
		for {
			b := make([]byte, chunkSize)
			n, err := src.Read(b)
			if n > 0 {
				select {
				case q <- chunk{b: b[:n], at: w.schedule(time.Now(), n)}:
				case <-ctx.Done():
					return
				}
			}
			if err != nil {
				if !errors.Is(err, io.EOF) {
					failed = true
				}
				return
			}
		}
	})
	timer := time.NewTimer(0)
	defer timer.Stop()
	writeErr := false
	for c := range q {
		if writeErr {
			continue // drain so the reader ends
		}
		if d := time.Until(c.at); d > 0 {
			timer.Reset(d)
			select {
			case <-timer.C:
			case <-ctx.Done():
				writeErr = true
				src.Close()
				dst.Close()
				continue
			}
		}
		if _, err := dst.Write(c.b); err != nil {
			writeErr = true
			// Closing both ends wakes the reader and the other direction.
			src.Close()
			dst.Close()
		}
	}
	wg.Wait()
	if failed || writeErr {
		src.Close()
		dst.Close()
		return
	}
	if cw, ok := dst.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	}
}
