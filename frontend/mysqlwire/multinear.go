package mysqlwire

import (
	"bytes"
	"strings"

	"vitess.io/vitess/go/mysql"

	"github.com/shoaldb/shoal/sqlerr"
)

// Syntax errors in a multi-statement query.
//
// With CLIENT_MULTI_STATEMENTS vitess splits a COM_QUERY into its
// statements and hands the handler one at a time, so a syntax error's
// text ended with that statement ('selec broken'), where MariaDB, which
// parses the query from the statement on, quotes the text from the error
// to the end of the whole query ('selec broken; select 2'), as a mysqli
// multi_query showed. The transport keeps the COM_QUERY (execTap, up to
// execTapMax bytes), so the handler finds each statement in it, in order,
// and extends a syntax error's text with what follows the statement.

// multiNear returns err, a statement's error, with the text of a syntax
// error running on to the end of the multi-statement query the statement
// came in.
func multiNear(c *mysql.Conn, stmt string, err error) error {
	if c.Capabilities&mysql.CapabilityClientMultiStatements == 0 {
		return err
	}
	pc, ok := c.GetRawConn().(*packetConn)
	if !ok {
		return err
	}
	t := &pc.tap
	if t.cut || len(t.buf) == 0 || t.buf[0] != mysql.ComQuery {
		return err
	}
	// The statement is found in the query's bytes, not a copy of the
	// whole query: this runs for every statement of a client that may
	// send several.
	q := t.buf[1:]
	if t.piece > len(q) {
		return err
	}
	i := bytes.Index(q[t.piece:], []byte(stmt))
	if i < 0 {
		return err
	}
	end := t.piece + i + len(stmt)
	t.piece = end
	if err == nil {
		return err
	}
	// MariaDB drops the query's trailing white space and semicolons.
	full := strings.TrimRight(string(q), "; \t\r\n\f\v")
	near, line, ok := sqlerr.SyntaxNear(err)
	if !ok {
		return err
	}
	off, ok := nearOffset(stmt, near)
	if !ok {
		return err
	}
	return sqlerr.Syntax(stmt[off:]+full[min(end, len(full)):], line)
}
