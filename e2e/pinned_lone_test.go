package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shoaldb/shoal/config"
)

// TestPinnedLonePartition runs the generated queries over pinned ontime on
// a coordinator with one in-memory run slot, so that every statement runs
// in one partition: the path a loaded coordinator takes, where the merge
// takes a vectorized aggregate's groups as they are instead of hashing
// them again (arrowexec.MarkDistinctGroups). Answers must be MariaDB's,
// and the metric shoal_pinned_whole_merges_total must show the path was
// taken. The shared coordinator, on an idle machine, runs these queries
// in two partitions and never takes it.
func TestPinnedLonePartition(t *testing.T) {
	co, db := serveCoordinator(t, config.Coordinator{
		Listen: "127.0.0.1:0", HTTPListen: new("127.0.0.1:0"), Replicas: env.replicas, MinRowsPerFragment: 1000,
		InMemoryConcurrency: 1,
	}, nil)
	if _, err := db.Exec("CACHE TABLE ontime.ontime"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Exec("UNCACHE TABLE IF EXISTS ontime.ontime") })
	metrics := "http://" + co.HTTPAddr().String() + "/metrics"
	const whole = "shoal_pinned_whole_merges_total"
	before := scrapeURL(t, metrics).get(whole)

	vectorized, grouped := 0, 0
	// Three times the pinned count: only the vectorized ones run.
	n := 3 * pinnedCount(t)
	for i := 0; i < n; i++ {
		q := GenQuery(103, i)
		if q.Category == CatBreadth {
			continue
		}
		r, err := query(db, "EXPLAIN "+q.SQL)
		if err != nil || r.err != nil {
			t.Fatalf("EXPLAIN %s: %v %v", q.SQL, err, r.err)
		}
		var plan []string
		for _, row := range r.rows {
			plan = append(plan, row[0])
		}
		ex := strings.Join(plan, "\n")
		if !strings.Contains(ex, "vectorized") {
			continue
		}
		vectorized++
		if strings.Contains(strings.ToUpper(q.SQL), "GROUP BY") {
			grouped++
		}
		t.Run(fmt.Sprintf("%04d-%s", i, q.Category), func(t *testing.T) {
			got, err := query(db, q.SQL)
			if err != nil {
				t.Fatal(err)
			}
			want, err := query(env.direct, q.SQL)
			if err != nil {
				t.Fatal(err)
			}
			compare(t, q.SQL, got, want, q.Ordered)
			if t.Failed() {
				t.Logf("plan:\n%s", ex)
			}
		})
	}
	merged := int(scrapeURL(t, metrics).get(whole) - before)
	t.Logf("%d generated queries: %d vectorized, %d of them with GROUP BY; %d merged whole", n, vectorized, grouped, merged)
	if vectorized < 20 {
		t.Errorf("only %d vectorized queries: the test covers too little", vectorized)
	}
	if merged < grouped*3/4 || merged == 0 {
		t.Errorf("%d of %d vectorized GROUP BY statements merged whole, want at least three quarters", merged, grouped)
	}
}
