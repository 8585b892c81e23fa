package measure

import (
	"testing"
	"time"
)

func TestPercentileNearestRank(t *testing.T) {
	ms := func(ns ...int) []time.Duration {
		out := make([]time.Duration, len(ns))
		for i, n := range ns {
			out[i] = time.Duration(n) * time.Millisecond
		}
		return out
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = i + 1
	}
	for _, c := range []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"single", ms(7), 50, 7 * time.Millisecond},
		{"single p99", ms(7), 99, 7 * time.Millisecond},
		{"median of four is the second", ms(1, 2, 3, 4), 50, 2 * time.Millisecond},
		{"p95 of four is the last", ms(1, 2, 3, 4), 95, 4 * time.Millisecond},
		{"p50 of 1..100", ms(hundred...), 50, 50 * time.Millisecond},
		{"p95 of 1..100 is 95, not 96", ms(hundred...), 95, 95 * time.Millisecond},
		{"p99 of 1..100", ms(hundred...), 99, 99 * time.Millisecond},
		{"p99.9 of 1..100", ms(hundred...), 99.9, 100 * time.Millisecond},
		{"p100", ms(hundred...), 100, 100 * time.Millisecond},
		{"tiny p is the minimum", ms(hundred...), 0.001, 1 * time.Millisecond},
	} {
		if got := Percentile(c.sorted, c.p); got != c.want {
			t.Errorf("%s: Percentile(p=%v) = %v, want %v", c.name, c.p, got, c.want)
		}
	}
}

func TestSummarize(t *testing.T) {
	if got := Summarize(nil); got != (Latency{}) {
		t.Errorf("Summarize(nil) = %+v, want zero", got)
	}
	// 1..200 ms shuffled: Summarize sorts in place.
	var ds []time.Duration
	for i := 200; i >= 1; i-- {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	ds[3], ds[150] = ds[150], ds[3]
	got := Summarize(ds)
	want := Latency{
		N:    200,
		Mean: 100500 * time.Microsecond,
		P50:  100 * time.Millisecond,
		P95:  190 * time.Millisecond,
		P99:  198 * time.Millisecond,
		P999: 200 * time.Millisecond,
		Max:  200 * time.Millisecond,
	}
	if got != want {
		t.Errorf("Summarize = %+v\nwant %+v", got, want)
	}
	for i := 1; i < len(ds); i++ {
		if ds[i-1] > ds[i] {
			t.Fatalf("ds not sorted at %d", i)
		}
	}
}
