package worker

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/shoaldb/shoal/config"
)

// The worker's HTTP listener (config http_listen) serves:
//
//	/metrics  Prometheus metrics: fragments by outcome, rows and bytes
//	          streamed, fragment latency and slot wait, active fragments
//	/healthz  200 when the replica answers (and replicates, if it is a
//	          replica), 503 otherwise; the body is the status action's JSON
//
// The metrics live in a registry of the Server's own (never the
// process-global one: tests run several workers in one process). DoGet
// only increments counters and observes histograms, which are safe for
// concurrent use and take no lock shared between fragments.

// Fragment outcomes, the "outcome" label of shoal_worker_fragments_total.
const (
	outcomeOK        = "ok"        // streamed to the end
	outcomeError     = "error"     // the replica or the conversion failed
	outcomeCancelled = "cancelled" // the caller cancelled (KILL, LIMIT reached, retry elsewhere)
	outcomeTimeout   = "timeout"   // the fragment's deadline passed
	outcomeRefused   = "refused"   // a bad ticket or SQL that is not a read-only SELECT
)

// workerMetrics are a worker's Prometheus metrics.
type workerMetrics struct {
	reg       *prometheus.Registry
	fragments *prometheus.CounterVec // outcome
	rows      prometheus.Counter
	bytes     prometheus.Counter
	latency   prometheus.Histogram
	slotWait  prometheus.Histogram
}

func newWorkerMetrics(s *Server) *workerMetrics {
	m := &workerMetrics{reg: prometheus.NewRegistry()}
	m.fragments = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "shoal_worker_fragments_total",
		Help: "Fragments by outcome: ok, error (replica or conversion), cancelled (by the caller), timeout (deadline), refused (bad ticket or not a read-only SELECT).",
	}, []string{"outcome"})
	for _, o := range []string{outcomeOK, outcomeError, outcomeCancelled, outcomeTimeout, outcomeRefused} {
		m.fragments.WithLabelValues(o) // export zeros: rate() needs the series
	}
	m.rows = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "shoal_worker_rows_streamed_total", Help: "Rows streamed to callers, failed fragments' partial output included.",
	})
	m.bytes = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "shoal_worker_bytes_streamed_total", Help: "Arrow IPC bytes (message headers and bodies) streamed to callers, before gRPC framing.",
	})
	m.latency = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "shoal_worker_fragment_duration_seconds",
		Help:    "Fragment run time from getting a slot to the last batch sent, every outcome.",
		Buckets: prometheus.ExponentialBuckets(0.001, 2.5, 14), // 1 ms … ~2.5 h
	})
	m.slotWait = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "shoal_worker_slot_wait_seconds",
		Help:    "Time fragments waited for a free slot.",
		Buckets: prometheus.ExponentialBuckets(0.0001, 4, 12), // 0.1 ms … ~7 min
	})
	m.reg.MustRegister(m.fragments, m.rows, m.bytes, m.latency, m.slotWait,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "shoal_worker_active_fragments", Help: "Fragments running now (holding a slot).",
		}, func() float64 { return float64(s.running.Load()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "shoal_worker_slots", Help: "Fragments the worker runs at once.",
		}, func() float64 { return float64(s.slots) }),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	return m
}

// fragmentObs follows one DoGet for the metrics. It wraps the call's
// stream to count the bytes sent; its other methods are called on the
// DoGet goroutine.
type fragmentObs struct {
	flight.FlightService_DoGetServer
	m        *workerMetrics
	received time.Time
	started  time.Time // when it got a slot; zero if it never did
	rows     int64
}

// begin starts following a DoGet on stream; the caller sends on the
// returned stream.
func (m *workerMetrics) begin(stream flight.FlightService_DoGetServer) (*fragmentObs, flight.FlightService_DoGetServer) {
	o := &fragmentObs{FlightService_DoGetServer: stream, m: m, received: time.Now()}
	return o, o
}

// Send counts the message's bytes as it streams them.
func (o *fragmentObs) Send(d *flight.FlightData) error {
	if err := o.FlightService_DoGetServer.Send(d); err != nil {
		return err
	}
	o.m.bytes.Add(float64(len(d.GetDataHeader()) + len(d.GetDataBody())))
	return nil
}

// slot records that the fragment got a slot.
func (o *fragmentObs) slot() {
	o.started = time.Now()
	o.m.slotWait.Observe(o.started.Sub(o.received).Seconds())
}

// end records the fragment's outcome from the error DoGet returns.
func (o *fragmentObs) end(err error) {
	if !o.started.IsZero() {
		o.m.latency.Observe(time.Since(o.started).Seconds())
	}
	o.m.rows.Add(float64(o.rows))
	o.m.fragments.WithLabelValues(outcome(err)).Inc()
}

// outcome classifies DoGet's error (a gRPC status, see fragmentStatus).
func outcome(err error) string {
	if err == nil {
		return outcomeOK
	}
	switch status.Code(err) {
	case codes.InvalidArgument, codes.PermissionDenied:
		return outcomeRefused
	case codes.Canceled:
		return outcomeCancelled
	case codes.DeadlineExceeded:
		return outcomeTimeout
	}
	return outcomeError
}

// HTTPHandler serves /metrics and /healthz (see above).
func (s *Server) HTTPHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{Registry: s.metrics.reg}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		st := s.status(r.Context())
		w.Header().Set("Content-Type", "application/json")
		if !st.Healthy {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		json.NewEncoder(w).Encode(st)
	})
	return mux
}

// ListenHTTP opens the HTTP listener cfg names. It returns a nil listener
// and no error when http_listen is "" and when it is unset and the
// default port is taken (a second worker on the host; logged): an address
// set explicitly must be free.
func ListenHTTP(cfg config.Worker, log *slog.Logger) (net.Listener, error) {
	addr, explicit := config.DefaultWorkerHTTPListen, false
	if cfg.HTTPListen != nil {
		addr, explicit = *cfg.HTTPListen, true
	}
	if addr == "" {
		return nil, nil
	}
	if log == nil {
		log = slog.Default()
	}
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		if explicit {
			return nil, err
		}
		log.Warn("worker HTTP listener (metrics, health) not started; set http_listen", "addr", addr, "err", err)
		return nil, nil
	}
	return lis, nil
}

// ServeMetrics serves HTTPHandler on lis until ctx ends, then shuts the
// listener down (letting scrapes in flight finish for up to 2 s). Every
// goroutine it starts has ended when it returns.
func (s *Server) ServeMetrics(ctx context.Context, lis net.Listener) error {
	hs := &http.Server{Handler: s.HTTPHandler(), ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(lis) }()
	select {
	case err := <-errc:
		return err // never ErrServerClosed: nothing shut it down
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if hs.Shutdown(sctx) != nil {
		hs.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
