package catalog

import (
	"context"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"golang.org/x/sync/singleflight"

	"github.com/shoaldb/shoal/planner"
)

// Catalog freshness. The catalog is re-read every catalog_refresh_interval
// (background), and at once when a statement names a table the snapshot
// lacks (a table created since the last read): without that, the new
// table's statements passed through until the next timed read. Misses
// are single-flighted — a burst of statements naming the missing table
// waits for one information_schema read — and such reads start at least
// MissInterval apart, so statements naming a table that does not
// exist (or not yet on the replicas) cannot turn into a stream of catalog
// reads under load.

// MissInterval is the least time between the starts of two
// catalog reads caused by misses.
const MissInterval = time.Second

// missTimeout bounds one catalog read caused by a miss; the
// statements waiting for it give up with their own contexts.
const missTimeout = 30 * time.Second

// MissRefresher re-reads the catalog for statements that name a table it
// lacks: one read at a time shared by every caller (single flight), reads
// starting at least interval apart.
type MissRefresher struct {
	Interval time.Duration
	// Current is the snapshot in use; Read replaces it (Engine.RefreshCatalog).
	Current func() *Snapshot
	Read    func(ctx context.Context) error
	// Base bounds every read (the engine's life); Log reports failures.
	Base context.Context
	Log  *slog.Logger

	flight singleflight.Group
	last   atomic.Int64 // unix nanoseconds when the last read started
	reads  atomic.Int64 // reads started (metrics, tests)
}

// Reads is the number of reads started.
func (m *MissRefresher) Reads() int64 { return m.reads.Load() }

// Refresh re-reads the catalog because a statement planned over seen
// named a table it lacks, and reports whether the snapshot has changed
// since seen. Concurrent callers share one read; a caller whose ctx ends
// stops waiting (the read goes on for the others).
func (m *MissRefresher) Refresh(ctx context.Context, seen *Snapshot) bool {
	if m.Current() != seen {
		return true // read since: plan over that one
	}
	ch := m.flight.DoChan("catalog", func() (any, error) {
		if m.Current() != seen {
			return nil, nil // a read finished while this flight formed
		}
		if wait := time.Duration(m.last.Load() + int64(m.Interval) - time.Now().UnixNano()); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-m.Base.Done():
				t.Stop()
				return nil, m.Base.Err()
			}
		}
		m.last.Store(time.Now().UnixNano())
		m.reads.Add(1)
		rctx, cancel := context.WithTimeout(m.Base, missTimeout)
		defer cancel()
		err := m.Read(rctx)
		if err != nil {
			m.Log.Warn("catalog refresh on a missing table failed; keeping the previous one", "err", err)
		}
		return nil, err
	})
	select {
	case <-ch:
	case <-ctx.Done():
	}
	return m.Current() != seen
}

// MissingTables lists the tables sel reads (db qualifies bare names) that
// the snapshot lacks, leaving out CTEs, the system schemas (never in
// the catalog) and names pinned reports as held in memory.
func MissingTables(snap *Snapshot, db string, sel ast.Node, pinned func(db, name string) bool) []string {
	ctes := map[string]bool{}
	sel.Accept(&cteNames{names: ctes})
	var out []string
	for _, ref := range planner.TableRefs(sel, db) {
		d, name, _ := strings.Cut(ref, ".")
		switch strings.ToLower(d) {
		case "", "information_schema", "mysql", "performance_schema", "sys":
			continue
		}
		if ctes[strings.ToLower(name)] || pinned(d, name) {
			continue
		}
		if _, ok := snap.Tables.Table(d, name); !ok {
			out = append(out, ref)
		}
	}
	return out
}

// cteNames collects the names of the common table expressions of a
// statement, lower case.
type cteNames struct{ names map[string]bool }

func (v *cteNames) Enter(n ast.Node) (ast.Node, bool) {
	if w, ok := n.(*ast.WithClause); ok {
		for _, c := range w.CTEs {
			v.names[c.Name.L] = true
		}
	}
	return n, false
}

func (v *cteNames) Leave(n ast.Node) (ast.Node, bool) { return n, true }
