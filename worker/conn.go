package worker

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"strconv"
	"time"

	"github.com/shoaldb/shoal/gtid"

	"github.com/go-sql-driver/mysql"

	"github.com/shoaldb/shoal/config"
)

// killTimeout bounds the side connection that sends KILL QUERY.
const killTimeout = 5 * time.Second

// dsnConfig builds the driver configuration for the local replica. Values
// are scanned as raw text (parseTime=false) and statements are sent as text
// (interpolateParams=true), so one fragment is one round trip.
func dsnConfig(cfg config.Worker) *mysql.Config {
	mc := mysql.NewConfig()
	mc.User = cfg.User
	mc.Passwd = cfg.Password
	mc.Net = "tcp"
	mc.Addr = cfg.MySQL
	mc.InterpolateParams = true
	mc.ParseTime = false
	mc.MultiStatements = false // second line of defence behind the validator
	mc.Collation = "utf8mb4_general_ci"
	mc.Timeout = 10 * time.Second // dial
	return mc
}

// mysqlConn is the set of driver interfaces go-sql-driver's connection
// implements; idConn forwards all of them so database/sql keeps its fast
// paths (BeginTx with ReadOnly, QueryContext without prepare, ...).
type mysqlConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.QueryerContext
	driver.ExecerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
	driver.NamedValueChecker
}

// idConn is a driver connection that knows its server thread id and the
// server's flavor, read once with one query when the connection is opened,
// so that a fragment can be killed on the server, and its server-side
// limits written in the server's dialect, without a round trip at query
// time.
type idConn struct {
	mysqlConn
	id      uint64
	mariadb bool
}

// idConnector opens idConns.
type idConnector struct {
	inner driver.Connector
}

func newConnector(cfg config.Worker) (*idConnector, error) {
	c, err := mysql.NewConnector(dsnConfig(cfg))
	if err != nil {
		return nil, fmt.Errorf("worker: replica DSN: %w", err)
	}
	return &idConnector{inner: c}, nil
}

func (c *idConnector) Driver() driver.Driver { return c.inner.Driver() }

func (c *idConnector) Connect(ctx context.Context) (driver.Conn, error) {
	dc, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	mc, ok := dc.(mysqlConn)
	if !ok {
		dc.Close()
		return nil, fmt.Errorf("worker: driver connection %T lacks the expected interfaces", dc)
	}
	ic, err := identify(ctx, mc)
	if err != nil {
		mc.Close()
		return nil, fmt.Errorf("worker: reading CONNECTION_ID() and @@version: %w", err)
	}
	return ic, nil
}

// identify reads the connection's thread id and the server's flavor.
func identify(ctx context.Context, mc mysqlConn) (*idConn, error) {
	rows, err := mc.QueryContext(ctx, "SELECT CONNECTION_ID(), @@version", nil)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	vals := make([]driver.Value, 2)
	if err := rows.Next(vals); err != nil {
		return nil, err
	}
	ic := &idConn{mysqlConn: mc, mariadb: gtid.IsMariaDB(text(vals[1]))}
	switch v := vals[0].(type) {
	case int64:
		ic.id = uint64(v)
	case uint64:
		ic.id = v
	case []byte:
		if ic.id, err = strconv.ParseUint(string(v), 10, 64); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("unexpected CONNECTION_ID() value %T", vals[0])
	}
	return ic, nil
}

func text(v driver.Value) string {
	switch x := v.(type) {
	case []byte:
		return string(x)
	case string:
		return x
	}
	return ""
}

// connInfo returns the server thread id of conn and whether the server is
// MariaDB.
func connInfo(conn *sql.Conn) (id uint64, mariadb bool, err error) {
	err = conn.Raw(func(dc any) error {
		ic, ok := dc.(*idConn)
		if !ok {
			return fmt.Errorf("worker: connection %T was not opened by the worker's connector", dc)
		}
		id, mariadb = ic.id, ic.mariadb
		return nil
	})
	return id, mariadb, err
}

// discard makes database/sql close conn instead of returning it to the pool.
// Used after a KILL QUERY so that no later fragment inherits its state.
func discard(conn *sql.Conn) {
	_ = conn.Raw(func(any) error { return driver.ErrBadConn })
}

// killQuery stops whatever thread id is running, through a fresh connection
// that does not wait for a pool slot.
func (c *idConnector) killQuery(id uint64) error {
	ctx, cancel := context.WithTimeout(context.Background(), killTimeout)
	defer cancel()
	dc, err := c.inner.Connect(ctx)
	if err != nil {
		return err
	}
	defer dc.Close()
	ex, ok := dc.(driver.ExecerContext)
	if !ok {
		return fmt.Errorf("worker: driver connection %T cannot Exec", dc)
	}
	_, err = ex.ExecContext(ctx, "KILL QUERY "+strconv.FormatUint(id, 10), nil)
	return err
}
