package engine

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/engine/coldefs"
	"github.com/shoaldb/shoal/engine/pinshape"
	"github.com/shoaldb/shoal/engine/pinstore"
	"github.com/shoaldb/shoal/engine/route"
	"github.com/shoaldb/shoal/engine/rowformat"
	"github.com/shoaldb/shoal/engine/runqueue"
	"github.com/shoaldb/shoal/engine/schedule"
	"github.com/shoaldb/shoal/observe"
	"github.com/shoaldb/shoal/pinned"
	"github.com/shoaldb/shoal/pinned/pinexec"
	"github.com/shoaldb/shoal/planner"
	"github.com/shoaldb/shoal/sqlparse"
)

// Queries over pinned tables: how they are planned (pinCatalog), prepared
// (the fragment compiled for package pinned) and run in memory (inMemory).
// The pins' lives — CACHE, UNCACHE, REFRESH, live pins — are
// engine/pinstore's; it reads a pin's rows through pinSource.

// pinSource is the engine as the pin store's Source
// (engine/pinstore): a pin's rows are read by the same distributed scan
// as any query, or on one replica when its source does not distribute.
type pinSource struct{ e *Engine }

func (p pinSource) Tables() planner.Catalog { return p.e.snap.Load().Tables }

func (p pinSource) ReplicaAddrs() []string { return p.e.rep.Addrs() }

func (p pinSource) RefreshCatalog(ctx context.Context) error { return p.e.RefreshCatalog(ctx) }

// Scan runs source and writes its columns and rows into into as they
// arrive. sess is the client's session when a client's statement pinned
// it (its passthrough connection and SETs are used), or the store's own
// for a configured pin.
func (p pinSource) Scan(ctx context.Context, sess pinstore.Session, db, source string, into pinstore.Rows) error {
	s := p.e
	ss, ok := sess.(*Session)
	if !ok {
		ss = &Session{DB: db}
		defer ss.CloseBackend()
	}
	stmt, err := sqlparse.ParseOne(source)
	if err != nil {
		return err
	}
	sel := stmt.(*ast.SelectStmt)
	pr, _, err := s.prep.planOnWith(ctx, s.snap.Load().Tables, db, source, sel, false) // a pin reads the whole source
	if err != nil {
		return err
	}
	var plain bool
	var own []*querypb.Field // each text column's own collation (pinstore.OwnCollations)
	switch {
	case pr == nil:
		own = s.prep.unconverted(ctx, db, "SELECT * FROM ("+source+") AS `shoal_pin` LIMIT 0")
	case !pr.plan.Aggregate && len(pr.order) == 0 && pr.plan.Limit < 0 && pr.plan.Hidden == 0 && len(pr.fragFields) == len(pr.fields):
		plain = true // the fragments' columns carry their own collations already
		if own, err = rowformat.RealCharsets(pr.fields, pr.fragFields); err != nil {
			return err
		}
	case rowformat.HasCharColumns(pr.fields):
		own = s.prep.unconverted(ctx, db, pr.plan.MetaSQL)
	}
	into = pinstore.OwnCollations(into, own)
	rows := func(r *sqltypes.Result) error { // a merged or passthrough result
		if r.Fields != nil {
			if err := into.Fields(r.Fields); err != nil {
				return err
			}
		}
		for _, row := range r.Rows {
			if err := into.Row(row); err != nil {
				return err
			}
		}
		return nil
	}
	if pr == nil {
		return s.Passthrough(ctx, ss, source, rows)
	}
	if err := into.Fields(pr.fields); err != nil {
		return err
	}
	qid := strconv.FormatUint(s.queryID.Next(), 10)
	var st *schedule.Stats
	if plain {
		// A plain scan: the workers' batches are the table's rows.
		st, err = s.run(ctx, pr, qid, schedule.LockedSink(func(_ int, bs []arrow.RecordBatch) error {
			for _, b := range bs {
				if err := into.Batch(b); err != nil {
					return err
				}
			}
			return nil
		}))
	} else {
		st, err = s.merge.execute(ctx, pr, qid, newResultWriter(pr, rows))
	}
	s.shipped(st)
	return err
}

// kindPinned is the metrics path of a statement run in memory.
const kindPinned = "pinned"

// kind is the metrics path of a prepared statement.
func (pr *prepared) kind() string {
	if pr.prog != nil {
		return kindPinned
	}
	return observe.KindDistributed
}

// pinCatalog is the replica catalog with the pinned tables in front: a
// pinned name is found before a replica table of that name.
type pinCatalog struct {
	base planner.Catalog
	pins *pinned.Registry
}

func (c pinCatalog) Table(db, name string) (*planner.Table, bool) {
	t := c.pins.Get(db, name)
	if t == nil {
		return c.base.Table(db, name)
	}
	return c.describe(db, name, t).WithScanOrder(c.base.Table(db, name)), true
}

// describe is the planner's view of an in-memory table.
func (pinCatalog) describe(db, name string, t *pinned.Table) *planner.Table {
	pt := &planner.Table{Schema: db, Name: name, Rows: t.Rows, Pinned: true}
	for _, col := range t.Cols {
		c := planner.Column{Name: col.Name, Type: rowformat.DataType(col.Field), Scale: rowformat.Scale(col.Field), Precision: rowformat.Precision(col.Field)}
		if col.Field != nil && col.Field.Charset != 0 && col.Field.Charset != collations.CollationBinaryID {
			// A pin keeps each text column's own collation: the
			// planner's rules on collations (WITH ROLLUP over keys
			// whose spellings merge) read it.
			c.Collation = collations.MySQL8().LookupName(collations.ID(col.Field.Charset))
		}
		pt.Columns = append(pt.Columns, c)
	}
	if len(t.Cols) > 0 {
		pt.SplitColumn = t.Cols[0].Name
	}
	return pt
}

// preparePinned prepares a plan whose split table is pinned: metadata from
// a replica (over the pin's definition as a derived table when the pin is
// a query result, whole is false), or from an earlier statement of the
// shape (engine/pinshape), and the fragment compiled for the in-memory
// engine.
func (s *preparer) preparePinned(ctx context.Context, db, query string, sel *ast.SelectStmt, p *planner.Plan, t *pinned.Table, whole bool) (*prepared, error) {
	d, key := coldefs.Query{}, s.shapeOf(pinshape.Key(db, query), db, sel)
	if whole {
		// The replicas hold every table it reads: describe the client's
		// own text.
		cat := s.snap().Tables
		d = coldefs.For(cat, p, query) // Meta: the pin's rendering (prepareInMemory)
		if base, _ := cat.Table(p.DB, p.Table); key.key != "" {
			if ok, why := pinshape.Reusable(sel, base); !ok {
				s.log.Debug("pinned statement described per text", "reason", why)
				key = shapeRef{}
			}
		}
	}
	return s.prepareInMemory(ctx, db, p, t, nil, d, func(d, n string) (string, bool) {
		if x := s.pins.Get(d, n); x != nil && !x.Whole {
			return x.Source, true
		}
		return "", false
	}, key)
}

// prepareInMemory is preparePinned for any in-memory table; def gives the
// definitions replicas describe in place of tables only Shoal holds, and
// others the in-memory tables a join reads besides t (nil: the pins). The
// columns are those of the shape key ("" for none) when it has them for
// the same select lists.
func (s *preparer) prepareInMemory(ctx context.Context, db string, p *planner.Plan, t *pinned.Table, others func(db, name string) *pinned.Table, d coldefs.Query, def func(db, name string) (string, bool), key shapeRef) (*prepared, error) {
	meta, err := planner.ReplaceTables(p.MetaSQL, db, def)
	if err != nil {
		return nil, err
	}
	frag := strings.Replace(p.FragmentSQL, planner.RangeMarker, "FALSE", 1)
	if frag, err = planner.ReplaceTables(frag, db, def); err != nil {
		return nil, err
	}
	d.Meta = meta
	var pr *prepared
	metaHead, fragHead := route.SelectHead(meta), route.SelectHead(frag)
	if sh := s.shape(key.key); sh != nil && sh.described && sh.metaHead == metaHead && sh.fragHead == fragHead {
		s.metrics.ShapeHits.Inc()
		pr, err = s.compilePrepared(p, sh.fields, sh.fragFields)
	} else if pr, err = s.prepareSQL(ctx, db, p, d, frag, true); err == nil { // pins hold each column's own collation (pinfields.go)
		s.updateShape(key, func(n *shapeInfo) {
			n.fields, n.fragFields, n.metaHead, n.fragHead, n.described = pr.fields, pr.fragFields, metaHead, fragHead, true
		})
	}
	if err != nil {
		return nil, err
	}
	prog, err := s.compilePinned(t, others, strings.Replace(p.FragmentSQL, planner.RangeMarker, "TRUE", 1), pr.fragFields)
	if err != nil {
		return nil, err
	}
	pr.pin, pr.prog = t, prog
	return pr, nil
}

// inMemory runs statements over pinned tables.
type inMemory struct {
	cfg     config.Coordinator
	mem     memory.Allocator
	metrics *observe.Metrics
	runq    *runqueue.Queue // inmemory_concurrency; nil: no limit
}

// run is Engine.run for a plan over a pinned table: the fragment runs in
// memory, one partition per core, into the same sink. A join builds its
// hash tables first (counted against merge_memory_limit).
//
// At most inmemory_concurrency statements run at once; the others wait
// for a slot in arrival order (engine/runqueue), up to
// inmemory_queue_wait (error 1040) or their own deadline (3024). A
// statement runs in as many partitions as it holds slots: all the cores
// when the machine is idle, one when others wait.
func (s *inMemory) run(ctx context.Context, pr *prepared, sink schedule.Sink) (*schedule.Stats, error) {
	start := time.Now()
	parallel := 0 // one partition per core
	if s.runq != nil {
		var err error // alone, take the idle cores; one when others wait
		if parallel, err = s.runq.AcquireUpTo(ctx, runtime.GOMAXPROCS(0)); err != nil {
			return nil, err
		}
		defer s.runq.ReleaseN(parallel)
	}
	what := pinnedRange(pr) // counts the hits
	s.metrics.PinnedQueries.Inc()
	sink, release := schedule.Ordered(ctx, sink) // a row scan's batches in the pin's order
	defer release()
	err := pr.prog.Run(ctx, s.mem, pinexec.Options{Parallel: parallel, MemLimit: s.cfg.MergeMemoryLimit}, pinexec.Sink(sink))
	if errors.Is(err, schedule.ErrStop) {
		err = nil
	}
	st := &schedule.Stats{Fragments: []schedule.FragmentStat{{Range: what,
		Worker: "coordinator memory", Elapsed: time.Since(start), Tries: 1}}}
	return st, err
}

// overPins is query with the pinned query results it reads replaced by
// their definitions, as derived tables (sqlparse.ReplaceTableRefs): no
// replica holds such a table, and a statement over one that the
// in-memory engine cannot run, or that Shoal cannot parse, would
// otherwise fail there with 1146. A pin's definition names replica tables
// only (CACHE TABLE refuses one over another pinned result).
func (s *Engine) overPins(db, query string) string {
	if !slices.ContainsFunc(s.pins.Results(), func(name string) bool { return sqlparse.ContainsFold(query, name) }) {
		return query // the passthrough path: no work while no result is pinned
	}
	q, _ := sqlparse.ReplaceTableRefs(query, db, func(d, n string) (string, bool) {
		if t := s.pins.Get(d, n); t != nil && !t.Whole {
			return t.Source, true
		}
		return "", false
	})
	return q
}
