package coordinator

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
		got, why := assess(c.st, 30*time.Second)
		if got != c.ok || !strings.Contains(why, c.why) {
			t.Errorf("%s: %v %q", c.name, got, why)
		}
	}
}

func TestStatementMatchers(t *testing.T) {
	for q, want := range map[string]bool{
		"SHOW SHOAL REPLICAS": true, "show shoal replicas;": true, "  Show\n\tShoal   Replicas ; ": true,
		"SHOW SHOAL": false, "SHOW SHOAL REPLICAS x": false, "SELECT 'SHOW SHOAL REPLICAS'": false,
	} {
		if isShowReplicas(q) != want {
			t.Errorf("isShowReplicas(%q) != %v", q, want)
		}
	}
	for q, want := range map[string][3]any{
		"KILL 12": {uint32(12), false, true}, "kill query 7;": {uint32(7), true, true},
		"KILL CONNECTION 3": {uint32(3), false, true}, "KILL QUERY": {uint32(0), false, false},
		"KILL 99999999999": {uint32(0), false, false}, "KILL 1; DROP TABLE t": {uint32(0), false, false},
	} {
		id, qo, ok := parseKill(q)
		if id != want[0] || qo != want[1] || ok != want[2] {
			t.Errorf("parseKill(%q) = %v %v %v", q, id, qo, ok)
		}
	}
	p := errorPacket(1040, "08004", "Too many connections")
	if len(p) != 4+1+2+1+5+20 || p[4] != 0xff || p[5] != 0x10 || p[6] != 0x04 || p[3] != 0 {
		t.Errorf("error packet %x", p)
	}
}
