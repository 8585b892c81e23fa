package mysqlwire

import (
	"encoding/binary"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/shoaldb/shoal/config"
)

// TestErrorPacket: the ERR packet sent in place of the handshake.
func TestErrorPacket(t *testing.T) {
	p := errorPacket(1040, "08004", "Too many connections")
	if len(p) != 4+1+2+1+5+20 || p[4] != 0xff || p[5] != 0x10 || p[6] != 0x04 || p[3] != 0 {
		t.Errorf("error packet %x", p)
	}
}

// fakeListener hands out its errors and connections in order, then
// net.ErrClosed.
type fakeListener struct {
	net.Listener
	next []any // error or net.Conn
}

func (f *fakeListener) Accept() (net.Conn, error) {
	if len(f.next) == 0 {
		return nil, net.ErrClosed
	}
	n := f.next[0]
	f.next = f.next[1:]
	if err, ok := n.(error); ok {
		return nil, err
	}
	return n.(net.Conn), nil
}

// TestAdmitListener: an accept error other than the listener's close
// (EMFILE in a connection storm, ECONNABORTED) is retried after a pause
// that grows, never returned (vitess' accept loop would end on it and the
// coordinator would accept no connection again); a connection past
// max_connections gets 1040 and is never handed over; an admitted one has
// connect_timeout to complete its handshake.
func TestAdmitListener(t *testing.T) {
	refused, refusedPeer := net.Pipe()
	admitted, admittedPeer := net.Pipe()
	defer admittedPeer.Close()
	var pauses []time.Duration
	admits := []bool{false, true}
	l := &admitListener{
		Listener: &fakeListener{next: []any{
			&net.OpError{Op: "accept", Err: os.NewSyscallError("accept4", syscall.EMFILE)},
			&net.OpError{Op: "accept", Err: os.NewSyscallError("accept4", syscall.EMFILE)},
			refused,
			&net.OpError{Op: "accept", Err: os.NewSyscallError("accept4", syscall.ECONNABORTED)},
			admitted,
		}},
		admit: func() bool { a := admits[0]; admits = admits[1:]; return a },
		cfg:   config.Coordinator{ConnectTimeout: config.Duration(50 * time.Millisecond), MaxAllowedPacket: 1 << 20},
		log:   slog.New(slog.DiscardHandler),
		sleep: func(d time.Duration) { pauses = append(pauses, d) },
	}
	got := make(chan []byte, 1)
	go func() { b, _ := io.ReadAll(refusedPeer); got <- b }()
	c, err := l.Accept()
	if err != nil {
		t.Fatalf("Accept: %v, want the admitted connection after retrying", err)
	}
	if pc, ok := c.(*packetConn); !ok || pc.Conn != admitted {
		t.Fatalf("Accept returned %T, want the admitted connection wrapped", c)
	}
	if want := []time.Duration{5 * time.Millisecond, 10 * time.Millisecond, 5 * time.Millisecond}; !slices.Equal(pauses, want) {
		t.Errorf("pauses %v, want %v", pauses, want)
	}
	if b := <-got; len(b) < 7 || b[4] != 0xff || binary.LittleEndian.Uint16(b[5:]) != 1040 {
		t.Errorf("refused connection read %q, want ERR 1040", b)
	}
	// The handshake's deadline: a client that sends nothing is not
	// waited for past connect_timeout.
	if _, err := c.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("read from a silent client: %v, want the connect_timeout deadline", err)
	}
	if _, err := l.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Accept of a closed listener: %v", err)
	}
}

// TestNetWriteTimeout: a write to a client that does not read gives up
// after net_write_timeout; a session's own timeout replaces it; 0 waits
// for the reader.
func TestNetWriteTimeout(t *testing.T) {
	c, peer := net.Pipe()
	defer peer.Close()
	pc := limitCommands(c, 1<<20, 50*time.Millisecond)
	start := time.Now()
	if _, err := pc.Write([]byte("x")); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("write to a stalled reader: %v, want net_write_timeout's deadline", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the write gave up after %s", d)
	}
	// A reader that reads within the (session's longer) timeout gets it.
	pc.setWriteTimeout(10 * time.Second)
	go func() {
		time.Sleep(100 * time.Millisecond)
		peer.Read(make([]byte, 1))
	}()
	if _, err := pc.Write([]byte("y")); err != nil {
		t.Fatalf("write under a 10s net_write_timeout read after 100ms: %v", err)
	}
	pc.setWriteTimeout(0)
	go func() {
		time.Sleep(100 * time.Millisecond)
		peer.Read(make([]byte, 1))
	}()
	if _, err := pc.Write([]byte("z")); err != nil {
		t.Fatalf("write without net_write_timeout: %v", err)
	}
}
