package localcluster

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/shoaldb/shoal/config"
)

// TestMain lets the test binary stand in for the shoal binary: run as
// "worker --config F" or "coordinator --config F" it reads F, listens on
// the configured address and accepts connections until killed.
func TestMain(m *testing.M) {
	if len(os.Args) == 4 && (os.Args[1] == "worker" || os.Args[1] == "coordinator") && os.Args[2] == "--config" {
		fakeShoal(os.Args[1], os.Args[3])
		return
	}
	flag.Parse()
	code := m.Run()
	if code == 0 {
		// Up must not leave goroutines behind: callers check for leaks
		// while their cluster still runs.
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goroutine leak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

func fakeShoal(role, path string) {
	var listen string
	if role == "worker" {
		var w config.Worker
		if err := config.Load(path, &w); err != nil || w.Validate() != nil {
			os.Exit(3)
		}
		listen = w.Listen
	} else {
		var c config.Coordinator
		if err := config.Load(path, &c); err != nil || c.Validate() != nil {
			os.Exit(3)
		}
		listen = c.Listen
	}
	l, err := net.Listen("tcp", listen)
	if err != nil {
		os.Exit(4)
	}
	for {
		c, err := l.Accept()
		if err != nil {
			os.Exit(5)
		}
		c.Close()
	}
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
	c, err := Up(ctx, Options{Dir: dir, Replicas: 1, Rows: 1000, BufferPool: "64M", ShoalBinary: exe, WorkerSlots: 3})
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
	if co.TLSCert == "" || co.TLSCert != c.TLSCA {
		t.Errorf("coordinator.yaml: tls_cert %q, cluster tls_ca %q: want the generated certificate in both", co.TLSCert, c.TLSCA)
	} else if _, err := tls.LoadX509KeyPair(co.TLSCert, co.TLSKey); err != nil {
		t.Errorf("coordinator.yaml: tls_cert/tls_key: %v", err)
	}
	if len(co.ClusterSecret) < 32 || co.ClusterSecret != w.ClusterSecret {
		t.Errorf("cluster secret: coordinator and worker must share a generated one (lengths %d, %d)", len(co.ClusterSecret), len(w.ClusterSecret))
	}
	for _, f := range []string{"worker1.pid", "coordinator.pid"} {
		if b, err := os.ReadFile(filepath.Join(dir, f)); err != nil || strings.TrimSpace(string(b)) == "" {
			t.Errorf("%s: %q %v", f, b, err)
		}
	}
	procs, err := readRegistry(filepath.Join(dir, pidsFile))
	if err != nil || len(procs) != 4 {
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
	if _, err := net.DialTimeout("tcp", c.Coordinator.MySQL, time.Second); err == nil {
		t.Errorf("coordinator port still open after Down")
	}
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
