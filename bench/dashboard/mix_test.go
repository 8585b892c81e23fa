package dashboard

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/shoaldb/shoal/bench/measure"
)

func TestMixClassesNewLiterals(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	seen := map[string]bool{}
	for _, c := range mixClasses() {
		if seen[c.name] {
			t.Fatalf("class %s twice", c.name)
		}
		seen[c.name] = true
		a, b := c.gen(r, 1, 1_000_000), c.gen(r, 1, 1_000_000)
		if c.name == "point" || c.name == "point-expr" || c.name == "short-range" {
			if a == b {
				t.Errorf("%s: the same text twice: %s", c.name, a)
			}
		}
	}
	if c := mixClasses()[2]; c.name != "point-same" || c.gen(r, 1, 1000) != c.gen(r, 1, 1000) {
		t.Errorf("point-same must repeat its text")
	}
	for _, want := range []string{"select-1", "point", "point-same", "point-expr", "short-range", "selective-count", "carrier-top", "aggregate", "export"} {
		if !seen[want] {
			t.Errorf("no class %s", want)
		}
	}
}

func TestMedianLatency(t *testing.T) {
	ls := []measure.Latency{
		{N: 10, P50: 3 * time.Millisecond, P99: 9 * time.Millisecond},
		{N: 20, P50: 1 * time.Millisecond, P99: 30 * time.Millisecond},
		{N: 30, P50: 2 * time.Millisecond, P99: 10 * time.Millisecond},
	}
	m := medianLatency(ls)
	if m.N != 60 || m.P50 != 2*time.Millisecond || m.P99 != 10*time.Millisecond {
		t.Errorf("median of three rounds: got N %d p50 %v p99 %v, want 60, 2ms, 10ms", m.N, m.P50, m.P99)
	}
	// An even count takes the lower middle figure.
	if m := medianLatency(ls[:2]); m.P50 != time.Millisecond || m.P99 != 9*time.Millisecond {
		t.Errorf("median of two rounds: got p50 %v p99 %v, want 1ms, 9ms", m.P50, m.P99)
	}
}
