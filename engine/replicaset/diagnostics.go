package replicaset

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/shoaldb/shoal/sqlerr"
	"github.com/shoaldb/shoal/sqlparse"
)

// A session's diagnostics (SHOW WARNINGS, SHOW ERRORS, @@warning_count,
// @@error_count) live on its replica connection; these keep them what
// MariaDB would show after statements Shoal answered itself.

// ReplayError (under base, the coordinator's lifetime) makes the session's replica connection hold e, the error
// Shoal answered the session's last statement with, as its diagnostics:
// MariaDB keeps a statement's error for SHOW WARNINGS, SHOW ERRORS and
// @@error_count until a statement that reads a table, and the replica
// connection, not having seen the statement, would show none (or an
// earlier one). SIGNAL with e's number, SQLSTATE and message raises the
// same error there. It runs under a short deadline of its own (the
// statement's may have passed) and gives up quietly, leaving the
// warnings reported cleared.
func (s *Set) ReplayError(base context.Context, ss *Session, e *sqlerr.Error) {
	if e.Num <= 0 || e.Num > 65535 || len(e.State) != 5 || strings.HasPrefix(e.State, "00") {
		return // not an error SIGNAL can raise
	}
	switch e.Num {
	case 1040, 1203, 1317, 1969, 3024, 1105, 2013:
		// Refusals under load, timeouts, interruptions, internal errors:
		// not raised again (a burst of refusals must cost the replicas
		// nothing; an interrupted statement's client must hear of it at
		// once).
		return
	}
	ctx, cancel := context.WithTimeout(base, time.Second)
	defer cancel()
	q := "SIGNAL SQLSTATE " + sqlparse.QuoteString([]byte(e.State)) + " SET MYSQL_ERRNO = " + strconv.Itoa(int(e.Num)) +
		", MESSAGE_TEXT = " + sqlparse.QuoteString([]byte(e.Message))
	st, stop, err := s.StartPassthrough(ctx, ss, q)
	if err == nil { // SIGNAL always fails; a success leaves the state unknown
		st.Close()
		stop()
		ss.CloseBackend()
		return
	}
	if se, ok := sqlerr.As(err); ok && se.Num == e.Num {
		ss.ErrorReplayed()
	}
}

// ClearWarnings clears the warnings on the session's replica connection,
// as the client's last statement (one Shoal answered itself, reading a
// table) would have on MariaDB.
func (s *Set) ClearWarnings(ctx context.Context, ss *Session) {
	// A statement that reads no table leaves them (MariaDB): this one
	// reads a derived table.
	st, stop, err := s.StartPassthrough(ctx, ss, "DO (SELECT 1 FROM (SELECT 1) AS shoal_clear)")
	if err != nil {
		return
	}
	if cerr := st.Close(); stop() || cerr != nil {
		ss.CloseBackend()
		return
	}
	ss.WarningsCleared()
}
