package localcluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseCPUList(t *testing.T) {
	cases := []struct {
		in   string
		want []int
		err  bool
	}{
		{"0-1", []int{0, 1}, false},
		{"0", []int{0}, false},
		{"0-3,8,10-11", []int{0, 1, 2, 3, 8, 10, 11}, false},
		{"", nil, false},
		{"3-1", nil, true},
		{"x", nil, true},
	}
	for _, c := range cases {
		got, err := parseCPUList(c.in)
		if (err != nil) != c.err || !slices.Equal(got, c.want) {
			t.Errorf("parseCPUList(%q) = %v, %v", c.in, got, err)
		}
	}
	if len(allowedCPUs()) == 0 {
		t.Error("allowedCPUs: none")
	}
}

func TestPinnerWrap(t *testing.T) {
	p := &pinner{taskset: "/usr/bin/taskset", cpus: []int{2, 5}}
	if got := []int{p.cpu(1), p.cpu(2), p.cpu(3)}; !slices.Equal(got, []int{2, 5, 2}) {
		t.Errorf("cpus round robin: %v", got)
	}
	argv := []string{"/usr/sbin/mariadbd", "--defaults-file=/d/my.cnf"}
	if got := p.wrap(5, argv); !slices.Equal(got, []string{"/usr/bin/taskset", "-c", "5", "/usr/sbin/mariadbd", "--defaults-file=/d/my.cnf"}) {
		t.Errorf("wrap: %v", got)
	}
	if got := p.wrap(-1, argv); !slices.Equal(got, argv) {
		t.Errorf("unpinned wrap: %v", got)
	}
	var none *pinner
	if none.cpu(1) != -1 || !slices.Equal(none.wrap(3, argv), argv) {
		t.Error("a nil pinner pins nothing")
	}
}

// TestUpPinCPUs: with PinCPUs each replica's server runs on its own CPU
// (all its threads), the primary on all of them, and cluster.json says so.
func TestUpPinCPUs(t *testing.T) {
	if _, err := findFlavor(); err != nil {
		t.Skip(err)
	}
	if _, err := newPinner(); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var log strings.Builder
	c, err := Up(ctx, Options{Dir: dir, Replicas: 2, NoShoal: true, BufferPool: "64M", PinCPUs: true, Log: &log})
	if err != nil {
		t.Fatalf("Up: %v\nlog:\n%s", err, log.String())
	}
	t.Cleanup(func() { _ = Down(dir) })
	loaded, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	cpus := allowedCPUs()
	procs, err := readRegistry(filepath.Join(dir, pidsFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range procs {
		want := ""
		switch p.name {
		case "replica1", "replica2":
			i := int(p.name[len(p.name)-1] - '1')
			if cpu := loaded.Replicas[i].CPU; cpu == nil || *cpu != cpus[i%len(cpus)] {
				t.Errorf("cluster.json: %s cpu %v, want %d", p.name, cpu, cpus[i%len(cpus)])
			}
			want = strconv.Itoa(cpus[i%len(cpus)])
		}
		// Every thread: the server's threads start after taskset set the
		// affinity, so they inherit it.
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", p.pid))
		if len(tasks) == 0 {
			t.Fatalf("%s: no threads under /proc/%d", p.name, p.pid)
		}
		for _, status := range tasks {
			b, err := os.ReadFile(status)
			if err != nil {
				continue // the thread ended
			}
			got := ""
			for _, line := range strings.Split(string(b), "\n") {
				if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
					got = strings.TrimSpace(v)
				}
			}
			if want != "" && got != want || want == "" && len(cpus) > 1 && !strings.ContainsAny(got, "-,") {
				t.Errorf("%s thread %s: Cpus_allowed_list %q, want %q", p.name, status, got, want)
				break
			}
		}
	}
	if c.Replicas[0].CPU == nil {
		t.Error("Up's Cluster lacks the CPUs")
	}
}
