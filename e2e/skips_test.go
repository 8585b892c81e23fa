package e2e

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
)

// skipLogMu serializes appends to $SHOAL_SKIP_LOG.
var skipLogMu sync.Mutex

// recordSkip notes that part of a test did not run, and why, in the file
// $SHOAL_SKIP_LOG names (one "TestName: what: reason" line each), so that
// scripts/test.sh reports it as SKIP in its summary rather than letting a
// passing package hide it. Without the variable it only logs.
func recordSkip(t *testing.T, what, reason string) {
	t.Helper()
	line := fmt.Sprintf("%s: %s: %s", t.Name(), what, strings.ReplaceAll(reason, "\n", " "))
	t.Log("SKIP " + line)
	path := os.Getenv("SHOAL_SKIP_LOG")
	if path == "" {
		return
	}
	skipLogMu.Lock()
	defer skipLogMu.Unlock()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Errorf("SHOAL_SKIP_LOG: %v", err)
		return
	}
	defer f.Close()
	if _, err := fmt.Fprintln(f, line); err != nil {
		t.Errorf("SHOAL_SKIP_LOG: %v", err)
	}
}

// clientSkip skips a client test whose client is not installed, recording
// the reason (recordSkip).
func clientSkip(t *testing.T, format string, args ...any) {
	t.Helper()
	reason := fmt.Sprintf(format, args...)
	recordSkip(t, "client test", reason)
	t.Skip(reason)
}
