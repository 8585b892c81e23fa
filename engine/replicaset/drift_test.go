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

func TestZoneKey(t *testing.T) {
	for _, c := range []struct {
		a, b, system string
		same         bool
	}{
		{"SYSTEM", "+00:00", "UTC", true},
		{"+00:00", "SYSTEM", "UTC", true},
		{"SYSTEM", "-0:00", "UTC", true},
		{"SYSTEM", "UTC", "UTC", true},
		{"utc", "Etc/UTC", "CET", true},
		{"+05:30", "+5:30", "UTC", true},
		{"SYSTEM", "SYSTEM", "CET", true},
		{"SYSTEM", "+01:00", "CET", false}, // CET has summer time
		{"SYSTEM", "+00:00", "CET", false},
		{"+05:30", "-05:30", "UTC", false},
		{"SYSTEM", "Europe/Berlin", "UTC", false},
		{"+00:00", "+00:01", "UTC", false},
	} {
		if got := zoneKey(c.a, c.system) == zoneKey(c.b, c.system); got != c.same {
			t.Errorf("zoneKey(%q) == zoneKey(%q) with system %s: %v, want %v", c.a, c.b, c.system, got, c.same)
		}
	}
}
