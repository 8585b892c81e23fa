// Package replstream follows a MySQL or MariaDB server's binary log from a
// GTID position, as a replica would, and hands the row changes of chosen
// tables to a consumer one committed transaction at a time.
//
// It speaks the binlog dump protocol through vitess' client (go/mysql):
// for MariaDB it sets @mariadb_slave_capability and @slave_connect_state
// and sends COM_BINLOG_DUMP; for MySQL it sends COM_BINLOG_DUMP_GTID.
// Row events (TABLE_MAP + WRITE/UPDATE/DELETE_ROWS) of the followed tables
// are decoded into values typed and written as the server's text protocol
// writes them, so a consumer can mix them with rows it read by SELECT.
// Every transaction is delivered with its GTID and the position after it;
// on a connection error Follow reconnects (to the next address, when
// given several: GTIDs are global across a replication topology) from the
// position after the last complete transaction it read, so nothing is
// lost or delivered twice.
//
// What a row-based consumer cannot follow is delivered, not hidden: a
// statement (DDL, or DML logged as a statement) arrives as a Query of its
// transaction, and a TABLE_MAP whose columns no longer match the schema
// the consumer gave ends Follow with a *SchemaError.
package replstream

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/replication"
	"vitess.io/vitess/go/mysql/sqlerror"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// Table is a followed table: its columns in the table's order, as a
// SELECT * of it describes them (the types give signedness and binary
// strings), and the time zone TIMESTAMP values are shown in.
type Table struct {
	DB, Name string
	Columns  []*querypb.Field
	// Loc is the server session's time zone: the binary log holds
	// TIMESTAMP values as UTC seconds, a SELECT shows them in it. nil: UTC.
	Loc *time.Location
	// CaseSensitive matches DB and Name to a TABLE_MAP's exactly, as a
	// server with lower_case_table_names=0 tells t and T apart;
	// otherwise they match in any case.
	CaseSensitive bool
	// Labels are the labels of the ENUM and SET columns (nil for the
	// others), by column: the binary log holds an ENUM's index and a
	// SET's bit mask, which are delivered as the labels a SELECT shows.
	// An ENUM or SET column without them fails the row.
	Labels [][]string
}

// is says whether the TABLE_MAP of db.name is t's.
func (t *Table) is(db, name string) bool {
	if t.CaseSensitive {
		return t.DB == db && t.Name == name
	}
	return strings.EqualFold(t.DB, db) && strings.EqualFold(t.Name, name)
}

// Kind is a row change's kind.
type Kind uint8

const (
	Insert Kind = iota + 1
	Update
	Delete
)

func (k Kind) String() string {
	switch k {
	case Insert:
		return "insert"
	case Update:
		return "update"
	case Delete:
		return "delete"
	}
	return "?"
}

// Change is one row change. Before is set for updates and deletes, After
// for inserts and updates; both hold every column of the table (the
// servers must log full row images: binlog_row_image=FULL).
type Change struct {
	Table         *Table
	Kind          Kind
	Before, After []sqltypes.Value
}

// Query is a statement logged as such: DDL, or DML in statement format.
type Query struct {
	DB, SQL string
}

// Tx is one committed transaction (or a DDL statement, which commits on
// its own). It is delivered even when it changed none of the followed
// tables, so that the consumer's position keeps up.
type Tx struct {
	GTID string
	// Position is the position after the transaction: Follow from it
	// resumes with the next one.
	Position string
	// Time is the commit time the source server logged (second precision).
	Time    time.Time
	Changes []Change
	Queries []Query
	// Reread, when set, says why the transaction's changes of the
	// followed tables are not (all) delivered and the consumer must read
	// the tables afresh: the XA COMMIT of a transaction prepared earlier
	// that changed one (its rows were logged with the PREPARE), or whose
	// PREPARE this stream did not read; a transaction that rolled back
	// in the log (what a non-transactional table changed stays) or rolled
	// back to a savepoint after changing one. A prepared transaction's
	// rows are never delivered as committed.
	Reread string
}

// Batch is what Follow delivers at a time: the transactions read since
// the last delivery, in log order. CaughtUp is true when the server said
// it had nothing more to send when the batch was cut (a heartbeat after
// an idle period).
type Batch struct {
	Txs      []Tx
	CaughtUp bool
}

// Config says what to follow, from where and how.
type Config struct {
	// Addrs are host:port of servers of one replication topology; Follow
	// uses the first and moves to the next when one fails.
	Addrs      []string
	User, Pass string
	// ServerID identifies this follower to the server as a replica does;
	// it must be unique among the server's replicas and followers
	// (NewServerID).
	ServerID uint32
	// Start is the GTID position to follow from (MariaDB "0-1-42,1-2-7",
	// MySQL "uuid:1-42"): the first transaction delivered is the one after it.
	Start  string
	Tables []*Table
	// Heartbeat is how often an idle server sends a heartbeat (default 1s);
	// with no packet for ReadTimeout (default 4×Heartbeat+2s) the
	// connection counts as dead.
	Heartbeat   time.Duration
	ReadTimeout time.Duration
	// Retry is the wait before reconnecting after an error (default
	// 200ms, doubling to 5s); RetryFor gives up after that long without a
	// working connection (default 1 minute).
	Retry    time.Duration
	RetryFor time.Duration
	Log      *slog.Logger
	// OnConnect, when set, is told the address each connection streams from.
	OnConnect func(addr string)
}

// SchemaError ends Follow when a followed table's TABLE_MAP does not
// match the columns the consumer gave: the table changed, and the
// consumer must read it afresh.
type SchemaError struct {
	Table  string
	Reason string
	// Position is the position before the transaction that showed it.
	Position string
}

func (e *SchemaError) Error() string {
	return fmt.Sprintf("replstream: %s changed (%s) at %s", e.Table, e.Reason, e.Position)
}

// FatalError ends Follow for a server answer that reconnecting cannot
// fix, such as a purged position.
type FatalError struct{ Err error }

func (e *FatalError) Error() string { return "replstream: " + e.Err.Error() }
func (e *FatalError) Unwrap() error { return e.Err }

var serverIDs atomic.Uint32

func init() {
	serverIDs.Store(uint32(time.Now().UnixNano()%1_000_000) + 1_000_000_000)
}

// NewServerID returns a server id no other follower of this process has,
// far from the ids servers are usually given.
func NewServerID() uint32 { return serverIDs.Add(1) }

// Follow streams from cfg.Start until ctx ends (it returns ctx's error),
// deliver fails (its error), the position cannot be served, a table
// changes, or no server could be reached for cfg.RetryFor. deliver is
// called from one goroutine, in log order; it may block (reading pauses
// once a few thousand transactions are waiting).
func Follow(ctx context.Context, cfg Config, deliver func(context.Context, Batch) error) error {
	if len(cfg.Addrs) == 0 {
		return errors.New("replstream: no server address")
	}
	if cfg.Heartbeat <= 0 {
		cfg.Heartbeat = time.Second
	}
	if cfg.ReadTimeout <= 0 {
		cfg.ReadTimeout = 4*cfg.Heartbeat + 2*time.Second
	}
	if cfg.Retry <= 0 {
		cfg.Retry = 200 * time.Millisecond
	}
	if cfg.RetryFor <= 0 {
		cfg.RetryFor = time.Minute
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.ServerID == 0 {
		cfg.ServerID = NewServerID()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	items := make(chan item, 4096)
	readErr := make(chan error, 1)
	go func() { readErr <- readLoop(ctx, cfg, items) }()
	for {
		var it item
		select {
		case <-ctx.Done():
			cancel()
			<-readErr
			return ctx.Err()
		case err := <-readErr:
			// Deliver what was read before the end.
			b := Batch{}
			for done := false; !done; {
				select {
				case it := <-items:
					b = it.add(b)
				default:
					done = true
				}
			}
			if len(b.Txs) > 0 {
				if derr := deliver(ctx, b); derr != nil {
					return derr
				}
			}
			return err
		case it = <-items:
		}
		b := it.add(Batch{})
		for done := false; !done && len(b.Txs) < 10000; {
			select {
			case it := <-items:
				b = it.add(b)
			default:
				done = true
			}
		}
		if err := deliver(ctx, b); err != nil {
			cancel()
			<-readErr
			return err
		}
	}
}

// item is a transaction or a heartbeat (tx nil).
type item struct{ tx *Tx }

func (it item) add(b Batch) Batch {
	if it.tx == nil {
		b.CaughtUp = true
		return b
	}
	b.Txs = append(b.Txs, *it.tx)
	b.CaughtUp = false
	return b
}

// readLoop connects, streams and reconnects until ctx ends or a fatal
// error.
func readLoop(ctx context.Context, cfg Config, out chan<- item) error {
	pos := cfg.Start
	wait := cfg.Retry
	failingSince := time.Time{}
	refused := 0 // servers in a row that could not serve the position
	for i := 0; ; i++ {
		addr := cfg.Addrs[i%len(cfg.Addrs)]
		progressed, next, err := stream(ctx, cfg, addr, pos, out)
		pos = next
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var fatal *FatalError
		var schema *SchemaError
		if errors.As(err, &schema) {
			return err
		}
		if progressed {
			failingSince, wait, refused = time.Time{}, cfg.Retry, 0
		}
		if errors.As(err, &fatal) {
			// A server that cannot serve the position (one lagging
			// behind it, say) is fatal only when every server refuses.
			if refused++; refused >= len(cfg.Addrs) {
				return err
			}
		}
		if failingSince.IsZero() {
			failingSince = time.Now()
		} else if time.Since(failingSince) > cfg.RetryFor {
			return fmt.Errorf("replstream: no server could stream for %v; last error: %w", cfg.RetryFor, err)
		}
		cfg.Log.Warn("binlog stream broke; reconnecting", "addr", addr, "position", pos, "err", err,
			"next", cfg.Addrs[(i+1)%len(cfg.Addrs)])
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 5*time.Second)
	}
}

// stream runs one connection from pos. It returns whether it delivered
// anything, the position after the last complete transaction, and why it
// stopped.
func stream(ctx context.Context, cfg Config, addr, pos string, out chan<- item) (progressed bool, next string, err error) {
	next = pos
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return false, next, &FatalError{err}
	}
	port, err := strconv.Atoi(p)
	if err != nil {
		return false, next, &FatalError{err}
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	conn, err := mysql.Connect(cctx, &mysql.ConnParams{Host: host, Port: port, Uname: cfg.User, Pass: cfg.Pass})
	cancel()
	if err != nil {
		return false, next, err
	}
	// Closing the connection is how a blocked read is interrupted: on
	// ctx's end, and when no packet arrived for ReadTimeout.
	var timedOut atomic.Bool
	watchdog := time.AfterFunc(cfg.ReadTimeout, func() { timedOut.Store(true); conn.Close() })
	stop := context.AfterFunc(ctx, conn.Close)
	defer func() {
		stop()
		watchdog.Stop()
		conn.Close()
		if timedOut.Load() && err != nil {
			err = fmt.Errorf("no packet from %s for %v: %w", addr, cfg.ReadTimeout, err)
		}
	}()
	start, err := parsePosition(conn.IsMariaDB(), pos)
	if err != nil {
		return false, next, &FatalError{err}
	}
	setup := []string{
		// Events arrive with their checksums (stripped, not verified: TCP
		// checks the transfer).
		"SET @master_binlog_checksum = @@global.binlog_checksum, @source_binlog_checksum = @@global.binlog_checksum",
		fmt.Sprintf("SET @master_heartbeat_period = %d", cfg.Heartbeat.Nanoseconds()),
	}
	if conn.IsMariaDB() {
		setup = append(setup,
			"SET @mariadb_slave_capability = 4", // MARIA_SLAVE_CAPABILITY_GTID
			"SET @slave_connect_state = '"+start.String()+"'",
			"SET @slave_gtid_strict_mode = 1",
		)
		if start.IsZero() {
			setup[len(setup)-2] = "SET @slave_connect_state = ''"
		}
	}
	for _, q := range setup {
		if _, err := conn.ExecuteFetch(q, 0, false); err != nil {
			if strings.Contains(q, "source_binlog_checksum") {
				// Older servers know only @master_binlog_checksum.
				if _, err = conn.ExecuteFetch("SET @master_binlog_checksum = @@global.binlog_checksum", 0, false); err == nil {
					continue
				}
			}
			return false, next, fmt.Errorf("%s: %w", q, err)
		}
	}
	if conn.IsMariaDB() {
		err = conn.WriteComBinlogDump(cfg.ServerID, "", 0, 0) // @slave_connect_state gives the position
	} else {
		err = conn.SendBinlogDumpGTIDCommand(cfg.ServerID, "", 4, start, 0)
	}
	if err != nil {
		return false, next, err
	}
	if cfg.OnConnect != nil {
		cfg.OnConnect(addr)
	}
	d := &decoder{cfg: cfg, pos: start, tables: map[uint64]*mapped{}}
	for {
		ev, err := conn.ReadBinlogEvent()
		if err != nil {
			var se *sqlerror.SQLError
			if errors.As(err, &se) && se.Number() == sqlerror.ERMasterFatalReadingBinlog {
				// 1236: purged position, unknown GTID, …
				return progressed, next, &FatalError{fmt.Errorf("%s cannot stream from %s: %w", addr, pos, err)}
			}
			return progressed, next, err
		}
		watchdog.Reset(cfg.ReadTimeout)
		tx, heartbeat, err := d.event(ev)
		if err != nil {
			var schema *SchemaError
			if errors.As(err, &schema) {
				schema.Position = next
				return progressed, next, err
			}
			return progressed, next, &FatalError{err}
		}
		var it item
		switch {
		case tx != nil:
			it = item{tx: tx}
			next, progressed = tx.Position, true
		case heartbeat:
		default:
			continue
		}
		select {
		case out <- it:
		case <-ctx.Done():
			return progressed, next, ctx.Err()
		}
	}
}

func parsePosition(mariadb bool, s string) (replication.Position, error) {
	if mariadb {
		set, err := replication.ParseMariadbGTIDSet(s)
		if err != nil {
			return replication.Position{}, err
		}
		return replication.Position{GTIDSet: set}, nil
	}
	set, err := replication.ParseMysql56GTIDSet(s)
	if err != nil {
		return replication.Position{}, err
	}
	return replication.Position{GTIDSet: set}, nil
}
