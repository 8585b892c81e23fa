package live

import (
	"slices"
	"testing"
	"time"
)

// TestLiveMix: the writer's split keeps the table's size (as many
// deletes as inserts) and adds up to the changes asked for.
func TestLiveMix(t *testing.T) {
	for _, c := range []struct{ n, ins, upd, del int }{
		{0, 0, 0, 0}, {2, 0, 2, 0}, {3, 1, 1, 1}, {10, 3, 4, 3}, {80, 24, 32, 24}, {803, 240, 323, 240},
	} {
		ins, upd, del := liveMix(c.n)
		if ins != c.ins || upd != c.upd || del != c.del || ins+upd+del != c.n || ins != del {
			t.Errorf("liveMix(%d) = %d, %d, %d; want %d, %d, %d", c.n, ins, upd, del, c.ins, c.upd, c.del)
		}
	}
}

// TestDiffRows: rows compared as multisets, both directions.
func TestDiffRows(t *testing.T) {
	got := [][]string{{"1", "a"}, {"2", "b"}, {"2", "b"}, {"4", "d"}}
	want := [][]string{{"2", "b"}, {"1", "a"}, {"3", "c"}, {"4", "d"}}
	missing, extra := diffRows(got, want)
	if !slices.Equal(missing, []string{"3\x1fc"}) || !slices.Equal(extra, []string{"2\x1fb"}) {
		t.Fatalf("missing %q extra %q", missing, extra)
	}
	if m, e := diffRows(want, want); len(m)+len(e) != 0 {
		t.Fatalf("equal sets differ: %q %q", m, e)
	}
}

// TestMemoryTrend: flat is 1, growth shows, the first (warm-up) sample
// is left out.
func TestMemoryTrend(t *testing.T) {
	mk := func(vs ...int64) []MemSample {
		var out []MemSample
		for i, v := range vs {
			out = append(out, MemSample{At: time.Duration(i) * time.Second, RSS: v})
		}
		return out
	}
	rss := func(m MemSample) int64 { return m.RSS }
	if got := MemoryTrend(mk(1, 100, 100, 100, 100, 100, 100, 100, 100), rss); got != 1 {
		t.Errorf("flat: %v", got)
	}
	if got := MemoryTrend(mk(100, 100, 100, 150, 150, 200, 200, 200, 200), rss); got != 2 {
		t.Errorf("doubling: %v", got)
	}
	if got := MemoryTrend(mk(1, 2), rss); got != 0 {
		t.Errorf("too few samples: %v", got)
	}
}

func TestSlowest(t *testing.T) {
	start := time.Unix(1000, 0)
	at := func(s int) time.Time { return start.Add(time.Duration(s) * time.Second) }
	took := []time.Duration{3 * time.Millisecond, 9 * time.Millisecond, 1 * time.Millisecond, 7 * time.Millisecond}
	sent := []time.Time{at(1), at(2), at(3), at(4)}
	for _, tc := range []struct {
		n    int
		want []SlowProbe
	}{
		{0, []SlowProbe{}},
		{2, []SlowProbe{{2 * time.Second, 9 * time.Millisecond}, {4 * time.Second, 7 * time.Millisecond}}},
		{9, []SlowProbe{{2 * time.Second, 9 * time.Millisecond}, {4 * time.Second, 7 * time.Millisecond}, {1 * time.Second, 3 * time.Millisecond}, {3 * time.Second, 1 * time.Millisecond}}},
	} {
		if got := slowest(took, sent, start, tc.n); !slices.Equal(got, tc.want) {
			t.Errorf("slowest(n=%d) = %v, want %v", tc.n, got, tc.want)
		}
	}
}
