package bench

import (
	"slices"
	"testing"
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
		{[]string{"mix", "--conns", "1"}, "mix", []string{"--conns", "1"}},
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
