package mysqlwire

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"sync"
	"syscall"
	"time"

	"github.com/shoaldb/shoal/sqlerr"
	"vitess.io/vitess/go/mysql"
)

// clientCheckInterval is how often a running statement checks that its
// client is still connected.
const clientCheckInterval = 200 * time.Millisecond

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

// clientWatch cancels a running statement when its client disconnects.
// It peeks at the socket (never consuming a byte) every
// clientCheckInterval: end of file, a reset or a COM_QUIT waiting to be
// read mean the client is gone. Statements that end within the first
// interval — most of them — only reset and stop a timer: the watching
// starts when it fires. One clientWatch serves all the statements of a
// connection (vitess runs them one at a time), so a statement allocates
// nothing for it.
type clientWatch struct {
	rc     syscall.RawConn
	timer  *time.Timer
	cancel context.CancelFunc
	// running is held while fire runs; quit asks it to return (capacity
	// one, filled only by Stop).
	running sync.WaitGroup
	quit    chan struct{}
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
	w := &clientWatch{rc: rc, quit: make(chan struct{}, 1)}
	w.timer = time.AfterFunc(time.Hour, w.fire)
	w.timer.Stop()
	return w
}

// Start watches for the client going away until Stop, calling cancel if
// it does.
func (w *clientWatch) Start(cancel context.CancelFunc) {
	w.cancel = cancel
	w.running.Add(1)
	w.timer.Reset(clientCheckInterval)
}

// Stop ends the watch and waits for a check in progress.
func (w *clientWatch) Stop() {
	if w.timer.Stop() {
		w.running.Done() // never fired: nothing runs
		return
	}
	w.quit <- struct{}{}
	w.running.Wait()
	select { // fire returned on its own (the client went away): unused
	case <-w.quit:
	default:
	}
	w.cancel = nil
}

func (w *clientWatch) fire() {
	defer w.running.Done()
	t := time.NewTicker(clientCheckInterval)
	defer t.Stop()
	for {
		if clientGone(w.rc) {
			w.cancel()
			return
		}
		select {
		case <-w.quit:
			return
		case <-t.C:
		}
	}
}

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
