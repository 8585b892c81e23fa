package mysqlwire

import (
	"errors"
	"net"
	"os"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/shoaldb/shoal/sqlerr"
)

// max_allowed_packet.
//
// vitess' go/mysql reads a command whole, however many 16 MiB packets it
// spans, before the handler sees it: nothing bounds what one client makes
// the coordinator buffer. Two checks bound it, as MySQL's
// max_allowed_packet does:
//
//   - a statement whose packet is longer than max_allowed_packet
//     (COM_QUERY, COM_STMT_PREPARE) gets error 1153 and the connection stays usable
//     (MySQL and MariaDB send 1153 and close it);
//   - a client that sends more than max_allowed_packet plus an eighth
//     (packetSlack) without the server writing in between is disconnected
//     at the transport: the coordinator never buffers more than that for
//     one command. The MySQL protocol alternates: a client sends a command
//     and waits for the reply, so the bytes read since the last write are
//     one command (COM_STMT_SEND_LONG_DATA and COM_STMT_CLOSE have no
//     reply: long data for one statement counts together, as MySQL's
//     max_long_data_size did). Under TLS the count is of ciphertext,
//     a few per mille more than the statement.

// packetSlack is how far past max_allowed_packet a command may go before
// the transport drops the connection instead of answering 1153.
func packetSlack(maxPacket int) int64 { return int64(maxPacket)/8 + 64<<10 }

// checkSize refuses a statement whose packet (the command byte and the
// statement, as MySQL counts it) is over max_allowed_packet. The replicas
// count the same way, so a statement Shoal accepts is not refused by a
// replica with the same max_allowed_packet on passthrough.
func (h *handler) checkSize(query string) error {
	if n := len(query) + 1; n > h.cfg.MaxAllowedPacket {
		return sqlerr.New(sqlerr.ErrNetPacketTooLarge, "08S01",
			"Got a packet bigger than 'max_allowed_packet' bytes: the statement's packet is %d bytes, max_allowed_packet is %d; send a smaller statement (fewer IN values, batches of rows) or raise max_allowed_packet in the coordinator's config", n, h.cfg.MaxAllowedPacket)
	}
	return nil
}

// errCommandTooLarge ends a connection whose client sent too much for one
// command.
var errCommandTooLarge = errors.New("client sent more than max_allowed_packet for one command: connection closed")

// packetConn counts the bytes read since the last write and fails reads
// past limit. Reads and writes come from the connection's vitess goroutine
// (clientWatch only peeks at the socket through SyscallConn); the count is
// atomic all the same, for a write from elsewhere (shutdown, KILL).
type packetConn struct {
	net.Conn
	limit int64
	read  atomic.Int64
	// writeTimeout is net_write_timeout (the session's, once it set
	// one; 0: none), and writeBy the write deadline last set on the
	// socket (writeDeadline).
	writeTimeout time.Duration
	writeBy      time.Time
	tap          execTap // the last COM_STMT_EXECUTE's parameter types (unsigned.go)
	// paramDefs is how many parameter definitions of the prepare being
	// answered are still to be retyped (paramdefs.go); the connection's
	// goroutine alone reads and writes it.
	paramDefs int
}

// limitCommands wraps c so that one command cannot pass max_allowed_packet
// plus packetSlack, and a write cannot block past writeTimeout
// (net_write_timeout). TCP keep-alive is set here: vitess only sets it on
// a *net.TCPConn, which c no longer is once wrapped.
func limitCommands(c net.Conn, maxPacket int, writeTimeout time.Duration) *packetConn {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetKeepAlive(true)
		_ = tc.SetKeepAlivePeriod(30 * time.Second)
	}
	return &packetConn{Conn: c, limit: int64(maxPacket) + packetSlack(maxPacket), writeTimeout: writeTimeout}
}

// net_write_timeout.
//
// A client that stops reading its result (a stalled or hostile reader, a
// process stopped in a debugger) blocks the write that sends it, and with
// it the statement: its fragment streams, its query memory, its session's
// replica connection. MariaDB gives up on such a client after
// net_write_timeout (60 s) and closes its connection; so does the
// coordinator. A deadline per write would re-arm a runtime timer for every
// 16 KB written, so the deadline set stays while more than three quarters
// of the timeout remain ahead of a write: a write blocks at most the
// timeout and at least three quarters of it, and a statement's writes
// re-arm it once every quarter of the timeout, not once per packet.

// writeDeadline moves the socket's write deadline ahead before a write
// when less than three quarters of the timeout remain.
func (p *packetConn) writeDeadline() {
	if p.writeTimeout <= 0 {
		return
	}
	now := time.Now()
	if p.writeBy.Sub(now) >= p.writeTimeout-p.writeTimeout/4 {
		return
	}
	p.writeBy = now.Add(p.writeTimeout)
	_ = p.Conn.SetWriteDeadline(p.writeBy)
}

// setWriteTimeout makes d the connection's net_write_timeout (a session's
// SET net_write_timeout), from its next write.
func (p *packetConn) setWriteTimeout(d time.Duration) {
	if d != p.writeTimeout {
		p.writeTimeout, p.writeBy = d, time.Time{}
		if d <= 0 {
			_ = p.Conn.SetWriteDeadline(time.Time{})
		}
	}
}

func (p *packetConn) Read(b []byte) (int, error) {
	p.paramDefs = 0 // the prepare's answer has gone out
	if p.read.Load() > p.limit {
		return 0, errCommandTooLarge
	}
	n, err := p.Conn.Read(b)
	p.read.Add(int64(n))
	p.tap.feed(b[:n])
	return n, err
}

func (p *packetConn) Write(b []byte) (int, error) {
	p.read.Store(0)
	p.writeDeadline()
	if p.paramDefs > 0 {
		if _, err := p.Conn.Write(patchParamDefs(b, &p.paramDefs)); err != nil {
			return 0, p.failed(err)
		}
		return len(b), nil
	}
	n, err := p.Conn.Write(b)
	return n, p.failed(err)
}

// failed passes a write's error on. After net_write_timeout the client
// is not reading: the socket's close that follows resets the connection
// (SO_LINGER 0) instead of leaving the kernel to keep sending it what is
// still queued, a few megabytes per stalled client, for as long as it
// keeps its window shut.
func (p *packetConn) failed(err error) error {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		if tc, ok := p.Conn.(*net.TCPConn); ok {
			_ = tc.SetLinger(0)
		}
	}
	return err
}

// SyscallConn lets clientWatch and connCheck peek at the socket.
func (p *packetConn) SyscallConn() (syscall.RawConn, error) {
	if sc, ok := p.Conn.(syscall.Conn); ok {
		return sc.SyscallConn()
	}
	return nil, errors.ErrUnsupported
}
