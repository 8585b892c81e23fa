package catalog

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/shoaldb/shoal/planner"
	"github.com/shoaldb/shoal/sqlparse"
)

// TestMissRefresherBurst: a burst of statements missing a table makes one
// catalog read, and a second burst right after waits for the minimum
// interval instead of reading at once.
func TestMissRefresherBurst(t *testing.T) {
	var cur atomic.Pointer[Snapshot]
	cur.Store(&Snapshot{})
	var reads atomic.Int32
	m := &MissRefresher{
		Interval: 200 * time.Millisecond,
		Current:  cur.Load,
		Base:     context.Background(),
		Log:      slog.New(slog.NewTextHandler(io.Discard, nil)),
		Read: func(ctx context.Context) error {
			reads.Add(1)
			time.Sleep(20 * time.Millisecond) // an information_schema read
			cur.Store(&Snapshot{})
			return nil
		},
	}
	burst := func() (changed int32) {
		seen := cur.Load()
		var wg sync.WaitGroup
		var n atomic.Int32
		for range 50 {
			wg.Go(func() {
				if m.Refresh(context.Background(), seen) {
					n.Add(1)
				}
			})
		}
		wg.Wait()
		return n.Load()
	}
	start := time.Now()
	if n := burst(); n != 50 || reads.Load() != 1 {
		t.Fatalf("first burst: %d of 50 saw a new snapshot, %d reads (want 50, 1)", n, reads.Load())
	}
	if n := burst(); n != 50 || reads.Load() != 2 {
		t.Fatalf("second burst: %d of 50 saw a new snapshot, %d reads (want 50, 2)", n, reads.Load())
	}
	if el := time.Since(start); el < 200*time.Millisecond {
		t.Errorf("two reads %v apart, want at least the 200ms interval", el)
	}
	// A caller whose snapshot is already stale plans at once, no read.
	old := &Snapshot{}
	if !m.Refresh(context.Background(), old) || reads.Load() != 2 {
		t.Errorf("stale caller: reads %d, want 2", reads.Load())
	}
	// A caller that gives up returns when its context ends.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m.Read = func(ctx context.Context) error { time.Sleep(50 * time.Millisecond); return nil }
	if m.Refresh(ctx, cur.Load()) {
		t.Error("cancelled caller saw a change that did not happen")
	}
	time.Sleep(300 * time.Millisecond) // let the flight end (goroutine leak check)
}

// TestMissingTables: tables the snapshot lacks, not counting CTEs, system
// schemas and pinned tables.
func TestMissingTables(t *testing.T) {
	snap := &Snapshot{Tables: planner.MapCatalog{}}
	snap.Tables.Add(&planner.Table{Schema: "ontime", Name: "ontime"})
	pinned := func(db, name string) bool { return name == "pin" }
	cases := []struct {
		sql  string
		want []string
	}{
		{"SELECT COUNT(*) FROM ontime", nil},
		{"SELECT COUNT(*) FROM fresh", []string{"ontime.fresh"}},
		{"SELECT COUNT(*) FROM other.ontime JOIN ontime USING (id)", []string{"other.ontime"}},
		{"WITH c AS (SELECT Carrier FROM ontime) SELECT COUNT(*) FROM c", nil},
		{"SELECT COUNT(*) FROM information_schema.TABLES", nil},
		{"SELECT COUNT(*) FROM pin", nil},
		{"SELECT COUNT(*) FROM ontime WHERE id IN (SELECT id FROM newer)", []string{"ontime.newer"}},
	}
	for _, c := range cases {
		stmt, err := sqlparse.ParseOne(c.sql)
		if err != nil {
			t.Fatal(err)
		}
		got := MissingTables(snap, "ontime", stmt.(*ast.SelectStmt), pinned)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: missing %v, want %v", c.sql, got, c.want)
		}
	}
}
