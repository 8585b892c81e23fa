package mysqlwire

import (
	"vitess.io/vitess/go/mysql"

	"github.com/shoaldb/shoal/router"
)

// mirrored are the server status flags a client is told as the session's
// replica connection last reported them: whether a transaction is open
// (and read-only), autocommit, and NO_BACKSLASH_ESCAPES. Drivers act on
// them: pymysql, libmariadb and Connector/J escape strings by doubling
// quotes when NO_BACKSLASH_ESCAPES is set (with backslashes otherwise, a
// syntax error or a different string on a server reading them
// literally), and read autocommit and the open transaction off the flags
// (Connector/J's getAutoCommit, pymysql's get_autocommit). The replica
// connection has the session's SETs and its BEGIN and COMMIT, so its
// flags are the session's. A statement Shoal answers itself leaves them
// as the last passthrough left them.
const mirrored = mysql.ServerStatusInTrans | mysql.ServerStatusAutocommit |
	mysql.ServerStatusNoBackslashEscapes | mysql.ServerStatusInTransReadonly

// syncStatus copies the mirrored flags of ss's replica connection into
// the flags vitess writes in c's next OK or EOF packet.
func syncStatus(c *mysql.Conn, ss *router.Session) {
	if flags, ok := ss.Status(); ok {
		c.StatusFlags = c.StatusFlags&^mirrored | flags&mirrored
	} else {
		c.StatusFlags = c.StatusFlags&^mirrored | mysql.ServerStatusAutocommit
	}
}
