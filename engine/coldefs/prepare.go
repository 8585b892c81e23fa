package coldefs

import (
	"errors"

	"vitess.io/vitess/go/mysql/sqlerror"
)

// prepareErrors are the errors MariaDB raises when it prepares a
// statement (COM_STMT_PREPARE), before any row is read: a name it cannot
// resolve, a call of the wrong shape. Describing the statement with LIMIT
// 0 on a replica meets the same ones, and the prepare must fail with them
// as MariaDB's does, not succeed and fail at each execution (a driver that
// prepares on the server, Connector/J with useServerPrepStmts, reports the
// error from prepareStatement). Not MariaDB's 1064 for what Shoal's parser
// accepted (a derived table without an alias): its message quotes the
// LIMIT 0 appended; such a prepare still fails at execution.
var prepareErrors = map[sqlerror.ErrorCode]bool{
	sqlerror.ERBadFieldError: true, sqlerror.ERNonUniq: true, sqlerror.ERSPDoesNotExist: true,
	sqlerror.ERWrongParamcountToNativeFct: true, sqlerror.ERInvalidGroupFuncUse: true,
	sqlerror.ERDerivedMustHaveAlias: true, sqlerror.ERWrongNumberOfColumnsInSelect: true,
}

// PrepareError is the error a prepare of the statement that failed with
// err while described must answer with (nil: describe failures that are
// not the statement's, which leave the prepare to succeed). tables says a
// missing table or database (1146, 1049) is the statement's too: false
// while the coordinator holds pinned query results, which a replica does
// not know.
func PrepareError(err error, tables bool) error {
	var se *sqlerror.SQLError
	if !errors.As(err, &se) {
		return nil
	}
	code := sqlerror.ErrorCode(se.Num)
	if prepareErrors[code] || tables && (code == sqlerror.ERNoSuchTable || code == sqlerror.ERBadDb) {
		return se
	}
	return nil
}
