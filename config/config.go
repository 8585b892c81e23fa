// Package config holds the YAML configuration of the coordinator and the
// worker. Both are read once at start; nothing on the query path reads
// configuration again.
package config

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Duration is a time.Duration written as "1500ms", "30s", "2m" in YAML,
// or as a number of seconds as MySQL writes its own (long_query_time: 2,
// 0.5).
type Duration time.Duration

// UnmarshalYAML reads a Go duration string or a number of seconds.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	var s string
	if err := n.Decode(&s); err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		secs, ferr := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if ferr != nil || secs < 0 || secs > (1<<63-1)/1e9 {
			return fmt.Errorf("line %d: %w (or a number of seconds)", n.Line, err)
		}
		v = time.Duration(secs * float64(time.Second))
	}
	*d = Duration(v)
	return nil
}

// MarshalYAML writes a Go duration string.
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

// D returns the duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// User is a coordinator account.
type User struct {
	Name     string `yaml:"name"`
	Password string `yaml:"password"`
	// Plugin is the authentication plugin the account logs in with:
	// PluginNative (default) or PluginCachingSHA2.
	Plugin string `yaml:"plugin,omitempty"`
}

// Authentication plugins of coordinator accounts.
const (
	PluginNative      = "mysql_native_password"
	PluginCachingSHA2 = "caching_sha2_password"
)

// Consistency modes: the freshness floor of a distributed statement.
const (
	// ConsistencyNone reads whatever a healthy replica has applied.
	ConsistencyNone = "none"
	// ConsistencyReplicaMin makes every fragment wait for the lowest GTID
	// position the healthy replicas reported at their last status poll.
	ConsistencyReplicaMin = "replica-min"
	// ConsistencyPrimary makes every fragment wait for the primary's GTID
	// position read when the statement starts.
	ConsistencyPrimary = "primary"

	// LiveFollowReplica and LiveFollowPrimary are the values of
	// live_follow.
	LiveFollowReplica = "replica"
	LiveFollowPrimary = "primary"
)

// Replica is one MySQL replica with the worker placed next to it.
type Replica struct {
	Name string `yaml:"name"`
	// MySQL is host:port of the replica, used by the coordinator for
	// passthrough statements and catalog reads.
	MySQL string `yaml:"mysql"`
	// Worker is host:port of the worker's Flight endpoint.
	Worker string `yaml:"worker"`
	// IPCCompression is the codec the coordinator asks this replica's
	// worker to compress fragment results with: "none", "lz4" or "zstd".
	// Empty: the worker's own ipc_compression. It is set here, per replica,
	// because the link between the coordinator and the worker decides
	// whether compression pays: lz4 or zstd for a worker on another host
	// behind a slow link, none on loopback where it only costs CPU. A
	// worker of an older release ignores it (see package ticket).
	IPCCompression string `yaml:"ipc_compression,omitempty"`
}

// Coordinator is the coordinator's configuration.
type Coordinator struct {
	// Listen is the MySQL protocol address (default 127.0.0.1:4000).
	Listen string `yaml:"listen"`
	// Users are the accounts clients log in with. Empty means a single
	// user root with an empty password.
	Users []User `yaml:"users"`
	// Replicas are the replicas with their workers.
	Replicas []Replica `yaml:"replicas"`
	// ReplicaUser/ReplicaPassword is the account the coordinator uses on
	// replicas for passthrough and catalog reads. Give it read-only grants.
	ReplicaUser     string `yaml:"replica_user"`
	ReplicaPassword string `yaml:"replica_password"`
	// SplitColumns overrides the split column per table ("db.table": "col").
	SplitColumns map[string]string `yaml:"split_columns"`
	// FragmentsPerSlot is how many key ranges are cut per worker slot
	// (default 4), so a dense range does not hold up the query.
	FragmentsPerSlot int `yaml:"fragments_per_slot"`
	// Affinity places each key range on a preferred replica, the same one
	// query after query (rendezvous hashing over the replica names), so
	// each replica's buffer pool caches its share of the table; a slot
	// with none of its own ranges left takes others'. false: any free
	// slot takes the next range. Default true (see AffinityOn).
	Affinity *bool `yaml:"affinity,omitempty"`
	// MinRowsPerFragment stops tiny tables from being cut into many
	// fragments (default 10000).
	MinRowsPerFragment int64 `yaml:"min_rows_per_fragment"`
	// RouteSmallRows routes a SELECT the planner would distribute to one
	// replica (as a passthrough) when it reads at most this many rows of
	// its split table: by the keys its WHERE clause allows on a unique
	// split column (id = 5, id IN (…)), by its key window and the key
	// sample (id BETWEEN …), or by the replica optimizer's EXPLAIN
	// estimate. Default 20000; negative: never route by cost.
	RouteSmallRows int64 `yaml:"route_small_rows"`
	// RouteIndexFraction routes a SELECT to one replica when the replica
	// optimizer reads it through an index (EXPLAIN type const, eq_ref,
	// ref, ref_or_null or range) and estimates at most this fraction of
	// the split table's rows: an index dive beats a distributed scan of
	// the whole table. Default 0.05; negative: never.
	RouteIndexFraction float64 `yaml:"route_index_fraction"`
	// RouteBusyStatements runs a SELECT planned for distribution over the
	// replicas on one replica instead (a passthrough) while at least this
	// many distributed statements are running: a new one would get less
	// than two of the workers' slots, and the distribution's own work
	// (fragments, Arrow, merge) is not paid back. Default 0: half the
	// healthy workers' fragment slots (at least 1); negative: never.
	RouteBusyStatements int `yaml:"route_busy_statements"`
	// RouteCoveringScans routes a SELECT to one replica when the replica
	// optimizer reads it from a secondary index alone (EXPLAIN type index
	// with "Using index": a GROUP BY or COUNT over an indexed column):
	// the index is a fraction of the table's width, so the replica's
	// scan of it beats distributed scans of the whole rows on the
	// primary key. Default true.
	RouteCoveringScans *bool `yaml:"route_covering_scans,omitempty"`
	// RouteRowExports routes to one replica a SELECT that returns every
	// row it reads — one table, no aggregation, no LIMIT, no WHERE
	// condition but on the split key — when it reads more than
	// route_small_rows rows: each row then crosses a worker's Arrow
	// encoding and the coordinator's single-goroutine merge and
	// re-encoding, which costs more than the parallel scan saves (a 3M-row
	// export measured 0.28x direct on 2 cores; docs/benchmarks.md).
	// Default true.
	RouteRowExports *bool `yaml:"route_row_exports,omitempty"`
	// FragmentTimeout bounds one fragment attempt (default 10m).
	FragmentTimeout Duration `yaml:"fragment_timeout"`
	// QueryTimeout bounds a whole distributed query (default 1h).
	QueryTimeout Duration `yaml:"query_timeout"`
	// StatusInterval is how often worker status is polled (default 2s).
	StatusInterval Duration `yaml:"status_interval"`
	// CatalogRefreshInterval is how often the catalog (tables, columns,
	// keys, row estimates, split-key samples) is re-read from a replica
	// (default 30s). A statement naming a table the catalog lacks re-reads
	// it at once as well, at most once a second whatever the load.
	CatalogRefreshInterval Duration `yaml:"catalog_refresh_interval"`
	// MergeMemoryLimit bounds the Arrow memory of one query's merge in
	// bytes (default 1 GiB).
	MergeMemoryLimit int64 `yaml:"merge_memory_limit" size:"bytes"`
	// QueryMemoryLimit bounds, in bytes, the fragment results (Arrow
	// batches received from workers) that all running queries together
	// hold on the coordinator. A query whose next batch does not fit stops
	// reading its fragment streams, so the workers stall on Flight flow
	// control, and waits up to QueryMemoryWait for others to finish; one
	// that cannot fit even alone, or waits longer, fails with 1041.
	// Default 8 GiB; size it to about half the coordinator's RAM.
	// Negative: no limit (usage is still measured).
	QueryMemoryLimit int64 `yaml:"query_memory_limit" size:"bytes"`
	// QueryMemoryWait bounds one wait for query memory (default 30s).
	QueryMemoryWait Duration `yaml:"query_memory_wait"`
	// PinnedMemoryLimit bounds the memory of all pinned tables together
	// (CACHE TABLE): a pin that would exceed it fails and changes
	// nothing. Default 4 GiB; negative means no limit.
	PinnedMemoryLimit int64 `yaml:"pinned_memory_limit" size:"bytes"`
	// InMemoryConcurrency is the number of in-memory run slots: how many
	// statements over pinned tables run at once; the others wait for a
	// slot in arrival order (engine/runqueue). A statement alone also
	// takes idle slots, one partition each. Default: the CPU count
	// (GOMAXPROCS at start); negative: no limit.
	InMemoryConcurrency int `yaml:"inmemory_concurrency"`
	// InMemoryQueueWait bounds one statement's wait for an in-memory run
	// slot; past it the statement fails with error 1040 (default 10s).
	InMemoryQueueWait Duration `yaml:"inmemory_queue_wait"`
	// ResultCacheTTL keeps the results of aggregate statements over
	// replica tables this long (0, the default: not kept). Results over
	// pinned tables are kept until the pin changes, whatever this says.
	ResultCacheTTL Duration `yaml:"result_cache_ttl"`
	// PlanCacheBytes bounds the plan cache in bytes (estimated): plans
	// and their compiled pinned programs, cached results over pins,
	// statement shapes and prepared-statement metadata together; the
	// least recently used entries are evicted past it. Default 64 MiB.
	PlanCacheBytes int64 `yaml:"plan_cache_bytes" size:"bytes"`
	// Pins are pinned tables loaded at start (in the background) and,
	// with a refresh interval, reloaded on that schedule.
	Pins []Pin `yaml:"pins"`
	// MaxConnections is the client connection limit (default 1000); past
	// it a client gets error 1040 "Too many connections" at handshake.
	MaxConnections int `yaml:"max_connections"`
	// ConnectTimeout bounds a new connection's handshake, from accept to
	// the end of authentication (MariaDB's connect_timeout, default 10s):
	// a client that connects and sends nothing is disconnected then
	// instead of holding one of max_connections forever.
	ConnectTimeout Duration `yaml:"connect_timeout"`
	// NetWriteTimeout bounds how long one write to a client may block
	// (MariaDB's net_write_timeout, default 60s): a client that stops
	// reading its result is disconnected then, and its statement's
	// fragments, memory and replica connection are released. A session's
	// SET net_write_timeout replaces it for that session.
	NetWriteTimeout Duration `yaml:"net_write_timeout"`
	// MaxAllowedPacket is the largest statement a client may send, in
	// bytes (default 64 MiB, MySQL 8's default): a larger one gets error
	// 1153, and a client that sends far more (past an eighth again) is
	// disconnected before the coordinator buffers it.
	MaxAllowedPacket int `yaml:"max_allowed_packet" size:"bytes"`
	// HTTPListen is the address of the HTTP listener serving /metrics
	// (Prometheus) and /healthz. Unset: DefaultHTTPListen, skipped with a
	// warning when that port is taken; "": no HTTP listener.
	HTTPListen *string `yaml:"http_listen,omitempty"`
	// MaxReplicaLag is the replication lag past which a replica gets no
	// fragments and serves no passthrough or metadata reads (default 30s).
	MaxReplicaLag Duration `yaml:"max_replica_lag"`
	// SlowQueryLog is a file the coordinator appends one JSON object per
	// line to for every statement that ran at least LongQueryTime ("":
	// no slow query log).
	SlowQueryLog string `yaml:"slow_query_log,omitempty"`
	// LongQueryTime is the duration past which a statement is slow (for
	// the slow query log and the status page; default 10s; "0s" logs
	// every statement).
	LongQueryTime *Duration `yaml:"long_query_time,omitempty"`
	// ClusterSecret authenticates the coordinator to the workers (gRPC
	// metadata on every call); it must equal the workers'. The
	// SHOAL_CLUSTER_SECRET environment variable overrides it.
	ClusterSecret string `yaml:"cluster_secret,omitempty"`
	// TLSCert and TLSKey are PEM files (certificate chain, private key)
	// that enable TLS on the MySQL listener. Both or neither.
	TLSCert string `yaml:"tls_cert,omitempty"`
	TLSKey  string `yaml:"tls_key,omitempty"`
	// RequireSecureTransport refuses clients that do not switch to TLS
	// (error 3159), as MySQL's require_secure_transport. Needs TLSCert.
	RequireSecureTransport bool `yaml:"require_secure_transport,omitempty"`
	// Consistency is the freshness floor of every statement: one of
	// ConsistencyNone (default), ConsistencyReplicaMin, ConsistencyPrimary.
	Consistency string `yaml:"consistency,omitempty"`
	// Primary is host:port of the replication primary, read (with the
	// replica account) for its GTID position under consistency: primary,
	// and followed by live pins under live_follow: primary.
	Primary string `yaml:"primary,omitempty"`
	// LiveFollow is whose binary log a live pin follows by default (a
	// pin's OPTIONS ('follow' = …) overrides it): LiveFollowReplica (the
	// default: the replica it loaded from) or LiveFollowPrimary (the
	// primary, so replication's own lag is not part of the pin's; needs
	// primary, and the replica account may read its binary log).
	LiveFollow string `yaml:"live_follow,omitempty"`
	// ConsistencyWait bounds how long a replica may take to reach the
	// floor before the fragment is tried on another one (default 5s).
	ConsistencyWait Duration `yaml:"consistency_wait,omitempty"`
	// FlightSQLListen is the address of the Arrow Flight SQL endpoint
	// (gRPC; the same accounts, statements and answers as the MySQL
	// listener, results as Arrow record batches). "" (the default): off.
	// TLS with tls_cert and tls_key, as the MySQL listener.
	FlightSQLListen string `yaml:"flight_sql_listen,omitempty"`
	// WorkerTLSCA is a PEM file of the CA that signed the workers'
	// certificates: the coordinator talks TLS to every worker and verifies
	// it. Unset: TLS verified by the system's roots to workers off
	// loopback, plain text on loopback (tls.go).
	WorkerTLSCA string `yaml:"worker_tls_ca,omitempty"`
	// WorkerTLSCert and WorkerTLSKey are the coordinator's client
	// certificate for workers that require one (tls_client_ca).
	WorkerTLSCert string `yaml:"worker_tls_cert,omitempty"`
	WorkerTLSKey  string `yaml:"worker_tls_key,omitempty"`
	// WorkerPlaintext talks plain text to every worker, for TLS terminated
	// elsewhere; the coordinator logs a warning for workers off loopback.
	WorkerPlaintext bool `yaml:"worker_plaintext,omitempty"`
	// PProf serves /debug/pprof/ on the HTTP listener (default off: the
	// profiles and the trace cost CPU and show internals).
	PProf bool `yaml:"pprof,omitempty"`
}

// Worker is a worker's configuration.
type Worker struct {
	// Listen is the Flight gRPC address (default 127.0.0.1:4100).
	Listen string `yaml:"listen"`
	// MySQL is host:port of the local replica.
	MySQL string `yaml:"mysql"`
	// User/Password is the replica account; it never leaves the worker.
	User     string `yaml:"user"`
	Password string `yaml:"password"`
	// Slots is how many fragments run at once (default: CPU count).
	Slots int `yaml:"slots"`
	// BatchRows is rows per Arrow record batch (default 8192).
	BatchRows int `yaml:"batch_rows"`
	// FragmentTimeout is the default deadline of a fragment (default 10m).
	FragmentTimeout Duration `yaml:"fragment_timeout"`
	// HTTPListen is the address of the HTTP listener serving /metrics
	// (Prometheus) and /healthz. Unset: DefaultWorkerHTTPListen, skipped
	// with a warning when that port is taken; "": no HTTP listener.
	HTTPListen *string `yaml:"http_listen,omitempty"`
	// ClusterSecret is the shared secret every caller must present (the
	// coordinator's cluster_secret). Empty: only loopback callers are
	// served. The SHOAL_CLUSTER_SECRET environment variable overrides it.
	ClusterSecret string `yaml:"cluster_secret,omitempty"`
	// IPCCompression compresses the Arrow IPC bodies of fragment results:
	// "none" (default), "lz4" or "zstd". Worth it when the worker is on
	// another host behind a slow link and fragments return many rows
	// (exports, high-cardinality GROUP BY); on loopback it only costs CPU.
	// The coordinator decompresses whatever it receives.
	IPCCompression string `yaml:"ipc_compression,omitempty"`
	// TLSCert and TLSKey are PEM files (certificate chain, private key) of
	// the Flight listener: set, the worker serves TLS only (tls.go).
	TLSCert string `yaml:"tls_cert,omitempty"`
	TLSKey  string `yaml:"tls_key,omitempty"`
	// TLSClientCA is a PEM CA file: callers must present a certificate it
	// signed (mutual TLS). Needs TLSCert.
	TLSClientCA string `yaml:"tls_client_ca,omitempty"`
	// Plaintext serves without TLS on a listen address that is not
	// loopback (TLS terminated elsewhere); the worker logs a warning.
	// Without it such a worker refuses to start.
	Plaintext bool `yaml:"plaintext,omitempty"`
}

// The environment variables that carry secrets, one name per secret: a
// secret the coordinator and the workers share (the cluster secret, the
// replica account's password) has one variable for both.
const (
	// SecretEnv overrides cluster_secret on the coordinator and the
	// workers.
	SecretEnv = "SHOAL_CLUSTER_SECRET"
	// ReplicaPasswordEnv overrides the replica account's password: the
	// coordinator's replica_password and the workers' password.
	ReplicaPasswordEnv = "SHOAL_REPLICA_PASSWORD"
)

// retiredEnv maps secret variables of earlier releases to the one that
// replaced them.
var retiredEnv = map[string]string{"SHOAL_WORKER_PASSWORD": ReplicaPasswordEnv}

// CheckEnv reports a retired secret variable set in the environment, so
// that a password is never silently ignored after an upgrade.
func CheckEnv() error {
	for old, now := range retiredEnv {
		if os.Getenv(old) != "" {
			return fmt.Errorf("config: %s is no longer read: set %s instead (one variable for the coordinator's replica_password and the workers' password)", old, now)
		}
	}
	return nil
}

// DefaultHTTPListen is the coordinator's HTTP address when http_listen is
// not set.
const DefaultHTTPListen = "127.0.0.1:4080"

// DefaultWorkerHTTPListen is a worker's HTTP address when http_listen is
// not set.
const DefaultWorkerHTTPListen = "127.0.0.1:4180"

// AffinityOn reports whether ranges are placed by affinity (Affinity
// unset or true).
func (c *Coordinator) AffinityOn() bool { return c.Affinity == nil || *c.Affinity }

// CoveringScansRouted reports whether route_covering_scans is on (the
// default).
func (c *Coordinator) CoveringScansRouted() bool {
	return c.RouteCoveringScans == nil || *c.RouteCoveringScans
}

// RowExportsRouted reports whether route_row_exports is on (the default).
func (c *Coordinator) RowExportsRouted() bool {
	return c.RouteRowExports == nil || *c.RouteRowExports
}

// Defaults fills zero fields of c with their defaults.
func (c *Coordinator) Defaults() {
	if c.Listen == "" {
		c.Listen = "127.0.0.1:4000"
	}
	if len(c.Users) == 0 {
		c.Users = []User{{Name: "root"}}
	}
	if c.ReplicaUser == "" {
		c.ReplicaUser = "root"
	}
	if c.FragmentsPerSlot == 0 {
		c.FragmentsPerSlot = 4
	}
	if c.MinRowsPerFragment == 0 {
		c.MinRowsPerFragment = 10000
	}
	if c.RouteSmallRows == 0 {
		c.RouteSmallRows = 20000
	}
	if c.RouteIndexFraction == 0 {
		c.RouteIndexFraction = 0.05
	}
	if c.FragmentTimeout == 0 {
		c.FragmentTimeout = Duration(10 * time.Minute)
	}
	if c.QueryTimeout == 0 {
		c.QueryTimeout = Duration(time.Hour)
	}
	if c.StatusInterval == 0 {
		c.StatusInterval = Duration(2 * time.Second)
	}
	if c.CatalogRefreshInterval == 0 {
		c.CatalogRefreshInterval = Duration(30 * time.Second)
	}
	if c.PinnedMemoryLimit == 0 {
		c.PinnedMemoryLimit = 4 << 30
	}
	if c.PlanCacheBytes <= 0 {
		c.PlanCacheBytes = 64 << 20
	}
	if c.MergeMemoryLimit == 0 {
		c.MergeMemoryLimit = 1 << 30
	}
	if c.InMemoryConcurrency == 0 {
		c.InMemoryConcurrency = runtime.GOMAXPROCS(0)
	}
	if c.InMemoryQueueWait == 0 {
		c.InMemoryQueueWait = Duration(10 * time.Second)
	}
	if c.QueryMemoryLimit == 0 {
		c.QueryMemoryLimit = 8 << 30
	}
	if c.QueryMemoryWait == 0 {
		c.QueryMemoryWait = Duration(30 * time.Second)
	}
	if c.MaxConnections == 0 {
		c.MaxConnections = 1000
	}
	if c.ConnectTimeout == 0 {
		c.ConnectTimeout = Duration(10 * time.Second)
	}
	if c.NetWriteTimeout == 0 {
		c.NetWriteTimeout = Duration(60 * time.Second)
	}
	if c.MaxAllowedPacket == 0 {
		c.MaxAllowedPacket = 64 << 20
	}
	if c.MaxReplicaLag == 0 {
		c.MaxReplicaLag = Duration(30 * time.Second)
	}
	if c.Consistency == "" {
		c.Consistency = ConsistencyNone
	}
	if c.ConsistencyWait == 0 {
		c.ConsistencyWait = Duration(5 * time.Second)
	}
	c.Users = append([]User(nil), c.Users...) // never write the caller's array
	for i := range c.Users {
		if c.Users[i].Plugin == "" {
			c.Users[i].Plugin = PluginNative
		}
	}
	if v := os.Getenv(SecretEnv); v != "" {
		c.ClusterSecret = v
	}
}

// Validate reports the first problem in c.
// Pin declares a pinned table (CACHE TABLE) in the config file.
type Pin struct {
	// Table is db.name.
	Table string `yaml:"table"`
	// Query is the SELECT whose result is pinned; empty pins the replica
	// table db.name whole.
	Query string `yaml:"query"`
	// Refresh reloads the pin this often (0: never). In YAML it may
	// also be "live" (Live).
	Refresh Duration `yaml:"refresh"`
	// Live makes the pin a live pin (CACHE TABLE … OPTIONS ('refresh' =
	// 'live')): it follows a replica's binary log instead of reloading.
	// Written `refresh: live` in YAML.
	Live bool `yaml:"-"`
	// Incremental makes the scheduled refreshes incremental (REFRESH
	// TABLE … INCREMENTAL): only rows past the split key's high-water
	// mark are read and appended. For whole-table pins of append-only
	// tables with an integer split key only: updates and deletes of rows
	// already pinned are not seen.
	Incremental bool `yaml:"incremental"`
}

// UnmarshalYAML reads a pin, with `refresh: live` as Live. Every other
// key decodes as the struct's (a Duration for refresh); unknown keys are
// refused as Load refuses them elsewhere.
func (p *Pin) UnmarshalYAML(n *yaml.Node) error {
	type plain Pin
	if n.Kind != yaml.MappingNode {
		return n.Decode((*plain)(p))
	}
	known := map[string]bool{}
	for f := range reflect.TypeFor[Pin]().Fields() {
		if k, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); k != "" && k != "-" {
			known[k] = true
		}
	}
	m := *n
	m.Content = nil
	live := false
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !known[k.Value] {
			return fmt.Errorf("line %d: field %s not found in type config.Pin", k.Line, k.Value)
		}
		if k.Value == "refresh" && v.Kind == yaml.ScalarNode && strings.EqualFold(strings.TrimSpace(v.Value), "live") {
			live = true
			continue
		}
		m.Content = append(m.Content, k, v)
	}
	if err := m.Decode((*plain)(p)); err != nil {
		return err
	}
	p.Live = live
	return nil
}

// MarshalYAML writes a live pin's refresh as "live".
func (p Pin) MarshalYAML() (any, error) {
	type plain Pin
	if !p.Live {
		return plain(p), nil
	}
	var n yaml.Node
	if err := n.Encode(plain(p)); err != nil {
		return nil, err
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "refresh" {
			n.Content[i+1] = &yaml.Node{Kind: yaml.ScalarNode, Value: "live"}
		}
	}
	return &n, nil
}

// check reports a pin whose settings contradict each other.
func (p Pin) check() error {
	if p.Live && p.Incremental {
		return fmt.Errorf("config: pin %s: refresh: live follows the binary log; incremental refreshes are for pins reloaded on a schedule", p.Table)
	}
	if p.Incremental && p.Query != "" {
		return fmt.Errorf("config: pin %s: incremental refreshes need a whole-table pin (no query:); a query result can only be reloaded in full", p.Table)
	}
	return nil
}

func (c *Coordinator) Validate() error {
	for i, p := range c.Pins {
		if db, name, ok := strings.Cut(p.Table, "."); !ok || db == "" || name == "" {
			return fmt.Errorf("config: pins[%d].table %q must be db.name", i, p.Table)
		}
		if err := p.check(); err != nil {
			return err
		}
	}
	if len(c.Replicas) == 0 {
		return fmt.Errorf("config: no replicas: list at least one under replicas: with its mysql and worker addresses")
	}
	for i, r := range c.Replicas {
		if r.MySQL == "" || r.Worker == "" {
			return fmt.Errorf("config: replicas[%d] needs both mysql and worker addresses", i)
		}
		if !validCompression(r.IPCCompression) {
			name := r.Name
			if name == "" {
				name = r.Worker // how the coordinator names an unnamed replica
			}
			return fmt.Errorf("config: replicas[%d] (%s) ipc_compression %q: use none, lz4 or zstd, or leave it unset for the worker's own", i, name, r.IPCCompression)
		}
	}
	for i, u := range c.Users {
		if u.Plugin != "" && u.Plugin != PluginNative && u.Plugin != PluginCachingSHA2 {
			return fmt.Errorf("config: users[%d] (%s): plugin %q: use %s or %s", i, u.Name, u.Plugin, PluginNative, PluginCachingSHA2)
		}
	}
	if (c.TLSCert == "") != (c.TLSKey == "") {
		return fmt.Errorf("config: tls_cert and tls_key go together: set both (PEM files) or neither")
	}
	if c.RequireSecureTransport && c.TLSCert == "" {
		return fmt.Errorf("config: require_secure_transport needs tls_cert and tls_key")
	}
	switch c.Consistency {
	case "", ConsistencyNone, ConsistencyReplicaMin:
	case ConsistencyPrimary:
		if c.Primary == "" {
			return fmt.Errorf("config: consistency: primary needs primary: the host:port of the replication primary")
		}
	default:
		return fmt.Errorf("config: consistency %q: use %s, %s or %s", c.Consistency, ConsistencyNone, ConsistencyReplicaMin, ConsistencyPrimary)
	}
	switch c.LiveFollow {
	case "", LiveFollowReplica:
	case LiveFollowPrimary:
		if c.Primary == "" {
			return fmt.Errorf("config: live_follow: primary needs primary: the host:port of the replication primary")
		}
	default:
		return fmt.Errorf("config: live_follow %q: use %s or %s", c.LiveFollow, LiveFollowReplica, LiveFollowPrimary)
	}
	if c.ConsistencyWait < 0 {
		return fmt.Errorf("config: consistency_wait must not be negative")
	}
	if c.CatalogRefreshInterval < 0 {
		return fmt.Errorf("config: catalog_refresh_interval must be positive (default 30s)")
	}
	return c.validateWorkerTLS()
}

// Defaults fills zero fields of w with their defaults.
func (w *Worker) Defaults() {
	if w.Listen == "" {
		w.Listen = "127.0.0.1:4100"
	}
	if w.User == "" {
		w.User = "root"
	}
	if w.BatchRows == 0 {
		w.BatchRows = 8192
	}
	if w.FragmentTimeout == 0 {
		w.FragmentTimeout = Duration(10 * time.Minute)
	}
	if v := os.Getenv(SecretEnv); v != "" {
		w.ClusterSecret = v
	}
}

// Validate reports the first problem in w.
func (w *Worker) Validate() error {
	if w.MySQL == "" {
		return fmt.Errorf("config: worker needs mysql: the host:port of its local replica")
	}
	if !validCompression(w.IPCCompression) {
		return fmt.Errorf("config: worker ipc_compression %q: use none, lz4 or zstd", w.IPCCompression)
	}
	return w.validateTLS()
}

// validCompression reports whether c names an IPC compression codec (or is
// empty, for the default).
func validCompression(c string) bool {
	switch c {
	case "", "none", "lz4", "zstd":
		return true
	}
	return false
}

// Load reads a YAML file into v, rejecting unknown keys. Byte sizes
// accept units ("8GiB", "512MiB"; size.go).
func Load(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if b, err = expandSizes(b, reflect.TypeOf(v)); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// Write writes v as YAML to path.
func Write(path string, v any) error {
	b, err := yaml.Marshal(v)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}
