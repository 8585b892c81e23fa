package engine

import (
	"context"
	"testing"

	"github.com/shoaldb/shoal/planner"
	"github.com/shoaldb/shoal/sqlerr"
)

// TestAttemptOutcome: how the status page and the slow log name an
// attempt's end. A stalled attempt is retried until maxAttempts, then
// fails; a statement error fails at once; errStop (LIMIT reached) is ok;
// anything once the statement is cancelled is cancelled.
func TestAttemptOutcome(t *testing.T) {
	live := context.Background()
	done, cancel := context.WithCancel(live)
	cancel()
	for _, c := range []struct {
		name  string
		ctx   context.Context
		err   error
		tries int
		want  string
	}{
		{"ok", live, nil, 1, "ok"},
		{"limit reached", live, errStop, 1, "ok"},
		{"stalled, retried", live, errStalled, 1, "retried"},
		{"stalled, last try", live, errStalled, maxAttempts, "failed"},
		{"statement error", live, sqlerr.New(1054, "42S22", "Unknown column 'x'"), 1, "failed"},
		{"cancelled", done, context.Canceled, 1, "cancelled"},
	} {
		if got := attemptOutcome(c.ctx, c.err, c.tries); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestAggKind: every merge function the planner emits for a fragment
// column has its merge operator, and one it does not know is an error,
// never a silent MAX.
func TestAggKind(t *testing.T) {
	for k := planner.MergeSum; k <= planner.MergeJSONObject; k++ {
		switch k {
		case planner.MergeDistinctCount, planner.MergeDistinctSum, planner.MergeDistinctConcat:
			continue // built from the distinct keys, not a fragment column
		}
		if _, err := aggKind(k); err != nil {
			t.Errorf("%s: %v", k, err)
		}
	}
	if got, err := aggKind(planner.AggKind(250)); err == nil {
		t.Errorf("an unknown merge function merged as %v", got)
	}
}
