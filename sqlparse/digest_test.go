package sqlparse

import (
	"slices"
	"testing"
)

func TestDigest(t *testing.T) {
	for _, tc := range []struct{ q, want string }{
		{"select * from ontime where id = 1500017", "select * from ontime where id = ?i"},
		{"SELECT *  FROM ontime\n WHERE id = 1500017 + 0*42", "SELECT * FROM ontime WHERE id = ?i + ?i*?i"},
		{"select * from ontime where id = CAST('7' AS SIGNED)", "select * from ontime where id = CAST(?s AS SIGNED)"},
		{"select a from t where x in (1, 2.5, 3e2, -4, 1e-3)", "select a from t where x in (?i, ?d, ?f, -?i, ?f)"},
		{"select a from t where s = 'it''s' and b = _utf8mb4'x' and n = N'y'", "select a from t where s = ?s and b = _utf8mb4?s and n = ?s"},
		// Kept: the select list, GROUP BY, HAVING, ORDER BY positions.
		{"select id + 1.5, 'abc' from t where id > 5 group by 2 having count(*) > 10 order by 1 limit 10 offset 5",
			"select id + 1.5, 'abc' from t where id > ?i group by 2 having count(*) > 10 order by 1 limit ?i offset ?i"},
		{"select a from t limit 5, 10", "select a from t limit ?i, ?i"},
		// Subqueries in WHERE are masked (all of them: they decide no column),
		// in the select list kept.
		{"select (select 1 from u where u.k = 3) from t where id in (select k from u where v = 'q')",
			"select (select 1 from u where u.k = 3) from t where id in (select k from u where v = ?s)"},
		{"select a from t where x = (select max(y) from u where z = 4 order by 1) and w = 9",
			"select a from t where x = (select max(y) from u where z = ?i order by ?i) and w = ?i"},
		// Hex and bit literals, names with digits: kept.
		{"select a from t where x = 0x1F and y = x'1f' and z = b'101' and t1.c2 = 2", "select a from t where x = 0x1F and y = x'1f' and z = b'101' and t1.c2 = ?i"},
		{"select a /* note */ from t -- tail\n where x = 1 # end", "select a from t where x = ?i"},
		{"select `where` from `t 1` where `x` = 1", "select `where` from `t 1` where `x` = ?i"},
	} {
		got, ok := Digest(tc.q)
		if !ok || got != tc.want {
			t.Errorf("Digest(%q) = %q, %v\nwant %q", tc.q, got, ok, tc.want)
		}
	}
	for _, q := range []string{
		"show tables",
		"with c as (select 1) select * from c",
		"select 1 union select 2",
		"select a from t where x = ?",
		"select a from t where x = 1; drop table t",
		"select /*! STRAIGHT_JOIN */ a from t",
		`select a from t where x = "s"`,
		`select a from t where x = 'a\'b'`,
		"select a from t where x = 'open",
		"",
	} {
		if d, ok := Digest(q); ok {
			t.Errorf("Digest(%q) = %q, want none", q, d)
		}
	}
	// Literal types stay apart.
	a, _ := Digest("select * from t where id = 5")
	b, _ := Digest("select * from t where id = '5'")
	if a == b {
		t.Errorf("5 and '5' share the digest %q", a)
	}
}

func TestDigestLiterals(t *testing.T) {
	for _, tc := range []struct {
		q, want string
		lits    []string
	}{
		{"select a, 7 from t where id between 10 and 20", "select a, 7 from t where id between ?i and ?i", []string{"10", "20"}},
		{"select a from t where s = 'x''y' and v > -2.5 limit 3", "select a from t where s = ?s and v > -?d limit ?i", []string{"'x''y'", "2.5", "3"}},
		{"select a from t", "select a from t", nil},
	} {
		got, lits, ok := DigestLiterals(tc.q)
		if !ok || got != tc.want || !slices.Equal(lits, tc.lits) {
			t.Errorf("DigestLiterals(%q) = %q, %q, %v\nwant %q, %q", tc.q, got, lits, ok, tc.want, tc.lits)
		}
		if d, _ := Digest(tc.q); d != got {
			t.Errorf("Digest(%q) = %q, DigestLiterals %q", tc.q, d, got)
		}
	}
}
