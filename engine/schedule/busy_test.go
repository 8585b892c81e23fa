package schedule

import "testing"

func TestBusy(t *testing.T) {
	for _, tc := range []struct {
		threshold, running int
		want               bool
	}{
		{-1, 100, false}, // never
		{0, 0, false},    // no worker: half of 0 slots, at least 1
		{0, 1, true},
		{3, 2, false},
		{3, 3, true},
		{3, 4, true},
	} {
		s := &Scheduler{}
		s.running.Store(int64(tc.running))
		if got := s.Busy(tc.threshold); got != tc.want {
			t.Errorf("Busy(%d) with %d running = %v, want %v", tc.threshold, tc.running, got, tc.want)
		}
	}
}
