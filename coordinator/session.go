package coordinator

import (
	"context"
	"strings"
	"sync"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/sqltypes"
)

// session is the state of one client connection. vitess serializes a
// connection's handler calls, so only cancel (read by KILL and shutdown)
// needs the mutex.
type session struct {
	id   uint32
	user string
	db   string
	// backend is the connection to a replica used for this session's
	// passthrough statements, opened on first use. Its database and the
	// SET statements the client ran are replayed when it is reopened.
	backend *backend
	sets    []string
	// kind is the path of the statement running now (metrics).
	kind string

	// conn is the client connection, for KILL (set by register).
	conn *mysql.Conn
	// proc is what SHOW PROCESSLIST shows of the session (processlist.go).
	proc procInfo

	mu     sync.Mutex
	cancel context.CancelFunc
}

func (ss *session) setCancel(c context.CancelFunc) {
	ss.mu.Lock()
	ss.cancel = c
	ss.mu.Unlock()
}

func (ss *session) kill() {
	ss.mu.Lock()
	if ss.cancel != nil {
		ss.cancel()
	}
	ss.mu.Unlock()
}

func (ss *session) closeBackend() {
	if ss.backend != nil {
		ss.backend.close()
		ss.backend = nil
	}
}

// passthrough runs query verbatim on the session's replica connection and
// streams the replica's result — column definitions, rows, or error with
// its own code — to the client.
func (s *Server) passthrough(ctx context.Context, ss *session, query string, callback func(*sqltypes.Result) error) error {
	ss.kind = kindPassthrough
	b, stop, err := s.startPassthrough(ctx, ss, query)
	if err != nil {
		return err
	}
	defer func() {
		if stop() {
			ss.closeBackend() // KILLed: the connection's state is unknown
		}
	}()
	defer b.conn.CloseResult()
	fields, err := b.conn.Fields()
	if err != nil {
		ss.closeBackend()
		return err
	}
	if len(fields) == 0 {
		return callback(&sqltypes.Result{})
	}
	if err := callback(&sqltypes.Result{Fields: fields}); err != nil {
		return err
	}
	rows := make([][]sqltypes.Value, 0, chunkRows)
	for {
		if ctx.Err() != nil {
			ss.closeBackend()
			return ctx.Err()
		}
		row, err := b.conn.FetchNext(nil)
		if err != nil {
			if broken(err) {
				ss.closeBackend()
			}
			return err
		}
		if row == nil {
			break
		}
		rows = append(rows, row)
		if len(rows) == chunkRows {
			if err := callback(&sqltypes.Result{Rows: rows}); err != nil {
				return err
			}
			rows = make([][]sqltypes.Value, 0, chunkRows)
		}
	}
	if len(rows) > 0 {
		return callback(&sqltypes.Result{Rows: rows})
	}
	return nil
}

// sessionBackend returns the session's replica connection, opening it on a
// healthy replica (and replaying the session's SETs) if needed.
func (s *Server) sessionBackend(ctx context.Context, ss *session) (*backend, error) {
	if ss.backend != nil {
		if s.servesReads(ss.backend.addr) {
			return ss.backend, nil
		}
		ss.closeBackend() // its replica turned unhealthy: move the session
	}
	last := errNoReplica()
	for _, p := range s.healthyMetas() {
		b, err := dialBackend(ctx, p.addr, p.user, p.pass, "")
		if err != nil {
			last = err
			continue
		}
		// Passthrough never writes: the session is read-only on the replica
		// too, belt and braces with the classifier.
		if _, err := b.fetch("SET SESSION TRANSACTION READ ONLY", 0); err != nil {
			b.close()
			last = err
			continue
		}
		for _, set := range ss.sets {
			if _, err := b.fetch(set, 0); err != nil {
				b.close()
				return nil, err
			}
		}
		ss.backend = b
		return b, nil
	}
	return nil, last
}

// rememberSet records a SET statement for replay on a new backend; SET
// NAMES and friends are replaced rather than accumulated.
func (ss *session) rememberSet(stmt string) {
	key := strings.ToUpper(strings.Join(strings.Fields(stmt), " "))
	for i, old := range ss.sets {
		if strings.ToUpper(strings.Join(strings.Fields(old), " ")) == key {
			ss.sets[i] = stmt
			return
		}
	}
	if len(ss.sets) < 256 {
		ss.sets = append(ss.sets, stmt)
	}
}
