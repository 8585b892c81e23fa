package e2e

import (
	"flag"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var updateGolden = flag.Bool("update", false, "rewrite e2e/testdata/*.golden from what Shoal answers")

// explainCases are the statements of testdata/explain.golden: derived
// tables, CTEs and UNION ALL that run distributed (EXPLAIN shows the inner
// plans and the outer statement in memory), and their neighbours that do
// not (EXPLAIN shows why, or a UNION passes through to the replica).
var explainCases = []string{
	"select Carrier, max(c), sum(c) from (select Carrier, DayOfWeek, count(*) c from ontime group by Carrier, DayOfWeek) t group by Carrier order by 2 desc, Carrier limit 5",
	"with t as (select Origin, count(*) n from ontime group by Origin) select count(*), sum(n) from t where n > 100",
	"select t.Origin, t.n from (select Origin, count(*) as n from ontime where DayOfWeek < 6 group by Origin) as t where t.n between 50 and 500 order by t.n desc, t.Origin",
	"select Carrier, count(*) from ontime where YearD < 1995 group by Carrier union all select Carrier, count(*) from ontime where YearD >= 2010 group by Carrier",
	"(select Carrier, count(*) c from ontime group by Carrier) union all (select Origin, count(*) from ontime group by Origin) order by c desc, 1 limit 5",
	// A join of two derived aggregates (ClickHouse OnTime Q5): each side
	// distributed, the join in memory.
	"select Carrier, c, c2, c*100/c2 as c3 from (select Carrier, count(*) as c from ontime where DepDelayMinutes > 10 and YearD = 2007 group by Carrier) a inner join (select Carrier, count(*) as c2 from ontime where YearD = 2007 group by Carrier) b using (Carrier) order by c3 desc, Carrier",
	// Not distributed: a derived table of raw rows.
	"select count(*) from (select Origin from ontime where DayOfWeek = 1) t",
}

// normalizeExplain masks what depends on the cluster's state rather than
// on the plan: the fragment count and the workers, row estimates, times.
var explainMasks = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`fragments: \d+ over .*`), "fragments: N over the healthy workers"},
	{regexp.MustCompile(`~\d+ rows`), "~N rows"},
}

func normalizeExplain(s string) string {
	for _, m := range explainMasks {
		s = m.re.ReplaceAllString(s, m.with)
	}
	return s
}

// TestExplainGolden: EXPLAIN of derived tables, CTEs and UNION ALL shows
// the plan that runs, compared with testdata/explain.golden (-update
// rewrites it). A UNION that does not distribute is passed through, so
// its EXPLAIN is MariaDB's own.
func TestExplainGolden(t *testing.T) {
	var b strings.Builder
	for _, q := range explainCases {
		b.WriteString("-- " + q + "\n")
		b.WriteString(normalizeExplain(explain(t, q)) + "\n\n")
	}
	got := b.String()
	const file = "testdata/explain.golden"
	if *updateGolden {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("EXPLAIN differs from %s (-update rewrites it):\n%s", file, got)
	}
	// A UNION (distinct) passes through: the replica's EXPLAIN.
	r, err := query(env.shoal, "EXPLAIN select Carrier from ontime where YearD = 2000 group by Carrier union select Carrier from ontime where YearD = 2001 group by Carrier")
	if err != nil || r.err != nil {
		t.Fatalf("EXPLAIN of a UNION: %v %v", err, r.err)
	}
	if len(r.cols) < 5 || r.cols[1] != "select_type" {
		t.Errorf("EXPLAIN of a UNION: columns %v, want MariaDB's", r.cols)
	}
}

// TestExplainAnalyzeDerived: EXPLAIN ANALYZE of a derived table, of a
// UNION ALL and of a join of derived tables runs them and counts the rows
// MariaDB returns for the statement.
func TestExplainAnalyzeDerived(t *testing.T) {
	for _, q := range explainCases[:6] {
		r, err := query(env.shoal, "EXPLAIN ANALYZE "+q)
		if err != nil || r.err != nil {
			t.Fatalf("EXPLAIN ANALYZE %s: %v %v", q, err, r.err)
		}
		last := r.rows[len(r.rows)-1][0]
		want, err := query(env.direct, q)
		if err != nil || want.err != nil {
			t.Fatalf("%s: %v %v", q, err, want.err)
		}
		if !strings.HasPrefix(last, "analyze: "+strconv.Itoa(len(want.rows))+" rows returned in ") {
			t.Errorf("EXPLAIN ANALYZE %s: %q, want %d rows", q, last, len(want.rows))
		}
	}
}
