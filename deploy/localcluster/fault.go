package localcluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// CrashReplica kills replica i's MariaDB server (0-based, as in
// Cluster.Replicas) with SIGKILL, as a host losing power would, and waits
// until it is gone. The returned restart starts it again from its own
// option file, records it in dir's pid registry (so Down stops it) and
// waits until it accepts connections and both replication threads run
// again, or ctx ends.
//
// Benchmarks and tests use it to check that what follows the replica
// (fragments, live pins) moves to another one without losing or repeating
// anything. A replica started under --pin-cpus comes back unpinned.
func CrashReplica(dir string, i int) (restart func(ctx context.Context) error, err error) {
	c, err := Load(dir)
	if err != nil {
		return nil, err
	}
	if i < 0 || i >= len(c.Replicas) {
		return nil, fmt.Errorf("localcluster: no replica %d (the cluster in %s has %d)", i+1, dir, len(c.Replicas))
	}
	name := fmt.Sprintf("replica%d", i+1)
	procs, err := readRegistry(filepath.Join(dir, pidsFile))
	if err != nil {
		return nil, fmt.Errorf("localcluster: %w", err)
	}
	var p *proc
	for _, q := range procs {
		if q.name == name && q.alive() {
			p = q
		}
	}
	if p == nil {
		return nil, fmt.Errorf("localcluster: %s is not running", name)
	}
	pid, match := p.pid, p.match
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || len(cmdline) == 0 {
		return nil, fmt.Errorf("localcluster: %s (pid %d) is not running", name, pid)
	}
	argv := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		return nil, fmt.Errorf("localcluster: kill %s: %w", name, err)
	}
	for deadline := time.Now().Add(30 * time.Second); p.alive(); {
		p.reap()
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("localcluster: %s (pid %d) survives SIGKILL", name, pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
	srv := &server{name: name, dir: filepath.Join(dir, name), port: port(c.Replicas[i].MySQL)}
	reg := &registry{path: filepath.Join(dir, pidsFile)}
	restart = func(ctx context.Context) error {
		if _, err := reg.start(name, match, filepath.Join(dir, name, "stdout.log"), argv...); err != nil {
			return fmt.Errorf("localcluster: restart %s: %w", name, err)
		}
		f, err := findFlavor()
		if err != nil {
			return err
		}
		for {
			st, err := f.replicaStatus(ctx, srv)
			if err == nil && st.running() {
				return nil
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("localcluster: %s does not replicate after restart (%v, %s): %w", name, err, st.lastError(), ctx.Err())
			case <-time.After(200 * time.Millisecond):
			}
		}
	}
	return restart, nil
}

// port is the port of a "host:port" address (0 when it has none).
func port(addr string) int {
	n, _ := strconv.Atoi(addr[strings.LastIndexByte(addr, ':')+1:])
	return n
}
