package observe

import (
	"errors"
	"slices"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"vitess.io/vitess/go/mysql/sqlerror"

	"github.com/shoaldb/shoal/sqlerr"
)

// Query kinds, the "kind" label of the query metrics: which path a
// statement took.
// Paths a statement takes: the "kind" label of shoal_queries_total and the
// slow log's path.
const (
	KindDistributed = "distributed" // planned and run as fragments on workers
	KindPassthrough = "passthrough" // sent verbatim to one replica
	KindLocal       = "local"       // answered by the coordinator (USE, EXPLAIN)
	KindRefused     = "refused"     // a write, answered with 1290
	KindError       = "error"       // failed before it had a path (syntax, multi-statement)
)

// metrics are the coordinator's Prometheus metrics, in a registry of its
// own (never the process-global one, so two servers in one process, as in
// tests, do not collide). Counters are safe for concurrent use; the query
// path only increments them.
// Metrics are the coordinator's Prometheus metrics. The engine and the
// router count into its fields; the gauges read the Source.
type Metrics struct {
	Reg *prometheus.Registry

	Queries     *prometheus.CounterVec   // kind, outcome
	Latency     *prometheus.HistogramVec // kind
	Fragments   prometheus.Counter
	Retries     prometheus.Counter
	RowsShipped prometheus.Counter
	BytesShip   prometheus.Counter
	Conns       prometheus.Gauge
	ConnsTotal  prometheus.Counter
	PlanHits    prometheus.Counter
	PlanMisses  prometheus.Counter
	Prepares    prometheus.Counter
	Executes    prometheus.Counter
	Slow        prometheus.Counter
	// ShapeHits counts statements whose shape (literal-normalized text)
	// gave their passthrough decision or their result columns.
	ShapeHits prometheus.Counter
	// RoutedBusy counts statements planned for distribution that ran on
	// one replica because the workers' slots were all taken
	// (route_busy_statements).
	RoutedBusy prometheus.Counter
	// WarnedPassthrough counts statements planned for distribution that
	// ran on one replica because their plan raised warnings, in this run
	// or an earlier one (engine/schedule: Warned).
	WarnedPassthrough prometheus.Counter
	// RowsRelayed counts rows of statements passed through that went to
	// the client as the replica sent them (engine/passthrough.go).
	RowsRelayed prometheus.Counter
	// Describes counts the replica round trips that described a planned
	// statement's result and fragment columns (engine/prepare.go).
	Describes prometheus.Counter
	// Pinned tables (pins.go, results.go).
	PinnedQueries prometheus.Counter
	// WholeMerges counts aggregates whose merge took one partition's
	// groups as they were, without hashing them again.
	WholeMerges prometheus.Counter
	ResultHits  prometheus.Counter
	Coalesced   prometheus.Counter
	// LiveWait is, per live pin version, the time from the first
	// transaction it holds that was received from the binary log to the
	// version being visible; LiveBuild the time building it took.
	LiveWait, LiveBuild prometheus.Histogram

	// observed caches the Queries and Latency children of the known
	// kinds and outcomes (Observe runs for every statement; the vectors'
	// own lookup hashes the labels under a read lock each time).
	observed [len(kinds)][len(outcomes)]atomic.Pointer[observedChild]
}

type observedChild struct {
	queries prometheus.Counter
	latency prometheus.Observer
}

var (
	kinds    = [...]string{KindDistributed, KindPassthrough, KindLocal, KindRefused, KindError}
	outcomes = [...]string{"ok", "error", "timeout", "interrupted"}
)

// NewMetrics registers the metrics; gauges read src when scraped. The
// engine adds its own collectors to Reg.
func NewMetrics(src Source) *Metrics {
	m := &Metrics{Reg: prometheus.NewRegistry()}
	m.Queries = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "shoal_queries_total",
		Help: "Statements by path (distributed, passthrough, local, refused, error) and outcome (ok, error, timeout, interrupted).",
	}, []string{"kind", "outcome"})
	m.Latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "shoal_query_duration_seconds",
		Help:    "Statement latency from receipt to the last row sent, by path.",
		Buckets: prometheus.ExponentialBuckets(0.0005, 2.5, 14), // 0.5 ms … ~75 min
	}, []string{"kind"})
	m.Fragments = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "shoal_fragments_total", Help: "Fragments of distributed queries run to completion.",
	})
	m.Retries = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "shoal_fragment_retries_total", Help: "Fragment attempts beyond the first (a worker or replica failed).",
	})
	m.RowsShipped = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "shoal_rows_shipped_total", Help: "Rows received from workers.",
	})
	m.BytesShip = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "shoal_bytes_shipped_total", Help: "Arrow buffer bytes received from workers.",
	})
	m.Conns = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "shoal_connections", Help: "Open client connections.",
	})
	m.ConnsTotal = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "shoal_connections_total", Help: "Client connections accepted.",
	})
	m.PlanHits = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "shoal_plan_cache_hits_total", Help: "SELECTs whose plan (or passthrough decision) came from the plan cache.",
	})
	m.PlanMisses = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "shoal_plan_cache_misses_total", Help: "SELECTs planned afresh.",
	})
	m.ShapeHits = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "shoal_shape_cache_hits_total", Help: "SELECTs whose passthrough decision or result columns came from an earlier statement of the same shape (new literals, no replica round trip).",
	})
	m.RoutedBusy = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "shoal_routed_busy_total", Help: "SELECTs planned for distribution that ran on one replica because as many distributed statements as the workers have slots were running (route_busy_statements).",
	})
	m.WarnedPassthrough = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "shoal_warned_passthrough_total", Help: "SELECTs planned for distribution that ran on one replica because a fragment or the final stage raised warnings (now or in an earlier run of the same plan): the client gets the replica's own warnings.",
	})
	m.RowsRelayed = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "shoal_passthrough_rows_relayed_total", Help: "Rows of statements passed through that were relayed to the client as the replica sent them (text protocol), not decoded and written again.",
	})
	m.Describes = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "shoal_describes_total", Help: "Replica round trips that described a planned statement's columns (a shape cache miss).",
	})
	m.Prepares = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "shoal_prepared_statements_total", Help: "COM_STMT_PREPARE requests.",
	})
	m.Executes = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "shoal_prepared_executions_total", Help: "COM_STMT_EXECUTE requests (also counted in shoal_queries_total).",
	})
	m.PinnedQueries = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "shoal_pinned_queries_total", Help: "Statements run in memory over a pinned table.",
	})
	m.WholeMerges = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "shoal_pinned_whole_merges_total", Help: "In-memory aggregates run in one partition whose groups the merge took without hashing them again.",
	})
	m.ResultHits = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "shoal_result_cache_hits_total", Help: "Statements answered from the result cache.",
	})
	m.Coalesced = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "shoal_coalesced_queries_total", Help: "Statements that waited for an identical running statement instead of running again.",
	})
	m.LiveWait = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "shoal_live_pin_version_wait_seconds",
		Help:    "Per live pin version: from receiving the first transaction it holds from the binary log to the version being visible (batching, building and waiting for CPU; replication before the receipt is not counted).",
		Buckets: prometheus.ExponentialBuckets(0.005, 2, 12), // 5 ms … ~10 s
	})
	m.LiveBuild = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "shoal_live_pin_version_build_seconds",
		Help:    "Per live pin version: wall time spent building it from the changed rows.",
		Buckets: prometheus.ExponentialBuckets(0.001, 2, 14), // 1 ms … ~8 s
	})
	m.Reg.MustRegister(m.PinnedQueries, m.WholeMerges, m.ResultHits, m.Coalesced, m.LiveWait, m.LiveBuild)
	m.Slow = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "shoal_slow_queries_total", Help: "Statements that ran at least long_query_time (the slow query log's entries).",
	})
	m.Reg.MustRegister(m.Queries, m.Latency, m.Fragments, m.Retries, m.RowsShipped, m.BytesShip,
		m.Conns, m.ConnsTotal, m.PlanHits, m.PlanMisses, m.ShapeHits, m.RoutedBusy, m.WarnedPassthrough, m.RowsRelayed, m.Describes, m.Prepares, m.Executes, m.Slow,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "shoal_workers_healthy", Help: "Workers currently given fragments.",
		}, func() float64 {
			n := 0
			for _, w := range src.Workers() {
				if w.Healthy {
					n++
				}
			}
			return float64(n)
		}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "shoal_workers", Help: "Workers configured.",
		}, func() float64 { return float64(len(src.Workers())) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "shoal_statements_running", Help: "Client statements running now (SHOW PROCESSLIST's Query rows).",
		}, func() float64 {
			n := 0
			for _, p := range src.ProcessList() {
				if p.Act != nil {
					n++
				}
			}
			return float64(n)
		}),
		replicaCollector{src},
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	return m
}

// replicaCollector exposes each replica's health and lag as the last
// status poll saw them (SHOW SHOAL REPLICAS' healthy and lag_seconds), read
// at scrape time: the poll and the query path pay nothing for them.
type replicaCollector struct{ src Source }

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
	for _, w := range c.src.Workers() {
		up := 0.0
		if w.Healthy {
			up = 1
		}
		ch <- prometheus.MustNewConstMetric(replicaHealthyDesc, prometheus.GaugeValue, up, w.Name)
		if st := w.Status; st != nil && st.ReplicaLagSeconds != nil {
			ch <- prometheus.MustNewConstMetric(replicaLagDesc, prometheus.GaugeValue, *st.ReplicaLagSeconds, w.Name)
		}
	}
}

// Observe counts a finished statement of path kind: its outcome and its
// latency.
func (m *Metrics) Observe(kind string, err error, d time.Duration) {
	kind, outcome := classify(kind, err)
	k, o := slices.Index(kinds[:], kind), slices.Index(outcomes[:], outcome)
	if k < 0 || o < 0 {
		m.Queries.WithLabelValues(kind, outcome).Inc()
		m.Latency.WithLabelValues(kind).Observe(d.Seconds())
		return
	}
	c := m.observed[k][o].Load()
	if c == nil {
		// Racing first uses create the same children (the vectors'
		// lookup is idempotent).
		c = &observedChild{queries: m.Queries.WithLabelValues(kind, outcome), latency: m.Latency.WithLabelValues(kind)}
		m.observed[k][o].Store(c)
	}
	c.queries.Inc()
	c.latency.Observe(d.Seconds())
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
				kind = KindRefused
			case sqlerr.ErrQueryTimeout:
				outcome = "timeout"
			case sqlerr.ErrQueryInterrupted:
				outcome = "interrupted"
			}
		}
	}
	if kind == "" {
		kind = KindLocal
		if err != nil {
			kind = KindError
		}
	}
	return kind, outcome
}

// Shipped counts a distributed execution's completed fragments, their
// retries, and the rows and bytes they shipped.
func (m *Metrics) Shipped(fragments, retries int, rows, bytes int64) {
	m.Fragments.Add(float64(fragments))
	m.Retries.Add(float64(retries))
	m.RowsShipped.Add(float64(rows))
	m.BytesShip.Add(float64(bytes))
}
