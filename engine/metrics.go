package engine

import "github.com/prometheus/client_golang/prometheus"

func registerMemoryMetrics(reg prometheus.Registerer, b *memBudget) {
	gauge := func(name, help string, f func() int64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, func() float64 { return float64(f()) })
	}
	counter := func(name, help string, f func() int64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help}, func() float64 { return float64(f()) })
	}
	reg.MustRegister(
		gauge("shoal_query_memory_bytes", "Fragment results (Arrow batches) held by running queries now, counted against query_memory_limit.", b.used.Load),
		gauge("shoal_query_memory_peak_bytes", "Highest shoal_query_memory_bytes since the coordinator started.", b.peak.Load),
		gauge("shoal_query_memory_limit_bytes", "query_memory_limit (0 or less: unlimited).", func() int64 { return b.limit }),
		gauge("shoal_query_memory_waiting", "Fragment streams paused now, waiting for query memory.", b.waiters.Load),
		counter("shoal_query_memory_waits_total", "Fragment streams that paused for query memory (back-pressure).", b.waits.Load),
		counter("shoal_query_memory_yields_total", "Fragment attempts that dropped their batches for an older query and ran again.", b.yields.Load),
		counter("shoal_query_memory_refused_total", "Queries failed with 1041 by query_memory_limit (too big alone, or waited query_memory_wait).", b.refused.Load),
	)
}

// shipped counts st in the metrics.
func (s *Engine) shipped(st *queryStats) {
	if st == nil || s.metrics == nil {
		return
	}
	fragments, retries := 0, 0
	for _, f := range st.Fragments {
		if f.Tries > 0 {
			retries += f.Tries - 1
		}
		if f.Elapsed > 0 { // completed
			fragments++
		}
	}
	s.metrics.Shipped(fragments, retries, st.Rows, st.Bytes)
}
