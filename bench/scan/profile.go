package scan

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"github.com/shoaldb/shoal/bench/measure"
)

// Profile is one query run several times through the coordinator with
// EXPLAIN ANALYZE: the wall time and the fragment lines of every run.
// The fragments and affinity workloads (affinity.go) read
// fragment balance and placement from it.
type Profile struct {
	Query string
	Times []time.Duration
	Runs  []measure.Analysis
}

// ProfileQuery runs EXPLAIN ANALYZE of query runs times through shoal.
func ProfileQuery(ctx context.Context, shoal *sql.DB, query string, runs int) (Profile, error) {
	p := Profile{Query: query}
	for range runs {
		start := time.Now()
		a, err := measure.Explain(ctx, shoal, query)
		if err != nil {
			return p, err
		}
		if a.Passthrough != "" {
			return p, fmt.Errorf("not distributed: %s", a.Passthrough)
		}
		p.Times = append(p.Times, time.Since(start))
		p.Runs = append(p.Runs, a)
	}
	return p, nil
}

// Merge appends q's runs to p (the same query, another block of runs).
func (p *Profile) Merge(q Profile) {
	p.Times = append(p.Times, q.Times...)
	p.Runs = append(p.Runs, q.Runs...)
}

// Wall summarises the runs' wall times.
func (p Profile) Wall() measure.Latency { return measure.Summarize(slices.Clone(p.Times)) }

// Pooled summarises the elapsed times of every fragment of every run.
func (p Profile) Pooled() measure.Latency {
	var ds []time.Duration
	for _, a := range p.Runs {
		for _, f := range a.Fragments {
			ds = append(ds, f.Elapsed)
		}
	}
	return measure.Summarize(ds)
}

// PerRange summarises, over the ranges, each range's median time across
// the runs. Machine noise (another process taking the core for a while)
// hits a range in one run and not the next, so the medians keep what is
// the range's own: how much data it holds.
func (p Profile) PerRange() measure.Latency {
	byRange := map[string][]time.Duration{}
	for _, a := range p.Runs {
		for _, f := range a.Fragments {
			byRange[f.Range] = append(byRange[f.Range], f.Elapsed)
		}
	}
	var meds []time.Duration
	for _, ds := range byRange {
		slices.Sort(ds)
		meds = append(meds, measure.Percentile(ds, 50))
	}
	return measure.Summarize(meds)
}

// Stability is the share of ranges that ran on the same worker as in the
// run before (over all pairs of consecutive runs; ranges absent from the
// run before are not counted). 1 means each range always goes to the
// same replica; with two replicas and placement by timing it is about
// 0.5.
func (p Profile) Stability() float64 {
	same, total := 0, 0
	for i := 1; i < len(p.Runs); i++ {
		prev := map[string]string{}
		for _, f := range p.Runs[i-1].Fragments {
			prev[f.Range] = f.Worker
		}
		for _, f := range p.Runs[i].Fragments {
			if w, ok := prev[f.Range]; ok {
				total++
				if w == f.Worker {
					same++
				}
			}
		}
	}
	if total == 0 {
		return 0
	}
	return float64(same) / float64(total)
}

// Ranges returns the ranges of the last run, in fragment order.
func (p Profile) Ranges() []string {
	if len(p.Runs) == 0 {
		return nil
	}
	var out []string
	for _, f := range p.Runs[len(p.Runs)-1].Fragments {
		out = append(out, f.Range)
	}
	return out
}

// Skew is p95 over p50 of l ("-" when nothing was measured).
func Skew(l measure.Latency) string {
	if l.P50 <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", float64(l.P95)/float64(l.P50))
}
