package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestTransactionSnapshot: reads in a transaction the client opened run
// in it, so they see its snapshot as they would directly. Shoal ran them
// distributed, on the workers' connections, outside the transaction: a
// second count in a REPEATABLE READ transaction saw rows committed after
// the first (mysqldump --single-transaction, or a report reading several
// tables as of one moment, would mix moments).
func TestTransactionSnapshot(t *testing.T) {
	directExec(t, "DROP TABLE IF EXISTS tx_t",
		"CREATE TABLE tx_t (id INT NOT NULL PRIMARY KEY, g TINYINT NOT NULL, v INT NOT NULL)",
		"INSERT INTO tx_t SELECT seq, seq % 7, seq % 1000 FROM seq_1_to_30000")
	t.Cleanup(func() { env.direct.Exec("DROP TABLE IF EXISTS tx_t") })
	replicasAndCatalog(t)
	const count = "SELECT g, COUNT(*), SUM(v) FROM tx_t GROUP BY g ORDER BY g"
	if plan := explain(t, count); !strings.Contains(plan, "split ") {
		t.Fatalf("%s is not distributed outside a transaction:\n%s", count, plan)
	}
	ctx := context.Background()
	reads := 0
	for _, begin := range []string{"START TRANSACTION WITH CONSISTENT SNAPSHOT", "START TRANSACTION READ ONLY", "BEGIN"} {
		c, err := env.shoal.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		read := func() string {
			reads++ // a new text each time: no cached result answers it
			q := fmt.Sprintf("SELECT g, COUNT(*), SUM(v) FROM tx_t WHERE v > -%d GROUP BY g ORDER BY g", reads)
			r, err := queryArgs(c, q)
			if err != nil || r.err != nil {
				t.Fatalf("%s: %v %v", q, err, r.err)
			}
			return strings.Join(flat(r.rows), " ")
		}
		if _, err := c.ExecContext(ctx, begin); err != nil {
			t.Fatalf("%s: %v", begin, err)
		}
		before := read()
		directExec(t, "INSERT INTO tx_t SELECT 100000 + seq, 3, 1 FROM seq_1_to_500")
		replicasCaughtUp(t)
		if got := read(); got != before {
			t.Errorf("after %s the second read saw the insert committed after the first:\nfirst  %s\nsecond %s", begin, before, got)
		}
		if _, err := c.ExecContext(ctx, "COMMIT"); err != nil {
			t.Fatal(err)
		}
		if got := read(); got == before {
			t.Errorf("after COMMIT the read still saw the transaction's snapshot: %s", got)
		}
		c.Close()
		directExec(t, "DELETE FROM tx_t WHERE id > 100000")
		replicasCaughtUp(t)
	}
}
