package schedule

import (
	"github.com/shoaldb/shoal/planner"
	"github.com/shoaldb/shoal/pushdown"
)

// keyWindow is the part of the split column's key space a query reads when
// its WHERE clause bounds the split column (planner.Plan.KeyLo/KeyHi): the
// fragments' ranges are cut within it, so WHERE id BETWEEN a AND b runs as
// several fragments of that slice instead of one busy fragment among many
// empty ones. Only the cuts move: the first range stays open below and the
// last open above, and the WHERE clause still filters every fragment.
type keyWindow struct {
	lo, hi int64 // inclusive, within the table's key bounds
	// rows estimates the table's rows in [lo, hi], for sizing the fragment
	// count like a table of that size.
	rows int64
	// sample is the key sample clipped to the window, nil when there is
	// none or the window holds no sampled rows (then cut by key width).
	sample *pushdown.KeySample
}

// clipToKeys returns the window of p over t, with t's key sample s (nil
// if none). An empty window (the bounds miss the table's keys) has no
// rows: the query runs as one fragment.
func clipToKeys(p *planner.Plan, t *planner.Table, s *pushdown.KeySample) *keyWindow {
	w := &keyWindow{lo: t.Min, hi: t.Max}
	if p.KeyLo != nil {
		w.lo = max(w.lo, *p.KeyLo)
	}
	if p.KeyHi != nil {
		w.hi = min(w.hi, *p.KeyHi)
	}
	if w.hi < w.lo || t.Max < t.Min {
		w.lo, w.hi = t.Min, t.Max
		return w
	}
	share := float64(uint64(w.hi-w.lo)+1) / float64(uint64(t.Max-t.Min)+1)
	if s.Valid() {
		c := s.Clip(w.lo, w.hi)
		share = c.Total() / s.Total()
		if c.Valid() {
			w.sample = c
		}
	}
	w.rows = int64(share * float64(t.Rows))
	return w
}

// bounded returns r with its open ends closed at the window, so that a
// range is homed (affinityKey) by the keys it actually reads. A nil window
// returns r.
func (w *keyWindow) bounded(r pushdown.Range) pushdown.Range {
	if w == nil || r.Null {
		return r
	}
	if r.Lo == nil {
		lo := w.lo
		r.Lo = &lo
	}
	if r.Hi == nil {
		hi := w.hi + 1
		if hi < w.hi {
			hi = w.hi
		}
		r.Hi = &hi
	}
	return r
}

// WindowRows estimates the rows of t that the plan's key window reads
// (the whole table without one), from the key sample when there is one:
// the engine's routing by cost sizes a statement with it.
func WindowRows(p *planner.Plan, t *planner.Table, s *pushdown.KeySample) int64 {
	return clipToKeys(p, t, s).rows
}
