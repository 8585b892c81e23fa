package measure

import (
	"slices"
	"time"
)

// Latency summarises a set of durations exactly: every duration is kept
// and sorted, no buckets.
type Latency struct {
	N                              int
	Mean, P50, P95, P99, P999, Max time.Duration
}

// Summarize returns the summary of ds, sorting ds in place. Percentiles are
// nearest-rank: Pp is the smallest duration with at least p% of ds at or
// below it (P50 of {1,2,3,4} is 2). An empty ds gives the zero Latency.
func Summarize(ds []time.Duration) Latency {
	if len(ds) == 0 {
		return Latency{}
	}
	slices.Sort(ds)
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return Latency{
		N:    len(ds),
		Mean: sum / time.Duration(len(ds)),
		P50:  Percentile(ds, 50),
		P95:  Percentile(ds, 95),
		P99:  Percentile(ds, 99),
		P999: Percentile(ds, 99.9),
		Max:  ds[len(ds)-1],
	}
}

// Percentile is the nearest-rank p-th percentile (0 < p <= 100) of sorted,
// which must be sorted ascending and not empty.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	// rank = ceil(p/100 * n), computed in integers where p has at most
	// two decimals, so 95% of 100 is rank 95 and not 96 by rounding.
	n := len(sorted)
	hundredths := int64(p*100 + 0.5)
	rank := int((hundredths*int64(n) + 9999) / 10000)
	rank = min(max(rank, 1), n)
	return sorted[rank-1]
}
