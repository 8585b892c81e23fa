package schedule

import (
	"context"
	"testing"

	"github.com/shoaldb/shoal/sqlerr"
)

// TestAttemptOutcome: how the status page and the slow log name an
// attempt's end. A stalled attempt is retried until maxAttempts, then
// fails; a statement error fails at once; ErrStop (LIMIT reached) is ok;
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
		{"limit reached", live, ErrStop, 1, "ok"},
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
