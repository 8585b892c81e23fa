//go:build unix

package replica

import (
	"errors"
	"io"
	"net"
	"syscall"
)

// errUnexpectedRead is a pooled connection that has bytes waiting although
// no statement is running on it: the protocol is out of step.
var errUnexpectedRead = errors.New("unexpected read from an idle replica connection")

// connCheck tells, without a round trip, whether the replica closed an idle
// connection: one non-blocking read of the socket returns EAGAIN on a live
// idle connection, EOF when the peer closed it (a replica killed and
// restarted within the ping interval), or bytes that should not be there.
// It is go-sql-driver's check, on vitess' raw connection.
func connCheck(c net.Conn) error {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil // TLS or a pipe: the ping after idleCheck covers it
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return err
	}
	var n int
	var rerr error
	var buf [1]byte
	if err := raw.Read(func(fd uintptr) bool {
		n, rerr = syscall.Read(int(fd), buf[:])
		return true // never wait for data
	}); err != nil {
		return err
	}
	switch {
	case n == 0 && rerr == nil:
		return io.EOF
	case n > 0:
		return errUnexpectedRead
	case rerr == syscall.EAGAIN || rerr == syscall.EWOULDBLOCK:
		return nil
	default:
		return rerr
	}
}
