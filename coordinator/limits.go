package coordinator

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/sqlerr"
)

// Connection limit, KILL and cancellation.
//
// Connections are counted from accept (the listener's PreHandleFunc) to
// ConnectionClosed. Past max_connections the server answers the new
// connection with error 1040 in place of its handshake, as MySQL does, and
// closes it: no goroutine or session is spent on it.
//
// Every session is registered by connection id while it lives, so
// KILL QUERY <id> cancels the statement running on it and KILL <id> also
// closes it. A cancelled statement cancels its fragments (the workers send
// KILL QUERY to their replicas) or, on passthrough, sends KILL QUERY to
// the replica connection of the session. A client that disconnects while
// its statement runs is noticed within clientCheckInterval and cancels it
// the same way.

// clientCheckInterval is how often a running statement checks that its
// client is still connected.
const clientCheckInterval = 200 * time.Millisecond

// Errors of KILL.
const (
	errNoSuchThread = 1094 // ER_NO_SUCH_THREAD
	errNotOwner     = 1095 // ER_KILL_DENIED_ERROR
)

// admit is the listener's PreHandleFunc: it counts the connection in, or
// refuses it with 1040 when max_connections are open.
func (s *Server) admit(_ context.Context, c net.Conn, _ uint32) (net.Conn, error) {
	if n := s.conns.Add(1); n > int64(s.cfg.MaxConnections) {
		s.conns.Add(-1)
		_ = c.SetWriteDeadline(time.Now().Add(time.Second))
		_, _ = c.Write(errorPacket(sqlerr.ErrTooManyConns, "08004", "Too many connections"))
		c.Close()
		return nil, errTooManyConns
	}
	return limitCommands(c, s.cfg.MaxAllowedPacket), nil // packet.go
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

// register and unregister keep the session registry KILL looks in, and
// the connection count admit keeps.
func (s *Server) register(c *mysql.Conn, ss *session) {
	ss.conn = c
	s.sessions.Store(ss.id, ss)
}

func (s *Server) unregister(ss *session) {
	s.sessions.Delete(ss.id)
	s.conns.Add(-1)
}

// closeSessions closes every client connection (Close): a client of a
// coordinator that stops sees its connection break, as it would if the
// process died, and reconnects (to another coordinator behind the load
// balancer) instead of talking to a server that only answers 1317.
func (s *Server) closeSessions() {
	s.sessions.Range(func(_, v any) bool {
		if c := v.(*session).conn; c != nil {
			c.Close()
		}
		return true
	})
}

var killRE = regexp.MustCompile(`(?is)^\s*KILL\s+(?:(QUERY|CONNECTION)\s+)?(\d+)\s*;?\s*$`)

var connIDRE = regexp.MustCompile(`(?is)^\s*SELECT\s+CONNECTION_ID\s*\(\s*\)\s*;?\s*$`)

// connectionID answers SELECT CONNECTION_ID() with the coordinator's own
// id for the session, the one KILL takes; passed through, it would name a
// replica thread.
func connectionID(query string, ss *session, callback func(*sqltypes.Result) error) (bool, error) {
	if !connIDRE.MatchString(query) {
		return false, nil
	}
	return true, callback(&sqltypes.Result{
		Fields: []*querypb.Field{{Name: strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(query), ";"))[len("SELECT "):], Type: sqltypes.Uint64, Charset: 63, ColumnLength: 21, Flags: uint32(querypb.MySqlFlag_NOT_NULL_FLAG | querypb.MySqlFlag_UNSIGNED_FLAG | querypb.MySqlFlag_BINARY_FLAG)}},
		Rows:   [][]sqltypes.Value{{sqltypes.NewUint64(uint64(ss.id))}},
	})
}

// parseKill recognises KILL [QUERY | CONNECTION] <id>.
func parseKill(query string) (id uint32, queryOnly, ok bool) {
	m := killRE.FindStringSubmatch(query)
	if m == nil {
		return 0, false, false
	}
	n, err := strconv.ParseUint(m[2], 10, 32)
	if err != nil {
		return 0, false, false
	}
	return uint32(n), len(m[1]) == 5, true
}

// kill runs KILL [QUERY] id for the session ss. An account may kill its
// own sessions; root may kill any.
func (s *Server) kill(ss *session, id uint32, queryOnly bool, callback func(*sqltypes.Result) error) error {
	v, ok := s.sessions.Load(id)
	if !ok {
		return sqlerr.New(errNoSuchThread, "HY000", "Unknown thread id: %d", id)
	}
	target := v.(*session)
	// target.user belongs to the target's goroutine; its published copy
	// is safe to read from here.
	owner := ""
	if u := target.proc.user.Load(); u != nil {
		owner = *u
	}
	if owner != ss.user && ss.user != "root" {
		return sqlerr.New(errNotOwner, "HY000", "You are not owner of thread %d", id)
	}
	target.kill()
	if !queryOnly {
		target.conn.MarkForClose()
		if target != ss {
			// Closing the socket ends an idle connection at once and a
			// busy one as soon as it next reads or writes.
			target.conn.Close()
		}
	}
	return callback(&sqltypes.Result{})
}

// watchClient cancels a running statement when its client disconnects. It
// peeks at the socket (never consuming a byte) every clientCheckInterval:
// end of file, a reset or a COM_QUIT waiting to be read mean the client is
// gone. Statements that end within the first interval — most of them —
// only pay for a timer: the watching goroutine starts when it fires. stop
// ends the watcher and waits for it.
func watchClient(c *mysql.Conn, cancel context.CancelFunc) (stop func()) {
	sc, ok := c.GetRawConn().(syscall.Conn)
	if !ok {
		return func() {}
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	timer := time.AfterFunc(clientCheckInterval, func() {
		defer close(finished)
		t := time.NewTicker(clientCheckInterval)
		defer t.Stop()
		for {
			if clientGone(rc) {
				cancel()
				return
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	return func() {
		if timer.Stop() {
			return // never fired: nothing runs
		}
		close(done)
		<-finished
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

// killOnCancel sends KILL QUERY for the replica connection b, through a
// side connection, if ctx ends before stop is called: a passthrough
// statement blocked on its replica stops there too. stop waits for a KILL
// in flight and reports whether one was sent (b must then be discarded).
func (s *Server) killOnCancel(ctx context.Context, b *backend) (stop func() bool) {
	var wg sync.WaitGroup
	wg.Add(1)
	fired := false
	stopFn := context.AfterFunc(ctx, func() {
		defer wg.Done()
		fired = true
		kctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		k, err := dialBackend(kctx, b.addr, s.cfg.ReplicaUser, s.cfg.ReplicaPassword, "")
		if err != nil {
			s.log.Warn("KILL QUERY on the replica failed; the statement may keep running there", "replica", b.addr, "err", err)
			return
		}
		defer k.close()
		if _, err := k.fetch("KILL QUERY "+strconv.FormatUint(uint64(b.conn.ID()), 10), 0); err != nil {
			s.log.Warn("KILL QUERY on the replica failed", "replica", b.addr, "err", err)
		}
	})
	return func() bool {
		if stopFn() {
			wg.Done()
			return false
		}
		wg.Wait()
		return fired
	}
}

// startPassthrough sends query on the session's replica connection and
// returns it with the result pending, and the stop function of its
// killOnCancel watcher, which the caller must call when done. A
// connection found broken before anything reached the client (its replica
// restarted since it was opened, say) is replaced and the statement sent
// once more: passthrough statements are reads (and SETs, replayed anyway),
// so that is safe. Under a consistency mode the statement first waits for
// the replica to reach its floor (consistency.go); a replica that does not
// is taken out of service and the session moves to another healthy one.
func (s *Server) startPassthrough(ctx context.Context, ss *session, query string) (*backend, func() bool, error) {
	fl, err := s.queryFloor(ctx)
	if err != nil {
		return nil, nil, err
	}
	var behind error // the last replica found behind the floor
	tries := 0       // replicas found behind
	for attempt := 0; ; attempt++ {
		b, err := s.sessionBackend(ctx, ss)
		if err != nil {
			if behind != nil {
				return nil, nil, behind
			}
			return nil, nil, err
		}
		if err = b.use(ss.db); err == nil {
			stop := s.killOnCancel(ctx, b)
			if err = s.waitFloorOn(ctx, b, fl); err == nil {
				if err = b.conn.ExecuteStreamFetch(query); err == nil {
					return b, stop, nil
				}
			}
			if stop() {
				ss.closeBackend() // KILLed: the connection's state is unknown
				return nil, nil, err
			}
			if isReplicaBehind(err) && tries < len(s.workers) {
				// sessionBackend skips the replica until its next poll.
				tries++
				behind = err
				s.markBehind(b.addr, err)
				ss.closeBackend()
				attempt--
				continue
			}
		}
		if !broken(err) {
			return nil, nil, err
		}
		ss.closeBackend()
		if attempt > 0 || ctx.Err() != nil {
			return nil, nil, err
		}
		s.log.Info("passthrough connection broken; reconnecting once", "replica", b.addr, "err", err)
	}
}
