package localcluster

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// proc is a process started by Up. match is one of its arguments (holding
// an absolute path only this cluster uses; for a netshape proxy, which has
// no file of its own, its listen address) that must still be among the
// arguments in /proc/PID/cmdline for the pid to be ours; it guards Down
// against recycled pids.
type proc struct {
	name  string
	pid   int
	match string
}

// registry is Dir/pids: one "pid<TAB>name<TAB>match" line per process Up
// started, appended as each starts so a failed Up can undo exactly what it
// did. Down reads the same file.
type registry struct {
	mu    sync.Mutex
	path  string
	procs []*proc
}

func (r *registry) add(p *proc) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	f, err := os.OpenFile(r.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "%d\t%s\t%s\n", p.pid, p.name, p.match)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	r.procs = append(r.procs, p)
	return err
}

func readRegistry(path string) ([]*proc, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []*proc
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), "\t", 3)
		if len(f) != 3 {
			continue
		}
		pid, err := strconv.Atoi(f[0])
		if err != nil || pid <= 1 {
			continue
		}
		out = append(out, &proc{pid: pid, name: f[1], match: f[2]})
	}
	return out, sc.Err()
}

// start runs argv in its own session (so it is its own process group and
// outlives the `shoal local up` that started it), with stdout and stderr
// appended to logPath, and records it in r.
func (r *registry) start(name, match, logPath string, argv ...string) (*proc, error) {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	// No goroutine waits for the process: it must outlive Up, and tests
	// check for leaked goroutines. A child that exits stays a zombie until
	// reap (or our own exit); alive treats zombies as gone.
	p := &proc{name: name, pid: cmd.Process.Pid, match: match}
	_ = cmd.Process.Release()
	return p, r.add(p)
}

// alive reports whether pid runs and is still the process that was
// started (a zombie has an empty cmdline and counts as gone).
func (p *proc) alive() bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p.pid))
	if err != nil {
		return false
	}
	for _, arg := range bytes.Split(b, []byte{0}) {
		if string(arg) == p.match {
			return true
		}
	}
	return false
}

// exited reports whether p has ended (see alive).
//
// A process in the middle of execve (taskset becoming mariadbd or shoal
// with --pin-cpus) can show an empty cmdline for an instant, which alive
// reads as gone; so "gone" must be seen twice, 50 ms apart.
func (p *proc) exited() bool {
	if p.alive() {
		return false
	}
	time.Sleep(50 * time.Millisecond)
	return !p.alive()
}

// reap collects the exit status of p if it is our exited child, so it does
// not linger as a zombie. It never blocks; for other pids it does nothing.
func (p *proc) reap() {
	var ws syscall.WaitStatus
	_, _ = syscall.Wait4(p.pid, &ws, syscall.WNOHANG, nil)
}

func (p *proc) signal(sig syscall.Signal) {
	if !p.alive() {
		return
	}
	if pg, err := syscall.Getpgid(p.pid); err == nil && pg == p.pid {
		_ = syscall.Kill(-p.pid, sig)
		return
	}
	_ = syscall.Kill(p.pid, sig)
}

// stopAll sends SIGTERM to procs in reverse start order, waits up to
// grace for all of them, then SIGKILLs what is left.
func stopAll(procs []*proc, grace time.Duration) error {
	for i := len(procs) - 1; i >= 0; i-- {
		procs[i].signal(syscall.SIGTERM)
	}
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) && anyAlive(procs) {
		time.Sleep(100 * time.Millisecond)
	}
	var errs []error
	for _, p := range procs {
		if p.alive() {
			p.signal(syscall.SIGKILL)
		}
	}
	deadline = time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) && anyAlive(procs) {
		time.Sleep(50 * time.Millisecond)
	}
	for _, p := range procs {
		if p.alive() {
			errs = append(errs, fmt.Errorf("%s (pid %d) still runs after SIGKILL", p.name, p.pid))
		}
	}
	return errors.Join(errs...)
}

func anyAlive(procs []*proc) bool {
	for _, p := range procs {
		p.reap()
		if p.alive() {
			return true
		}
	}
	return false
}

// freePorts returns n distinct free TCP ports on 127.0.0.1. They are free
// when returned; a process may still grab one before we bind it.
func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("pick a free port: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// waitTCP waits until addr accepts connections, p exits, or timeout.
func waitTCP(p *proc, addr, logPath string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		if p.exited() {
			return fmt.Errorf("%s exited before listening on %s; end of %s:\n%s", p.name, addr, logPath, tail(logPath, 20))
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s does not listen on %s after %s; end of %s:\n%s", p.name, addr, timeout, logPath, tail(logPath, 20))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// tail returns the last n lines of a log file.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(" + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
