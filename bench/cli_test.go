package bench

import (
	"slices"
	"strings"
	"testing"

	"github.com/shoaldb/shoal/deploy/localcluster"
)

func TestSplitWorkload(t *testing.T) {
	for _, c := range []struct {
		args     []string
		workload string
		rest     []string
	}{
		{nil, "scan", nil},
		{[]string{"--dir", "d", "-v"}, "scan", []string{"--dir", "d", "-v"}},
		{[]string{"dashboard", "--steps", "10"}, "dashboard", []string{"--steps", "10"}},
		{[]string{"scan", "--runs", "1"}, "scan", []string{"--runs", "1"}},
		{[]string{"--dir", "d", "--workload", "dashboard", "--steps", "5"}, "dashboard", []string{"--dir", "d", "--steps", "5"}},
		{[]string{"-workload=scan", "-v"}, "scan", []string{"-v"}},
	} {
		w, rest, err := splitWorkload(c.args)
		if err != nil || w != c.workload || !slices.Equal(rest, c.rest) {
			t.Errorf("splitWorkload(%q) = %q, %q, %v; want %q, %q", c.args, w, rest, err, c.workload, c.rest)
		}
	}
	if _, _, err := splitWorkload([]string{"--workload"}); err == nil {
		t.Errorf("--workload without a value: no error")
	}
	if err := Command([]string{"nosuch"}); err == nil {
		t.Errorf("unknown workload: no error")
	}
}

func TestParseSteps(t *testing.T) {
	got, err := parseSteps("10, 25,300")
	if err != nil || !slices.Equal(got, []int{10, 25, 300}) {
		t.Errorf("parseSteps = %v, %v", got, err)
	}
	for _, bad := range []string{"", "10,,20", "0", "-5", "ten"} {
		if _, err := parseSteps(bad); err == nil {
			t.Errorf("parseSteps(%q): no error", bad)
		}
	}
}

func TestSplitStatements(t *testing.T) {
	got := splitStatements(" CACHE TABLE ontime.recent AS SELECT * FROM ontime.ontime WHERE YearD >= 2009 ;; SELECT 1; ")
	want := []string{"CACHE TABLE ontime.recent AS SELECT * FROM ontime.ontime WHERE YearD >= 2009", "SELECT 1"}
	if !slices.Equal(got, want) {
		t.Errorf("splitStatements = %q, want %q", got, want)
	}
	if got := splitStatements(""); got != nil {
		t.Errorf("splitStatements(\"\") = %q, want none", got)
	}
}

func TestViaCoordinator(t *testing.T) {
	shaped := &localcluster.Cluster{Dir: "d", Coordinator: localcluster.Coordinator{MySQL: "127.0.0.1:1", Shape: "delay=1ms",
		Shaped: map[string]string{localcluster.ShapedNone: "127.0.0.1:2", localcluster.ShapedLZ4: "127.0.0.1:3"}}}
	plain := &localcluster.Cluster{Dir: "d", Coordinator: localcluster.Coordinator{MySQL: "127.0.0.1:1"}}
	for _, c := range []struct {
		c         *localcluster.Cluster
		via, addr string
		err       string
	}{
		{shaped, "", "127.0.0.1:1", ""},
		{shaped, "shaped", "127.0.0.1:2", ""},
		{shaped, "shaped-lz4", "127.0.0.1:3", ""},
		{plain, "", "127.0.0.1:1", ""},
		{plain, "shaped", "", "started without --shape"},
		{plain, "lz4", "", "use shaped or shaped-lz4"},
	} {
		addr, desc, err := viaCoordinator(c.c, c.via)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("via %q: %v; want an error containing %q", c.via, err, c.err)
			}
			continue
		}
		if err != nil || addr != c.addr || !strings.Contains(desc, addr) {
			t.Errorf("via %q = %q, %q, %v; want %q", c.via, addr, desc, err, c.addr)
		}
	}
	if err := Command([]string{"--via", "nosuch", "--dir", t.TempDir()}); err == nil || !strings.Contains(err.Error(), "use shaped or shaped-lz4") {
		t.Errorf("bench --via nosuch: %v", err)
	}
}
