package router

import (
	"sync"
	"vitess.io/vitess/go/mysql/collations"

	"github.com/shoaldb/shoal/engine"
)

// Session is the state of one client connection. vitess serializes a
// connection's handler calls, so only run (read by KILL, shutdown and the
// clock) needs the mutex.
type Session struct {
	// Session is what the engine needs of the session: its database, its
	// replica connection and SETs for passthrough, and the path the
	// running statement took.
	engine.Session
	id   uint32
	user string

	// conn is the client connection, for KILL (nil for Flight SQL).
	conn Closer
	// proc is what SHOW PROCESSLIST shows of the session (processlist.go).
	proc procInfo
	// named holds the statements of SQL-level PREPARE by lower-case name
	// (named.go).
	named map[string]*named
	// charset is the client's connection character set when it is not
	// utf8mb4 ("" for utf8mb4), and charsetID the collation results are
	// sent in (charset.go).
	charset   string
	charsetID collations.ID
	// resultsID is, on a utf8mb4 connection, the collation its results
	// name when it is not utf8mb4_general_ci (SET NAMES utf8mb4 COLLATE
	// utf8mb4_unicode_ci, or the handshake's); 0 otherwise (charset.go).
	resultsID collations.ID
	// connCollated says the session's collation_connection is not its
	// charset's default: text literals compare under it
	// (conncoll.Collated; charset.go).
	connCollated bool
	// leavesWarnings: the running statement, answered by Shoal, is one
	// MariaDB answers without touching the session's warnings (USE): an
	// earlier statement's stay for SHOW WARNINGS.
	leavesWarnings bool
	// last is what the session's statements left for FOUND_ROWS() and
	// ROW_COUNT() where its replica connection cannot know it
	// (lastresult.go).
	last lastResult
	// Front is the front end's own state of the connection (the MySQL
	// front end's client watcher), on the session's goroutine only.
	Front any

	// registered is set for sessions in the router's registry (Open);
	// the clock finds the others' statements in Router.loose.
	registered bool

	mu  sync.Mutex
	run stmtRun // the statement running, for the clock and KILL (clock.go)
}

// Reset closes the replica connection and forgets the SETs and the
// named prepared statements (COM_RESET_CONNECTION).
func (ss *Session) Reset() {
	ss.Session.Reset()
	ss.named = nil
}

// Open registers a new session for connection id (the MySQL front end's
// NewConnection); conn, when not nil, is closed by KILL CONNECTION.
func (s *Router) Open(id uint32, conn Closer) *Session {
	ss := &Session{id: id, conn: conn, registered: true}
	s.sessions.Store(id, ss)
	return ss
}

// Closer is a client connection KILL can end: MarkForClose ends it after
// the running statement, Close at once.
type Closer interface {
	MarkForClose()
	Close()
}

// Authenticated records the account and client address of ss once its
// handshake has completed.
func (s *Router) Authenticated(ss *Session, user, host string) {
	ss.user = user
	ss.proc.connected(user, host)
}

// Close unregisters ss, cancels its statement and closes its replica
// connection (the connection closed).
func (s *Router) Close(ss *Session) {
	s.sessions.Delete(ss.id)
	ss.kill()
	ss.CloseBackend()
}

// Ephemeral returns a session of one request (Flight SQL): user in db,
// not registered; the caller closes its backend when done.
func Ephemeral(user, db string) *Session {
	ss := &Session{user: user}
	ss.DB = db
	ss.proc.user.Store(&user)
	return ss
}

// InDatabase runs f with db as the session's database, as MariaDB runs a
// prepared statement: its names were resolved when it was prepared, in
// the database current then, whatever USE ran since (DATABASE() in it
// names that database too). The session's own database is back when f
// returns, unless f changed it. db "" leaves the session's.
func (ss *Session) InDatabase(db string, f func() error) error {
	if db == "" || db == ss.DB {
		return f()
	}
	saved := ss.DB
	ss.DB = db
	defer func() {
		if ss.DB == db {
			ss.DB = saved
		}
	}()
	return f()
}

// ID is the session's connection id.
func (ss *Session) ID() uint32 { return ss.id }

// User is the session's account.
func (ss *Session) User() string { return ss.user }
