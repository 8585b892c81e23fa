package localcluster

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
)

// CPU pinning (Options.PinCPUs): replica i's mysqld and worker i run under
// `taskset -c C`, C the i-th CPU this process may use (round robin), so on
// an N-core machine N replicas do not compete for every core the way N
// hosts would not. The affinity is set before the server starts (taskset
// execs it), so every thread it creates inherits it. The primary and the
// coordinator are not pinned.

// pinner hands out CPUs and wraps command lines in taskset.
type pinner struct {
	taskset string
	cpus    []int
}

// newPinner finds taskset and the CPUs this process may run on.
func newPinner() (*pinner, error) {
	ts, err := exec.LookPath("taskset")
	if err != nil {
		return nil, errors.New("localcluster: PinCPUs needs taskset (util-linux): apt-get install -y util-linux")
	}
	cpus := allowedCPUs()
	if len(cpus) == 0 {
		return nil, errors.New("localcluster: PinCPUs: cannot tell which CPUs this process may use")
	}
	return &pinner{taskset: ts, cpus: cpus}, nil
}

// cpu is the CPU of replica i (1-based); -1 without pinning.
func (p *pinner) cpu(i int) int {
	if p == nil {
		return -1
	}
	return p.cpus[(i-1)%len(p.cpus)]
}

// wrap prefixes argv with taskset for cpu (argv unchanged for cpu < 0).
func (p *pinner) wrap(cpu int, argv []string) []string {
	if p == nil || cpu < 0 {
		return argv
	}
	return append([]string{p.taskset, "-c", strconv.Itoa(cpu)}, argv...)
}

// allowedCPUs reads Cpus_allowed_list of /proc/self/status ("0-3,8"),
// falling back to 0..NumCPU-1.
func allowedCPUs() []int {
	b, err := os.ReadFile("/proc/self/status")
	if err == nil {
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "Cpus_allowed_list:"); ok {
				if cpus, err := parseCPUList(strings.TrimSpace(v)); err == nil && len(cpus) > 0 {
					return cpus
				}
			}
		}
	}
	var cpus []int
	for i := range runtime.NumCPU() {
		cpus = append(cpus, i)
	}
	return cpus
}

// parseCPUList reads a kernel CPU list: "0-3,8,10-11".
func parseCPUList(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		if part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("cpu list %q: %w", s, err)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil {
				return nil, fmt.Errorf("cpu list %q: %w", s, err)
			}
		}
		if b < a || b-a > 1<<16 {
			return nil, fmt.Errorf("cpu list %q: bad range %q", s, part)
		}
		for c := a; c <= b; c++ {
			out = append(out, c)
		}
	}
	return out, nil
}
