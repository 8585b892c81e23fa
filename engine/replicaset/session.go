package replicaset

import (
	"context"
	"strings"
	"sync/atomic"

	"vitess.io/vitess/go/mysql/collations"

	"github.com/shoaldb/shoal/replica"
	"github.com/shoaldb/shoal/sqlparse"
)

// Session is the engine's view of one client session: the database its
// statements are planned in, the replica connection its passthrough
// statements run on, and the path its running statement took. Its owner
// (the router's session) is used by one goroutine at a time; the engine
// reads and writes it on that goroutine only.
type Session struct {
	// DB is the session's current database ("" for none).
	DB string
	// Kind is the path of the statement running now (observe.Kind*), for
	// the metrics and the slow log; the engine sets it.
	Kind string
	// backend is the connection to a replica used for this session's
	// passthrough statements, opened on first use. Its database and the
	// SET statements the client ran are replayed when it is reopened.
	backend *replica.Conn
	sets    setLog // setlog.go
	// open is the count of open session connections of backend's
	// replica (Set.sessions), decremented when backend closes.
	open *atomic.Int64
	// drift is how the session's settings differ from a fresh
	// connection's (drift.go).
	drift Drift
	// Warnings is the warning count of the session's last statement as
	// its result told the client: the replica's for a passthrough
	// statement, 0 for one Shoal answered itself (whose warnings are not
	// collected; docs/sql.md).
	Warnings uint16
	// heldWarnings: backend may hold warnings (MariaDB keeps them until
	// a statement that reads a table, or makes warnings of its own);
	// staleWarnings: and a statement Shoal answered itself came after
	// them, so they are not the last statement's (SetWarnings, Answered,
	// WarningsCleared).
	heldWarnings, staleWarnings bool
	// status is the server status flags backend gave the session's last
	// statement passed through (in a transaction, autocommit,
	// NO_BACKSLASH_ESCAPES: what a client's escaping and transaction
	// handling read off every result); statusSeen says there was one
	// since the session began or was reset.
	status     uint16
	statusSeen bool
	// readOnlyTx: the open transaction is read-only because the client
	// asked (START TRANSACTION READ ONLY, SET … TRANSACTION READ ONLY),
	// not only because backend is (SessionBackend).
	readOnlyTx bool
	// tablesLocked: backend holds table locks the client took (LOCK
	// TABLES … READ), released by UNLOCK TABLES, a transaction's start
	// or the connection's end.
	tablesLocked bool
}

// SetTablesLocked records that backend now holds (or no longer holds)
// table locks the client took.
func (ss *Session) SetTablesLocked(locked bool) { ss.tablesLocked = locked && ss.backend != nil }

// TablesLocked reports whether backend holds table locks the client
// took: the session's reads then run there (MariaDB lets such a session
// read only the tables it locked, as of the lock).
func (ss *Session) TablesLocked() bool { return ss.tablesLocked && ss.backend != nil }

// Server status flags (the protocol's SERVER_STATUS_IN_TRANS and
// SERVER_STATUS_IN_TRANS_READONLY).
const (
	statusInTrans         = 0x0001
	statusInTransReadOnly = 0x2000
)

// SetStatus records the server status flags backend gave query, the
// session's last statement passed through. Every transaction there is
// read-only; the flag saying so is kept only when the client asked for
// it, as MariaDB would report it directly.
func (ss *Session) SetStatus(flags uint16, query string) {
	if flags&statusInTrans != 0 && (!ss.statusSeen || ss.status&statusInTrans == 0) { // query began it
		ss.readOnlyTx = sqlparse.ContainsFold(query, "read only") || sqlparse.ContainsFold(query, "read_only") ||
			ss.SetsChanged("read only") || ss.SetsChanged("read_only")
	}
	if !ss.readOnlyTx {
		flags &^= statusInTransReadOnly
	}
	ss.status, ss.statusSeen = flags, true
}

// HasBackend reports whether the session has a replica connection open.
func (ss *Session) HasBackend() bool { return ss.backend != nil }

// ErrorReplayed records that backend now holds the error Shoal answered
// the session's last statement with as its diagnostics (SIGNAL): shown
// by SHOW WARNINGS and @@error_count until a statement that reads a
// table, as MariaDB would (Set.ReplayError).
func (ss *Session) ErrorReplayed() { ss.heldWarnings, ss.staleWarnings = true, false }

// InTransaction reports whether the session's replica connection said,
// after its last statement, that a transaction is open there (BEGIN,
// START TRANSACTION): the session's reads then belong to that
// transaction's snapshot.
func (ss *Session) InTransaction() bool { return ss.statusSeen && ss.status&statusInTrans != 0 }

// Status is the server status flags of the session's last statement
// passed through, and whether there was one since the session began.
func (ss *Session) Status() (uint16, bool) { return ss.status, ss.statusSeen }

// SetWarnings records the warning count the replica gave the session's
// last statement, passed through on backend.
func (ss *Session) SetWarnings(n uint16) {
	ss.Warnings = n
	if n > 0 {
		ss.heldWarnings, ss.staleWarnings = true, false
	}
}

// WarningsCleared records that backend holds no warnings.
func (ss *Session) WarningsCleared() { ss.heldWarnings, ss.staleWarnings = false, false }

// Answered records a statement Shoal answered without backend: the
// client was told of no warnings, and whatever backend holds belongs to
// an earlier statement.
func (ss *Session) Answered() {
	ss.Warnings = 0
	ss.staleWarnings = ss.staleWarnings || ss.heldWarnings
}

// HoldsWarnings reports whether backend may hold warnings: a statement
// that reads no table would report them as its own.
func (ss *Session) HoldsWarnings() bool { return ss.heldWarnings }

// StaleWarnings reports whether backend holds warnings of a statement
// before the session's last one: SHOW WARNINGS there would show them
// (MariaDB clears them with every statement).
func (ss *Session) StaleWarnings() bool { return ss.staleWarnings }

// Database is the session's current database ("" for none).
func (ss *Session) Database() string { return ss.DB }

// CloseBackend closes the session's replica connection (it is reopened,
// with the session's SETs replayed, on next use).
func (ss *Session) CloseBackend() {
	ss.tablesLocked = false
	if ss.backend != nil {
		ss.backend.Close()
		ss.backend = nil
		ss.open.Add(-1)
		ss.open = nil
	}
}

// Reset closes the replica connection and forgets the SETs
// (COM_RESET_CONNECTION).
func (ss *Session) Reset() {
	ss.CloseBackend()
	ss.sets = setLog{}
	ss.drift = Drift{}
	ss.statusSeen = false
}

// SetsChanged reports whether the session ran a SET that mentions name.
func (ss *Session) SetsChanged(name string) bool {
	for _, set := range ss.sets.entries {
		if sqlparse.ContainsFold(set.stmt, name) {
			return true
		}
	}
	return false
}

// RememberSet records a SET statement that ran on the session's replica
// connection, for replay on a new one (setlog.go).
func (ss *Session) RememberSet(stmt string) { ss.sets.add(stmt) }

// AdmitSet is nil when the session can remember stmt, a SET about to run;
// otherwise the error to answer instead of running it (setlog.go).
func (ss *Session) AdmitSet(stmt string) error { return ss.sets.admits(stmt) }

// ReadCharset reads the session's connection character set on its
// replica connection, after a SET that may have changed it: "" for
// utf8mb4, the charset's name when the client's and the results' are the
// same, "mixed" otherwise (or when results are sent unconverted, or
// collation_connection is a _bin collation); and the
// collation the server names in every text column definition it sends
// the session (0 when unknown). That is character_set_results' collation
// as SET NAMES cs COLLATE c left it (c, not cs's default: MariaDB sends
// 246 for utf8mb4 columns after SET NAMES utf8mb4 COLLATE
// utf8mb4_unicode_520_ci), read off the query's own column definition;
// and the session's collation_connection (lower case).
func (s *Set) ReadCharset(ctx context.Context, ss *Session) (string, collations.ID, string, error) {
	b, err := s.SessionBackend(ctx, ss)
	if err != nil {
		return "", 0, "", err
	}
	r, err := b.Fetch("SELECT @@character_set_client, @@character_set_results, @@collation_connection", 1)
	if err != nil {
		if replica.Broken(err) {
			ss.CloseBackend()
		}
		return "", 0, "", err
	}
	if len(r.Rows) != 1 || r.Rows[0][1].IsNull() {
		return "mixed", 0, "", nil
	}
	var results collations.ID
	if len(r.Fields) == 3 {
		results = collations.ID(r.Fields[1].Charset)
	}
	client, name := strings.ToLower(r.Rows[0][0].ToString()), strings.ToLower(r.Rows[0][1].ToString())
	conn := strings.ToLower(r.Rows[0][2].ToString())
	switch {
	case client != name:
		return "mixed", 0, conn, nil
	case strings.HasSuffix(conn, "_bin") || conn == "binary":
		// String literals are binary-collated: compared byte by byte,
		// and their columns carry BINARY_FLAG. The session's reads run
		// on its replica, as for a client charset Shoal does not read.
		return "mixed", 0, conn, nil
	case client == "utf8mb4":
		return "", results, conn, nil
	}
	return client, results, conn, nil
}
