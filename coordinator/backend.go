package coordinator

import (
	"context"
	"errors"
	"net"
	"strconv"
	"sync"
	"time"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/sqlerror"
	"vitess.io/vitess/go/sqltypes"
)

// backend is a MySQL protocol connection from the coordinator to a replica,
// used for passthrough statements, catalog reads and result metadata. It
// speaks vitess' client protocol, so a replica's column definitions and
// error codes reach the client unchanged.
type backend struct {
	conn *mysql.Conn
	addr string
	db   string // database selected on conn
	// idleSince is when the connection went back to its pool.
	idleSince time.Time
}

func dialBackend(ctx context.Context, addr, user, pass, db string) (*backend, error) {
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
	return &backend{conn: c, addr: addr, db: db}, nil
}

// use selects db on the connection when it differs from the current one.
func (b *backend) use(db string) error {
	if db == b.db || db == "" {
		return nil
	}
	if _, err := b.conn.ExecuteFetch("USE `"+escapeID(db)+"`", 0, false); err != nil {
		return err
	}
	b.db = db
	return nil
}

// fetch runs a query and returns all rows (catalog and metadata reads).
func (b *backend) fetch(query string, maxRows int) (*sqltypes.Result, error) {
	return b.conn.ExecuteFetch(query, maxRows, true)
}

func (b *backend) close() { b.conn.Close() }

// broken reports whether err means the connection can no longer be used.
func broken(err error) bool {
	var se *sqlerror.SQLError
	if errors.As(err, &se) {
		return se.Num >= 2000 && se.Num < 3000 // client-side CR_* errors
	}
	return err != nil
}

func escapeID(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			out = append(out, '`')
		}
		out = append(out, s[i])
	}
	return string(out)
}

// backendPool keeps idle backends to one replica for metadata reads.
type backendPool struct {
	addr, user, pass string
	mu               sync.Mutex
	idle             []*backend
}

func (p *backendPool) get(ctx context.Context) (*backend, error) {
	for {
		p.mu.Lock()
		n := len(p.idle)
		if n == 0 {
			p.mu.Unlock()
			return dialBackend(ctx, p.addr, p.user, p.pass, "")
		}
		b := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		// A connection may have outlived its replica (a crash and
		// restart): the socket tells at once when the replica closed it;
		// one idle for a while is also pinged (a half-open connection).
		if connCheck(b.conn.GetRawConn()) == nil && (time.Since(b.idleSince) < idleCheck || b.conn.Ping() == nil) {
			return b, nil
		}
		b.close()
	}
}

// idleCheck is the idle time after which a pooled connection is pinged
// before use.
const idleCheck = time.Second

func (p *backendPool) put(b *backend, err error) {
	if err != nil && broken(err) {
		b.close()
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.idle) >= 8 {
		b.close()
		return
	}
	b.idleSince = time.Now()
	p.idle = append(p.idle, b)
}

func (p *backendPool) closeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, b := range p.idle {
		b.close()
	}
	p.idle = nil
}
