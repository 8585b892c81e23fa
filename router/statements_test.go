package router

import "testing"

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
}
