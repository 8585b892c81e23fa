package mysqlwire

import (
	"context"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/engine/rowformat"
	"github.com/shoaldb/shoal/observe"
	"github.com/shoaldb/shoal/router"
	"github.com/shoaldb/shoal/sqlerr"
	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/sqltypes"
	"vitess.io/vitess/go/vt/vtenv"
)

// handler implements vitess' mysql.Handler over the router. vitess calls
// a connection's methods one at a time.
type handler struct {
	mysql.UnimplementedHandler
	r   *router.Router
	cfg config.Coordinator
	vt  *vtenv.Environment
	m   *observe.Metrics
	// mariadb: the replicas are MariaDB, whose prepare types parameters
	// NULL (paramdefs.go).
	mariadb bool
}

func (h *handler) Env() *vtenv.Environment { return h.vt }

func (h *handler) NewConnection(c *mysql.Conn) {
	// The handshake's status, as a fresh MariaDB session's: autocommit on
	// (drivers read it to decide whether to send SET autocommit).
	c.StatusFlags |= mysql.ServerStatusAutocommit
	c.ClientData = h.r.Open(c.ConnectionID, c)
	h.m.Conns.Inc()
	h.m.ConnsTotal.Inc()
}

func (h *handler) ConnectionReady(c *mysql.Conn) {
	handshakeDone(c) // conn.go: connect_timeout no longer applies
	if ss, ok := c.ClientData.(*router.Session); ok {
		host := ""
		if a := c.RemoteAddr(); a != nil {
			host = a.String()
		}
		h.r.Authenticated(ss, c.User, host)
		ss.SetClientCharset(c.CharacterSet)
	}
}

func (h *handler) ConnectionClosed(c *mysql.Conn) {
	h.m.Conns.Dec()
	h.r.Leave()
	if ss, ok := c.ClientData.(*router.Session); ok {
		h.r.Close(ss)
	}
}

func (h *handler) ComResetConnection(c *mysql.Conn) {
	if ss, ok := c.ClientData.(*router.Session); ok {
		ss.Reset()
		ss.SetClientCharset(c.CharacterSet) // the handshake's again
	}
}

// WarningCount is the last statement's, as the replica counted them for
// a statement passed through (0 for one Shoal answered itself).
func (h *handler) WarningCount(c *mysql.Conn) uint16 {
	if ss, ok := c.ClientData.(*router.Session); ok {
		return ss.Warnings
	}
	return 0
}

func (h *handler) ComQuery(c *mysql.Conn, query string, callback func(*sqltypes.Result) error) error {
	return multiNear(c, query, h.run(h.r.Context(), c, query, callback)) // multinear.go
}

// run is ComQuery under ctx (the router's context, marked for the binary
// protocol by ComStmtExecute).
func (h *handler) run(ctx context.Context, c *mysql.Conn, query string, callback func(*sqltypes.Result) error) (err error) {
	ss, ok := c.ClientData.(*router.Session)
	if !ok {
		return sqlerr.New(sqlerr.ErrUnknown, "HY000", "connection has no session")
	}
	if err := h.checkSize(query); err != nil { // packet.go
		return err
	}
	if err := h.checkUTF8Conn(c, ss, query); err != nil { // utf8.go
		return err
	}
	// The status flags every OK and EOF packet carries are the session's
	// replica's (status.go). vitess writes a result without rows from
	// within the callback and ends one with rows after the handler.
	next := callback
	callback = func(r *sqltypes.Result) error {
		syncStatus(c, ss)
		return next(r)
	}
	defer syncStatus(c, ss)
	if !rowformat.BinaryRows(ctx) {
		// The text protocol: a statement passed through relays the
		// replica's row packets as they are (rowformat.RawRows), in
		// batches (relay.go). vitess has written the column definitions
		// by then (the callback's first result), and ends the result set
		// after the handler: what the relay gathered goes out before
		// either.
		rl := &relay{c: c}
		ctx = rowformat.WithRawRows(ctx, rl.write)
		withStatus := callback
		callback = func(r *sqltypes.Result) error {
			if err := rl.flush(); err != nil {
				return err
			}
			return withStatus(r)
		}
		defer func() {
			if ferr := rl.flush(); err == nil {
				err = ferr
			}
		}()
	}
	f := frontOf(c, ss)
	if f.pc != nil {
		d := h.cfg.NetWriteTimeout.D()
		if s := ss.Drift().NetWriteTimeout; s > 0 {
			d = s
		}
		f.pc.setWriteTimeout(d)
	}
	if f.watch == nil {
		return h.r.Run(ctx, ss, query, callback, nil)
	}
	return h.r.Run(ctx, ss, query, callback, f.watch)
}

// front is the MySQL front end's state of a connection (Session.Front):
// the watch of its client and its transport (nil: not a packetConn), and
// the database each server-side prepared statement was prepared in
// (prepared.go).
type front struct {
	watch  *clientWatch
	pc     *packetConn
	stmtDB map[uint32]string
}

// frontOf is c's front state, made on first use.
func frontOf(c *mysql.Conn, ss *router.Session) *front {
	f, _ := ss.Front.(*front)
	if f == nil {
		f = &front{watch: newClientWatch(c), pc: transport(c)}
		ss.Front = f
	}
	return f
}
