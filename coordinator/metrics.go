package coordinator

import (
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"vitess.io/vitess/go/mysql/sqlerror"

	"github.com/shoaldb/shoal/sqlerr"
)

// Query kinds, the "kind" label of the query metrics: which path a
// statement took.
const (
	kindDistributed = "distributed" // planned and run as fragments on workers
	kindPassthrough = "passthrough" // sent verbatim to one replica
	kindLocal       = "local"       // answered by the coordinator (USE, EXPLAIN)
	kindRefused     = "refused"     // a write, answered with 1290
	kindError       = "error"       // failed before it had a path (syntax, multi-statement)
)

// metrics are the coordinator's Prometheus metrics, in a registry of its
// own (never the process-global one, so two servers in one process, as in
// tests, do not collide). Counters are safe for concurrent use; the query
// path only increments them.
type metrics struct {
	reg *prometheus.Registry

	queries     *prometheus.CounterVec   // kind, outcome
	latency     *prometheus.HistogramVec // kind
	fragments   prometheus.Counter
	retries     prometheus.Counter
	rowsShipped prometheus.Counter
	bytesShip   prometheus.Counter
	conns       prometheus.Gauge
	connsTotal  prometheus.Counter
	planHits    prometheus.Counter
	planMisses  prometheus.Counter
	prepares    prometheus.Counter
	executes    prometheus.Counter
	slow        prometheus.Counter
	// Pinned tables (pins.go, results.go).
	pinnedQueries prometheus.Counter
	resultHits    prometheus.Counter
	coalesced     prometheus.Counter
}

func newMetrics(s *Server) *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.queries = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "shoal_queries_total",
		Help: "Statements by path (distributed, passthrough, local, refused, error) and outcome (ok, error, timeout, interrupted).",
	}, []string{"kind", "outcome"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "shoal_query_duration_seconds",
		Help:    "Statement latency from receipt to the last row sent, by path.",
		Buckets: prometheus.ExponentialBuckets(0.0005, 2.5, 14), // 0.5 ms … ~75 min
	}, []string{"kind"})
	m.fragments = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "shoal_fragments_total", Help: "Fragments of distributed queries run to completion.",
	})
	m.retries = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "shoal_fragment_retries_total", Help: "Fragment attempts beyond the first (a worker or replica failed).",
	})
	m.rowsShipped = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "shoal_rows_shipped_total", Help: "Rows received from workers.",
	})
	m.bytesShip = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "shoal_bytes_shipped_total", Help: "Arrow buffer bytes received from workers.",
	})
	m.conns = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "shoal_connections", Help: "Open client connections.",
	})
	m.connsTotal = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "shoal_connections_total", Help: "Client connections accepted.",
	})
	m.planHits = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "shoal_plan_cache_hits_total", Help: "SELECTs whose plan (or passthrough decision) came from the plan cache.",
	})
	m.planMisses = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "shoal_plan_cache_misses_total", Help: "SELECTs planned afresh.",
	})
	m.prepares = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "shoal_prepared_statements_total", Help: "COM_STMT_PREPARE requests.",
	})
	m.executes = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "shoal_prepared_executions_total", Help: "COM_STMT_EXECUTE requests (also counted in shoal_queries_total).",
	})
	m.pinnedQueries = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "shoal_pinned_queries_total", Help: "Statements run in memory over a pinned table.",
	})
	m.resultHits = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "shoal_result_cache_hits_total", Help: "Statements answered from the result cache.",
	})
	m.coalesced = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "shoal_coalesced_queries_total", Help: "Statements that waited for an identical running statement instead of running again.",
	})
	m.reg.MustRegister(m.pinnedQueries, m.resultHits, m.coalesced,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "shoal_pinned_bytes", Help: "Memory held by pinned tables (Arrow buffers).",
		}, func() float64 { return float64(s.pins.Bytes()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "shoal_pinned_tables", Help: "Pinned tables.",
		}, func() float64 { return float64(s.pins.Len()) }))
	m.slow = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "shoal_slow_queries_total", Help: "Statements that ran at least long_query_time (the slow query log's entries).",
	})
	m.reg.MustRegister(m.queries, m.latency, m.fragments, m.retries, m.rowsShipped, m.bytesShip,
		m.conns, m.connsTotal, m.planHits, m.planMisses, m.prepares, m.executes, m.slow,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "shoal_plan_cache_entries", Help: "Statements in the plan cache.",
		}, func() float64 { return float64(s.plans.size.Load()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "shoal_workers_healthy", Help: "Workers currently given fragments.",
		}, func() float64 {
			n := 0
			for _, w := range s.workers {
				if w.healthy() {
					n++
				}
			}
			return float64(n)
		}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "shoal_workers", Help: "Workers configured.",
		}, func() float64 { return float64(len(s.workers)) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "shoal_statements_running", Help: "Client statements running now (SHOW PROCESSLIST's Query rows).",
		}, func() float64 { return float64(s.statementsRunning()) }),
		replicaCollector{s},
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	registerMemoryMetrics(m.reg, s.qmem)
	return m
}

// replicaCollector exposes each replica's health and lag as the last
// status poll saw them (SHOW SHOAL REPLICAS' healthy and lag_seconds), read
// at scrape time: the poll and the query path pay nothing for them.
type replicaCollector struct{ s *Server } // its workers are set after the metrics

var (
	replicaHealthyDesc = prometheus.NewDesc("shoal_replica_healthy",
		"1 if the replica may serve reads (its worker answered the last status poll, replication runs, lag at most max_replica_lag), else 0.",
		[]string{"replica"}, nil)
	replicaLagDesc = prometheus.NewDesc("shoal_replica_lag_seconds",
		"Replication lag the replica's worker reported in the last status poll (Seconds_Behind_Master); absent while unknown (worker unreachable, replication stopped).",
		[]string{"replica"}, nil)
)

func (c replicaCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- replicaHealthyDesc
	ch <- replicaLagDesc
}

func (c replicaCollector) Collect(ch chan<- prometheus.Metric) {
	for _, w := range c.s.workers {
		up := 0.0
		if w.healthy() {
			up = 1
		}
		ch <- prometheus.MustNewConstMetric(replicaHealthyDesc, prometheus.GaugeValue, up, w.name())
		if st := w.status.Load(); st != nil && st.ReplicaLagSeconds != nil {
			ch <- prometheus.MustNewConstMetric(replicaLagDesc, prometheus.GaugeValue, *st.ReplicaLagSeconds, w.name())
		}
	}
}

// registerMemoryMetrics exposes the query memory budget (membudget.go).
// Every value is read from the budget's atomics at scrape time, so the
// query path pays nothing for them.
func registerMemoryMetrics(reg *prometheus.Registry, b *memBudget) {
	gauge := func(name, help string, f func() int64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, func() float64 { return float64(f()) })
	}
	counter := func(name, help string, f func() int64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help}, func() float64 { return float64(f()) })
	}
	reg.MustRegister(
		gauge("shoal_query_memory_bytes", "Fragment results (Arrow batches) held by running queries now, counted against query_memory_limit.", b.used.Load),
		gauge("shoal_query_memory_peak_bytes", "Highest shoal_query_memory_bytes since the coordinator started.", b.peak.Load),
		gauge("shoal_query_memory_limit_bytes", "query_memory_limit (0 or less: unlimited).", func() int64 { return b.limit }),
		gauge("shoal_query_memory_waiting", "Fragment streams paused now, waiting for query memory.", b.waiters.Load),
		counter("shoal_query_memory_waits_total", "Fragment streams that paused for query memory (back-pressure).", b.waits.Load),
		counter("shoal_query_memory_yields_total", "Fragment attempts that dropped their batches for an older query and ran again.", b.yields.Load),
		counter("shoal_query_memory_refused_total", "Queries failed with 1041 by query_memory_limit (too big alone, or waited query_memory_wait).", b.refused.Load),
	)
}

// observe records one statement: its path, its outcome and its latency.
func (m *metrics) observe(kind string, err error, d time.Duration) {
	kind, outcome := classify(kind, err)
	m.queries.WithLabelValues(kind, outcome).Inc()
	m.latency.WithLabelValues(kind).Observe(d.Seconds())
}

// classify names a finished statement's path and outcome from the path it
// took (a session's kind, "" when it had none) and its error.
func classify(kind string, err error) (string, string) {
	outcome := "ok"
	if err != nil {
		outcome = "error"
		var se *sqlerror.SQLError
		if errors.As(err, &se) {
			switch int(se.Num) {
			case sqlerr.ErrReadOnly:
				kind = kindRefused
			case sqlerr.ErrQueryTimeout:
				outcome = "timeout"
			case sqlerr.ErrQueryInterrupted:
				outcome = "interrupted"
			}
		}
	}
	if kind == "" {
		kind = kindLocal
		if err != nil {
			kind = kindError
		}
	}
	return kind, outcome
}

// shipped records a distributed execution's fragments (st may be nil when
// nothing ran).
func (m *metrics) shipped(st *queryStats) {
	if st == nil {
		return
	}
	for _, f := range st.Fragments {
		if f.Tries > 0 {
			m.retries.Add(float64(f.Tries - 1))
		}
		if f.Elapsed > 0 { // completed
			m.fragments.Inc()
		}
	}
	m.rowsShipped.Add(float64(st.Rows))
	m.bytesShip.Add(float64(st.Bytes))
}
