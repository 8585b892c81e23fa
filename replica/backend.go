// Package replica owns Shoal's connections to the MySQL replicas (and the
// primary) that the coordinator itself talks to: pooled metadata
// connections with a liveness check before reuse, sessions' passthrough
// connections, and reading replication positions. It speaks vitess' client
// protocol so a replica's column definitions and error codes reach clients
// unchanged. It imports only leaf packages (sqlerr, sqlparse); the engine
// and the router use it.
package replica

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/sqlerror"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/sqlerr"
	"github.com/shoaldb/shoal/sqlparse"
)

// Conn is a MySQL protocol connection from the coordinator to a replica,
// used for passthrough statements, catalog reads and result metadata. It
// speaks vitess' client protocol, so a replica's column definitions and
// error codes reach the client unchanged.
type Conn struct {
	// MySQL is the protocol connection (streaming reads use it directly).
	MySQL *mysql.Conn
	// Addr is the replica's host:port.
	Addr string
	db   string // database selected on conn
	// idleSince is when the connection went back to its pool.
	idleSince time.Time
	// st is the streamed statements' reused state (stream.go).
	st streamState
}

// Dial opens a connection to addr as user, selecting db when not "".
func Dial(ctx context.Context, addr, user, pass, db string) (*Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	c, err := mysql.Connect(ctx, &mysql.ConnParams{Host: host, Port: p, Uname: user, Pass: pass, DbName: db})
	if err != nil {
		return nil, err
	}
	return &Conn{MySQL: c, Addr: addr, db: db}, nil
}

// Use selects db on the connection when it differs from the current one.
func (b *Conn) Use(db string) error {
	if db == b.db || db == "" {
		return nil
	}
	if _, err := b.MySQL.ExecuteFetch("USE "+sqlparse.QuoteID(db), 0, false); err != nil {
		return err
	}
	b.db = db
	return nil
}

// Fetch runs a query and returns all rows (catalog and metadata reads);
// more than maxRows rows is an error, as with vitess' ExecuteFetch. It
// reads through a Stream rather than ExecuteFetch so that the column
// definitions are the server's own: vitess' client adds NUM_FLAG to every
// numeric column, which MariaDB sends only on some (ENUM + 0), and result
// metadata read here reaches clients. The Fields are the caller's own
// (copies of the stream's shared ones).
func (b *Conn) Fetch(query string, maxRows int) (*sqltypes.Result, error) {
	st, err := b.StartStream(query)
	if err != nil {
		return nil, err
	}
	r := &sqltypes.Result{RowsAffected: st.RowsAffected()}
	if fs := st.Fields(); fs != nil {
		r.Fields = make([]*querypb.Field, len(fs))
		for i, f := range fs {
			r.Fields[i] = f.CloneVT()
		}
	}
	for {
		row, err := st.Next()
		if err != nil {
			return nil, err
		}
		if row == nil {
			return r, nil
		}
		if maxRows >= 0 && len(r.Rows) == maxRows {
			if err := st.Close(); err != nil {
				return nil, err
			}
			return nil, fmt.Errorf("Row count exceeded %d", maxRows)
		}
		r.Rows = append(r.Rows, row)
	}
}

// FetchUnconverted runs a query with character_set_results = NULL: the
// server converts no value for the connection, and each column
// definition carries the column's own collation and its length in that
// charset (a latin1 column says latin1_swedish_ci, not utf8mb4). The
// connection's utf8mb4 results are restored before it returns; when that
// fails the connection is closed, as its state is unknown.
func (b *Conn) FetchUnconverted(query string, maxRows int) (*sqltypes.Result, error) {
	if _, err := b.MySQL.ExecuteFetch("SET character_set_results = NULL", 0, false); err != nil {
		return nil, err
	}
	r, err := b.Fetch(query, maxRows)
	if _, rerr := b.MySQL.ExecuteFetch("SET character_set_results = utf8mb4", 0, false); rerr != nil {
		b.Close()
		return nil, fmt.Errorf("restoring character_set_results: %w", rerr)
	}
	return r, err
}

// Close closes the connection.
func (b *Conn) Close() { b.MySQL.Close() }

// Broken reports whether err means the connection can no longer be used:
// a client-side error (CR_*, 2000-2999) or one that is not MySQL's at all.
func Broken(err error) bool {
	var se *sqlerror.SQLError
	if errors.As(err, &se) {
		return sqlerr.IsClientError(int(se.Num))
	}
	return err != nil
}

// Pool keeps idle connections to one replica for metadata reads.
type Pool struct {
	// Addr is the replica's host:port.
	Addr       string
	user, pass string
	mu         sync.Mutex
	idle       []*Conn
}

// NewPool returns an empty pool of connections to addr.
func NewPool(addr, user, pass string) *Pool { return &Pool{Addr: addr, user: user, pass: pass} }

// Dial opens a connection to the pool's replica that is not pooled (a
// session's own, or a side connection for KILL).
func (p *Pool) Dial(ctx context.Context, db string) (*Conn, error) {
	return Dial(ctx, p.Addr, p.user, p.pass, db)
}

// Get returns an idle connection, checked, or a new one; Put it back.
func (p *Pool) Get(ctx context.Context) (*Conn, error) {
	for {
		p.mu.Lock()
		n := len(p.idle)
		if n == 0 {
			p.mu.Unlock()
			return p.Dial(ctx, "")
		}
		b := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		// A connection may have outlived its replica (a crash and
		// restart): the socket tells at once when the replica closed it;
		// one idle for a while is also pinged (a half-open connection).
		if connCheck(b.MySQL.GetRawConn()) == nil && (time.Since(b.idleSince) < idleCheck || b.MySQL.Ping() == nil) {
			return b, nil
		}
		b.Close()
	}
}

// idleCheck is the idle time after which a pooled connection is pinged
// before use.
const idleCheck = time.Second

// Put returns b to the pool, or closes it when err says it is broken or
// the pool is full.
func (p *Pool) Put(b *Conn, err error) {
	if err != nil && Broken(err) {
		b.Close()
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.idle) >= 8 {
		b.Close()
		return
	}
	b.idleSince = time.Now()
	p.idle = append(p.idle, b)
}

// CloseAll closes the idle connections.
func (p *Pool) CloseAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, b := range p.idle {
		b.Close()
	}
	p.idle = nil
}

// FetchCtx is b.Fetch that gives up when ctx ends: it closes b, which
// ends the read, and returns once the fetch has.
func FetchCtx(ctx context.Context, b *Conn, q string) (*sqltypes.Result, error) {
	type result struct {
		res *sqltypes.Result
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := b.Fetch(q, 1)
		done <- result{res, err}
	}()
	select {
	case r := <-done:
		return r.res, r.err
	case <-ctx.Done():
		b.Close()
		<-done
		return nil, fmt.Errorf("%s: %w", q, ctx.Err())
	}
}
