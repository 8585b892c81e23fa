package mysqlwire

import (
	"crypto/tls"
	"encoding/binary"
	"errors"
	"log/slog"
	"net"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
	"vitess.io/vitess/go/mysql"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/sqlerr"
)

// admitListener is the MySQL listener's socket, under vitess' accept
// loop. It counts each accepted connection in (max_connections) and
// refuses one past the limit with 1040 in place of the handshake, as
// MySQL does, without handing it to vitess (no goroutine, session or log
// line of its own: a connection storm costs a write and a close each). An
// admitted connection gets connect_timeout to complete its handshake
// (handler.ConnectionReady lifts it) and net_write_timeout on every
// write (packetConn).
//
// vitess' accept loop ends at the first error Accept returns, so
// admitListener returns only the error of a closed listener: any other
// (EMFILE when a storm of connections exhausts the descriptors, ENFILE,
// ECONNABORTED) is logged and retried after a pause that doubles up to a
// second, as net/http's server does. Before, one such error left the
// coordinator running without accepting a connection again.
type admitListener struct {
	net.Listener
	// admit counts a connection in (Router.Admit), false past
	// max_connections.
	admit func() bool
	cfg   config.Coordinator
	log   *slog.Logger
	// sleep is time.Sleep (tests replace it).
	sleep func(time.Duration)
}

func (l *admitListener) Accept() (net.Conn, error) {
	var pause time.Duration
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil, err
			}
			pause = min(max(2*pause, 5*time.Millisecond), time.Second)
			l.log.Warn("mysql listener: accept failed; retrying", "err", err, "pause", pause)
			l.sleep(pause)
			continue
		}
		pause = 0
		if !l.admit() {
			refuse(c) // a fresh socket's empty send buffer takes it at once
			continue
		}
		// The handshake's deadline: reads only, as MariaDB's
		// connect_timeout; writes have net_write_timeout from the first.
		_ = c.SetReadDeadline(time.Now().Add(l.cfg.ConnectTimeout.D()))
		return limitCommands(c, l.cfg.MaxAllowedPacket, l.cfg.NetWriteTimeout.D()), nil // packet.go
	}
}

// refuse answers a connection past max_connections with 1040 and closes
// it.
func refuse(c net.Conn) {
	_ = c.SetWriteDeadline(time.Now().Add(time.Second))
	_, _ = c.Write(errorPacket(sqlerr.ErrTooManyConns, "08004", "Too many connections"))
	c.Close()
}

// handshakeDone lifts connect_timeout from a connection whose handshake
// has completed: from then on it may sit idle between statements, as
// long as the client likes.
func handshakeDone(c *mysql.Conn) {
	if pc := transport(c); pc != nil {
		_ = pc.SetReadDeadline(time.Time{})
	}
}

// transport is the packetConn under c, beneath TLS when the client
// started it; nil for a connection admitListener did not make.
func transport(c *mysql.Conn) *packetConn {
	raw := c.GetRawConn()
	if tc, ok := raw.(*tls.Conn); ok {
		raw = tc.NetConn()
	}
	pc, _ := raw.(*packetConn)
	return pc
}

// errorPacket is a MySQL ERR packet with sequence number 0: what a server
// sends in place of the handshake when it refuses a connection.
func errorPacket(num uint16, state, msg string) []byte {
	body := make([]byte, 0, 9+len(msg))
	body = append(body, 0xff)
	body = binary.LittleEndian.AppendUint16(body, num)
	body = append(body, '#')
	body = append(body, state...)
	body = append(body, msg...)
	hdr := []byte{byte(len(body)), byte(len(body) >> 8), byte(len(body) >> 16), 0}
	return append(hdr, body...)
}

// clientWatch tells the router's clock whether a statement's client went
// away: it peeks at the socket (never consuming a byte), and end of file,
// a reset or a COM_QUIT waiting to be read mean the client is gone. One
// clientWatch serves all the statements of a connection; the clock calls
// Gone only for statements that run a tick (100 ms) or more, so a short
// statement costs nothing for it.
type clientWatch struct {
	rc syscall.RawConn
}

// newClientWatch returns the watcher of c's statements, nil when c's
// socket cannot be peeked at.
func newClientWatch(c *mysql.Conn) *clientWatch {
	// Beneath TLS: end of file and a reset show on the socket whatever
	// the encryption (a COM_QUIT under TLS is not recognised, and the
	// clock finds the client gone at the close that follows it).
	pc := transport(c)
	if pc == nil {
		return nil
	}
	rc, err := pc.SyscallConn()
	if err != nil {
		return nil
	}
	return &clientWatch{rc: rc}
}

// Gone reports whether the client went away.
func (w *clientWatch) Gone() bool { return clientGone(w.rc) }

// comQuit is a complete COM_QUIT packet.
var comQuit = []byte{1, 0, 0, 0, 1}

func clientGone(rc syscall.RawConn) bool {
	var buf [5]byte
	var n int
	var rerr error
	hup := false
	err := rc.Read(func(fd uintptr) bool {
		n, _, rerr = syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		if n > 0 {
			// Bytes wait ahead of the end of file, which a peek never
			// reaches: a TLS client's close_notify before its FIN, a
			// pipelined statement before a reset. The socket's own
			// state says whether the peer has shut its side.
			hup = peerShut(int(fd))
		}
		return true
	})
	switch {
	case err != nil:
		return true // the socket is closed
	case rerr == syscall.EAGAIN || rerr == syscall.EINTR:
		return false // connected, nothing sent
	case rerr != nil:
		return true // reset
	case n == 0:
		return true // end of file
	}
	return hup || n == len(comQuit) && string(buf[:]) == string(comQuit)
}

// peerShut reports whether the peer of socket fd has closed or shut down
// its sending side (POLLRDHUP), without waiting.
func peerShut(fd int) bool {
	p := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLRDHUP}}
	n, err := unix.Poll(p, 0)
	return err == nil && n > 0 && p[0].Revents&(unix.POLLRDHUP|unix.POLLHUP|unix.POLLERR) != 0
}
