package mysqlwire

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"syscall"
	"time"

	"github.com/shoaldb/shoal/sqlerr"
	"vitess.io/vitess/go/mysql"
)

// admit is the listener's PreHandleFunc: it counts the connection in, or
// refuses it with 1040 when max_connections are open.
func (h *handler) admit(_ context.Context, c net.Conn, _ uint32) (net.Conn, error) {
	if !h.r.Admit() {
		_ = c.SetWriteDeadline(time.Now().Add(time.Second))
		_, _ = c.Write(errorPacket(sqlerr.ErrTooManyConns, "08004", "Too many connections"))
		c.Close()
		return nil, errTooManyConns
	}
	return limitCommands(c, h.cfg.MaxAllowedPacket), nil // packet.go
}

var errTooManyConns = errors.New("too many connections: refused with 1040 (max_connections)")

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
	sc, ok := c.GetRawConn().(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
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
	err := rc.Read(func(fd uintptr) bool {
		n, _, rerr = syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
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
	return n == len(comQuit) && string(buf[:]) == string(comQuit)
}
