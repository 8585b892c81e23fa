package replicaset

import "testing"

func TestReadModesDiffer(t *testing.T) {
	const def = "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION"
	for _, c := range []struct {
		session string
		want    bool
	}{
		{def, false},
		{"", false}, // no modes: only writes change
		{"STRICT_ALL_TABLES,NO_ZERO_DATE,NO_ZERO_IN_DATE", false},
		{def + ",PIPES_AS_CONCAT", true},
		{"ANSI_QUOTES", true},
		{"REAL_AS_FLOAT,PIPES_AS_CONCAT,ANSI_QUOTES,IGNORE_SPACE,ONLY_FULL_GROUP_BY,ANSI", true},
		{"no_backslash_escapes", true},
		{def + ",ONLY_FULL_GROUP_BY", true},
	} {
		if got := readModesDiffer(c.session, def); got != c.want {
			t.Errorf("readModesDiffer(%q, default) = %v, want %v", c.session, got, c.want)
		}
	}
	if !NamesDriftVar("SET @@SESSION.TIME_ZONE = '+00:00'") || NamesDriftVar("SET autocommit = 1") {
		t.Error("NamesDriftVar")
	}
}
