package worker

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/shoaldb/shoal/ticket"
)

// maxRecvMsg bounds one Flight message the client accepts; the worker
// flushes batches long before (maxBatchBytes), except for single huge values.
const maxRecvMsg = 256 << 20

// Client talks to one worker. It is safe for concurrent use; one Client per
// worker is enough (gRPC multiplexes streams over one connection).
type Client struct {
	addr string
	tls  bool // the client talks TLS
	cert bool // with a client certificate
	conn *grpc.ClientConn
	fc   flight.FlightServiceClient
}

// DialOption configures Dial.
type DialOption func(*dialConfig)

type dialConfig struct {
	creds credentials.TransportCredentials
	tls   bool // creds are WithTLS's (for the hints of explain)
	cert  bool // and they present a client certificate
	grpc  []grpc.DialOption
}

// WithTransportCredentials sets the transport security (default: insecure,
// plain TCP).
func WithTransportCredentials(c credentials.TransportCredentials) DialOption {
	return func(d *dialConfig) { d.creds = c }
}

// WithTLS makes the client talk TLS with c (nil: plain text).
func WithTLS(c *tls.Config) DialOption {
	return func(d *dialConfig) {
		if c != nil {
			d.creds, d.tls = credentials.NewTLS(c), true
			d.cert = len(c.Certificates) > 0 || c.GetClientCertificate != nil
		}
	}
}

// WithGRPCOptions appends raw gRPC dial options (interceptors, keepalive,
// per-RPC credentials).
func WithGRPCOptions(opts ...grpc.DialOption) DialOption {
	return func(d *dialConfig) { d.grpc = append(d.grpc, opts...) }
}

// Dial prepares a client for the worker at addr. It does not wait for the
// connection: gRPC connects on first use and reconnects by itself, so a
// worker that is down now can serve later. ctx only bounds the setup.
func Dial(ctx context.Context, addr string, opts ...DialOption) (*Client, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cfg := dialConfig{creds: insecure.NewCredentials()}
	for _, o := range opts {
		o(&cfg)
	}
	gopts := append([]grpc.DialOption{
		grpc.WithTransportCredentials(cfg.creds),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxRecvMsg)),
	}, cfg.grpc...)
	conn, err := grpc.NewClient(addr, gopts...)
	if err != nil {
		return nil, fmt.Errorf("worker %s: %w", addr, err)
	}
	return &Client{addr: addr, tls: cfg.tls, cert: cfg.cert, conn: conn, fc: flight.NewFlightServiceClient(conn)}, nil
}

// Addr is the worker's address.
func (c *Client) Addr() string { return c.addr }

// Close closes the connection; streams still open fail.
func (c *Client) Close() error { return c.conn.Close() }

// Fragment asks the worker to run t and returns its stream of record
// batches, allocated from mem. The schema is available at once, even for an
// empty result. The stream must be Released; releasing it early cancels the
// fragment on the worker (and the worker kills the query on its replica).
//
// Errors, from Fragment or Stream.Err, are gRPC status errors: a MySQL error
// from the replica or the worker (errno, SQLSTATE) is recovered with
// sqlerr.As; a deadline shows as codes.DeadlineExceeded.
func (c *Client) Fragment(ctx context.Context, t ticket.Ticket, mem memory.Allocator) (*Stream, error) {
	b, err := ticket.Encode(t)
	if err != nil {
		return nil, fmt.Errorf("worker %s: encoding ticket: %w", c.addr, err)
	}
	var cancel context.CancelFunc
	if dl := t.DeadlineTime(); !dl.IsZero() {
		ctx, cancel = context.WithDeadline(ctx, dl)
	} else {
		ctx, cancel = context.WithCancel(ctx)
	}
	st, err := c.fc.DoGet(ctx, &flight.Ticket{Ticket: b})
	if err != nil {
		cancel()
		return nil, statusErr(err)
	}
	rdr, err := flight.NewRecordReader(st, ipc.WithAllocator(mem))
	if err != nil {
		cancel()
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("worker %s: stream ended before its schema", c.addr)
		}
		return nil, statusErr(err)
	}
	return &Stream{rdr: rdr, grpc: st, cancel: cancel}, nil
}

// Stream is one fragment's record batches. Like an array.RecordReader: call
// Next until false, then Err; the batch from RecordBatch is valid until the
// next call to Next (Retain it to keep it). Not safe for concurrent use.
type Stream struct {
	rdr    *flight.Reader
	grpc   flight.FlightService_DoGetClient
	cancel context.CancelFunc
}

// Warnings is the number of warnings the fragment's statement raised on
// its replica, known once Next has returned false without an error (the
// worker sends it in the stream's trailer; an older worker sends none: 0).
func (s *Stream) Warnings() uint64 {
	v := s.grpc.Trailer().Get(WarningsTrailer)
	if len(v) == 0 {
		return 0
	}
	n, err := strconv.ParseUint(v[0], 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// Schema is the fragment's schema.
func (s *Stream) Schema() *arrow.Schema { return s.rdr.Schema() }

// Next advances to the next batch.
func (s *Stream) Next() bool { return s.rdr.Next() }

// RecordBatch is the current batch.
func (s *Stream) RecordBatch() arrow.RecordBatch { return s.rdr.RecordBatch() }

// Err is the error that ended the stream, nil at a clean end.
func (s *Stream) Err() error {
	if err := s.rdr.Err(); err != nil {
		return statusErr(err)
	}
	return nil
}

// Release cancels the stream if still open and frees its memory.
func (s *Stream) Release() {
	s.cancel()
	s.rdr.Release()
}

// Status fetches the worker's status.
func (c *Client) Status(ctx context.Context) (Status, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var st Status
	stream, err := c.fc.DoAction(ctx, &flight.Action{Type: ActionStatus})
	if err != nil {
		return st, c.explain(statusErr(err))
	}
	res, err := stream.Recv()
	if err != nil {
		return st, c.explain(statusErr(err))
	}
	if err := json.Unmarshal(res.GetBody(), &st); err != nil {
		return st, fmt.Errorf("worker %s: decoding status: %w", c.addr, err)
	}
	return st, nil
}

// statusErr returns the gRPC status inside err (wrapped by the ipc reader)
// as a bare status error, so its message is the worker's and its details
// reach sqlerr.As intact.
func statusErr(err error) error {
	var gs interface{ GRPCStatus() *status.Status }
	if errors.As(err, &gs) {
		return gs.GRPCStatus().Err()
	}
	return err
}

// explain adds what to configure to a transport error whose cause is a TLS
// mismatch between the coordinator and the worker: a certificate the
// coordinator cannot verify, a worker that wants a client certificate, TLS
// spoken to a plain-text worker or plain text to a TLS one. Other errors
// are returned as they are. The result wraps err (status.Code still works).
func (c *Client) explain(err error) error {
	if status.Code(err) != codes.Unavailable {
		return err
	}
	msg := err.Error()
	var hint string
	switch {
	case strings.Contains(msg, "certificate signed by unknown authority"), strings.Contains(msg, "failed to verify certificate"):
		hint = "the coordinator cannot verify the worker's TLS certificate: set worker_tls_ca to the PEM file of the CA that signed it"
	case strings.Contains(msg, "certificate required"), strings.Contains(msg, "bad certificate"), strings.Contains(msg, "unknown certificate authority"):
		hint = "the worker requires a client certificate (tls_client_ca): set worker_tls_cert and worker_tls_key on the coordinator, signed by that CA"
	case c.tls && !c.cert && closed(msg):
		// Under TLS 1.3 the worker checks the client's certificate after the
		// client's handshake ended: its refusal shows as a closed connection.
		hint = "the worker closed the TLS connection: if it requires a client certificate (tls_client_ca), set worker_tls_cert and worker_tls_key on the coordinator, signed by that CA"
	case c.tls && closed(msg):
		hint = "the worker closed the TLS connection: if it requires a client certificate (tls_client_ca), that CA must have signed worker_tls_cert"
	case c.tls && (strings.Contains(msg, "first record does not look like a TLS handshake") || strings.Contains(msg, "authentication handshake failed")):
		hint = "the TLS handshake failed: does the worker serve TLS (tls_cert, tls_key)? Without it set worker_plaintext: true on the coordinator"
	case !c.tls && (strings.Contains(msg, "server preface") || strings.Contains(msg, "connection reset")):
		hint = "the worker closed a plain-text connection: if it serves TLS (tls_cert), set worker_tls_ca on the coordinator"
	default:
		return err
	}
	return fmt.Errorf("%w; %s", err, hint)
}

// closed reports whether a transport error message says the peer closed
// the connection.
func closed(msg string) bool {
	return strings.Contains(msg, "broken pipe") || strings.Contains(msg, "connection reset") || strings.Contains(msg, "EOF")
}
