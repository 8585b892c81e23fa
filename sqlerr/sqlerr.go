// Package sqlerr is Shoal's catalog of user-visible errors.
//
// Every error a client can cause leaves Shoal as a MySQL error: an errno, a
// SQLSTATE and a message that says what to do. Inside the process errors are
// *sqlerror.SQLError values from vitess (the type the MySQL listener writes to
// the wire); across gRPC they travel as a status whose details carry errno and
// SQLSTATE, never parsed out of message text. A replica's own error keeps its
// original errno end to end, so passthrough and distributed queries fail the
// same way MySQL would.
package sqlerr

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/go-sql-driver/mysql"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"vitess.io/vitess/go/mysql/sqlerror"
)

// Error is the in-process form of a user-visible error.
type Error = sqlerror.SQLError

// Codes used by Shoal itself. Errors that come from a replica keep the
// replica's own code.
const (
	ErrReadOnly         = 1290 // ER_OPTION_PREVENTS_STATEMENT
	ErrParse            = 1064 // ER_PARSE_ERROR
	ErrNoSuchTable      = 1146 // ER_NO_SUCH_TABLE
	ErrUnknownTable     = 1051 // ER_BAD_TABLE_ERROR
	ErrBadDB            = 1049 // ER_BAD_DB_ERROR
	ErrNoDB             = 1046 // ER_NO_DB_ERROR
	ErrAccessDenied     = 1045 // ER_ACCESS_DENIED_ERROR
	ErrTooManyConns     = 1040 // ER_CON_COUNT_ERROR
	ErrQueryInterrupted = 1317 // ER_QUERY_INTERRUPTED
	ErrQueryTimeout     = 3024 // ER_QUERY_TIMEOUT (MAX_EXECUTION_TIME exceeded)
	ErrUnknown          = 1105 // ER_UNKNOWN_ERROR
	ErrNotSupported     = 1235 // ER_NOT_SUPPORTED_YET
	ErrOutOfResources   = 1041 // ER_OUT_OF_RESOURCES
	// ErrInsecureTransport refuses a client without TLS when the
	// coordinator has require_secure_transport.
	ErrInsecureTransport = 3159 // ER_SECURE_TRANSPORT_REQUIRED
	// ErrReplicaBehind: a replica did not apply the statement's freshness
	// floor (consistency) within consistency_wait. MySQL's error for a
	// read held until its group member applied preceding transactions.
	ErrReplicaBehind = 3781 // ER_GR_HOLD_WAIT_TIMEOUT
	// ErrStatementTimeout is MariaDB's max_statement_time error; MySQL's
	// MAX_EXECUTION_TIME answers ErrQueryTimeout.
	ErrStatementTimeout = 1969 // ER_STATEMENT_TIMEOUT

	// ErrZeroDate is ER_TRUNCATED_WRONG_VALUE, SQLSTATE 22007, with
	// ZeroDateMark in its message: a fragment read a zero date
	// ('0000-00-00', '2024-00-00'), which no Arrow value holds. The
	// coordinator runs such a statement on a replica (IsZeroDate).
	ErrZeroDate = 1292
	// Session and statement errors MySQL gives the same way.
	ErrTableExists         = 1050 // ER_TABLE_EXISTS_ERROR
	ErrNoSuchThread        = 1094 // ER_NO_SUCH_THREAD (KILL)
	ErrKillDenied          = 1095 // ER_KILL_DENIED_ERROR
	ErrNetPacketTooLarge   = 1153 // ER_NET_PACKET_TOO_LARGE (max_allowed_packet)
	ErrWrongArguments      = 1210 // ER_WRONG_ARGUMENTS (COM_STMT_EXECUTE parameters)
	ErrUnknownStmtHandler  = 1243 // ER_UNKNOWN_STMT_HANDLER
	ErrInvalidCharString   = 1300 // ER_INVALID_CHARACTER_STRING
	ErrTooManyPlaceholders = 1390 // ER_PS_MANY_PARAM
	ErrUnsupportedPS       = 1295 // ER_UNSUPPORTED_PS (PREPARE of PREPARE, EXECUTE, DEALLOCATE)
	ErrMaxPreparedStmts    = 1461 // ER_MAX_PREPARED_STMT_COUNT_REACHED
)

// IsClientError reports whether num is a client-side error (CR_*, 2000 to
// 2999): the connection to the server failed or broke, so it cannot be
// used again and the statement may be retried elsewhere.
func IsClientError(num int) bool { return num >= 2000 && num < 3000 }

// IsReplicaBehind reports a replica that did not reach a statement's
// freshness floor in time (ErrReplicaBehind).
func IsReplicaBehind(err error) bool {
	se, ok := As(err)
	return ok && se.Num == ErrReplicaBehind
}

const domain = "shoal.mysql"

// New returns an error with the given code, SQLSTATE and message.
func New(num int, state, format string, args ...any) *Error {
	return sqlerror.NewSQLErrorf(sqlerror.ErrorCode(num), state, format, args...)
}

// ReadOnly is returned for every statement that would change data or schema.
func ReadOnly(kind string) *Error {
	return New(ErrReadOnly, "HY000",
		"The MySQL server is running with the --read-only option so it cannot execute this statement: Shoal is a read-only endpoint (%s refused); send writes to the primary", kind)
}

// Parse reports a statement that the coordinator cannot read.
func Parse(msg string) *Error {
	return New(ErrParse, "42000", "%s", msg)
}

// serverName is the server the replicas run, as its syntax errors name
// it ("MariaDB" or "MySQL"; SetServerName).
var serverName atomic.Pointer[string]

// SetServerName sets the server name syntax errors give from the
// replicas' version string (SELECT VERSION()).
func SetServerName(version string) {
	name := "MySQL"
	if strings.Contains(version, "MariaDB") {
		name = "MariaDB"
	}
	serverName.Store(&name)
}

// Syntax is the syntax error the server gives a statement it cannot read
// from near on (the text from the first token it could not read), on
// line line: word for word MariaDB's (or MySQL's) 1064, with near cut as
// the server cuts it (cutNear).
func Syntax(near string, line int) *Error {
	name := "MariaDB"
	if p := serverName.Load(); p != nil {
		name = *p
	}
	return Parse(fmt.Sprintf("You have an error in your SQL syntax; check the manual that corresponds to your %s server version for the right syntax to use near '%s' at line %d", name, cutNear(near, name == "MariaDB"), line))
}

// cutNear cuts the text of a syntax error as the server prints it: MySQL
// its first 80 characters; MariaDB ('%-.80T') a text longer than 80 bytes
// to the whole characters in its first 77 bytes and "...", which is what a
// client shows of a long statement (the mysqlnd, Connector/C and ODBC
// client tests compare the messages).
func cutNear(near string, mariadb bool) string {
	if mariadb {
		if len(near) <= 80 {
			return near
		}
		cut := near[:77]
		for len(cut) > 0 && !utf8.ValidString(cut) && utf8.ValidString(near) {
			cut = cut[:len(cut)-1]
		}
		return cut + "..."
	}
	if n := 0; utf8.ValidString(near) {
		for i := range near {
			if n == 80 {
				return near[:i]
			}
			n++
		}
	} else if len(near) > 80 {
		return near[:80]
	}
	return near
}

// nearRE finds what a syntax error (1064) says it could not read.
var nearRE = regexp.MustCompile(`(?s) near '(.*)' at line (\d+)$`)

// SyntaxNear returns the text and the line of a syntax error (1064) the
// coordinator or a replica gave, and whether err is one.
func SyntaxNear(err error) (near string, line int, ok bool) {
	se, ok := As(err)
	if !ok || se.Num != ErrParse {
		return "", 0, false
	}
	m := nearRE.FindStringSubmatch(se.Message)
	if m == nil {
		return "", 0, false
	}
	line, _ = strconv.Atoi(m[2])
	return m[1], line, true
}

// Unavailable reports that no replica could serve part of a query.
func Unavailable(format string, args ...any) *Error {
	return New(ErrUnknown, "HY000", "Shoal: "+format, args...)
}

// Interrupted reports a query cancelled by the client, KILL or shutdown.
func Interrupted() *Error {
	return New(ErrQueryInterrupted, "70100", "Query execution was interrupted")
}

// Timeout reports a query that ran past its deadline.
func Timeout(d fmt.Stringer) *Error {
	return New(ErrQueryTimeout, "HY000", "Query execution was interrupted, maximum statement execution time exceeded (%s); raise query_timeout or narrow the query", d)
}

// ReplicaBehind reports a replica that did not apply a statement's
// freshness floor within wait: the statement is not answered from it.
func ReplicaBehind(replica, floor string, wait fmt.Stringer) *Error {
	return New(ErrReplicaBehind, "HY000",
		"Shoal: replica %s has not applied GTID position %s (the statement's consistency floor) within %s; not answering from stale data", replica, floor, wait)
}

// As extracts a MySQL error from err: a vitess SQLError, a go-sql-driver
// MySQLError (the replica's own error), or a gRPC status carrying one.
func As(err error) (*Error, bool) {
	if err == nil {
		return nil, false
	}
	var se *sqlerror.SQLError
	if errors.As(err, &se) {
		return se, true
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		state := string(me.SQLState[:])
		if me.SQLState == [5]byte{} {
			state = "HY000"
		}
		return New(int(me.Number), state, "%s", me.Message), true
	}
	if st, ok := status.FromError(err); ok {
		for _, d := range st.Details() {
			if info, ok := d.(*errdetails.ErrorInfo); ok && info.Domain == domain {
				n, _ := strconv.Atoi(info.Metadata["errno"])
				return New(n, info.Metadata["sqlstate"], "%s", st.Message()), true
			}
		}
	}
	return nil, false
}

// ToMySQL converts any error into one the MySQL listener can send: MySQL
// errors keep their code, context errors become interruption or timeout
// errors, anything else becomes 1105 with its text.
func ToMySQL(err error) error {
	if err == nil {
		return nil
	}
	if se, ok := As(err); ok {
		return se
	}
	switch {
	case errors.Is(err, context.Canceled):
		return Interrupted()
	case errors.Is(err, context.DeadlineExceeded):
		return New(ErrQueryTimeout, "HY000", "Query execution was interrupted, maximum statement execution time exceeded; raise query_timeout or narrow the query")
	}
	return New(ErrUnknown, "HY000", "%s", err.Error())
}

// ToStatus converts err into a gRPC status error that carries the MySQL errno
// and SQLSTATE in its details. Errors without a MySQL code become
// codes.Internal with ER_UNKNOWN_ERROR; context errors map to their gRPC
// equivalents.
func ToStatus(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok && !isMySQL(err) {
		return err
	}
	code := codes.Internal
	switch {
	case errors.Is(err, context.Canceled):
		code = codes.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		code = codes.DeadlineExceeded
	}
	se, ok := As(err)
	if !ok {
		se = ToMySQL(err).(*Error)
	} else {
		code = codes.FailedPrecondition
	}
	st := status.New(code, se.Message)
	st2, derr := st.WithDetails(&errdetails.ErrorInfo{
		Domain: domain,
		Reason: "MYSQL_ERROR",
		Metadata: map[string]string{
			"errno":    strconv.Itoa(int(se.Num)),
			"sqlstate": se.State,
		},
	})
	if derr != nil {
		return st.Err()
	}
	return st2.Err()
}

func isMySQL(err error) bool {
	var se *sqlerror.SQLError
	var me *mysql.MySQLError
	return errors.As(err, &se) || errors.As(err, &me)
}

// PinBehind reports a live pin that did not show a statement's freshness
// floor within wait: the same error as a replica behind the floor
// (ErrReplicaBehind), naming the pin and the replica it follows.
func PinBehind(pin, replica, floor string, wait fmt.Stringer) *Error {
	return New(ErrReplicaBehind, "HY000",
		"Shoal: live pin %s (following replica %s) has not applied GTID position %s (the statement's consistency floor) within %s; not answering from stale data. SHOW CACHED TABLES shows its state and lag", pin, replica, floor, wait)
}

// ZeroDateMark is in the message of every ErrZeroDate Shoal raises.
const ZeroDateMark = "holds a zero date"

// IsZeroDate reports whether err is a fragment's zero-date error.
func IsZeroDate(err error) bool {
	se, ok := As(err)
	return ok && se.Num == ErrZeroDate && strings.Contains(se.Message, ZeroDateMark)
}
