package engine

import (
	"log/slog"
	"slices"

	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/engine/cluster"
	"github.com/shoaldb/shoal/observe"
	"github.com/shoaldb/shoal/replica"
	"github.com/shoaldb/shoal/sqlerr"
)

// replicas is how the engine reaches the replicas' MySQL servers itself,
// not through workers: the pools of metadata connections (catalog reads,
// result metadata), each session's passthrough connection and its KILL,
// and the freshness floors (consistency.go) those statements wait for. It
// reads the workers' health to choose a replica; it owns the pools.
type replicas struct {
	cfg     config.Coordinator
	log     *slog.Logger
	metas   []*replica.Pool // one per replica, for metadata reads
	primary *replica.Pool   // the primary, for consistency: primary (nil without primary:)
	workers []*cluster.Worker
}

// close closes the pooled connections.
func (s *replicas) close() {
	for _, p := range s.metas {
		p.CloseAll()
	}
	if s.primary != nil {
		s.primary.CloseAll()
	}
}

// replicaColumns are the columns of SHOW SHOAL REPLICAS.
var replicaColumns = []*querypb.Field{
	StrField("name", 64),
	StrField("mysql", 255),
	StrField("worker", 255),
	IntField("healthy", 1),
	{Name: "lag_seconds", Type: sqltypes.Float64, Charset: 63, ColumnLength: 22, Decimals: 31},
	IntField("io_running", 1),
	IntField("sql_running", 1),
	StrField("gtid", 4096),
	IntField("slots", 11),
	IntField("running_fragments", 11),
	StrField("last_error", 4096),
	{Name: "last_checked", Type: sqltypes.Datetime, Charset: 63, ColumnLength: 26, Decimals: 6},
}

// StrField is a VARCHAR(n) utf8mb4 column definition.
func StrField(name string, n uint32) *querypb.Field {
	return &querypb.Field{Name: name, Type: sqltypes.VarChar, Charset: 45, ColumnLength: n * 4}
}

// IntField is a BIGINT(n) column definition.
func IntField(name string, n uint32) *querypb.Field {
	return &querypb.Field{Name: name, Type: sqltypes.Int64, Charset: 63, ColumnLength: n}
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
func (s *Engine) ShowReplicas(callback func(*sqltypes.Result) error) error {
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

// healthyMetas lists the metadata pools of the replicas that may serve
// reads now. Passthrough uses only these: a lagging or broken replica would
// answer with stale data.
func (s *replicas) healthyMetas() []*replica.Pool {
	var out []*replica.Pool
	for i, w := range s.workers {
		if w.Healthy() {
			out = append(out, s.metas[i])
		}
	}
	return out
}

// addrs lists the replicas' MySQL addresses, the ones serving reads now
// first and the others after them (for failover).
func (s *replicas) addrs() []string {
	var out []string
	for _, p := range s.healthyMetas() {
		out = append(out, p.Addr)
	}
	for _, r := range s.cfg.Replicas {
		if !slices.Contains(out, r.MySQL) {
			out = append(out, r.MySQL)
		}
	}
	return out
}

// servesReads reports whether the replica at MySQL address addr is healthy.
func (s *replicas) servesReads(addr string) bool {
	for _, w := range s.workers {
		if w.Config().MySQL == addr {
			return w.Healthy()
		}
	}
	return false
}

// errNoReplica is the error of a statement no replica can serve now.
func errNoReplica() error {
	return sqlerr.Unavailable("no healthy replica can serve the statement (down, replication stopped or lagging past max_replica_lag); see SHOW SHOAL REPLICAS")
}

// Workers describes the replicas and their workers for observe.
func (s *Engine) Workers() []observe.Worker {
	out := make([]observe.Worker, 0, len(s.workers))
	for _, w := range s.workers {
		cfg := w.Config()
		out = append(out, observe.Worker{Name: w.Name(), MySQL: cfg.MySQL, Addr: cfg.Worker, Healthy: w.Healthy(),
			LastError: w.LastError(), Status: w.Status(), Checked: w.Checked()})
	}
	return out
}
