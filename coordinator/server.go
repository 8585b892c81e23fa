// Package coordinator is Shoal's MySQL endpoint: it accepts client
// connections (vitess' go/mysql server), classifies each statement, passes
// through what it does not distribute, and runs distributed SELECTs by
// scheduling fragments on workers and merging their Arrow batches.
//
// Concurrency: vitess serializes the Handler methods of one connection; each
// connection's state lives in its *session. Shared state — the catalog
// snapshot, the plan cache, worker health — is read through atomic pointers
// and sync.Map, so the query path takes no global lock.
package coordinator

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"vitess.io/vitess/go/mysql"
	querypb "vitess.io/vitess/go/vt/proto/query"
	"vitess.io/vitess/go/vt/vtenv"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/evalexpr"
	"github.com/shoaldb/shoal/pinned"
)

// Server is a running coordinator.
type Server struct {
	cfg      config.Coordinator
	log      *slog.Logger
	vt       *vtenv.Environment
	env      *evalexpr.Env
	mem      memory.Allocator
	listener *mysql.Listener

	snap    atomic.Pointer[snapshot]
	plans   planCache
	pins    *pinned.Registry
	qmem    *memBudget // query_memory_limit (membudget.go)
	workers []*workerRef
	metas   []*backendPool // one per replica, for metadata reads
	primary *backendPool   // the primary, for consistency: primary (nil without primary:)
	queryID atomic.Uint64
	// plColumns caches information_schema.PROCESSLIST's columns as the
	// replicas describe them (processlist_schema.go).
	plColumns atomic.Pointer[[]*querypb.Field]

	metrics  *metrics
	slow     *slowLog     // slow query log (querylog.go)
	http     *http.Server // nil when http_listen is ""
	httpAddr net.Addr
	// sessions maps connection id → *session for KILL; conns counts open
	// client connections for max_connections (see limits.go).
	sessions sync.Map
	conns    atomic.Int64

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
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
	s := &Server{cfg: cfg, log: log, mem: memory.NewGoAllocator(), pins: pinned.NewRegistry(),
		qmem: newMemBudget(cfg.QueryMemoryLimit, cfg.QueryMemoryWait.D())}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.metrics = newMetrics(s)
	slow, serr := newSlowLog(cfg, log, s.metrics.slow.Inc)
	if serr != nil {
		s.Close()
		return nil, serr
	}
	s.slow = slow
	for _, r := range cfg.Replicas {
		s.metas = append(s.metas, &backendPool{addr: r.MySQL, user: cfg.ReplicaUser, pass: cfg.ReplicaPassword})
		s.workers = append(s.workers, newWorkerRef(r, cfg.ClusterSecret))
	}
	if cfg.Primary != "" {
		s.primary = &backendPool{addr: cfg.Primary, user: cfg.ReplicaUser, pass: cfg.ReplicaPassword}
	}
	if err := s.refreshCatalog(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("reading the catalog from the replicas: %w", err)
	}
	version := s.snap.Load().version
	var err error
	if s.env, err = evalexpr.NewEnv(version); err != nil {
		s.Close()
		return nil, err
	}
	// The listener advertises the replicas' own version string so clients
	// see the server they are really talking to.
	if s.vt, err = vtenv.New(vtenv.Options{MySQLServerVersion: advertisedVersion(version)}); err != nil {
		s.Close()
		return nil, err
	}
	s.pollWorkers(ctx)
	auth, err := newAccounts(cfg.Users, cfg.RequireSecureTransport)
	if err != nil {
		s.Close()
		return nil, err
	}
	tlsCfg, err := listenerTLS(cfg)
	if err != nil {
		s.Close()
		return nil, err
	}
	s.listener, err = mysql.NewListenerWithConfig(mysql.ListenerConfig{
		Protocol: "tcp", Address: cfg.Listen, AuthServer: auth, Handler: &handler{s: s},
		ConnReadBufferSize: 16 * 1024, ConnKeepAlivePeriod: 30 * time.Second,
	})
	if err != nil {
		s.Close()
		return nil, err
	}
	s.listener.PreHandleFunc = s.admit
	if tlsCfg != nil {
		s.listener.TLSConfig.Store(tlsCfg)
	}
	if err := s.startHTTP(); err != nil {
		s.Close()
		return nil, fmt.Errorf("http_listen: %w", err)
	}
	s.wg.Add(1)
	go s.background()
	s.loadConfiguredPins()
	return s, nil
}

// advertisedVersion keeps MariaDB's "5.5.5-" prefix convention out of
// vitess' version parsing while still telling clients what runs behind.
func advertisedVersion(v string) string {
	if v == "" {
		return "8.0.40-shoal"
	}
	return v + "-shoal"
}

// Addr is the MySQL listener's address.
func (s *Server) Addr() net.Addr { return s.listener.Addr() }

// Serve accepts connections until Close.
func (s *Server) Serve() { s.listener.Accept() }

// Close stops accepting, cancels running queries and releases resources.
func (s *Server) Close() {
	if s.listener != nil {
		s.listener.Close()
	}
	s.closeSessions() // limits.go; before cancel, so no client reads a 1317 first
	s.cancel()
	s.stopHTTP()
	s.wg.Wait()
	s.slow.close()
	for _, w := range s.workers {
		w.close()
	}
	for _, p := range s.metas {
		p.closeAll()
	}
	if s.primary != nil {
		s.primary.closeAll()
	}
}

// background refreshes the catalog and worker health until Close.
func (s *Server) background() {
	defer s.wg.Done()
	poll := time.NewTicker(s.cfg.StatusInterval.D())
	defer poll.Stop()
	cat := time.NewTicker(30 * time.Second)
	defer cat.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-poll.C:
			s.pollWorkers(s.ctx)
		case <-cat.C:
			if err := s.refreshCatalog(s.ctx); err != nil {
				s.log.Warn("catalog refresh failed; keeping the previous one", "err", err)
			}
		}
	}
}

// RefreshCatalog re-reads the catalog now (after DDL, for example).
func (s *Server) RefreshCatalog(ctx context.Context) error { return s.refreshCatalog(ctx) }

func (s *Server) refreshCatalog(ctx context.Context) error {
	var last error
	for _, p := range s.orderedMetas() {
		b, err := p.get(ctx)
		if err != nil {
			last = err
			continue
		}
		snap, err := s.readCatalog(ctx, b) // catalog.go: tables, then split-key samples
		p.put(b, err)
		if err != nil {
			last = err
			continue
		}
		if old := s.snap.Load(); old != nil {
			// Plans depend on the schema, not on row counts or key bounds
			// (fragments read those at execution): keep the cached plans
			// unless the schema changed.
			snap.gen = old.gen
			if !sameSchema(old, snap) {
				snap.gen++
			}
		}
		s.snap.Store(snap)
		return nil
	}
	return last
}

// orderedMetas lists the replicas' metadata pools, healthy ones first.
func (s *Server) orderedMetas() []*backendPool {
	out := make([]*backendPool, 0, len(s.metas))
	for i, w := range s.workers {
		if w.healthy() {
			out = append(out, s.metas[i])
		}
	}
	for i, w := range s.workers {
		if !w.healthy() {
			out = append(out, s.metas[i])
		}
	}
	return out
}

// metaPool picks a replica for a metadata read.
func (s *Server) metaPool() *backendPool { return s.orderedMetas()[0] }
