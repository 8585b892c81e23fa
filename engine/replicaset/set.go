// Package replicaset is how the coordinator reaches the replicas' MySQL
// servers itself, not through workers: the pools of metadata connections
// (catalog reads, result metadata), each session's passthrough connection
// and its KILL, the freshness floors (consistency: primary, session) that
// statements wait for, and SHOW SHOAL REPLICAS. It reads the workers'
// health (engine/cluster) to choose a replica and owns the pools.
//
// It imports engine/catalog, engine/cluster, engine/schedule (the floor
// type), replica, observe and leaf packages; the engine owns one Set.
package replicaset

import (
	"log/slog"
	"slices"
	"sync/atomic"

	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/engine/cluster"
	"github.com/shoaldb/shoal/engine/rowformat"
	"github.com/shoaldb/shoal/observe"
	"github.com/shoaldb/shoal/replica"
	"github.com/shoaldb/shoal/sqlerr"
)

// Set is how the engine reaches the replicas' MySQL servers itself,
// not through workers: the pools of metadata connections (catalog reads,
// result metadata), each session's passthrough connection and its KILL,
// and the freshness floors (consistency.go) those statements wait for. It
// reads the workers' health to choose a replica; it owns the pools.
type Set struct {
	cfg     config.Coordinator
	log     *slog.Logger
	metas   []*replica.Pool // one per replica, for metadata reads
	primary *replica.Pool   // the primary, for consistency: primary (nil without primary:)
	workers []*cluster.Worker
	// sessions counts the open passthrough connections per replica (in
	// metas' order): a new one goes to the healthy replica with the
	// fewest, so passthrough spreads over the replicas (passthrough.go).
	sessions []atomic.Int64
}

// New makes the set for cfg's replicas (and its primary, when
// consistency reads one), choosing among workers by their health; workers
// are in cfg.Replicas' order.
func New(cfg config.Coordinator, log *slog.Logger, workers []*cluster.Worker) *Set {
	s := &Set{cfg: cfg, log: log, workers: workers, sessions: make([]atomic.Int64, len(cfg.Replicas))}
	for _, r := range cfg.Replicas {
		s.metas = append(s.metas, replica.NewPool(r.MySQL, cfg.ReplicaUser, cfg.ReplicaPassword))
	}
	if cfg.Primary != "" {
		s.primary = replica.NewPool(cfg.Primary, cfg.ReplicaUser, cfg.ReplicaPassword)
	}
	return s
}

// Close closes the pooled connections.
func (s *Set) Close() {
	for _, p := range s.metas {
		p.CloseAll()
	}
	if s.primary != nil {
		s.primary.CloseAll()
	}
}

// replicaColumns are the columns of SHOW SHOAL REPLICAS.
var replicaColumns = []*querypb.Field{
	rowformat.StrField("name", 64),
	rowformat.StrField("mysql", 255),
	rowformat.StrField("worker", 255),
	rowformat.IntField("healthy", 1),
	{Name: "lag_seconds", Type: sqltypes.Float64, Charset: 63, ColumnLength: 22, Decimals: 31},
	rowformat.IntField("io_running", 1),
	rowformat.IntField("sql_running", 1),
	rowformat.StrField("gtid", 4096),
	rowformat.IntField("slots", 11),
	rowformat.IntField("running_fragments", 11),
	rowformat.StrField("last_error", 4096),
	{Name: "last_checked", Type: sqltypes.Datetime, Charset: 63, ColumnLength: 26, Decimals: 6},
}

func boolValue(b bool) sqltypes.Value {
	if b {
		return sqltypes.NewInt64(1)
	}
	return sqltypes.NewInt64(0)
}

// ShowReplicas answers SHOW SHOAL REPLICAS: the coordinator's live view of
// each replica, one row per replica in configuration order. Values come
// from the last status poll; lag_seconds, gtid, slots and running are NULL
// when the worker did not answer it.
func (s *Set) ShowReplicas(callback func(*sqltypes.Result) error) error {
	res := &sqltypes.Result{Fields: replicaColumns}
	for _, w := range s.workers {
		null := sqltypes.NULL
		lag, io, sqlRun, gtid, slots, running := null, null, null, null, null, null
		if st := w.Status(); st != nil {
			if st.ReplicaLagSeconds != nil {
				lag = sqltypes.NewFloat64(*st.ReplicaLagSeconds)
			}
			io, sqlRun = boolValue(st.IORunning), boolValue(st.SQLRunning)
			gtid = sqltypes.NewVarChar(st.GTIDExecuted)
			slots, running = sqltypes.NewInt64(int64(st.Slots)), sqltypes.NewInt64(int64(st.Running))
		}
		checked := null
		if at := w.Checked(); !at.IsZero() {
			checked = sqltypes.MakeTrusted(sqltypes.Datetime, []byte(at.Format("2006-01-02 15:04:05.000000")))
		}
		lastErr := null
		if e := w.LastError(); e != "" {
			lastErr = sqltypes.NewVarChar(e)
		}
		res.Rows = append(res.Rows, []sqltypes.Value{
			sqltypes.NewVarChar(w.Name()), sqltypes.NewVarChar(w.Config().MySQL), sqltypes.NewVarChar(w.Config().Worker),
			boolValue(w.Healthy()), lag, io, sqlRun, gtid, slots, running, lastErr, checked,
		})
	}
	return callback(res)
}

// HealthyMetas lists the metadata pools of the replicas that may serve
// reads now. Passthrough uses only these: a lagging or broken replica would
// answer with stale data.
func (s *Set) HealthyMetas() []*replica.Pool {
	var out []*replica.Pool
	for i, w := range s.workers {
		if w.Healthy() {
			out = append(out, s.metas[i])
		}
	}
	return out
}

// Addrs lists the replicas' MySQL addresses, the ones serving reads now
// first and the others after them (for failover).
func (s *Set) Addrs() []string {
	var out []string
	for _, p := range s.HealthyMetas() {
		out = append(out, p.Addr)
	}
	for _, r := range s.cfg.Replicas {
		if !slices.Contains(out, r.MySQL) {
			out = append(out, r.MySQL)
		}
	}
	return out
}

// ServesReads reports whether the replica at MySQL address addr is healthy.
func (s *Set) ServesReads(addr string) bool {
	for _, w := range s.workers {
		if w.Config().MySQL == addr {
			return w.Healthy()
		}
	}
	return false
}

// ErrNoReplica is the error of a statement no replica can serve now.
func ErrNoReplica() error {
	return sqlerr.Unavailable("no healthy replica can serve the statement (down, replication stopped or lagging past max_replica_lag); see SHOW SHOAL REPLICAS")
}

// Workers describes the replicas and their workers for observe.
func (s *Set) Workers() []observe.Worker {
	out := make([]observe.Worker, 0, len(s.workers))
	for _, w := range s.workers {
		cfg := w.Config()
		out = append(out, observe.Worker{Name: w.Name(), MySQL: cfg.MySQL, Addr: cfg.Worker, Healthy: w.Healthy(),
			LastError: w.LastError(), Status: w.Status(), Checked: w.Checked()})
	}
	return out
}
