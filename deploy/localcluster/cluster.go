// Package localcluster starts a complete Shoal cluster on one machine: a
// MariaDB (or MySQL 8) primary, replicas fed by real GTID replication, the
// ontime sample data loaded on the primary, and one worker per replica plus
// a coordinator, each as its own process.
//
// It exists so that developers and end-to-end tests exercise the same
// topology as production (data reaching replicas through the binlog,
// workers reading only their local replica) without containers or root
// configuration: every server runs from files under one directory, binds
// 127.0.0.1 only and reads no option file but its own, so the machine's
// own MySQL or MariaDB is never touched.
//
// Up records every process it starts in Dir/pids; Down stops exactly
// those, after checking /proc that each pid still runs what was started.
// The layout of Dir:
//
//	.shoal-local            marker: this directory belongs to a local cluster
//	pids                    "pid<TAB>name<TAB>match" per started process
//	cluster.json            addresses (see Cluster)
//	primary/, replicaN/     my.cnf, data/, error.log, stdout.log, mysqld.pid, socket
//	workerN.yaml/.log/.pid  worker N, next to replica N
//	coordinator.yaml/.log/.pid
//	netshapeN.log/.pid      with Shape: the proxy in front of worker N (shape.go)
//	coordinator-shaped[-lz4].yaml/.log/.pid  with Shape: coordinators behind the proxies
//	tls-cert.pem, tls-key.pem  the coordinator's self-signed TLS certificate (key 0600)
//	certs/                  the cluster's CA (ca.pem, ca-key.pem) and the coordinator's and
//	                        workers' certificates (NAME.pem, NAME-key.pem) for their mutual TLS
package localcluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/shoaldb/shoal/gen"
)

// Options configures Up.
type Options struct {
	// Dir holds everything the cluster writes. It must be empty, missing,
	// or a stopped local cluster (which is wiped).
	Dir string
	// Replicas is the number of replicas, each with a worker (default 2).
	Replicas int
	// Rows is the number of ontime rows to load (0 loads nothing).
	Rows int64
	// Seed selects the generated data.
	Seed uint64
	// BasePort, when not 0, fixes the ports: the primary on BasePort,
	// replica i on BasePort+i, the coordinator on BasePort+100 and
	// worker i on BasePort+100+i. 0 picks free ports.
	BasePort int
	// BufferPool is innodb_buffer_pool_size of each server (default "256M").
	BufferPool string
	// ShoalBinary is the shoal executable run as worker and coordinator
	// (default: the running executable).
	ShoalBinary string
	// Log receives progress messages; nil discards them.
	Log io.Writer
	// NoShoal starts only the primary and the replicas.
	NoShoal bool
	// WorkerSlots is each worker's slot count (0: the worker's default).
	WorkerSlots int
	// PinCPUs runs replica i's mysqld and worker i on one CPU of their
	// own (taskset -c, round robin over the CPUs this process may use),
	// so N replicas on N cores compare with N hosts (see pin.go). A
	// pinned worker's default slot count is 1 (Go counts its CPUs).
	PinCPUs bool
	// Shape, when not "", is a netshape link ("delay=500us,rate=1Gbit"):
	// each worker gets a `shoal netshape` proxy in front of it and two
	// more coordinators use the workers only through the proxies, one
	// without and one with lz4 IPC compression (shape.go). With BasePort,
	// proxy i listens on BasePort+110+i and the coordinators on
	// BasePort+120 and +121.
	Shape string
}

// Cluster is what Up started; it is also Dir/cluster.json.
type Cluster struct {
	Coordinator Coordinator `json:"coordinator"`
	Primary     string      `json:"primary"`
	Replicas    []Replica   `json:"replicas"`
	Database    string      `json:"database"`
	User        string      `json:"user"`
	Password    string      `json:"password"`
	// TLSCA is the PEM certificate the coordinator's TLS certificate
	// verifies against (it is self-signed: the same file); "" with NoShoal.
	TLSCA string `json:"tls_ca,omitempty"`

	// Dir is the cluster's directory (not stored).
	Dir string `json:"-"`
	// LoadTime is how long loading and replicating the data took (not stored).
	LoadTime time.Duration `json:"-"`
}

// Coordinator holds the coordinator's client address ("" with NoShoal).
type Coordinator struct {
	MySQL string `json:"mysql"`
	// HTTP is its HTTP address: status page, /metrics, /healthz.
	HTTP string `json:"http,omitempty"`
	// Shaped holds, with Options.Shape, the client addresses of the
	// coordinators that reach the workers through shaped links, by IPC
	// compression: ShapedNone and ShapedLZ4.
	Shaped map[string]string `json:"shaped,omitempty"`
	// Shape is Options.Shape, the link of those coordinators.
	Shape string `json:"shape,omitempty"`
}

// Replica is a replica's MySQL address and its worker's Flight address
// ("" with NoShoal).
type Replica struct {
	MySQL  string `json:"mysql"`
	Worker string `json:"worker"`
	// WorkerHTTP is the worker's HTTP address (/metrics, /healthz).
	WorkerHTTP string `json:"worker_http,omitempty"`
	// CPU is the CPU the replica and its worker are pinned to (PinCPUs);
	// nil when not pinned.
	CPU *int `json:"cpu,omitempty"`
}

// DSN returns a go-sql-driver DSN for addr (any of the cluster's MySQL
// addresses) and the sample database.
func (c *Cluster) DSN(addr string) string {
	return fmt.Sprintf("%s:%s@tcp(%s)/%s", c.User, c.Password, addr, c.Database)
}

const (
	markerFile  = ".shoal-local"
	pidsFile    = "pids"
	clusterFile = "cluster.json"
	database    = "ontime"

	defaultBufferPool = "256M"
)

// DefaultDir is where `shoal local up` keeps a cluster unless told otherwise.
const DefaultDir = ".local/cluster"

// Load reads Dir/cluster.json of a cluster started by Up.
func Load(dir string) (*Cluster, error) {
	b, err := os.ReadFile(filepath.Join(dir, clusterFile))
	if err != nil {
		return nil, fmt.Errorf("localcluster: %w (is a cluster up in %s?)", err, dir)
	}
	c := &Cluster{}
	if err := json.Unmarshal(b, c); err != nil {
		return nil, fmt.Errorf("localcluster: %s: %w", clusterFile, err)
	}
	c.Dir = dir
	return c, nil
}

// Down stops every process Up started in dir: SIGTERM, up to 30s of
// grace, then SIGKILL. Pids that no longer run what was started are left
// alone. The files stay for inspection. Calling it again is harmless.
func Down(dir string) error {
	procs, err := readRegistry(filepath.Join(dir, pidsFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("localcluster: %w", err)
	}
	if err := stopAll(procs, 30*time.Second); err != nil {
		return fmt.Errorf("localcluster: %w", err)
	}
	if err := os.Remove(filepath.Join(dir, pidsFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("localcluster: %w", err)
	}
	return nil
}

// prepareDir makes dir ready for a new cluster: creates it, or wipes a
// stopped cluster's files. It refuses a running cluster and a directory
// holding anything else.
func prepareDir(dir string) error {
	if procs, err := readRegistry(filepath.Join(dir, pidsFile)); err == nil && anyAlive(procs) {
		return fmt.Errorf("localcluster: a cluster is running in %s; run `shoal local down --dir %s` first", dir, dir)
	}
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		return fmt.Errorf("localcluster: %w", err)
	}
	if len(ents) == 0 {
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, markerFile)); err != nil {
		return fmt.Errorf("localcluster: %s is not empty and holds no local cluster; pick an empty or new directory", dir)
	}
	for _, e := range ents {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return fmt.Errorf("localcluster: wipe old cluster: %w", err)
		}
	}
	return nil
}

// Up starts a cluster as described by o. If it fails midway it stops
// whatever it had started before returning the error.
func Up(ctx context.Context, o Options) (c *Cluster, err error) {
	if o.Dir == "" {
		return nil, errors.New("localcluster: Options.Dir is empty")
	}
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return nil, err
	}
	if o.Replicas <= 0 {
		o.Replicas = 2
	}
	if o.BufferPool == "" {
		o.BufferPool = defaultBufferPool
	}
	if err := checkShape(o); err != nil {
		return nil, err
	}
	logf := func(format string, args ...any) {
		if o.Log != nil {
			fmt.Fprintf(o.Log, format+"\n", args...)
		}
	}
	fl, err := findFlavor()
	if err != nil {
		return nil, err
	}
	var pin *pinner
	if o.PinCPUs {
		if pin, err = newPinner(); err != nil {
			return nil, err
		}
	}
	if err := prepareDir(dir); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, markerFile), []byte("shoal local cluster\n"), 0o644); err != nil {
		return nil, err
	}
	reg := &registry{path: filepath.Join(dir, pidsFile)}
	defer func() {
		if err != nil {
			if serr := stopAll(reg.procs, 30*time.Second); serr != nil {
				err = errors.Join(err, serr)
			}
			_ = os.Remove(reg.path)
		}
	}()

	nMySQL := 1 + o.Replicas
	var ports []int
	if o.BasePort != 0 {
		for i := range nMySQL {
			ports = append(ports, o.BasePort+i)
		}
		for i := range 1 + o.Replicas {
			ports = append(ports, o.BasePort+100+i)
		}
	} else if ports, err = freePorts(nMySQL + 1 + o.Replicas); err != nil {
		return nil, err
	}

	servers := make([]*server, nMySQL)
	for i := range servers {
		name := "primary"
		if i > 0 {
			name = fmt.Sprintf("replica%d", i)
		}
		s := &server{name: name, dir: filepath.Join(dir, name), port: ports[i], serverID: i + 1, replica: i > 0, cpu: -1}
		if i > 0 {
			s.cpu = pin.cpu(i)
		}
		s.socket = socketPath(s.dir)
		servers[i] = s
	}
	primary, replicas := servers[0], servers[1:]

	logf("initializing %d data directories in %s with %s", nMySQL, dir, fl.server)
	if err := fl.startServers(ctx, reg, servers, o.BufferPool, pin); err != nil {
		return nil, err
	}
	logf("servers up: primary %s, replicas %s", primary.addr(), addrs(replicas))

	pw := randomPassword()
	if err := fl.createReplUser(ctx, primary, pw); err != nil {
		return nil, fmt.Errorf("localcluster: primary: %w", err)
	}
	for _, r := range replicas {
		if err := fl.startReplication(ctx, primary, r, pw); err != nil {
			return nil, err
		}
	}

	start := time.Now()
	if o.Rows > 0 {
		logf("loading %d ontime rows (seed %d) on the primary", o.Rows, o.Seed)
		err := gen.Load(ctx, gen.Options{Rows: o.Rows, Seed: o.Seed, DSN: primary.tcpDSN(), Database: database,
			Progress: o.Log, ProgressTTY: isTTY(o.Log)})
		if err != nil {
			return nil, err
		}
	}
	timeout := 2*time.Minute + time.Duration(o.Rows/5000)*time.Second
	for _, r := range replicas {
		if err := fl.waitCaughtUp(ctx, primary, r, timeout); err != nil {
			return nil, err
		}
	}
	loadTime := time.Since(start)
	logf("replicas caught up %s after the load started", loadTime.Round(time.Millisecond))

	c = &Cluster{Primary: primary.addr(), Database: database, User: "root", Dir: dir, LoadTime: loadTime}
	for _, r := range replicas {
		rep := Replica{MySQL: r.addr()}
		if r.cpu >= 0 {
			rep.CPU = new(r.cpu)
		}
		c.Replicas = append(c.Replicas, rep)
	}
	if !o.NoShoal {
		if err := startShoal(reg, c, o, dir, ports[nMySQL:], logf); err != nil {
			return nil, err
		}
	}
	b, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, clusterFile), append(b, '\n'), 0o644); err != nil {
		return nil, err
	}
	return c, nil
}

func addrs(ss []*server) string {
	var a []string
	for _, s := range ss {
		a = append(a, s.addr())
	}
	return strings.Join(a, ", ")
}

// socketPath keeps the socket inside the server's directory unless the
// path would exceed the 107-byte limit of a unix socket address.
func socketPath(dir string) string {
	p := filepath.Join(dir, "mysqld.sock")
	if len(p) < 100 {
		return p
	}
	h := uint32(2166136261)
	for _, ch := range []byte(dir) {
		h = (h ^ uint32(ch)) * 16777619
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("shoal-%08x.sock", h))
}

func isTTY(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && gen.IsTerminal(f)
}
