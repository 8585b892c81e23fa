// Package coordinator wires a running coordinator together and owns its
// lifecycle; it holds no query logic of its own:
//
//	mysqlwire (MySQL protocol) ─┐
//	flightwire (Flight SQL) ────┴─▶ router ─▶ engine ─▶ engine/catalog, replica
//	                                   │         │
//	                                   └────┬────┘
//	                                        ▼ (fed, never importing upward)
//	                                     observe ◀── HTTP: /metrics, /status, /healthz
//
// New builds the engine (catalog, workers, pins), the observability side
// (metrics, slow log, HTTP), the router and the MySQL listener, in that
// order; Close tears them down in reverse. The Server also implements
// observe.Source, the one place where observe's pages read the engine's
// and the router's state.
package coordinator

import (
	"context"
	"fmt"
	"log/slog"
	"net"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"vitess.io/vitess/go/mysql"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/engine"
	"github.com/shoaldb/shoal/frontend/flightwire"
	"github.com/shoaldb/shoal/frontend/mysqlwire"
	"github.com/shoaldb/shoal/observe"
	"github.com/shoaldb/shoal/pinned"
	"github.com/shoaldb/shoal/router"
)

// Server is a running coordinator.
type Server struct {
	cfg      config.Coordinator
	log      *slog.Logger
	eng      *engine.Engine
	router   *router.Router
	metrics  *observe.Metrics
	slow     *observe.Log
	http     *observe.HTTP
	listener *mysql.Listener

	ctx    context.Context
	cancel context.CancelFunc
}

// New connects to the replicas and workers named in cfg, reads the catalog
// and starts listening. Serve must be called to accept connections.
func New(ctx context.Context, cfg config.Coordinator, log *slog.Logger) (*Server, error) {
	cfg.Defaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.Default()
	}
	s := &Server{cfg: cfg, log: log}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.metrics = observe.NewMetrics(s)
	slow, err := observe.NewLog(cfg, log, s.metrics.Slow.Inc)
	if err != nil {
		s.Close()
		return nil, err
	}
	s.slow = slow
	ids := &observe.QueryIDs{}
	if s.eng, err = engine.New(ctx, cfg, log, s.metrics, ids); err != nil {
		s.Close()
		return nil, err
	}
	s.router = router.New(s.ctx, cfg, log, s.eng, s.metrics, s.slow, ids)
	if s.listener, err = mysqlwire.Listen(cfg, s.router, s.eng.Snapshot().Version, s.eng.Snapshot().Charset, log); err != nil {
		s.Close()
		return nil, err
	}
	if s.http, err = observe.StartHTTP(cfg, log, s, s.metrics, s.slow); err != nil {
		s.Close()
		return nil, fmt.Errorf("http_listen: %w", err)
	}
	s.eng.Start()
	return s, nil
}

// Addr is the MySQL listener's address.
func (s *Server) Addr() net.Addr { return s.listener.Addr() }

// HTTPAddr is the HTTP listener's address (nil when it is not listening).
func (s *Server) HTTPAddr() net.Addr { return s.http.Addr() }

// Serve accepts connections until Close.
func (s *Server) Serve() { s.listener.Accept() }

// RefreshCatalog re-reads the catalog now (after DDL, for example).
func (s *Server) RefreshCatalog(ctx context.Context) error { return s.eng.RefreshCatalog(ctx) }

// StartFlightSQL serves Flight SQL on addr (see package flightwire); mem
// is the allocator results are built with (nil: the engine's).
func (s *Server) StartFlightSQL(addr string, mem memory.Allocator) (*flightwire.FlightSQL, error) {
	return flightwire.Start(s.cfg, s.log, s.router, addr, mem)
}

// Close stops accepting, cancels running queries and releases resources.
func (s *Server) Close() {
	if s.listener != nil {
		s.listener.Close()
	}
	if s.router != nil {
		// Before cancel, so no client reads a 1317 first: a client of a
		// coordinator that stops sees its connection break.
		s.router.CloseSessions()
	}
	s.cancel()
	if s.router != nil {
		s.router.Wait() // its clock
	}
	s.http.Close()
	if s.eng != nil {
		s.eng.Close()
	}
	s.slow.Close()
}

// Workers implements observe.Source.
func (s *Server) Workers() []observe.Worker {
	if s.eng == nil {
		return nil
	}
	return s.eng.Replicas().Workers()
}

// PassthroughSessions is the number of open session connections per
// replica, in configuration order (passthrough spreads them).
func (s *Server) PassthroughSessions() []int64 { return s.eng.Replicas().SessionCounts() }

// Catalog implements observe.Source.
func (s *Server) Catalog() (version string, tables int, loaded bool) {
	if s.eng == nil {
		return "", 0, false
	}
	snap := s.eng.Snapshot()
	if snap == nil {
		return "", 0, false
	}
	return snap.Version, len(snap.Tables), true
}

// Pins implements observe.Source.
func (s *Server) Pins() []*pinned.Table {
	if s.eng == nil {
		return nil
	}
	return s.eng.PinStore().Registry().List()
}

// ProcessList implements observe.Source.
func (s *Server) ProcessList() []observe.ProcRow {
	if s.router == nil {
		return nil
	}
	return s.router.ProcessList()
}

// MySQLAddr implements observe.Source.
func (s *Server) MySQLAddr() string {
	if s.listener == nil {
		return ""
	}
	return s.listener.Addr().String()
}
