package worker

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/go-sql-driver/mysql"
	"google.golang.org/grpc/metadata"
)

// WarningsTrailer is the gRPC trailer in which a fragment's stream says
// how many warnings its statement raised on the replica (absent: none).
const WarningsTrailer = "shoal-warnings"

// errUnknownThread is MySQL's reply to KILL of a thread that already ended.
const errUnknownThread = 1094

// replicaError marks a failure to talk to the replica (connection refused,
// lost, driver state), as opposed to an error the replica returned: the
// first may not happen on another replica, the second would.
type replicaError struct{ err error }

func (e *replicaError) Error() string { return e.err.Error() }
func (e *replicaError) Unwrap() error { return e.err }

// fromReplica classifies an error from database/sql.
func fromReplica(err error) error {
	var me *mysql.MySQLError
	if err == nil || errors.As(err, &me) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &replicaError{err}
}

// runFragment runs query on a dedicated connection of the replica and
// streams it as record batches, their bodies compressed with codec (the
// ticket's; "" for ipc_compression). It returns the number of rows sent.
// With a floor it first waits for the replica to apply it (floor.go); the
// query carries a limit the replica enforces itself (limit.go).
//
// Cancellation: go-sql-driver reacts to a cancelled context by closing its
// socket, which leaves the statement running on the server. So while the
// query runs, a watcher sends KILL QUERY for this connection's thread id
// through a side connection; the connection is then discarded instead of
// returned to the pool. The watcher has finished before runFragment
// returns, so a KILL can never hit a later user of the same thread.
func (s *Server) runFragment(ctx context.Context, query string, fl floor, clock int64, batch int, codec string,
	stream flight.FlightService_DoGetServer, log *slog.Logger) (rows int64, err error) {

	conn, err := s.db.Conn(ctx)
	if err != nil {
		return 0, &replicaError{fmt.Errorf("connecting: %w", err)}
	}
	defer conn.Close()
	id, mariadb, err := connInfo(conn)
	if err != nil {
		return 0, err
	}

	k := s.watchKill(ctx, id, log)
	defer func() {
		if k.stop() {
			discard(conn)
		}
	}()
	// A connection whose statement warned is not pooled again: MariaDB
	// keeps warnings across a statement that reads no table, so a later
	// fragment would read them as its own. (Runs after the transaction's
	// rollback below.)
	var warnings uint64
	defer func() {
		if warnings > 0 {
			discard(conn)
		}
	}()

	if fl.gtid != "" {
		if err := waitFloor(ctx, conn, mariadb, fl, s.cfg.MySQL); err != nil {
			return 0, err
		}
	}

	tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return 0, fromReplica(fmt.Errorf("starting read-only transaction: %w", err))
	}
	defer tx.Rollback() // read-only: nothing to commit

	stmt, pre := limitStatement(query, mariadb, statementLimit(ctx, s.limitMargin))
	stmt, set, reset := clockStatement(stmt, mariadb, clock)
	if reset != "" {
		// After the transaction ends (defers run last first): the
		// connection goes back to the pool with the server's clock.
		defer func() {
			if _, err := conn.ExecContext(context.Background(), reset); err != nil {
				discard(conn)
			}
		}()
	}
	for _, q := range []string{pre, set} {
		if q == "" {
			continue
		}
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return 0, fromReplica(err)
		}
	}
	r, err := tx.QueryContext(ctx, stmt)
	if err != nil {
		return 0, fromReplica(err)
	}
	defer r.Close()
	cts, err := r.ColumnTypes()
	if err != nil {
		return 0, fromReplica(err)
	}
	conv := newConverter(cts, s.mem, batch)
	defer conv.Release()

	// No deferred Close: on failure the status alone ends the stream.
	w := flight.NewRecordWriter(stream, s.ipcOptions(conv.schema, codec)...)
	send := func() error {
		rec := conv.flush()
		defer rec.Release()
		if err := w.Write(rec); err != nil {
			return fmt.Errorf("worker: sending batch: %w", err)
		}
		return nil
	}
	for r.Next() {
		if err := r.Scan(conv.dest...); err != nil {
			return rows, fromReplica(err)
		}
		if err := conv.appendRow(); err != nil {
			return rows, err
		}
		rows++
		if conv.full() {
			if err := send(); err != nil {
				return rows, err
			}
		}
	}
	if err := r.Err(); err != nil {
		return rows, fromReplica(err)
	}
	if conv.rows > 0 {
		if err := send(); err != nil {
			return rows, err
		}
	}
	// The statement's warnings (a string compared as a number, a value
	// truncated): the coordinator answers a statement whose fragments
	// warned from one replica instead, so the client sees MariaDB's own
	// warnings (docs/sql.md). Asked before the stream ends: the trailer
	// goes out with its status.
	if err := r.Close(); err != nil {
		return rows, fromReplica(err)
	}
	if err := tx.QueryRowContext(ctx, "SELECT @@warning_count").Scan(&warnings); err != nil {
		return rows, fromReplica(fmt.Errorf("reading the fragment's warning count: %w", err))
	}
	if warnings > 0 {
		stream.SetTrailer(metadata.Pairs(WarningsTrailer, strconv.FormatUint(warnings, 10)))
	}
	// Close writes the schema when no batch was sent, so an empty result
	// still describes its columns.
	if err := w.Close(); err != nil {
		return rows, fmt.Errorf("worker: finishing stream: %w", err)
	}
	// A cancelled context can end the rows early without an error from the
	// driver; a short stream must never pass for a complete one.
	return rows, ctx.Err()
}

// killer sends KILL QUERY when its context ends before stop is called.
type killer struct {
	ctx    context.Context
	kill   func()
	stopFn func() bool
	wg     sync.WaitGroup
	fired  bool
}

func (s *Server) watchKill(ctx context.Context, id uint64, log *slog.Logger) *killer {
	k := &killer{ctx: ctx}
	k.kill = func() {
		k.fired = true
		err := s.killQuery(id)
		var me *mysql.MySQLError
		if err != nil && !(errors.As(err, &me) && me.Number == errUnknownThread) {
			log.Warn("KILL QUERY failed; the statement may keep running on the replica", "thread", id, "err", err)
			return
		}
		log.Debug("killed fragment query", "thread", id, "cause", context.Cause(ctx))
	}
	k.wg.Add(1)
	k.stopFn = context.AfterFunc(ctx, func() {
		defer k.wg.Done()
		k.kill()
	})
	return k
}

// stop disarms the watcher, waits for a KILL in flight, and reports whether
// one was sent (the connection must then not be reused). A context that
// ended before the watcher started still gets its KILL, here: the driver
// reacts to the cancel by closing its socket, which can return from the
// query before the watcher runs, and leaves the statement running on the
// server.
func (k *killer) stop() bool {
	if k.stopFn() {
		k.wg.Done() // never ran
		if k.ctx.Err() == nil {
			return false
		}
		k.kill()
		return true
	}
	k.wg.Wait()
	return k.fired
}

// ipcOptions are the IPC writer options of a fragment's result stream:
// its schema, the server's allocator and the body compression: codec, the
// one the ticket asks for (the coordinator's replicas[].ipc_compression),
// or when that is empty the worker's own ipc_compression. A reader needs
// no option to read compressed bodies: the codec is recorded in each
// message.
func (s *Server) ipcOptions(schema *arrow.Schema, codec string) []ipc.Option {
	opts := []ipc.Option{ipc.WithSchema(schema), ipc.WithAllocator(s.mem)}
	if codec == "" {
		codec = s.cfg.IPCCompression
	}
	switch codec {
	case "lz4":
		opts = append(opts, ipc.WithLZ4())
	case "zstd":
		opts = append(opts, ipc.WithZstd())
	}
	return opts
}
