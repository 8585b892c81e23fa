package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shoaldb/shoal/config"
)

// TestCatalogFreshness: a table created on the primary after the
// coordinator started is distributed as soon as the replicas have it. The
// coordinator's timed catalog refresh is set to an hour, so only the
// refresh on a catalog miss (engine/catalog/freshness.go) can find the table: the
// first EXPLAIN naming it must already show a split plan, and the answer
// must be the primary's.
func TestCatalogFreshness(t *testing.T) {
	fs := startFaultShoal(t, func(c *config.Coordinator) {
		c.CatalogRefreshInterval = config.Duration(time.Hour)
	})
	name := fmt.Sprintf("fresh_%d", time.Now().UnixNano()%1_000_000_000)
	for _, q := range []string{
		"CREATE TABLE " + name + " (id INT NOT NULL PRIMARY KEY, Carrier VARCHAR(4) NOT NULL, Distance INT NULL)",
		"INSERT INTO " + name + " SELECT id, Carrier, Distance FROM ontime",
	} {
		if _, err := env.direct.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() { env.direct.Exec("DROP TABLE IF EXISTS " + name) })
	replicasCaughtUp(t)

	q := "SELECT Carrier, COUNT(*), SUM(Distance) FROM " + name + " GROUP BY Carrier ORDER BY Carrier"
	start := time.Now()
	ex, err := query(fs.db, "EXPLAIN "+q)
	if err != nil || ex.err != nil || len(ex.rows) == 0 {
		t.Fatalf("EXPLAIN %s: %v %v", q, err, ex)
	}
	took := time.Since(start)
	if first := ex.rows[0][0]; !strings.HasPrefix(first, "split ") {
		t.Fatalf("a table created after the coordinator started is not distributed: %q", first)
	}
	t.Logf("first EXPLAIN naming the new table (catalog read included): %v", took.Round(time.Millisecond))
	got, err := query(fs.db, q)
	if err != nil || got.err != nil {
		t.Fatalf("through shoal: %v %v", err, got)
	}
	want, err := query(env.direct, q)
	if err != nil || want.err != nil {
		t.Fatalf("direct: %v %v", err, want)
	}
	if len(got.rows) == 0 || !slices.EqualFunc(got.rows, want.rows, slices.Equal) {
		t.Errorf("%s:\nshoal  %v\ndirect %v", q, got.rows, want.rows)
	}

	// A table that does not exist still gets the replica's own error
	// (1146), with the catalog re-read at most once a second meanwhile.
	r, err := query(fs.db, "SELECT COUNT(*) FROM no_such_table_"+name)
	if err != nil || r.err == nil || r.err.Number != 1146 {
		t.Errorf("missing table: %v %v, want error 1146", err, r)
	}
}
