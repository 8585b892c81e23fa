package livepin

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/shoaldb/shoal/evalexpr"
	"github.com/shoaldb/shoal/gtid"
	"github.com/shoaldb/shoal/pinned"
)

// TestWaitFor: right after a commit, WaitFor(the server's position)
// returns only once the published version holds the commit and carries a
// position covering it; a floor the server never reaches ends with the
// caller's deadline. Return before the version is published (or publish
// without the position) and the row count or the position check fails.
func TestWaitFor(t *testing.T) {
	c := dial(t)
	exec(t, c, "CREATE DATABASE IF NOT EXISTS lp", "DROP TABLE IF EXISTS lp.w",
		"CREATE TABLE lp.w (id INT PRIMARY KEY, v INT)", "INSERT INTO lp.w VALUES (0, 0)")
	env, err := evalexpr.NewEnv("10.11.0-MariaDB")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu   sync.Mutex
		last *pinned.Table
	)
	ctx, cancel := context.WithCancel(context.Background())
	p, _, err := Start(ctx, Spec{DB: "lp", Name: "w", SrcDB: "lp", SrcTable: "w", Whole: true, Source: "SELECT * FROM lp.w"},
		Config{Addrs: []string{testAddr}, User: "root", Env: env, MinInterval: 200 * time.Millisecond,
			Publish: func(t *pinned.Table) error { mu.Lock(); last = t; mu.Unlock(); return nil }})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); p.Stop() })

	for i := 1; i <= 5; i++ {
		exec(t, c, fmt.Sprintf("INSERT INTO lp.w VALUES (%d, %d)", i, i))
		r, err := c.ExecuteFetch("SELECT @@gtid_binlog_pos", 1, false)
		if err != nil {
			t.Fatal(err)
		}
		floor := r.Rows[0][0].ToString()
		wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
		err = p.WaitFor(wctx, floor)
		wcancel()
		if err != nil {
			t.Fatalf("write %d: WaitFor(%s): %v", i, floor, err)
		}
		mu.Lock()
		v := last
		mu.Unlock()
		if v.Rows != int64(i+1) {
			t.Fatalf("write %d: WaitFor(%s) returned with %d rows published, want %d", i, floor, v.Rows, i+1)
		}
		if ok, err := gtid.Covers(true, v.Position, floor); !ok || err != nil {
			t.Fatalf("write %d: the published version's position %q does not cover %s (%v)", i, v.Position, floor, err)
		}
	}

	wctx, wcancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer wcancel()
	if err := p.WaitFor(wctx, "0-1-999999999"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("WaitFor a position never reached: %v, want the deadline", err)
	}
}
