package scan

import (
	"testing"
	"time"

	"github.com/shoaldb/shoal/bench/measure"
)

func frag(rng, worker string, ms int) measure.FragmentStat {
	return measure.FragmentStat{Range: rng, Worker: worker, Elapsed: time.Duration(ms) * time.Millisecond, Tries: 1}
}

func TestProfileSummaries(t *testing.T) {
	p := Profile{
		Times: []time.Duration{3 * time.Second, time.Second, 2 * time.Second},
		Runs: []measure.Analysis{
			{Fragments: []measure.FragmentStat{frag("a", "r1", 100), frag("b", "r2", 200), frag("c", "r1", 900)}},
			{Fragments: []measure.FragmentStat{frag("a", "r1", 110), frag("b", "r1", 210), frag("c", "r1", 300)}},
			{Fragments: []measure.FragmentStat{frag("a", "r1", 120), frag("b", "r1", 220), frag("c", "r2", 310)}},
		},
	}
	if w := p.Wall(); w.P50 != 2*time.Second || w.N != 3 {
		t.Errorf("wall: %+v", w)
	}
	if p.Times[0] != 3*time.Second {
		t.Error("Wall sorted the profile's own times")
	}
	if l := p.Pooled(); l.N != 9 || l.Max != 900*time.Millisecond {
		t.Errorf("pooled: %+v", l)
	}
	// Medians per range: a 110, b 210, c 310; the 900ms outlier is gone.
	if l := p.PerRange(); l.N != 3 || l.Max != 310*time.Millisecond || l.P50 != 210*time.Millisecond {
		t.Errorf("per range: %+v", l)
	}
	if got := Skew(p.PerRange()); got != "1.48" {
		t.Errorf("skew %s", got)
	}
	// Run 2 vs 1: a same, b moved, c same; run 3 vs 2: a same, b same, c moved.
	if s := p.Stability(); s < 0.66 || s > 0.67 {
		t.Errorf("stability %.3f, want 4/6", s)
	}
	var q Profile
	q.Merge(p)
	if len(q.Runs) != 3 || len(q.Times) != 3 || len(q.Ranges()) != 3 {
		t.Errorf("merge: %+v", q)
	}
	if (Profile{}).Stability() != 0 || Skew(measure.Latency{}) != "-" {
		t.Error("empty profile")
	}
}
