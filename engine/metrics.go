package engine

import "github.com/shoaldb/shoal/engine/schedule"

// shipped counts st in the metrics.
func (s *Engine) shipped(st *schedule.Stats) {
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
