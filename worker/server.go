// Package worker is the Arrow Flight server that runs next to one MySQL
// replica, and the client the coordinator uses to reach it.
//
// Why a process next to each replica: a fragment's rows cross the network
// once, as compact Arrow record batches, instead of as MySQL text rows to a
// central process; the worker can parallelise over its replica's cores; and
// the replica's credentials stay on the replica's host. A ticket carries only
// SQL (see package ticket), never a password.
//
// The worker is read-only by construction, whatever a ticket says: it parses
// the fragment with the TiDB parser and refuses anything but a single SELECT
// (or UNION of SELECTs) without INTO, locking clauses, user-variable
// assignment or state-changing functions (errno 1290); it runs the SQL
// re-rendered from the checked AST, never the ticket's text; it runs it in a
// START TRANSACTION READ ONLY on a connection without multi-statements.
//
// A fragment's life:
//
//	DoGet(ticket) ─ decode ─ validate ─ wait for a slot (ctx) ─ dedicated *sql.Conn
//	   ─ [wait for the ticket's GTID floor] ─ START TRANSACTION READ ONLY
//	   ─ query with a server-side time limit ─ rows → converter → record batch ─┐
//	                                                       stream.Send ◀───────┘
//	   ctx cancelled or deadline ─▶ KILL QUERY <thread id> on a side connection
//
// The fragment deadline is the ticket's, else the configured
// FragmentTimeout; the client's gRPC deadline applies too. The replica
// enforces it as well, a little later (limit.go), in case the KILL is
// lost. At most Slots fragments run at once; the rest wait, cancellably.
package worker

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/status"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/sqlerr"
	"github.com/shoaldb/shoal/ticket"
)

// ActionStatus is the DoAction type that returns a Status as JSON.
const ActionStatus = "status"

// maxBatchRows bounds a ticket's BatchRows.
const maxBatchRows = 1 << 17

// stopGrace is how long Stop lets running fragments finish before
// cancelling them.
const stopGrace = 10 * time.Second

// Server serves fragments of one replica over Arrow Flight. Its methods are
// safe for concurrent use; Serve is called once.
type Server struct {
	flight.BaseFlightServer

	cfg       config.Worker
	slots     int
	sem       chan struct{}
	connector *idConnector
	db        *sql.DB
	grpc      *grpc.Server
	mem       memory.Allocator
	log       *slog.Logger
	grace     time.Duration // Stop's wait before cancelling fragments
	// killQuery stops a replica thread's statement (the connector's; tests
	// replace it to lose the cancel). limitMargin is how long past a
	// fragment's deadline the replica stops it by itself (limit.go).
	killQuery   func(id uint64) error
	limitMargin time.Duration

	running atomic.Int64
	served  atomic.Uint64
	metrics *workerMetrics // metrics.go
}

// New validates cfg (after filling defaults) and prepares a server. It does
// not contact the replica; Serve does not either until the first request.
func New(cfg config.Worker) (*Server, error) {
	cfg.Defaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Slots < 0 || cfg.BatchRows < 0 {
		return nil, fmt.Errorf("config: worker slots and batch_rows must not be negative")
	}
	if cfg.Slots == 0 {
		cfg.Slots = runtime.NumCPU()
	}
	cfg.BatchRows = min(cfg.BatchRows, maxBatchRows)
	conn, err := newConnector(cfg)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(cfg.Slots * 2)
	db.SetMaxIdleConns(cfg.Slots * 2)
	db.SetConnMaxIdleTime(5 * time.Minute)
	db.SetConnMaxLifetime(time.Hour)

	s := &Server{
		cfg:       cfg,
		slots:     cfg.Slots,
		sem:       make(chan struct{}, cfg.Slots),
		connector: conn,
		db:        db,
		mem:       memory.NewGoAllocator(),
		log:       slog.Default().With("component", "worker", "replica", cfg.MySQL),
		grace:     stopGrace,

		killQuery:   conn.killQuery,
		limitMargin: limitMargin,
	}
	auth := authorizer{secret: []byte(cfg.ClusterSecret)}
	opts := []grpc.ServerOption{
		grpc.WaitForHandlers(true), // Stop returns after every fragment ended
		grpc.MaxRecvMsgSize(2 * ticket.MaxSize),
		grpc.ChainUnaryInterceptor(auth.unary),
		grpc.ChainStreamInterceptor(auth.stream),
	}
	tc, err := cfg.ServerTLS()
	if err != nil {
		db.Close()
		return nil, err
	}
	if tc != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(tc)))
	} else if w := cfg.PlaintextWarning(); w != "" {
		s.log.Warn(w)
	}
	s.grpc = grpc.NewServer(opts...)
	flight.RegisterFlightServiceServer(s.grpc, s)
	s.metrics = newWorkerMetrics(s)
	return s, nil
}

// Serve accepts Flight connections on lis until Stop. It returns nil after
// Stop.
func (s *Server) Serve(lis net.Listener) error {
	s.log.Info("worker serving", "addr", lis.Addr().String(), "slots", s.slots)
	if err := s.grpc.Serve(lis); err != nil && !errors.Is(err, grpc.ErrServerStopped) {
		return err
	}
	return nil
}

// Stop stops accepting fragments, lets running ones finish for a short
// grace period, cancels (and KILLs) the rest, waits for them, and closes the
// replica pool.
func (s *Server) Stop() {
	done := make(chan struct{})
	go func() {
		s.grpc.GracefulStop()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(s.grace):
		s.log.Warn("worker: fragments still running after grace period; cancelling them")
		s.grpc.Stop()
		<-done
	}
	s.db.Close()
}

// Abort stops the server at once, as a crash would from the callers' point
// of view: every connection is closed and running fragments are cancelled
// (and KILLed on the replica) without grace. It waits for them to end.
func (s *Server) Abort() {
	s.grpc.Stop()
	s.db.Close()
}

// Running is the number of fragments running now.
func (s *Server) Running() int { return int(s.running.Load()) }

// DoGet runs the fragment described by the ticket and streams its rows.
func (s *Server) DoGet(tkt *flight.Ticket, stream flight.FlightService_DoGetServer) (err error) {
	obs, stream := s.metrics.begin(stream)
	defer func() { obs.end(err) }()
	t, err := ticket.Decode(tkt.GetTicket())
	if err != nil {
		return status.Errorf(codes.InvalidArgument, "worker: bad ticket: %v", err)
	}
	log := s.log.With("query", t.QueryID, "fragment", t.FragmentID)
	query, err := readOnlySQL(t.SQL)
	if err != nil {
		var r *refusal
		errors.As(err, &r)
		log.Warn("fragment refused", "reason", r.kind, "detail", r.detail)
		return withCode(codes.PermissionDenied, sqlerr.ReadOnly(r.kind))
	}

	ctx := stream.Context()
	var cancel context.CancelFunc
	if dl := t.DeadlineTime(); !dl.IsZero() {
		ctx, cancel = context.WithDeadline(ctx, dl)
	} else {
		ctx, cancel = context.WithTimeout(ctx, s.cfg.FragmentTimeout.D())
	}
	defer cancel()

	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		return fragmentStatus(ctx, fmt.Errorf("worker: waiting for a slot: %w", ctx.Err()), s.cfg.MySQL)
	}
	s.running.Add(1)
	obs.slot()
	defer func() {
		s.running.Add(-1)
		<-s.sem
	}()

	batch := s.cfg.BatchRows
	if t.BatchRows > 0 {
		batch = min(t.BatchRows, maxBatchRows)
	}
	start := time.Now()
	fl := floor{gtid: t.MinGTID, wait: t.Wait()}
	rows, err := s.runFragment(ctx, query, fl, t.Timestamp, batch, t.Compression, stream, log)
	obs.rows = rows
	if err != nil {
		log.Info("fragment failed", "err", err, "rows", rows, "elapsed", time.Since(start))
		return fragmentStatus(ctx, err, s.cfg.MySQL)
	}
	s.served.Add(1)
	log.Debug("fragment done", "rows", rows, "elapsed", time.Since(start))
	return nil
}

// fragmentStatus converts a fragment error into a gRPC status:
//   - the context's own error when it ended (the replica's 1317 after our
//     KILL is a consequence, not the cause): Canceled or DeadlineExceeded;
//   - an error returned by the replica: its errno and SQLSTATE in details;
//   - a failure to reach the replica: Unavailable with errno 2013 (a client
//     error, so the coordinator may retry on another replica);
//   - the replica's own statement limit (1969 MariaDB, 3024 MySQL; see
//     limit.go): DeadlineExceeded, errno kept, like the worker's deadline;
//   - a replica behind the ticket's floor (3781, see floor.go):
//     Unavailable, errno kept;
//   - anything else (a value the worker cannot convert): 1105.
func fragmentStatus(ctx context.Context, err error, replica string) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		if errors.Is(ctxErr, context.DeadlineExceeded) {
			return sqlerr.ToStatus(fmt.Errorf("worker: fragment deadline exceeded: %w", ctxErr))
		}
		return sqlerr.ToStatus(fmt.Errorf("worker: fragment cancelled: %w", ctxErr))
	}
	var re *replicaError
	if errors.As(err, &re) {
		return withCode(codes.Unavailable, sqlerr.New(errLostConnection, "HY000",
			"Lost connection to MySQL server during query: worker cannot use its replica %s: %v", replica, re.err))
	}
	if se, ok := sqlerr.As(err); ok {
		switch se.Num {
		case sqlerr.ErrStatementTimeout, sqlerr.ErrQueryTimeout:
			return withCode(codes.DeadlineExceeded, err)
		case sqlerr.ErrReplicaBehind:
			return withCode(codes.Unavailable, err)
		}
	}
	return sqlerr.ToStatus(err)
}

// errLostConnection is CR_SERVER_LOST.
const errLostConnection = 2013

// withCode is sqlerr.ToStatus with another gRPC code, details (errno,
// SQLSTATE) kept.
func withCode(code codes.Code, err error) error {
	st, _ := status.FromError(sqlerr.ToStatus(err))
	p := st.Proto()
	p.Code = int32(code)
	return status.FromProto(p).Err()
}

// DoAction serves the "status" action.
func (s *Server) DoAction(a *flight.Action, stream flight.FlightService_DoActionServer) error {
	switch a.GetType() {
	case ActionStatus:
		st := s.status(stream.Context())
		body, err := json.Marshal(st)
		if err != nil {
			return status.Errorf(codes.Internal, "worker: encoding status: %v", err)
		}
		return stream.Send(&flight.Result{Body: body})
	}
	return status.Errorf(codes.Unimplemented, "worker: unknown action %q (supported: %q)", a.GetType(), ActionStatus)
}

// ListActions lists the actions DoAction serves.
func (s *Server) ListActions(_ *flight.Empty, stream flight.FlightService_ListActionsServer) error {
	return stream.Send(&flight.ActionType{
		Type:        ActionStatus,
		Description: "worker and replica status as JSON: slots, running fragments, replication lag, GTID position, health",
	})
}
