package router

import (
	"regexp"
	"strconv"
	"strings"

	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/sqlerr"
)

// Connection limit, KILL and cancellation.
//
// Connections are counted from accept (frontend/mysqlwire's admitListener) to
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

// CloseSessions closes every client connection (Close): a client of a
// coordinator that stops sees its connection break, as it would if the
// process died, and reconnects (to another coordinator behind the load
// balancer) instead of talking to a server that only answers 1317.
func (s *Router) CloseSessions() {
	s.sessions.Range(func(_, v any) bool {
		if c := v.(*Session).conn; c != nil {
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
func connectionID(query string, ss *Session, callback func(*sqltypes.Result) error) (bool, error) {
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
func (s *Router) kill(ss *Session, id uint32, queryOnly bool, callback func(*sqltypes.Result) error) error {
	v, ok := s.sessions.Load(id)
	if !ok {
		return sqlerr.New(sqlerr.ErrNoSuchThread, "HY000", "Unknown thread id: %d", id)
	}
	target := v.(*Session)
	// target.user belongs to the target's goroutine; its published copy
	// is safe to read from here.
	owner := ""
	if u := target.proc.user.Load(); u != nil {
		owner = *u
	}
	if owner != ss.user && ss.user != "root" {
		return sqlerr.New(sqlerr.ErrKillDenied, "HY000", "You are not owner of thread %d", id)
	}
	target.kill()
	if !queryOnly && target.conn != nil {
		target.conn.MarkForClose()
		if target != ss {
			// Closing the socket ends an idle connection at once and a
			// busy one as soon as it next reads or writes.
			target.conn.Close()
		}
	}
	return callback(&sqltypes.Result{})
}

// Admit counts a new client connection in; false when max_connections are
// open (the caller refuses it with 1040). Every admitted connection is
// counted out with Leave.
func (s *Router) Admit() bool {
	if n := s.conns.Add(1); n > int64(s.cfg.MaxConnections) {
		s.conns.Add(-1)
		return false
	}
	return true
}

// Leave counts a client connection out.
func (s *Router) Leave() { s.conns.Add(-1) }
