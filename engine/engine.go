// Package engine runs statements: it plans a SELECT over the catalog
// snapshot (or over pinned tables), prepares it (result metadata from a
// replica, the compiled final stage), cuts the split table into fragments,
// schedules them over the workers, merges their Arrow batches and writes
// the result to the client; it also runs what is not distributed on one
// replica unchanged (passthrough) and keeps the pinned tables.
//
// Engine is the only type that owns the coordinator's shared query state —
// the catalog snapshot, the plan and result caches, the pins, the query
// memory budget, the workers and replica pools — all read through atomic
// pointers or sync types, so statements take no global lock.
//
// Its parts with a seam of their own are subpackages: engine/pinstore
// (the pins' lives), engine/replicaset (replica pools, passthrough
// connections, freshness floors), engine/route (routing by cost),
// engine/schedule (fragments over workers), engine/coldefs (result
// column definitions), engine/catalog, engine/cluster, engine/querymem,
// engine/lru (the plan cache's LRU), engine/rowformat (values as MySQL
// writes them), engine/remerge (DISTINCT aggregates' second level,
// ROLLUP) and engine/constant (constant statements). It imports those,
// replica, observe (to record into) and the leaf packages (planner,
// pushdown, arrowexec, pinned, evalexpr, worker, ticket, sqlerr,
// sqlparse); never the router or the front ends.
package engine

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/prometheus/client_golang/prometheus"
	"vitess.io/vitess/go/mysql/collations"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/engine/catalog"
	"github.com/shoaldb/shoal/engine/cluster"
	"github.com/shoaldb/shoal/engine/pinstore"
	"github.com/shoaldb/shoal/engine/querymem"
	"github.com/shoaldb/shoal/engine/replicaset"
	"github.com/shoaldb/shoal/engine/runqueue"
	"github.com/shoaldb/shoal/engine/schedule"
	"github.com/shoaldb/shoal/evalexpr"
	"github.com/shoaldb/shoal/observe"
	"github.com/shoaldb/shoal/pinned"
	"github.com/shoaldb/shoal/sqlerr"
	"github.com/shoaldb/shoal/worker"
)

// Engine runs statements for every session of one coordinator.
type Engine struct {
	cfg     config.Coordinator
	log     *slog.Logger
	env     *evalexpr.Env
	mem     memory.Allocator
	metrics *observe.Metrics

	snap     atomic.Pointer[catalog.Snapshot]
	plans    planCache
	pins     *pinned.Registry
	pinStore *pinstore.Store
	qmem     *querymem.Budget // query_memory_limit
	inmem    *inMemory
	workers  []*cluster.Worker
	rep      *replicaset.Set // replica pools, passthrough, freshness floors
	sched    *schedule.Scheduler
	merge    *merger
	prep     *preparer
	eph      *ephemeral
	res      *results // aggregate results kept on their plans
	queryID  *observe.QueryIDs
	miss     catalog.MissRefresher // catalog reads on a missing table

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// New makes the engine for cfg (defaults applied and validated by the
// caller), numbering executions from ids, reads the catalog from the replicas and polls the workers once.
// Close releases it.
func New(ctx context.Context, cfg config.Coordinator, log *slog.Logger, m *observe.Metrics, ids *observe.QueryIDs) (*Engine, error) {
	s := &Engine{cfg: cfg, log: log, mem: memory.NewGoAllocator(), pins: pinned.NewRegistry(), metrics: m, queryID: ids,
		qmem: querymem.New(cfg.QueryMemoryLimit, cfg.QueryMemoryWait.D())}
	s.plans.init(cfg.PlanCacheBytes, s.pins)
	s.inmem = &inMemory{cfg: cfg, mem: s.mem, metrics: m}
	if cfg.InMemoryConcurrency > 0 {
		s.inmem.runq = runqueue.New(cfg.InMemoryConcurrency, cfg.InMemoryQueueWait.D())
	}
	// TLS to the workers (config/tls.go), read before anything starts.
	workerTLS := make([]*tls.Config, len(cfg.Replicas))
	for i, r := range cfg.Replicas {
		var err error
		if workerTLS[i], err = cfg.WorkerTLS(r.Worker); err != nil {
			return nil, err
		}
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	for i, r := range cfg.Replicas {
		s.workers = append(s.workers, cluster.NewWorker(r, cfg.ClusterSecret, worker.WithTLS(workerTLS[i])))
	}
	s.rep = replicaset.New(cfg, log, s.workers)
	s.sched = schedule.New(cfg, log, s.mem, s.workers, s.qmem)
	s.merge = &merger{cfg: cfg, mem: s.mem, run: s.run, wholeMerges: m.WholeMerges}
	s.res = &results{cfg: cfg, merge: s.merge, plans: &s.plans, metrics: m, ids: ids, shipped: s.shipped}
	s.prep = &preparer{cfg: cfg, rep: s.rep, plans: &s.plans, metrics: m, log: log, snap: s.snap.Load, pins: s.pins,
		refresh: s.miss.Refresh}
	s.miss = catalog.MissRefresher{Interval: catalog.MissInterval, Current: s.snap.Load, Read: s.RefreshCatalog, Base: s.ctx, Log: log}
	s.eph = &ephemeral{log: log, mem: s.mem, rep: s.rep, prep: s.prep, merge: s.merge, plans: &s.plans, ids: ids,
		snap: s.snap.Load, shipped: s.shipped}
	if err := s.RefreshCatalog(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("reading the catalog from the replicas: %w", err)
	}
	var err error
	if s.env, err = evalexpr.NewEnv(s.snap.Load().Version); err != nil {
		s.Close()
		return nil, err
	}
	s.env.SetTimeZone(func() *time.Location { return s.snap.Load().TimeZone })
	s.env.SetCaseMaps(func(coll collations.ID) (*evalexpr.CaseMap, error) { return s.rep.CaseMap(s.ctx, coll) })
	// A version build goes ahead of the statements waiting for a run slot:
	// time-sliced with them it took ~5x its CPU time in wall time (bench
	// live: 82 ms for 15 ms), and every reader of the pin waits for it.
	// Past 100 ms (long statements hold every slot) it builds beside them.
	hooks := pinstore.LiveHooks{Admit: func(ctx context.Context) func() { return s.inmem.runq.Ahead(ctx, 100*time.Millisecond) }}
	if m != nil {
		hooks.OnVersion = func(wait, build time.Duration) {
			m.LiveWait.Observe(wait.Seconds())
			m.LiveBuild.Observe(build.Seconds())
		}
	}
	s.pinStore = pinstore.New(s.ctx, &s.wg, cfg, log, s.env, pinSource{s}, s.pins, hooks)
	s.merge.env = s.env
	s.prep.env = s.env
	s.eph.env = s.env
	cluster.Poll(ctx, s.workers, s.cfg.MaxReplicaLag.D(), s.log)
	if m != nil {
		s.registerMetrics(m.Reg)
	}
	return s, nil
}

// Start starts the background loops (worker polls, catalog refresh) and
// loads the configured pins.
func (s *Engine) Start() {
	s.wg.Add(1)
	go s.background()
	s.pinStore.Start()
}

// Close cancels running work, waits for the background loops and closes
// the connections to workers and replicas.
func (s *Engine) Close() {
	s.cancel()
	s.wg.Wait()
	for _, w := range s.workers {
		w.Close()
	}
	s.rep.Close()
}

// background refreshes the catalog and worker health until Close.
func (s *Engine) background() {
	defer s.wg.Done()
	poll := time.NewTicker(s.cfg.StatusInterval.D())
	defer poll.Stop()
	cat := time.NewTicker(s.cfg.CatalogRefreshInterval.D())
	defer cat.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-poll.C:
			cluster.Poll(s.ctx, s.workers, s.cfg.MaxReplicaLag.D(), s.log)
		case <-cat.C:
			if err := s.RefreshCatalog(s.ctx); err != nil {
				s.log.Warn("catalog refresh failed; keeping the previous one", "err", err)
			}
		}
	}
}

// RefreshCatalog re-reads the catalog now (after DDL, for example) from
// the first replica that answers, healthy ones first. Plans depend on the
// schema, not on key bounds (fragments read those at execution), and
// routing decisions on table sizes: a cached plan is kept unless a table
// it names changed or its size did by more than a factor of two
// (catalog.Snapshot.Follow).
func (s *Engine) RefreshCatalog(ctx context.Context) error {
	old := s.snap.Load()
	snap, err := s.rep.ReadCatalog(ctx, old)
	if err != nil {
		return err
	}
	snap.Follow(old)
	s.snap.Store(snap)
	return nil
}

// Snapshot is the current catalog snapshot.
func (s *Engine) Snapshot() *catalog.Snapshot { return s.snap.Load() }

// PinStore runs the pinned-table statements (CACHE, UNCACHE, REFRESH,
// SHOW CACHED TABLES) and holds the registry of pinned tables.
func (s *Engine) PinStore() *pinstore.Store { return s.pinStore }

// Env is the expression evaluator's environment (the replicas' version).
func (s *Engine) Env() *evalexpr.Env { return s.env }

// Allocator is the Arrow allocator results are built with.
func (s *Engine) Allocator() memory.Allocator { return s.mem }

// registerMetrics adds the engine's gauges to reg.
func (s *Engine) registerMetrics(reg prometheus.Registerer) {
	reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "shoal_pinned_bytes", Help: "Memory held by pinned tables (Arrow buffers).",
		}, func() float64 { return float64(s.pins.Bytes()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "shoal_pinned_tables", Help: "Pinned tables.",
		}, func() float64 { return float64(s.pins.Len()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "shoal_plan_cache_entries", Help: "Entries in the plan cache (plans, shapes, prepared-statement metadata).",
		}, func() float64 { return float64(s.plans.Entries()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "shoal_plan_cache_bytes", Help: "Estimated bytes held by the plan cache, cached results included (bound: plan_cache_bytes).",
		}, func() float64 { return float64(s.plans.Bytes()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "shoal_plan_cache_evictions_total", Help: "Plan cache entries evicted (least recently used) to stay within plan_cache_bytes.",
		}, func() float64 { return float64(s.plans.Evictions()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "shoal_catalog_miss_reads_total", Help: "Catalog reads caused by statements naming a table the catalog lacked (at most one a second).",
		}, func() float64 { return float64(s.miss.Reads()) }),
	)
	s.qmem.Register(reg)
	if q := s.inmem.runq; q != nil {
		reg.MustRegister(
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{
				Name: "shoal_inmemory_running", Help: "Statements running in memory, and live pin versions being built (at most inmemory_concurrency together).",
			}, func() float64 { return float64(q.Stats().Running) }),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{
				Name: "shoal_inmemory_waiting", Help: "Statements queued for an in-memory run slot.",
			}, func() float64 { return float64(q.Stats().Waiting) }),
			prometheus.NewCounterFunc(prometheus.CounterOpts{
				Name: "shoal_inmemory_queued_total", Help: "Statements (and live pin version builds) that waited for an in-memory run slot.",
			}, func() float64 { return float64(q.Stats().Queued) }),
			prometheus.NewCounterFunc(prometheus.CounterOpts{
				Name: "shoal_inmemory_refused_total", Help: "Statements that gave up waiting for an in-memory run slot (1040, 3024, 1317).",
			}, func() float64 { return float64(q.Stats().Refused) }),
			prometheus.NewCounterFunc(prometheus.CounterOpts{
				Name: "shoal_inmemory_wait_seconds_total", Help: "Time statements (and live pin version builds) spent queued for an in-memory run slot.",
			}, func() float64 { return q.Stats().Wait.Seconds() }),
		)
	}
}

// run executes pr (qid) and hands each fragment's complete output to sink:
// in memory over its pin, or distributed by the scheduler under the
// statement's freshness floor.
func (s *Engine) run(ctx context.Context, pr *prepared, qid string, sink schedule.Sink) (*schedule.Stats, error) {
	observe.TracePlan(ctx, pr, qid) // the status page's plans
	if pr.prog != nil {
		return s.inmem.run(ctx, pr, sink)
	}
	if s.sched.Slots() == 0 {
		return nil, sqlerr.Unavailable("no healthy replica can run the query; check `shoal` worker logs and replica replication status")
	}
	fl, err := s.rep.QueryFloor(ctx)
	if err != nil {
		return nil, err
	}
	return s.sched.Run(ctx, s.snap.Load(), schedule.Job{Plan: pr.plan, EstRows: pr.estRows, QID: qid, Floor: fl, StopOnWarnings: schedule.StopOnWarningsOf(ctx)}, sink)
}

// Session is the engine's view of one client session (package
// engine/replicaset owns it, with the replica connection it holds).
type Session = replicaset.Session

// Replicas is the replica set the engine reads through: SHOW SHOAL
// REPLICAS and the status page's worker list come from it.
func (s *Engine) Replicas() *replicaset.Set { return s.rep }
