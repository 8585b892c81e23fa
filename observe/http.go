package observe

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/shoaldb/shoal/config"
)

// The coordinator's HTTP listener (config http_listen) serves:
//
//	/metrics  Prometheus metrics (metrics.go)
//	/healthz  200 when the catalog is loaded and at least one worker is
//	          healthy, 503 otherwise; a small JSON body says which.
//	/, /status  the status page (status.go): replicas, running and
//	          recent statements with their plans and fragment timelines,
//	          recent slow statements, pinned tables.
//	/status/queries.json  the running and recent statements, their plans
//	          and fragment attempts, as JSON (status_queries.go).

// startHTTP listens on the configured address. An address set in the
// configuration must be free; the default one is best effort (a second
// coordinator on the same machine logs a warning and serves without it).
// HTTP is the coordinator's HTTP listener: /metrics, /healthz, the status
// page and its JSON, and pprof when enabled.
type HTTP struct {
	cfg      config.Coordinator
	log      *slog.Logger
	src      Source
	metrics  *Metrics
	slow     *Log
	http     *http.Server // nil when http_listen is ""
	httpAddr net.Addr
	wg       sync.WaitGroup
}

// StartHTTP starts the listener http_listen names (nothing when it is "").
// When http_listen is not set and the default address is taken, it logs a
// warning and serves nothing rather than failing the coordinator.
func StartHTTP(cfg config.Coordinator, log *slog.Logger, src Source, m *Metrics, slow *Log) (*HTTP, error) {
	s := &HTTP{cfg: cfg, log: log, src: src, metrics: m, slow: slow}
	return s, s.start()
}

func (s *HTTP) start() error {
	addr, explicit := config.DefaultHTTPListen, false
	if s.cfg.HTTPListen != nil {
		addr, explicit = *s.cfg.HTTPListen, true
	}
	if addr == "" {
		return nil
	}
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		if explicit {
			return err
		}
		s.log.Warn("HTTP listener (metrics, health) not started; set http_listen", "addr", addr, "err", err)
		return nil
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.metrics.Reg, promhttp.HandlerOpts{Registry: s.metrics.Reg}))
	mux.HandleFunc("GET /healthz", s.healthz)
	mux.HandleFunc("GET /{$}", s.statusPage)
	mux.HandleFunc("GET /status", s.statusPage)
	mux.HandleFunc("GET /status/queries.json", s.queriesJSON)
	// Profiles for operators chasing a slow path, only when pprof: true
	// (the HTTP port listens on loopback by default).
	if s.cfg.PProf {
		mux.HandleFunc("GET /debug/pprof/", pprof.Index)
		mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	}
	s.http = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	s.httpAddr = lis.Addr()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		if err := s.http.Serve(lis); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Warn("HTTP listener stopped", "err", err)
		}
	}()
	return nil
}

// HTTPAddr is the HTTP listener's address, nil when it is disabled.
func (s *HTTP) Addr() net.Addr {
	if s == nil {
		return nil
	}
	return s.httpAddr
}

// Close stops the listener and waits for it.
func (s *HTTP) Close() {
	if s == nil || s.http == nil {
		return
	}
	defer s.wg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := s.http.Shutdown(ctx); err != nil {
		s.http.Close()
	}
}

func (s *HTTP) healthz(w http.ResponseWriter, _ *http.Request) {
	type worker struct {
		Name    string `json:"name"`
		Healthy bool   `json:"healthy"`
	}
	body := struct {
		OK      bool     `json:"ok"`
		Catalog bool     `json:"catalog"`
		Workers []worker `json:"workers"`
	}{}
	_, _, body.Catalog = s.src.Catalog()
	healthy := 0
	for _, wr := range s.src.Workers() {
		body.Workers = append(body.Workers, worker{wr.Name, wr.Healthy})
		if wr.Healthy {
			healthy++
		}
	}
	body.OK = body.Catalog && healthy > 0
	w.Header().Set("Content-Type", "application/json")
	if !body.OK {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	json.NewEncoder(w).Encode(body)
}
