package engine

import (
	"context"
	"errors"
	"strconv"
	"time"

	"vitess.io/vitess/go/sqltypes"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/engine/rowformat"
	"github.com/shoaldb/shoal/engine/schedule"
	"github.com/shoaldb/shoal/observe"
)

// Result cache and coalescing for statements over pinned tables.
//
// A pinned table is immutable until REFRESH swaps in a new version, and a
// prepared plan is bound to one version (the plan cache's generation
// includes the pinned tables'), so an aggregate's final rows can be kept
// on the plan itself: no TTL, no invalidation traffic, no shared map on
// the query path — a refresh makes a new plan and the old rows go with the
// old one. Identical statements that arrive while one runs wait for it
// (single flight on the plan) instead of scanning again: 300 dashboard
// users opening the same page run each chart once.

// results keeps the final rows of aggregate statements on their plans
// and runs identical ones arriving together once. It needs the merger to
// run a statement, the plan cache (an entry's weight grows with its
// rows), result_cache_ttl, the metrics and the query ids; nothing else of
// the engine.
type results struct {
	cfg     config.Coordinator
	merge   *merger
	plans   *planCache
	metrics *observe.Metrics
	ids     *observe.QueryIDs
	shipped func(*schedule.Stats) // Engine.shipped
}

// maxCachedRows bounds the rows kept per statement; larger results are
// coalesced but not kept.
const maxCachedRows = 10000

// cacheable reports whether pr's results are kept: aggregates (small by
// nature; row plans are exports and stream) over a pinned table, and over
// replica tables when result_cache_ttl allows answers that old.
func (s *results) cacheable(pr *prepared) bool {
	return pr.plan.Aggregate && !pr.plan.Clock && (pr.prog != nil || s.cfg.ResultCacheTTL > 0)
}

// cachedResult is a statement's final rows; expires is zero for results
// over pinned tables (valid as long as the plan).
type cachedResult struct {
	rows    [][]sqltypes.Value
	expires time.Time
}

func (c *cachedResult) fresh(now time.Time) bool { return c.expires.IsZero() || now.Before(c.expires) }

// runCached answers from pr's cached rows, or runs pr once for everyone
// asking at the same time and keeps the rows.
func (s *results) runCached(ctx context.Context, pr *prepared, callback func(*sqltypes.Result) error) error {
	if r := pr.result.Load(); r != nil && r.fresh(time.Now()) {
		s.metrics.ResultHits.Inc()
		if pr.pin != nil {
			pr.pin.Hit()
		}
		return sendRows(pr, r.rows, callback)
	}
	v, err, shared := pr.flight.Do("", func() (any, error) {
		start := time.Now() // a replica result is as old as its start
		var rows [][]sqltypes.Value
		qid := strconv.FormatUint(s.ids.Next(), 10)
		c := func(r *sqltypes.Result) error {
			rows = append(rows, r.Rows...)
			return nil
		}
		st, err := s.merge.execute(ctx, pr, qid, newResultWriter(pr, c))
		s.shipped(st)
		if err != nil {
			return nil, err
		}
		if len(rows) <= maxCachedRows {
			r := &cachedResult{rows: rows}
			if pr.prog == nil {
				r.expires = start.Add(s.cfg.ResultCacheTTL.D())
			}
			pr.result.Store(r)
			s.plans.resize(pr.cacheKey, pr) // the rows count against the cache's bound
		}
		return rows, nil
	})
	if shared {
		s.metrics.Coalesced.Inc()
	}
	if err != nil {
		// The statement that ran for us was cancelled by its own client:
		// run ours.
		if shared && errors.Is(err, context.Canceled) && ctx.Err() == nil {
			return s.runCached(ctx, pr, callback)
		}
		return err
	}
	return sendRows(pr, v.([][]sqltypes.Value), callback)
}

// sendRows writes the result's header and rows. The rows are shared with
// other sessions and must not be modified.
func sendRows(pr *prepared, rows [][]sqltypes.Value, callback func(*sqltypes.Result) error) error {
	if err := callback(&sqltypes.Result{Fields: pr.fields}); err != nil {
		return err
	}
	for len(rows) > 0 {
		n := min(len(rows), rowformat.ChunkRows)
		if err := callback(&sqltypes.Result{Rows: rows[:n]}); err != nil {
			return err
		}
		rows = rows[n:]
	}
	return nil
}
