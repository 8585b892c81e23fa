package sqlparse

import "testing"

func TestSelectClauses(t *testing.T) {
	const pred = "o.id < 1"
	cases := []struct {
		q            string
		ok           bool
		limit0, with string
	}{
		{q: "SELECT a FROM t", ok: true,
			limit0: "SELECT a FROM t\nLIMIT 0",
			with:   "SELECT a FROM t\nWHERE o.id < 1\n"},
		{q: "select a, count(*) from t where x = 'GROUP BY' or y group by a order by 2 limit 5 offset 2;", ok: true,
			limit0: "select a, count(*) from t where x = 'GROUP BY' or y group by a order by 2 \nLIMIT 0",
			with:   "select a, count(*) from t where ( x = 'GROUP BY' or y \n) AND o.id < 1\ngroup by a order by 2 limit 5 offset 2"},
		{q: "SELECT a FROM t -- the end", ok: true,
			limit0: "SELECT a FROM t\nLIMIT 0",
			with:   "SELECT a FROM t\nWHERE o.id < 1\n"},
		{q: "SELECT a FROM t WHERE b -- note\nGROUP BY a", ok: true,
			limit0: "SELECT a FROM t WHERE b -- note\nGROUP BY a\nLIMIT 0",
			with:   "SELECT a FROM t WHERE ( b -- note\n\n) AND o.id < 1\nGROUP BY a"},
		{q: "SELECT (SELECT max(b) FROM u WHERE u.c = t.c LIMIT 1) AS m, `where` FROM t /* LIMIT 3 */ HAVING m > 0", ok: true,
			limit0: "SELECT (SELECT max(b) FROM u WHERE u.c = t.c LIMIT 1) AS m, `where` FROM t /* LIMIT 3 */ HAVING m > 0\nLIMIT 0",
			with:   "SELECT (SELECT max(b) FROM u WHERE u.c = t.c LIMIT 1) AS m, `where` FROM t /* LIMIT 3 */ \nWHERE o.id < 1\nHAVING m > 0"},
		{q: "SELECT t.order FROM t ORDER BY 1", ok: true,
			limit0: "SELECT t.order FROM t ORDER BY 1\nLIMIT 0",
			with:   "SELECT t.order FROM t \nWHERE o.id < 1\nORDER BY 1"},
		{q: "SELECT a FROM t UNION SELECT b FROM u"},
		{q: "SELECT a FROM t FOR UPDATE"},
		{q: "SELECT a INTO @x FROM t"},
		{q: "SELECT a FROM t ORDER BY a WHERE b"},
		{q: "SELECT (a FROM t"},
	}
	for _, c := range cases {
		cl, ok := SelectClauses(c.q)
		if ok != c.ok {
			t.Errorf("%q: ok %v, want %v", c.q, ok, c.ok)
			continue
		}
		if !ok {
			continue
		}
		if got := cl.WithLimit0(c.q); got != c.limit0 {
			t.Errorf("%q: WithLimit0\n got %q\nwant %q", c.q, got, c.limit0)
		}
		if got := cl.WithPredicate(c.q, pred); got != c.with {
			t.Errorf("%q: WithPredicate\n got %q\nwant %q", c.q, got, c.with)
		}
		for _, s := range []string{cl.WithLimit0(c.q), cl.WithPredicate(c.q, pred)} {
			if _, err := ParseOne(s); err != nil {
				t.Errorf("%q does not parse: %v", s, err)
			}
		}
	}
}
