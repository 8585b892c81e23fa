package cluster

import (
	"strings"
	"testing"
	"time"

	"github.com/shoaldb/shoal/worker"
)

func lag(s float64) *float64 { return &s }

// TestAssess: the health rule. A replica behind max_replica_lag, with a
// replication thread stopped, with unknown lag, or reported unhealthy by
// its worker serves nothing; a standalone server is never behind. Drop a
// check from assess and its case fails.
func TestAssess(t *testing.T) {
	ok := worker.Status{Healthy: true, IsReplica: true, IORunning: true, SQLRunning: true, ReplicaLagSeconds: lag(3)}
	mod := func(f func(*worker.Status)) worker.Status { s := ok; f(&s); return s }
	for _, c := range []struct {
		name string
		st   worker.Status
		ok   bool
		why  string
	}{
		{"caught up", ok, true, ""},
		{"at the limit", mod(func(s *worker.Status) { s.ReplicaLagSeconds = lag(30) }), true, ""},
		{"behind", mod(func(s *worker.Status) { s.ReplicaLagSeconds = lag(31) }), false, "behind"},
		{"io stopped", mod(func(s *worker.Status) { s.IORunning = false }), false, "not running"},
		{"sql stopped", mod(func(s *worker.Status) { s.SQLRunning = false }), false, "not running"},
		{"lag unknown", mod(func(s *worker.Status) { s.ReplicaLagSeconds = nil }), false, "unknown"},
		{"unreachable", mod(func(s *worker.Status) { s.Healthy = false; s.Error = "replica unreachable: x" }), false, "unreachable"},
		{"standalone", worker.Status{Healthy: true}, true, ""},
	} {
		got, why := Assess(c.st, 30*time.Second)
		if got != c.ok || !strings.Contains(why, c.why) {
			t.Errorf("%s: %v %q", c.name, got, why)
		}
	}
}
