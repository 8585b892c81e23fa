package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{
		"0": 0, "67108864": 64 << 20, "-1": -1,
		"8GiB": 8 << 30, "8 GiB": 8 << 30, "512MiB": 512 << 20, "64 kib": 64 << 10, "1TiB": 1 << 40,
		"64M": 64 << 20, "8G": 8 << 30, "1.5GiB": 3 << 29, "100B": 100,
		"1GB": 1e9, "250MB": 250e6, "2kb": 2000,
	} {
		got, err := ParseSize(in)
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "GiB", "8 GiBs", "eight", "-8GiB", "1e9", "8 Gb/s", "99999999TiB"} {
		if n, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", in, n)
		}
	}
}

// TestLoadSizes: sizes with units load as bytes, plain bytes as before; a
// bad size names its line and key, and other errors keep their lines.
func TestLoadSizes(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) string {
		p := filepath.Join(dir, "c.yaml")
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var c Coordinator
	err := Load(write(`listen: 127.0.0.1:4000
query_memory_limit: 8GiB
merge_memory_limit: "512 MiB"
pinned_memory_limit: -1
max_allowed_packet: 16M
replicas:
  - {name: r1, mysql: "127.0.0.1:3307", worker: "127.0.0.1:4100"}
`), &c)
	if err != nil {
		t.Fatal(err)
	}
	if c.QueryMemoryLimit != 8<<30 || c.MergeMemoryLimit != 512<<20 || c.PinnedMemoryLimit != -1 || c.MaxAllowedPacket != 16<<20 {
		t.Errorf("loaded query %d merge %d pinned %d packet %d", c.QueryMemoryLimit, c.MergeMemoryLimit, c.PinnedMemoryLimit, c.MaxAllowedPacket)
	}
	c = Coordinator{}
	if err := Load(write("listen: x\nquery_memory_limit: 8589934592\n"), &c); err != nil || c.QueryMemoryLimit != 8<<30 {
		t.Errorf("plain bytes: %d, %v", c.QueryMemoryLimit, err)
	}
	c = Coordinator{}
	err = Load(write("listen: x\n\nquery_memory_limit: 8 gigs\n"), &c)
	if err == nil || !strings.Contains(err.Error(), "line 3: query_memory_limit") {
		t.Errorf("bad size: %v, want an error naming line 3 and the key", err)
	}
	// An unknown key after a rewritten size keeps its line number.
	c = Coordinator{}
	err = Load(write("query_memory_limit: 8GiB # a comment\nmerge_memory_limit: 1GiB\nno_such_key: 1\n"), &c)
	if err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("unknown key: %v, want it reported on line 3", err)
	}
	// Sizes are only read where the key is a size.
	c = Coordinator{}
	if err := Load(write("listen: 8GiB\n"), &c); err != nil || c.Listen != "8GiB" {
		t.Errorf("listen: %q %v", c.Listen, err)
	}
}

func TestWarnings(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  func(*Coordinator)
		want []string // substrings, one per warning
	}{
		{"loopback root", func(c *Coordinator) {}, nil},
		{"localhost root", func(c *Coordinator) { c.Listen = "localhost:4000" }, nil},
		{"open root", func(c *Coordinator) { c.Listen = "0.0.0.0:4000" }, []string{"listen 0.0.0.0:4000 is not loopback and account root has no password"}},
		{"open all interfaces", func(c *Coordinator) { c.Listen = ":4000" }, []string{"account root has no password"}},
		{"open ipv6", func(c *Coordinator) { c.Listen = "[::]:4000" }, []string{"account root has no password"}},
		{"loopback ipv6", func(c *Coordinator) { c.Listen = "[::1]:4000" }, nil},
		{"open root with password", func(c *Coordinator) {
			c.Listen = "10.0.0.1:4000"
			c.Users = []User{{Name: "root", Password: "s3cret"}}
		}, nil},
		{"open other account", func(c *Coordinator) {
			c.Listen = "10.0.0.1:4000"
			c.Users = []User{{Name: "app"}}
		}, nil},
		{"flight sql open", func(c *Coordinator) { c.FlightSQLListen = "0.0.0.0:4001" }, []string{"flight_sql_listen 0.0.0.0:4001"}},
		{"http open", func(c *Coordinator) { c.HTTPListen = new("0.0.0.0:4080") }, []string{"http_listen 0.0.0.0:4080 is not loopback"}},
		{"http off", func(c *Coordinator) { c.HTTPListen = new("") }, nil},
		{"http open with pprof", func(c *Coordinator) { c.HTTPListen = new("0.0.0.0:4080"); c.PProf = true }, []string{"/debug/pprof are open"}},
		{"plaintext to loopback workers", func(c *Coordinator) { c.WorkerPlaintext = true }, nil},
		{"plaintext to remote workers", func(c *Coordinator) {
			c.WorkerPlaintext = true
			c.Replicas = append(c.Replicas, Replica{MySQL: "10.0.0.2:3306", Worker: "10.0.0.2:4100"})
		}, []string{"worker_plaintext: the cluster secret and fragment results go to worker 10.0.0.2:4100 in clear"}},
	} {
		c := Coordinator{Replicas: []Replica{{MySQL: "127.0.0.1:3307", Worker: "127.0.0.1:4100"}}}
		tc.mod(&c)
		c.Defaults()
		got := c.Warnings()
		if len(got) != len(tc.want) {
			t.Errorf("%s: warnings %q, want %d", tc.name, got, len(tc.want))
			continue
		}
		for i, w := range tc.want {
			if !strings.Contains(got[i], w) {
				t.Errorf("%s: warning %q lacks %q", tc.name, got[i], w)
			}
		}
	}
}

// TestDurationSeconds: durations also take a number of seconds, as MySQL
// writes long_query_time.
func TestDurationSeconds(t *testing.T) {
	p := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(p, []byte("long_query_time: 2\nfragment_timeout: 0.5\nquery_timeout: 1h\nstatus_interval: \"1.5\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var c Coordinator
	if err := Load(p, &c); err != nil {
		t.Fatal(err)
	}
	if c.LongQueryTime == nil || c.LongQueryTime.D() != 2*time.Second || c.FragmentTimeout.D() != 500*time.Millisecond ||
		c.QueryTimeout.D() != time.Hour || c.StatusInterval.D() != 1500*time.Millisecond {
		t.Errorf("long_query_time %v fragment_timeout %s query_timeout %s status_interval %s", c.LongQueryTime, c.FragmentTimeout.D(), c.QueryTimeout.D(), c.StatusInterval.D())
	}
	for _, bad := range []string{"long_query_time: -1\n", "long_query_time: ten\n", "fragment_timeout: 1e30\n"} {
		if err := os.WriteFile(p, []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := Load(p, &Coordinator{}); err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("%q: %v, want an error on line 1", bad, err)
		}
	}
}
