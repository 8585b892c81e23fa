package conncoll

import (
	"testing"

	"github.com/shoaldb/shoal/sqlparse"
)

func TestConnectionCollated(t *testing.T) {
	for q, want := range map[string]bool{
		"select 'a' = 'A' from t":                                             true,
		"select count(*) from t where 'ß' = 'ss'":                             true,
		"select c, count(*) from t where monthname(d) = 'march' group by c":   true,
		"select c from t where date_format(d, '%b') in ('jan', 'feb')":        true,
		"select c from t group by c having max(date_format(d, '%b')) = 'dec'": true,
		"select strcmp('a', 'A') from t":                                      true,
		"select cast(n as char) like 'x%' from t":                             true,
		"select c from t where c = 'a'":                                       false,
		"select c from t where lower(c) = 'a' and s in ('x', 'y')":            false,
		"select c from t where 'a' = c collate utf8mb4_bin":                   false,
		"select c from t where d >= '2020-01-01' and date(dt) < '2021-01-01'": false,
		"select c from t where year(d) = '2020' and length('x') = 1":          false,
		"select c, max(s) = 'x' from t group by c":                            false,
		"select date_format(d, '%Y') k, count(*) from t group by k":           false,
		"select c from t where ifnull(c, 'x') = 'y'":                          false,
		"select c from t where ifnull(null, 'x') = 'y'":                       true,
	} {
		stmts, err := sqlparse.Parse(q)
		if err != nil {
			t.Fatal(q, err)
		}
		if got := Collated(stmts[0]); got != want {
			t.Errorf("%s: %v, want %v", q, got, want)
		}
	}
}
