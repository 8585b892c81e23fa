package replica

import (
	"context"
	"database/sql"
	"time"

	"github.com/go-sql-driver/mysql"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// QueryBinary runs query on the replica at addr as a prepared statement
// and hands its rows to emit, in chunks of up to chunk rows, as values of
// fields' types (the statement's columns, as a text run describes them).
//
// Why: a client that executes a prepared statement reads its rows in the
// binary protocol, where a DOUBLE with fixed decimals (STDDEV, VARIANCE,
// SUM of a DOUBLE(M,D)) arrives with all its bits; the text protocol,
// which Conn speaks, prints it with the column's decimals only. vitess'
// client has no prepared statements, so this goes through
// go-sql-driver/mysql on a connection of its own, opened for the one
// statement after the setup statements (the session's SETs) and closed
// after it, so no pooled connection keeps a session's state.
func QueryBinary(ctx context.Context, addr, user, pass, db string, setup []string, query string, fields []*querypb.Field, chunk int, emit func([][]sqltypes.Value) error) error {
	cfg := mysql.NewConfig()
	cfg.Net, cfg.Addr, cfg.User, cfg.Passwd, cfg.DBName = "tcp", addr, user, pass, db
	cfg.Timeout = 10 * time.Second
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return err
	}
	pool := sql.OpenDB(conn)
	defer pool.Close()
	c, err := pool.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	for _, s := range setup {
		if _, err := c.ExecContext(ctx, s); err != nil {
			return err
		}
	}
	stmt, err := c.PrepareContext(ctx, query)
	if err != nil {
		return err
	}
	defer stmt.Close()
	rows, err := stmt.QueryContext(ctx)
	if err != nil {
		return err
	}
	defer rows.Close()
	raw := make([]sql.RawBytes, len(fields))
	dest := make([]any, len(fields))
	for i := range raw {
		dest[i] = &raw[i]
	}
	var out [][]sqltypes.Value
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		if len(out) == chunk {
			if err := emit(out); err != nil {
				return err
			}
			out = nil
		}
		row := make([]sqltypes.Value, len(fields))
		for i, b := range raw {
			if b != nil { // RawBytes: integers, floats (every digit) and dates as text
				row[i] = sqltypes.MakeTrusted(fields[i].Type, append([]byte(nil), b...))
			}
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(out) == 0 {
		return nil
	}
	return emit(out)
}
