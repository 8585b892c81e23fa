package worker

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Server-side statement limit.
//
// The worker ends a fragment at its deadline by sending KILL QUERY through
// a side connection. Should that be lost — the side connection cannot be
// opened, the worker dies between its cancel and the KILL — the statement
// would run on the replica until it finishes. So every fragment also
// carries a limit the replica enforces itself: the time left to the
// deadline plus limitMargin (the worker's own cancel normally wins, and its
// error says why), written in the server's dialect:
//
//	MariaDB  SET STATEMENT max_statement_time=<seconds> FOR SELECT ...   (error 1969)
//	MySQL    SELECT /*+ MAX_EXECUTION_TIME(<ms>) */ ...                  (error 3024)
//
// A MySQL statement that does not start with SELECT (a parenthesised
// UNION, WITH ...) gets SET SESSION max_execution_time on its connection
// first instead of the hint.

// limitMargin is how long after the fragment's deadline the replica stops
// the statement by itself.
const limitMargin = time.Second

// maxLimit is the largest limit written: MariaDB's max_statement_time tops
// out at one year.
const maxLimit = 365 * 24 * time.Hour

// statementLimit is the limit for a fragment running under ctx.
func statementLimit(ctx context.Context, margin time.Duration) time.Duration {
	dl, ok := ctx.Deadline()
	if !ok {
		return maxLimit
	}
	return min(max(time.Until(dl)+margin, time.Millisecond), maxLimit)
}

// limitStatement returns query with the server-side limit d, and the
// statement to run before it on the same connection ("" when none).
func limitStatement(query string, mariadb bool, d time.Duration) (stmt, pre string) {
	if mariadb {
		return fmt.Sprintf("SET STATEMENT max_statement_time=%.3f FOR %s", d.Seconds(), query), ""
	}
	ms := max(d.Milliseconds(), 1)
	if rest, ok := strings.CutPrefix(query, "SELECT "); ok {
		return fmt.Sprintf("SELECT /*+ MAX_EXECUTION_TIME(%d) */ %s", ms, rest), ""
	}
	return query, fmt.Sprintf("SET SESSION max_execution_time=%d", ms)
}

// clockStatement sets the statement's clock (ticket.Timestamp, clock
// microseconds since 1970; 0: none) on stmt, a statement limitStatement
// wrote: on MariaDB inside its SET STATEMENT, elsewhere as set before it
// on the connection and reset after ("" when not needed). NOW(),
// CURDATE(), UNIX_TIMESTAMP() and the like then read that instant in
// every fragment of the statement.
func clockStatement(stmt string, mariadb bool, clock int64) (out, set, reset string) {
	if clock == 0 {
		return stmt, "", ""
	}
	ts := fmt.Sprintf("timestamp=%d.%06d", clock/1e6, clock%1e6)
	if rest, ok := strings.CutPrefix(stmt, "SET STATEMENT "); ok && mariadb {
		return "SET STATEMENT " + ts + ", " + rest, "", ""
	}
	return stmt, "SET SESSION " + ts, "SET SESSION timestamp=DEFAULT"
}
