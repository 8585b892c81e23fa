package measure

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// ChartCheck is one chart's verification: its answer through Shoal and
// directly, compared as sorted rows of strings.
type ChartCheck struct {
	Chart         string
	Rows          int
	Equal         bool
	Shoal, Direct time.Duration
	// Plan is how Shoal runs the chart: "N fragments", "pinned: what" or
	// "passthrough: why".
	Plan string
	// Problem says what went wrong: an error, or the first differing row.
	Problem string
}

// Verify runs one chart through Shoal and directly and compares the
// answers as sorted rows. Query errors are reported in the check; only a
// failing EXPLAIN (the coordinator unreachable) is returned.
func Verify(ctx context.Context, shoal, direct *sql.DB, name, shoalQ, directQ string) (ChartCheck, error) {
	ch := ChartCheck{Chart: name}
	a, err := Plan(ctx, shoal, shoalQ)
	switch {
	case err != nil:
		ch.Plan = "EXPLAIN failed"
	case a.Passthrough != "":
		ch.Plan = "passthrough: " + a.Passthrough
	case a.InMemory != "":
		ch.Plan = "pinned: " + a.InMemory
	case a.Planned > 0:
		ch.Plan = fmt.Sprintf("%d fragments", a.Planned)
	case len(a.Lines) > 0:
		ch.Plan = a.Lines[0]
	}
	s, srows, err := Timed(ctx, shoal, shoalQ)
	if err != nil {
		ch.Problem = "through shoal: " + err.Error()
		return ch, ctx.Err()
	}
	d, drows, err := Timed(ctx, direct, directQ)
	if err != nil {
		ch.Problem = "direct: " + err.Error()
		return ch, ctx.Err()
	}
	ch.Shoal, ch.Direct, ch.Rows = s, d, len(drows)
	ch.Equal, ch.Problem = CompareSorted(srows, drows)
	return ch, nil
}
