package router

import "testing"

func TestCacheSyntax(t *testing.T) {
	for _, c := range []struct{ q, name, opts, source string }{
		{"CACHE TABLE db.t", "db.t", "", ""},
		{"cache table t options ('refresh' = 'live')", "t", "'refresh' = 'live'", ""},
		{"CACHE TABLE `a b`.t OPTIONS('refresh'='live') AS SELECT id FROM x WHERE s = '(' ;", "`a b`.t", "'refresh'='live'", "SELECT id FROM x WHERE s = '('"},
		{"CACHE TABLE v AS SELECT 1", "v", "", "SELECT 1"},
		{"CACHE TABLE v OPTIONS ('k' = 'a)b') AS SELECT 1", "v", "'k' = 'a)b'", "SELECT 1"},
	} {
		m := cacheRe.FindStringSubmatch(c.q)
		if m == nil || m[1] != c.name || m[2] != c.opts || m[3] != c.source {
			t.Errorf("%s: %q", c.q, m)
		}
	}
}
