// Package flightwire is Shoal's Arrow Flight SQL front end: the same
// accounts, statement path (router.Router.Run) and answers as the MySQL
// front end, results as Arrow record batches, plus the catalog commands BI
// tools browse with. Named flightwire because arrow-go's own package is
// flightsql. It plans and executes nothing itself.
package flightwire

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"vitess.io/vitess/go/sqltypes"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/engine"
	"github.com/shoaldb/shoal/engine/coldefs"
	"github.com/shoaldb/shoal/router"
	"github.com/shoaldb/shoal/sqlerr"
)

// The Arrow Flight SQL endpoint (config flight_sql_listen): the same
// accounts (flightsql_auth.go), the same statement path and the same
// answers as the MySQL listener, results as Arrow record batches
// (flightsql_arrow.go), plus the catalog commands BI tools browse with
// (flightsql_catalog.go).
//
//	GetFlightInfo(CommandStatementQuery) ─ columns from the statement with
//	    LIMIT 0 on a replica when it can take one (as COM_STMT_PREPARE)
//	    └▶ FlightInfo{schema or none, one endpoint: ticket{account, database, statement}}
//	DoGet(ticket) ─ ticket's account must be the caller's
//	    └─ producer goroutine: runStatement ─ router.Run (the MySQL front end's path)
//	         callback: rows ─ resultBatches ─▶ chan StreamChunk (cap 1) ─▶ flightsql writes, Releases
//
// Ownership: a batch belongs to the channel once sent; the producer
// Releases a batch it could not send. flightsql's DoGet Releases a batch
// once written and drains the channel (Releasing) on every exit, and the
// producer closes it when the statement ends, so a producer never outlives
// its RPC by more than the statement's reaction to cancellation; Close
// waits for all of them. flightsql's DoGet does not Release the batch
// whose write fails (the client went away mid-stream): every batch handed
// to it is held in the call's ledger (batchLedger), which Releases what
// DoGet left when it returns.
//
// The database is the "database" request header (gRPC metadata), as
// InfluxDB's Flight SQL does: ADBC sets it with
// adbc.flight.sql.rpc.call_header.database, the Flight SQL JDBC driver from
// an unknown URL property. Without it no database is selected. Each
// statement runs in a session of its own: SET and USE do not carry over to
// the next statement. Flight SQL statements do not show in SHOW
// PROCESSLIST and do not count against max_connections; cancelling the
// RPC cancels the statement.

// FlightSQL is a running Flight SQL endpoint. Close it before the Server.
type FlightSQL struct {
	srv  *flightSQLServer
	grpc *grpc.Server
	lis  net.Listener
	done chan struct{} // closed when Serve returns
}

// flightSQLServer implements flightsql.Server.
type flightSQLServer struct {
	flightsql.BaseServer
	r   *router.Router
	log *slog.Logger
	mem memory.Allocator
	wg  sync.WaitGroup // statement producers
	// writeTimeout is net_write_timeout: how long a statement waits for
	// a client that stopped reading its stream before it ends (stalled).
	writeTimeout time.Duration
}

// errStalled ends a statement whose Flight SQL client did not take its
// next batch within net_write_timeout: its fragments, slots and memory
// go back to the others, as a MySQL client's do (mysqlwire packet.go).
func errStalled(d time.Duration) error {
	return status.Errorf(codes.DeadlineExceeded, "the client read nothing of the result for %s (net_write_timeout); the statement was ended", d)
}

// Limits on what a client sends.
const (
	maxFlightStatement = 1 << 20 // bytes of SQL text
	maxFlightTicket    = 8 << 20 // bytes of an encoded ticket (JSON escapes)
	maxFlightDBName    = 64      // characters, as MySQL
	flightDatabaseKey  = "database"
)

// StartFlightSQL serves Flight SQL on addr (TLS with the MySQL listener's
// tls_cert and tls_key when they are set). mem allocates the result
// batches (nil: the coordinator's allocator); tests pass a checked one.
func Start(cfg config.Coordinator, log *slog.Logger, r *router.Router, addr string, mem memory.Allocator) (*FlightSQL, error) {
	if mem == nil {
		mem = r.Engine().Allocator()
	}
	tlsCfg, err := cfg.ListenerTLS()
	if err != nil {
		return nil, err
	}
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("flight_sql_listen: %w", err)
	}
	auth := newFlightAuth(cfg.Users)
	opts := []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(auth.unary),
		grpc.ChainStreamInterceptor(auth.stream),
		grpc.MaxRecvMsgSize(2 * maxFlightTicket),
		// Stop waits for handlers: no statement outlives Close.
		grpc.WaitForHandlers(true),
	}
	if tlsCfg != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(tlsCfg)))
	} else if ta, ok := lis.Addr().(*net.TCPAddr); ok && !ta.IP.IsLoopback() {
		log.Warn("Flight SQL serves without TLS on a non-loopback address: passwords cross the network in clear; set tls_cert and tls_key", "addr", lis.Addr().String())
	}
	srv := &flightSQLServer{r: r, log: log, mem: mem, writeTimeout: cfg.NetWriteTimeout.D()}
	srv.Alloc = mem
	if err := srv.registerSQLInfo(r.Engine().Snapshot().Version); err != nil {
		lis.Close()
		return nil, err
	}
	f := &FlightSQL{srv: srv, grpc: grpc.NewServer(opts...), lis: lis, done: make(chan struct{})}
	flight.RegisterFlightServiceServer(f.grpc, newFlightService(srv, mem))
	go func() {
		defer close(f.done)
		if err := f.grpc.Serve(lis); err != nil && !errors.Is(err, grpc.ErrServerStopped) {
			log.Warn("Flight SQL listener stopped", "err", err)
		}
	}()
	return f, nil
}

// flightService is flightsql's Flight service whose DoGet Releases the
// batches flightsql's DoGet leaves: it Releases a chunk's batch after
// writing it, not when the write fails (arrow-go v18.8.0
// flightsql/server.go: it returns the error with the batch held), which is
// what happens when the client cancels mid-stream.
type flightService struct {
	flight.FlightServer
}

func newFlightService(srv *flightSQLServer, mem memory.Allocator) flightService {
	return flightService{flightsql.NewFlightServerWithAllocator(srv, mem)}
}

// DoGet serves the call with a ledger in its context, in which the DoGet*
// methods hold the batches they hand flightsql's DoGet (batchLedger.hold),
// and Releases what is still held when flightsql's DoGet returns: it then
// has drained the channel, or never received it (the statement failed or
// was cancelled before its columns, and its channel is drained by the
// producer's side, whose Releases of a batch released here do nothing).
func (s flightService) DoGet(t *flight.Ticket, stream flight.FlightService_DoGetServer) error {
	l := &batchLedger{}
	defer l.releaseAll()
	return s.FlightServer.DoGet(t, ledgerStream{stream, context.WithValue(stream.Context(), batchLedgerKey{}, l)})
}

// ledgerStream is a DoGet stream whose context carries the call's ledger.
type ledgerStream struct {
	flight.FlightService_DoGetServer
	ctx context.Context
}

func (s ledgerStream) Context() context.Context { return s.ctx }

type batchLedgerKey struct{}

// batchLedger holds the batches handed to one DoGet call until they are
// released, by their consumer or by releaseAll.
type batchLedger struct {
	mu   sync.Mutex
	held []*heldBatch
}

// doGetLedger is the ledger of the DoGet call ctx belongs to (nil outside
// one: hold then returns the batch itself).
func doGetLedger(ctx context.Context) *batchLedger {
	l, _ := ctx.Value(batchLedgerKey{}).(*batchLedger)
	return l
}

// hold returns b, with the reference the caller owned, as a batch the
// ledger can Release if its consumer does not.
func (l *batchLedger) hold(b arrow.RecordBatch) arrow.RecordBatch {
	if l == nil {
		return b
	}
	h := &heldBatch{RecordBatch: b}
	h.refs.Store(1)
	l.mu.Lock()
	defer l.mu.Unlock()
	// Batches are released in order as they are written: forget those.
	for len(l.held) > 0 && l.held[0].refs.Load() <= 0 {
		l.held[0] = nil
		l.held = l.held[1:]
	}
	l.held = append(l.held, h)
	return h
}

// releaseAll Releases the batches still held, once each whatever their
// count of references: their consumer is gone.
func (l *batchLedger) releaseAll() {
	l.mu.Lock()
	held := l.held
	l.held = nil
	l.mu.Unlock()
	for _, h := range held {
		if h.refs.Swap(0) > 0 {
			h.RecordBatch.Release()
		}
	}
}

// heldBatch is a batch in a ledger: its own count of references, and the
// underlying batch released once, when the count reaches zero or by
// releaseAll (after which Release does nothing).
type heldBatch struct {
	arrow.RecordBatch
	refs atomic.Int64
}

func (h *heldBatch) Retain() { h.refs.Add(1) }

func (h *heldBatch) Release() {
	if h.refs.Add(-1) == 0 {
		h.RecordBatch.Release()
	}
}

// Addr is the Flight SQL listener's address.
func (f *FlightSQL) Addr() net.Addr { return f.lis.Addr() }

// Close stops serving, cancels running statements and waits for them.
func (f *FlightSQL) Close() {
	f.grpc.Stop()
	<-f.done
	f.srv.wg.Wait()
}

func (f *flightSQLServer) registerSQLInfo(version string) error {
	for id, v := range map[flightsql.SqlInfo]any{
		flightsql.SqlInfoFlightSqlServerName:        "Shoal",
		flightsql.SqlInfoFlightSqlServerVersion:     router.AdvertisedVersion(version),
		flightsql.SqlInfoFlightSqlServerReadOnly:    true,
		flightsql.SqlInfoFlightSqlServerSql:         true,
		flightsql.SqlInfoFlightSqlServerSubstrait:   false,
		flightsql.SqlInfoFlightSqlServerTransaction: int32(flightsql.SqlTransactionNone),
		flightsql.SqlInfoFlightSqlServerCancel:      false,
		flightsql.SqlInfoIdentifierQuoteChar:        "`",
		flightsql.SqlInfoTransactionsSupported:      false,
	} {
		if err := f.RegisterSqlInfo(id, v); err != nil {
			return err
		}
	}
	return nil
}

// runStatement runs one statement as account user with database db
// through the router, as the MySQL front end does (KILL, timeouts, the
// process list, metrics and the slow log alike).
func (f *flightSQLServer) runStatement(ctx context.Context, user, db, query string, callback func(*sqltypes.Result) error) error {
	ss := router.Ephemeral(user, db)
	defer ss.CloseBackend()
	return f.r.Run(ctx, ss, query, callback, nil)
}

// statementTicket is what a DoGet ticket of a statement carries: the
// account it was issued to (the DoGet caller must be the same), the
// database and the statement. No credentials.
type statementTicket struct {
	User  string `json:"user"`
	DB    string `json:"db,omitempty"`
	Query string `json:"query"`
}

// flightTicketMagic starts every statement ticket (and versions it).
const flightTicketMagic = "shoal-flightsql-v1\n"

func (t statementTicket) encode() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(flightTicketMagic)
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(t); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// decodeStatementTicket reads and validates a statement ticket.
func decodeStatementTicket(b []byte) (statementTicket, error) {
	var t statementTicket
	if len(b) > maxFlightTicket {
		return t, fmt.Errorf("ticket of %d bytes (at most %d)", len(b), maxFlightTicket)
	}
	rest, ok := bytes.CutPrefix(b, []byte(flightTicketMagic))
	if !ok {
		return t, errors.New("not a Shoal statement ticket")
	}
	dec := json.NewDecoder(bytes.NewReader(rest))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return statementTicket{}, fmt.Errorf("ticket: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return statementTicket{}, errors.New("ticket: trailing data")
	}
	if t.User == "" || !utf8.ValidString(t.User) {
		return statementTicket{}, errors.New("ticket: no account")
	}
	if err := checkDatabase(t.DB); err != nil {
		return statementTicket{}, err
	}
	if err := checkStatement(t.Query); err != nil {
		return statementTicket{}, err
	}
	return t, nil
}

func checkStatement(q string) error {
	switch {
	case len(q) == 0:
		return errors.New("empty statement")
	case len(q) > maxFlightStatement:
		return fmt.Errorf("statement of %d bytes (at most %d)", len(q), maxFlightStatement)
	case !utf8.ValidString(q):
		return errors.New("the statement is not UTF-8")
	}
	return nil
}

func checkDatabase(db string) error {
	if !utf8.ValidString(db) || utf8.RuneCountInString(db) > maxFlightDBName || bytes.IndexByte([]byte(db), 0) >= 0 {
		return fmt.Errorf("database name %q: at most %d UTF-8 characters, no NUL", db, maxFlightDBName)
	}
	return nil
}

// requestDatabase is the request's "database" header ("" without one).
func requestDatabase(ctx context.Context) (string, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	vals := md.Get(flightDatabaseKey)
	if len(vals) == 0 {
		return "", nil
	}
	if err := checkDatabase(vals[0]); err != nil {
		return "", status.Error(codes.InvalidArgument, err.Error())
	}
	return vals[0], nil
}

// GetFlightInfoStatement answers with a ticket for the statement and, when
// it is cheap to learn, the result's schema. Nothing runs here but that
// LIMIT 0 probe: errors come from DoGet, as the statement really runs.
func (f *flightSQLServer) GetFlightInfoStatement(ctx context.Context, cmd flightsql.StatementQuery, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	if len(cmd.GetTransactionId()) > 0 {
		return nil, status.Error(codes.InvalidArgument, "Shoal has no transactions: send statements without a transaction id")
	}
	user := flightUser(ctx)
	db, err := requestDatabase(ctx)
	if err != nil {
		return nil, err
	}
	q := cmd.GetQuery()
	if err := checkStatement(q); err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	handle, err := statementTicket{User: user, DB: db, Query: q}.encode()
	if err != nil {
		return nil, status.Errorf(codes.Internal, "encoding the ticket: %v", err)
	}
	tkt, err := flightsql.CreateStatementQueryTicket(handle)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "encoding the ticket: %v", err)
	}
	info := &flight.FlightInfo{
		FlightDescriptor: desc,
		Endpoint:         []*flight.FlightEndpoint{{Ticket: &flight.Ticket{Ticket: tkt}}},
		TotalRecords:     -1,
		TotalBytes:       -1,
	}
	if schema := f.statementSchema(ctx, user, db, q); schema != nil {
		info.Schema = flight.SerializeSchema(schema, f.mem)
	}
	return info, nil
}

// GetSchemaStatement answers with the result's schema when the statement
// can take a LIMIT 0.
func (f *flightSQLServer) GetSchemaStatement(ctx context.Context, cmd flightsql.StatementQuery, _ *flight.FlightDescriptor) (*flight.SchemaResult, error) {
	db, err := requestDatabase(ctx)
	if err != nil {
		return nil, err
	}
	if err := checkStatement(cmd.GetQuery()); err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	schema := f.statementSchema(ctx, flightUser(ctx), db, cmd.GetQuery())
	if schema == nil {
		return nil, status.Error(codes.Unimplemented, "the statement's columns are known only when it runs (it is not a SELECT that can take a LIMIT 0, or that failed): run it")
	}
	return &flight.SchemaResult{Schema: flight.SerializeSchema(schema, f.mem)}, nil
}

// statementSchema is the schema of q's result from the statement with
// LIMIT 0 on a replica (the columns a distributed statement answers with
// come from the same probe), or nil when q cannot take one or the probe
// fails: statements the coordinator answers itself (pinned results) may
// fail on a replica and succeed here.
func (f *flightSQLServer) statementSchema(ctx context.Context, user, db, q string) *arrow.Schema {
	meta, err := coldefs.MetadataQuery(q)
	if err != nil || meta == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	ss := &engine.Session{DB: db}
	defer ss.CloseBackend()
	fields, _ := f.r.Engine().Describe(ctx, ss, meta)
	if len(fields) == 0 {
		return nil
	}
	return flightSchema(fields)
}

// DoGetStatement runs the ticket's statement and streams its result.
func (f *flightSQLServer) DoGetStatement(ctx context.Context, tkt flightsql.StatementQueryTicket) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	t, err := decodeStatementTicket(tkt.GetStatementHandle())
	if err != nil {
		return nil, nil, status.Error(codes.InvalidArgument, err.Error())
	}
	if user := flightUser(ctx); t.User != user {
		return nil, nil, status.Errorf(codes.PermissionDenied, "the ticket was issued to another account than %q", user)
	}
	return f.stream(ctx, t.User, t.DB, t.Query)
}

// DoGetSqlInfo is BaseServer's answer (the values registerSQLInfo set)
// with its batches held in the DoGet call's ledger.
func (f *flightSQLServer) DoGetSqlInfo(ctx context.Context, cmd flightsql.GetSqlInfo) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	schema, in, err := f.BaseServer.DoGetSqlInfo(ctx, cmd)
	if err != nil {
		return nil, nil, err
	}
	// One small batch, from a goroutine that ends once in is drained.
	var chunks []flight.StreamChunk
	for c := range in {
		if c.Data != nil {
			c.Data = doGetLedger(ctx).hold(c.Data)
		}
		chunks = append(chunks, c)
	}
	ch := make(chan flight.StreamChunk, len(chunks))
	for _, c := range chunks {
		ch <- c
	}
	close(ch)
	return schema, ch, nil
}

// streamStart is the producer's first word: the schema, or the error that
// ended the statement before it had columns.
type streamStart struct {
	schema *arrow.Schema
	err    error
}

// stream runs a statement in a producer goroutine and returns its schema
// once the statement has its columns, with the channel of its batches; or
// the statement's error if it failed first.
func (f *flightSQLServer) stream(ctx context.Context, user, db, query string) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	ch := make(chan flight.StreamChunk, 1)
	start := make(chan streamStart, 1)
	ledger := doGetLedger(ctx)
	// stall fires when a batch has waited net_write_timeout for the
	// client to take it: armed for each send only, so a statement that
	// computes long before its first batch is not taken for a stall.
	// (Go 1.23 timers: Reset and Stop leave no stale tick.)
	stall := time.NewTimer(time.Hour)
	stall.Stop()
	stalled := false
	send := func(b arrow.RecordBatch) error {
		b = ledger.hold(b)
		if f.writeTimeout > 0 {
			stall.Reset(f.writeTimeout)
			defer stall.Stop()
		}
		select {
		case ch <- flight.StreamChunk{Data: b}:
			return nil
		case <-ctx.Done():
			b.Release()
			return ctx.Err()
		case <-stall.C:
			b.Release()
			stalled = true
			return errStalled(f.writeTimeout)
		}
	}
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		defer close(ch)
		defer stall.Stop()
		rb := newResultBatches(f.mem, flightBatchRows)
		defer rb.Release()
		announced := false
		announce := func() {
			if !announced {
				announced = true
				start <- streamStart{schema: rb.schema}
			}
		}
		err := func() (err error) {
			defer func() {
				if p := recover(); p != nil {
					f.log.Error("Flight SQL statement panicked", "panic", p, "stack", string(debug.Stack()))
					err = fmt.Errorf("internal error: %v", p)
				}
			}()
			err = f.runStatement(ctx, user, db, query, func(res *sqltypes.Result) error {
				if !rb.started() {
					rb.start(res.Fields)
					announce()
				}
				return rb.add(res, send)
			})
			if err != nil {
				return err
			}
			if !rb.started() {
				rb.start(nil)
				announce()
			}
			return rb.flush(send)
		}()
		if !announced {
			start <- streamStart{err: err}
			return
		}
		switch {
		case stalled:
			// The client stopped reading: the batch waiting in ch gives
			// its place to the error, so that a client that reads on
			// gets the error, never a stream cut short that looks whole.
			select {
			case c := <-ch:
				if c.Data != nil {
					c.Data.Release()
				}
			default:
			}
			select {
			case ch <- flight.StreamChunk{Err: errStalled(f.writeTimeout)}:
			default:
			}
		case err != nil:
			if f.writeTimeout > 0 {
				stall.Reset(f.writeTimeout)
			}
			select {
			case ch <- flight.StreamChunk{Err: flightError(err)}:
			case <-ctx.Done():
			case <-stall.C: // the client stopped reading: nobody takes it
			}
		}
	}()
	select {
	case st := <-start:
		if st.err != nil {
			return nil, nil, flightError(st.err)
		}
		return st.schema, ch, nil
	case <-ctx.Done():
		// Nobody will read ch: release what the producer sends until it
		// notices.
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			for c := range ch {
				if c.Data != nil {
					c.Data.Release()
				}
			}
		}()
		return nil, nil, status.FromContextError(ctx.Err()).Err()
	}
}

// flightError turns a statement's error into a gRPC status whose details
// carry the MySQL errno and SQLSTATE (sqlerr.ToStatus), with the gRPC code
// that says what kind of failure it is.
func flightError(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	se, _ := sqlerr.ToMySQL(err).(*sqlerr.Error)
	if se == nil {
		return status.Error(codes.Internal, err.Error())
	}
	code := codes.InvalidArgument
	switch n := int(se.Num); {
	case n == sqlerr.ErrAccessDenied:
		code = codes.Unauthenticated
	case n == sqlerr.ErrReadOnly:
		code = codes.PermissionDenied
	case n == sqlerr.ErrQueryTimeout || n == sqlerr.ErrStatementTimeout:
		code = codes.DeadlineExceeded
	case n == sqlerr.ErrQueryInterrupted:
		code = codes.Canceled
	case n == sqlerr.ErrReplicaBehind || n == sqlerr.ErrTooManyConns || sqlerr.IsClientError(n):
		code = codes.Unavailable // CR_* client errors: a replica connection failed
	case n == sqlerr.ErrOutOfResources:
		code = codes.ResourceExhausted
	case n == sqlerr.ErrUnknown:
		code = codes.Internal
	}
	return flightStatus(code, se)
}

// flightStatus is sqlerr.ToStatus with the gRPC code given, errno and
// SQLSTATE kept in the details.
func flightStatus(code codes.Code, err error) error {
	st, _ := status.FromError(sqlerr.ToStatus(err))
	p := st.Proto()
	p.Code = int32(code)
	return status.FromProto(p).Err()
}
