package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestMain runs main itself when SHOAL_TEST_MAIN is set: the tests below
// re-execute the test binary that way, so they see main's real exit code
// and output without building the binary.
func TestMain(m *testing.M) {
	if os.Getenv("SHOAL_TEST_MAIN") == "1" {
		os.Args = append([]string{"shoal"}, os.Args[1:]...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// shoal runs main with args in a child process and returns its combined
// output and exit code.
func shoal(t *testing.T, args ...string) (string, int) {
	t.Helper()
	// A command whose --help is broken would run for real: bound it, and
	// keep what it writes (shoal local up's .local/cluster) in a
	// temporary directory.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "SHOAL_TEST_MAIN=1")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return string(out), ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return string(out), 0
}

// TestHelp: `shoal <command> --help` (and -h) exits 0 and prints the
// command's usage for every command main dispatches and every verb of
// local and bench, doing nothing else (no cluster is started, no file
// written: the flags are parsed before any work).
func TestHelp(t *testing.T) {
	type tc struct {
		args []string
		want string
	}
	var cases []tc
	for name := range commands() {
		cases = append(cases, tc{[]string{name}, "usage: shoal " + name})
	}
	cases = append(cases,
		tc{[]string{"local", "up"}, "usage: shoal local up"},
		tc{[]string{"local", "down"}, "usage: shoal local down"},
		tc{[]string{"bench", "scan"}, "usage: shoal bench [scan]"},
		tc{[]string{"bench", "dashboard"}, "usage: shoal bench dashboard"},
		tc{[]string{"bench", "pinned"}, "usage: shoal bench pinned"},
		tc{[]string{"bench", "fragments"}, "usage: shoal bench fragments"},
		tc{[]string{"bench", "affinity"}, "usage: shoal bench affinity"},
	)
	for _, c := range cases {
		for _, h := range []string{"--help", "-h"} {
			args := append(append([]string(nil), c.args...), h)
			out, code := shoal(t, args...)
			if code != 0 || !strings.Contains(out, c.want) {
				t.Errorf("shoal %s: exit %d, output:\n%s\nwant exit 0 and %q", strings.Join(args, " "), code, out, c.want)
			}
		}
	}
}

// TestVersionAndUsage: `shoal version` prints the version; no command, or
// an unknown one, prints the command list and exits 2; a wrong flag exits
// non-zero naming it.
func TestVersionAndUsage(t *testing.T) {
	if out, code := shoal(t, "version"); code != 0 || out != "shoal "+version+"\n" {
		t.Errorf("shoal version: exit %d, %q", code, out)
	}
	for _, args := range [][]string{nil, {"nosuch"}} {
		out, code := shoal(t, args...)
		if code != 2 || !strings.Contains(out, "usage: shoal <command>") || !strings.Contains(out, "coordinator") {
			t.Errorf("shoal %v: exit %d, output:\n%s", args, code, out)
		}
	}
	if out, code := shoal(t, "version", "--nosuch"); code == 0 || !strings.Contains(out, "nosuch") {
		t.Errorf("shoal version --nosuch: exit %d, output:\n%s", code, out)
	}
}

// TestRetiredSecretEnv: the worker and the coordinator refuse to start
// with the retired SHOAL_WORKER_PASSWORD set, naming the variable that
// replaced it, rather than run without the password it carries.
func TestRetiredSecretEnv(t *testing.T) {
	t.Setenv("SHOAL_WORKER_PASSWORD", "pw")
	for _, args := range [][]string{
		{"worker", "--mysql", "127.0.0.1:1", "--http", "off", "--listen", "127.0.0.1:0"},
		{"coordinator", "--replicas", "127.0.0.1:1=127.0.0.1:2", "--http", "off", "--listen", "127.0.0.1:0"},
	} {
		out, code := shoal(t, args...)
		if code != 1 || !strings.Contains(out, "SHOAL_WORKER_PASSWORD is no longer read: set SHOAL_REPLICA_PASSWORD instead") {
			t.Errorf("shoal %s: exit %d, output %q", args[0], code, out)
		}
	}
}
