package livepin

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"vitess.io/vitess/go/mysql/replication"

	"github.com/shoaldb/shoal/evalexpr"
	"github.com/shoaldb/shoal/pinned"
)

// TestLiveStaleness measures a live pin under a steady write load (set
// SHOAL_LIVE_STALENESS=1): commit on the server → visible in a published
// version, p50/p99, and the rate row changes are applied at.
//
//	SHOAL_LIVE_ROWS (table size, default 100000), SHOAL_LIVE_RATE (row
//	changes/s, default 5000), SHOAL_LIVE_SECONDS (default 10)
func TestLiveStaleness(t *testing.T) {
	if os.Getenv("SHOAL_LIVE_STALENESS") == "" {
		t.Skip("set SHOAL_LIVE_STALENESS=1 to measure")
	}
	envInt := func(k string, d int) int {
		if n, err := strconv.Atoi(os.Getenv(k)); err == nil {
			return n
		}
		return d
	}
	rows, rate, secs := envInt("SHOAL_LIVE_ROWS", 100000), envInt("SHOAL_LIVE_RATE", 5000), envInt("SHOAL_LIVE_SECONDS", 10)
	c := dial(t)
	exec(t, c, "CREATE DATABASE IF NOT EXISTS lp", "DROP TABLE IF EXISTS lp.s",
		"CREATE TABLE lp.s (id INT PRIMARY KEY, grp VARCHAR(10), v DECIMAL(12,2), n INT)")
	for lo := 0; lo < rows; lo += 5000 {
		var vals []string
		for i := lo; i < min(lo+5000, rows); i++ {
			vals = append(vals, fmt.Sprintf("(%d,'g%d',%d.5,0)", i, i%50, i))
		}
		exec(t, c, "INSERT INTO lp.s VALUES "+strings.Join(vals, ","))
	}
	env, _ := evalexpr.NewEnv("10.11.0-MariaDB")
	var builds atomic.Int64
	var buildNanos atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p, _, err := Start(ctx, Spec{DB: "lp", Name: "s", SrcDB: "lp", SrcTable: "s", Whole: true, Source: "SELECT * FROM lp.s"},
		Config{Addrs: []string{testAddr}, User: "root", Env: env, Publish: func(t *pinned.Table) error {
			builds.Add(1)
			buildNanos.Add(int64(t.LoadTook))
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()

	// The writer: transactions of 10 row changes (updates and inserts),
	// paced to rate; it records each commit's sequence number
	// and time.
	type commit struct {
		seq uint64
		at  time.Time
	}
	var mu sync.Mutex
	var commits []commit
	w := dial(t)
	perTx := 10
	interval := time.Duration(float64(time.Second) * float64(perTx) / float64(rate))
	stopAt := time.Now().Add(time.Duration(secs) * time.Second)
	var visible sync.Map // seq → time first seen
	go func() {
		for time.Now().Before(stopAt.Add(5 * time.Second)) {
			if set, err := replication.ParseMariadbGTIDSet(p.Status().Position); err == nil {
				for _, g := range set.(replication.MariadbGTIDSet) {
					visible.LoadOrStore(g.Sequence, time.Now())
				}
			}
			time.Sleep(time.Millisecond)
		}
	}()
	next, i := time.Now(), 0
	for time.Now().Before(stopAt) {
		// One statement, one transaction: perTx rows, each an update of an
		// existing row (ON DUPLICATE KEY) or, every 5th, an insert.
		var vals []string
		for range perTx {
			id := (i * 7919) % rows
			if i%5 == 0 {
				id = rows + i
			}
			vals = append(vals, fmt.Sprintf("(%d,'new',1,0)", id))
			i++
		}
		exec(t, w, "INSERT INTO lp.s VALUES "+strings.Join(vals, ",")+" ON DUPLICATE KEY UPDATE n = n + 1, v = v + 1")
		r, err := w.ExecuteFetch("SELECT @@last_gtid", 1, false)
		if err != nil {
			t.Fatal(err)
		}
		parts := strings.Split(r.Rows[0][0].ToString(), "-")
		seq, _ := strconv.ParseUint(parts[len(parts)-1], 10, 64)
		mu.Lock()
		commits = append(commits, commit{seq, time.Now()})
		mu.Unlock()
		next = next.Add(interval)
		time.Sleep(time.Until(next))
	}
	caughtUp(t, c, p)
	// Staleness of commit k: the first time a position at or past it was
	// visible.
	var seen []struct {
		seq uint64
		at  time.Time
	}
	visible.Range(func(k, v any) bool {
		seen = append(seen, struct {
			seq uint64
			at  time.Time
		}{k.(uint64), v.(time.Time)})
		return true
	})
	slices.SortFunc(seen, func(a, b struct {
		seq uint64
		at  time.Time
	}) int {
		return int(a.seq) - int(b.seq)
	})
	var lags []time.Duration
	for _, cm := range commits {
		j, _ := slices.BinarySearchFunc(seen, cm.seq, func(s struct {
			seq uint64
			at  time.Time
		}, q uint64) int {
			return int(s.seq) - int(q)
		})
		if j < len(seen) {
			lags = append(lags, max(0, seen[j].at.Sub(cm.at)))
		}
	}
	slices.Sort(lags)
	q := func(f float64) time.Duration { return lags[min(len(lags)-1, int(f*float64(len(lags))))] }
	st := p.Status()
	nb := max(builds.Load()-1, 1)
	t.Logf("table %d rows; %d tx × %d row changes in %ds (%.0f changes/s offered, %.0f/s achieved); applied %d changes in %d txs",
		rows, len(commits), perTx, secs, float64(rate), float64(len(commits)*perTx)/float64(secs), st.Applied, st.Txs)
	t.Logf("staleness (commit → visible in the pin): p50 %v, p99 %v, max %v over %d commits", q(0.5), q(0.99), lags[len(lags)-1], len(lags))
	t.Logf("versions published %d (%.1f/s), mean build %v", builds.Load(), float64(builds.Load())/float64(secs), time.Duration(buildNanos.Load()/nb))
}
