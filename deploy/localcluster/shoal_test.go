package localcluster

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/coordinator"
	"github.com/shoaldb/shoal/netshape"
	"github.com/shoaldb/shoal/worker"
)

// TestMain lets the test binary stand in for the shoal binary: run as
// "worker --config F" or "coordinator --config F" it runs the real worker
// or coordinator of F, run as "netshape --listen A --to B --link L" the
// real proxy, each until SIGTERM.
func TestMain(m *testing.M) {
	if len(os.Args) == 4 && (os.Args[1] == "worker" || os.Args[1] == "coordinator") && os.Args[2] == "--config" {
		os.Exit(serveAs(os.Args[1], os.Args[3]))
	}
	if len(os.Args) == 8 && os.Args[1] == "netshape" && os.Args[2] == "--listen" && os.Args[4] == "--to" && os.Args[6] == "--link" {
		os.Exit(serveNetshape(os.Args[3], os.Args[5], os.Args[7]))
	}
	flag.Parse()
	code := m.Run()
	if code == 0 {
		// Up must not leave goroutines behind: callers check for leaks
		// while their cluster still runs.
		// The real servers this binary can run (serveAs) link glog,
		// whose init starts a flush daemon.
		if err := goleak.Find(goleak.IgnoreAnyFunction("github.com/golang/glog.(*fileSink).flushDaemon")); err != nil {
			fmt.Fprintln(os.Stderr, "goroutine leak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// serveAs runs the worker or coordinator configured in path (what
// cmd/shoal does, without its flags) and returns the exit code.
func serveAs(role, path string) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	fail := func(err error) int {
		log.Error(role+" failed", "err", err)
		return 3
	}
	if role == "worker" {
		var w config.Worker
		if err := config.Load(path, &w); err != nil {
			return fail(err)
		}
		w.Defaults()
		if err := w.Validate(); err != nil {
			return fail(err)
		}
		srv, err := worker.New(w)
		if err != nil {
			return fail(err)
		}
		l, err := net.Listen("tcp", w.Listen)
		if err != nil {
			return fail(err)
		}
		go func() { <-ctx.Done(); srv.Stop() }()
		if err := srv.Serve(l); err != nil {
			return fail(err)
		}
		return 0
	}
	var c config.Coordinator
	if err := config.Load(path, &c); err != nil {
		return fail(err)
	}
	s, err := coordinator.New(ctx, c, log)
	if err != nil {
		return fail(err)
	}
	go s.Serve()
	<-ctx.Done()
	s.Close()
	return 0
}

// serveNetshape runs `shoal netshape` and returns the exit code.
func serveNetshape(listen, to, spec string) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	l, err := netshape.ParseLink(spec)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	p, err := netshape.Listen(listen, to, l)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 4
	}
	if err := p.Serve(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 5
	}
	return 0
}

func TestUpDownWithShoalProcesses(t *testing.T) {
	if _, err := findFlavor(); err != nil {
		t.Skip(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const shape = "delay=500us,rate=1Gbit"
	c, err := Up(ctx, Options{Dir: dir, Replicas: 1, Rows: 1000, BufferPool: "64M", ShoalBinary: exe, WorkerSlots: 3, Shape: shape})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = Down(dir) })
	if c.Coordinator.MySQL == "" || c.Replicas[0].Worker == "" {
		t.Fatalf("addresses missing: %+v", c)
	}
	var w config.Worker
	if err := config.Load(filepath.Join(dir, "worker1.yaml"), &w); err != nil {
		t.Fatal(err)
	}
	if w.MySQL != c.Replicas[0].MySQL || w.Slots != 3 || w.Listen != c.Replicas[0].Worker {
		t.Errorf("worker1.yaml: %+v", w)
	}
	var co config.Coordinator
	if err := config.Load(filepath.Join(dir, "coordinator.yaml"), &co); err != nil {
		t.Fatal(err)
	}
	if co.Listen != c.Coordinator.MySQL || len(co.Replicas) != 1 || co.Replicas[0].Worker != w.Listen || co.ReplicaUser != "root" {
		t.Errorf("coordinator.yaml: %+v", co)
	}
	// Every listener on a port of its own, the HTTP ones too: the default
	// 4080/4180 would go to the first cluster on the machine only.
	if co.HTTPListen == nil || *co.HTTPListen != c.Coordinator.HTTP || c.Coordinator.HTTP == config.DefaultHTTPListen ||
		w.HTTPListen == nil || *w.HTTPListen != c.Replicas[0].WorkerHTTP || c.Replicas[0].WorkerHTTP == config.DefaultWorkerHTTPListen {
		t.Errorf("HTTP listeners: coordinator.yaml %v, worker1.yaml %v; cluster %q, %q", co.HTTPListen, w.HTTPListen, c.Coordinator.HTTP, c.Replicas[0].WorkerHTTP)
	}
	if loaded, err := Load(dir); err != nil || loaded.Coordinator.HTTP != c.Coordinator.HTTP || loaded.Replicas[0].WorkerHTTP != c.Replicas[0].WorkerHTTP {
		t.Errorf("cluster.json does not record the HTTP addresses: %+v (%v)", loaded, err)
	}
	// Healthy means the coordinator's status poll reached the worker,
	// here over mutual TLS with the cluster's own CA.
	if resp, err := http.Get("http://" + c.Coordinator.HTTP + "/healthz"); err != nil {
		t.Errorf("coordinator /healthz: %v", err)
	} else {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("coordinator /healthz: %s %s", resp.Status, body)
		}
	}
	if w.TLSCert == "" || w.TLSClientCA == "" || co.WorkerTLSCA != w.TLSClientCA || co.WorkerTLSCert == "" || w.Plaintext || co.WorkerPlaintext {
		t.Errorf("worker traffic must be mutual TLS with the cluster's CA: worker tls_cert %q tls_client_ca %q; coordinator worker_tls_ca %q worker_tls_cert %q",
			w.TLSCert, w.TLSClientCA, co.WorkerTLSCA, co.WorkerTLSCert)
	}
	if co.TLSCert == "" || co.TLSCert != c.TLSCA {
		t.Errorf("coordinator.yaml: tls_cert %q, cluster tls_ca %q: want the generated certificate in both", co.TLSCert, c.TLSCA)
	} else if _, err := tls.LoadX509KeyPair(co.TLSCert, co.TLSKey); err != nil {
		t.Errorf("coordinator.yaml: tls_cert/tls_key: %v", err)
	}
	if len(co.ClusterSecret) < 32 || co.ClusterSecret != w.ClusterSecret {
		t.Errorf("cluster secret: coordinator and worker must share a generated one (lengths %d, %d)", len(co.ClusterSecret), len(w.ClusterSecret))
	}
	proxy := checkShaped(t, c, co, shape)
	for _, f := range []string{"worker1.pid", "coordinator.pid", "netshape1.pid", "coordinator-shaped.pid", "coordinator-shaped-lz4.pid"} {
		if b, err := os.ReadFile(filepath.Join(dir, f)); err != nil || strings.TrimSpace(string(b)) == "" {
			t.Errorf("%s: %q %v", f, b, err)
		}
	}
	procs, err := readRegistry(filepath.Join(dir, pidsFile))
	if err != nil || len(procs) != 7 {
		t.Fatalf("pids: %d entries (%v)", len(procs), err)
	}
	if err := Down(dir); err != nil {
		t.Fatal(err)
	}
	for _, p := range procs {
		if p.alive() {
			t.Errorf("%s (pid %d) still runs after Down", p.name, p.pid)
		}
	}
	if pids := running(proxy); len(pids) > 0 {
		t.Errorf("netshape proxy %s still runs after Down: pids %v", proxy, pids)
	}
	for _, a := range []string{c.Coordinator.MySQL, c.Coordinator.HTTP, c.Coordinator.Shaped[ShapedNone], c.Coordinator.Shaped[ShapedLZ4], c.Replicas[0].Worker, proxy} {
		if _, err := net.DialTimeout("tcp", a, time.Second); err == nil {
			t.Errorf("%s still open after Down", a)
		}
	}
}

// checkShaped checks the coordinators behind netshape proxies of a
// cluster started with Shape: recorded in cluster.json, configured like
// the main coordinator co but for their workers, and answering like the
// replica itself through real proxies, workers and coordinators. It
// returns the proxy's address.
func checkShaped(t *testing.T, c *Cluster, co config.Coordinator, shape string) (proxy string) {
	t.Helper()
	loaded, err := Load(c.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.Coordinator.Shape != shape || len(loaded.Coordinator.Shaped) != 2 ||
		loaded.Coordinator.Shaped[ShapedNone] != c.Coordinator.Shaped[ShapedNone] || loaded.Coordinator.Shaped[ShapedLZ4] != c.Coordinator.Shaped[ShapedLZ4] {
		t.Fatalf("cluster.json coordinator: %+v; Up returned %+v", loaded.Coordinator, c.Coordinator)
	}
	var want int64
	if err := open(t, c.DSN(c.Replicas[0].MySQL)).QueryRow("select count(*) from ontime").Scan(&want); err != nil || want != 1000 {
		t.Fatalf("replica: %d rows (%v), want 1000", want, err)
	}
	for key, name := range map[string]string{ShapedNone: "coordinator-shaped", ShapedLZ4: "coordinator-shaped-lz4"} {
		var sc config.Coordinator
		if err := config.Load(filepath.Join(c.Dir, name+".yaml"), &sc); err != nil {
			t.Fatal(err)
		}
		compression := ""
		if key == ShapedLZ4 {
			compression = "lz4"
		}
		if sc.Listen != c.Coordinator.Shaped[key] || len(sc.Replicas) != 1 || sc.Replicas[0].MySQL != co.Replicas[0].MySQL ||
			sc.Replicas[0].Worker == co.Replicas[0].Worker || sc.Replicas[0].IPCCompression != compression ||
			sc.ClusterSecret != co.ClusterSecret || sc.TLSCert != co.TLSCert || sc.ReplicaUser != co.ReplicaUser ||
			sc.HTTPListen == nil || *sc.HTTPListen == "" {
			t.Errorf("%s.yaml: %+v; main coordinator %+v", name, sc, co)
		}
		var got int64
		if err := open(t, c.DSN(sc.Listen)).QueryRow("select count(*) from ontime").Scan(&got); err != nil || got != want {
			t.Errorf("%s: count(*) = %d (%v), want %d", name, got, err, want)
		}
		proxy = sc.Replicas[0].Worker
	}
	return proxy
}

func TestUpFailsCleanly(t *testing.T) {
	if _, err := findFlavor(); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	// A "shoal binary" that exits at once: Up must report it with its log
	// and stop the servers it had started.
	_, err := Up(context.Background(), Options{Dir: dir, Replicas: 1, BufferPool: "64M", ShoalBinary: "/bin/false"})
	if err == nil || !strings.Contains(err.Error(), "exited before listening") {
		t.Fatalf("Up with a failing worker: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, pidsFile)); !os.IsNotExist(err) {
		t.Errorf("pids file left behind: %v", err)
	}
	for _, name := range []string{"primary", "replica1"} {
		if pids := running("--defaults-file=" + filepath.Join(dir, name, "my.cnf")); len(pids) > 0 {
			t.Errorf("%s still runs after a failed Up: pids %v", name, pids)
		}
	}
}

// running scans /proc for processes having arg among their arguments.
func running(arg string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p := (&proc{pid: pid, match: arg}); p.alive() {
			pids = append(pids, pid)
		}
	}
	return pids
}

func TestUpChecksShapeFirst(t *testing.T) {
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Shape: "delay=soon"}, "Shape: netshape: delay"},
		{Options{Shape: "delay=1ms", NoShoal: true}, "drop one of them"},
		{Options{Shape: "delay=1ms", BasePort: 47500, Replicas: 10}, "at most 9 replicas"},
	} {
		dir := t.TempDir()
		c.o.Dir = dir
		if _, err := Up(context.Background(), c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Up(%+v): %v; want an error containing %q", c.o, err, c.want)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("Up(%+v) wrote %d files before refusing", c.o, len(ents))
		}
	}
}
