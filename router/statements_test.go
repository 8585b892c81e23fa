package router

import (
	"testing"

	"github.com/shoaldb/shoal/sqlparse"
)

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

// TestStartsWithFold: every statement a before-parsing pattern
// recognises passes its first-word check (Run tries the pattern only
// then), and an ordinary statement passes none.
func TestStartsWithFold(t *testing.T) {
	for _, q := range []string{
		"KILL 5", " kill query 7;", "\f\nKiLL CONNECTION 9",
		"SHOW SHOAL REPLICAS", "\tshow  shoal replicas ;", "show full processlist", " SHOW PROCESSLIST;",
		"SELECT CONNECTION_ID()", "  select connection_id ( ) ;",
	} {
		_, _, kill := parseKill(q)
		conn := connIDRE.MatchString(q)
		show := isShowReplicas(q) || processlistRE.MatchString(q)
		if !kill && !conn && !show {
			t.Errorf("%q: no pattern recognises it", q)
		}
		if kill && !startsWithFold(q, "KILL") || show && !startsWithFold(q, "SHOW") || conn && !(startsWithFold(q, "SELECT") && sqlparse.ContainsFold(q, "CONNECTION_ID")) {
			t.Errorf("%q: recognised by its pattern but not by the first-word check", q)
		}
	}
	for _, q := range []string{"select * from ontime where id = 7", "(select 1)", "killer", "selec 1"} {
		if startsWithFold(q, "KILL") && q != "killer" || startsWithFold(q, "SHOW") {
			t.Errorf("%q passes a first-word check", q)
		}
	}
	for _, q := range []string{"CACHE TABLE t", "(cache table t", "uncache table t", "Refresh table t", "show cached tables"} {
		if firstWord(q) == "" {
			t.Errorf("firstWord(%q) is empty: pinStatement would pass it on", q)
		}
	}
	if firstWord("select 1") != "" {
		t.Errorf("firstWord of a SELECT is %q", firstWord("select 1"))
	}
}
