// Package pinstore keeps the pinned tables: the statements that manage
// them (CACHE TABLE, UNCACHE TABLE, REFRESH TABLE [INCREMENTAL], SHOW
// CACHED TABLES), the pins the config file keeps loaded on a schedule,
// and the live pins that follow a replica's binary log (package livepin).
//
// It is its own package so that the lives of pins — loads, swaps within
// the memory budget, live followers and their failover — are read in one
// place, apart from how queries over pins are planned and run (package
// engine, which compiles them for package pinned). The store reads a
// pin's rows through the small Source interface the engine implements;
// it imports no layer above it (engine, router, front ends) and none of
// engine/catalog or replica: what it needs of them comes through Source.
package pinstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/evalexpr"
	"github.com/shoaldb/shoal/pinned"
	"github.com/shoaldb/shoal/planner"
	"github.com/shoaldb/shoal/sqlerr"
	"github.com/shoaldb/shoal/sqlparse"
)

// Session is the client session a pin statement runs for.
type Session interface {
	// Database is the session's current database ("" for none): a pin
	// named without one is pinned there.
	Database() string
}

// database is the session of a configured pin: its database only.
type database string

func (d database) Database() string { return string(d) }

// Source is what the store reads pins through: the engine.
type Source interface {
	// Scan reads the rows of source (a SELECT) in database db for sess:
	// distributed where it can, on one replica otherwise. It writes them
	// into into as they arrive, the columns first, and keeps none.
	Scan(ctx context.Context, sess Session, db, source string, into Rows) error
	// Tables is the replicas' catalog now.
	Tables() planner.Catalog
	// RefreshCatalog re-reads the replicas' catalog now: a live pin that
	// reloads after a DDL describes its query over the new schema, not
	// over plans and column definitions cached for the old one.
	RefreshCatalog(ctx context.Context) error
	// ReplicaAddrs lists the replicas' MySQL addresses, the ones serving
	// reads now first (a live pin follows the first it can, and fails
	// over along the list).
	ReplicaAddrs() []string
}

// Rows is what Source.Scan writes a pin's rows into as it reads them: a
// pinned.Builder, which encodes them as they come so that a load never
// holds the workers' wide batches all at once, or a pinned.Collector for
// the rows an incremental refresh appends. Scan calls it from one
// goroutine at a time.
type Rows interface {
	// Fields gives the columns, before any row; later calls are ignored.
	Fields([]*querypb.Field) error
	// Batch adds a record batch of rows, one column per field; the
	// caller still owns (releases) it.
	Batch(arrow.RecordBatch) error
	// Row adds one row, valid during the call only.
	Row([]sqltypes.Value) error
}

// Pinned tables: the statements that manage them and how queries over them
// are planned. See package pinned for the engine.
//
//	CACHE TABLE [db.]name AS SELECT …   pin a query's result under a name
//	CACHE TABLE [db.]t                  pin a whole replica table
//	UNCACHE TABLE [IF EXISTS] [db.]name
//	REFRESH TABLE [db.]name             reload and swap atomically
//	REFRESH TABLE [db.]t INCREMENTAL    append the rows past the split key's
//	                                    high-water mark (append-only tables)
//	SHOW CACHED TABLES
//
// They are recognised before the TiDB parser sees the statement (it does
// not know them); the SELECT of CACHE TABLE … AS is parsed by it.

// Uncache unpins [db.]name (UNCACHE TABLE [IF EXISTS]).
func (s *Store) Uncache(sess Session, qualified string, ifExists bool, callback func(*sqltypes.Result) error) error {
	db, name, err := s.pinName(sess, qualified)
	if err != nil {
		return err
	}
	if !s.stopLive(db, name, true) && !ifExists {
		return sqlerr.New(sqlerr.ErrUnknownTable, "42S02", "Unknown pinned table '%s.%s'; SHOW CACHED TABLES lists them", db, name)
	}
	s.log.Info("table unpinned", "table", db+"."+name)
	return callback(&sqltypes.Result{})
}

// Store manages the pinned tables' lives: CACHE TABLE, UNCACHE, REFRESH
// (full, incremental, live), SHOW CACHED TABLES, the configured pins kept
// loaded, and the live pins following a replica's binary log. It owns the
// registry the query side plans over; it reads a pin's source rows
// through its Source (the engine's distributed or passthrough read).
type Store struct {
	cfg config.Coordinator
	log *slog.Logger
	ctx context.Context // ends when the engine closes
	wg  *sync.WaitGroup // the engine's background goroutines
	env *evalexpr.Env
	src Source

	pins  *pinned.Registry
	live  liveRegistry
	hooks LiveHooks
}

// LiveHooks are what live pins are given of the engine (livepin.Config):
// either may be nil.
type LiveHooks struct {
	// Admit takes an in-memory run slot for a version's build and
	// returns its release (livepin.Config.Admit).
	Admit func(context.Context) (release func())
	// OnVersion is told of every version published (the metrics).
	OnVersion func(wait, build time.Duration)
}

// New makes the store of pins over src. Its goroutines (configured pins,
// live pins) run until ctx ends and are counted in wg; live pins use
// hooks.
func New(ctx context.Context, wg *sync.WaitGroup, cfg config.Coordinator, log *slog.Logger, env *evalexpr.Env, src Source, pins *pinned.Registry, hooks LiveHooks) *Store {
	return &Store{cfg: cfg, log: log, ctx: ctx, wg: wg, env: env, src: src, pins: pins, hooks: hooks}
}

// Registry is the registry of pinned tables the query side plans over.
func (s *Store) Registry() *pinned.Registry { return s.pins }

// IdentPattern matches one MySQL identifier, back-quoted or bare: the
// pinned-table statements name tables with it.
const IdentPattern = "(?:`(?:[^`]|``)+`|[A-Za-z0-9_$]+)"

var identRe = regexp.MustCompile(IdentPattern)

// pinName splits "[db.]name" and applies the session's database.
func (s *Store) pinName(sess Session, qualified string) (db, name string, err error) {
	parts := identRe.FindAllString(qualified, -1)
	for i, p := range parts {
		if strings.HasPrefix(p, "`") {
			parts[i] = strings.ReplaceAll(p[1:len(p)-1], "``", "`")
		}
	}
	if len(parts) == 2 {
		return parts[0], parts[1], nil
	}
	if sess.Database() == "" {
		return "", "", sqlerr.New(sqlerr.ErrNoDB, "3D000", "No database selected: USE one, or name the pinned table as db.name")
	}
	return sess.Database(), parts[0], nil
}

// CacheTable pins [db.]qualified: the result of source, or the whole
// replica table when source is "" (CACHE TABLE).
func (s *Store) CacheTable(ctx context.Context, sess Session, qualified, source string, callback func(*sqltypes.Result) error) error {
	return s.CacheTableOptions(ctx, sess, qualified, "", source, callback)
}

// CacheTableOptions is CacheTable with an OPTIONS clause's body:
// ('refresh' = 'live') makes a live pin (live.go).
func (s *Store) CacheTableOptions(ctx context.Context, sess Session, qualified, options, source string, callback func(*sqltypes.Result) error) error {
	db, name, err := s.pinName(sess, qualified)
	if err != nil {
		return err
	}
	opts, err := PinOptions(options)
	if err != nil {
		return err
	}
	live, primary, err := s.liveOption(opts)
	if err != nil {
		return err
	}
	var sel *ast.SelectStmt
	whole := source == ""
	if whole {
		if _, ok := s.src.Tables().Table(db, name); !ok {
			return sqlerr.New(sqlerr.ErrNoSuchTable, "42S02", "Table '%s.%s' doesn't exist on the replicas; to pin a query's result use CACHE TABLE %s AS SELECT ...", db, name, name)
		}
		source = "SELECT * FROM " + sqlparse.QuoteID(db) + "." + sqlparse.QuoteID(name)
	} else {
		if _, ok := s.src.Tables().Table(db, name); ok {
			return sqlerr.New(sqlerr.ErrTableExists, "42S01", "Table '%s.%s' exists on the replicas; pin it whole with CACHE TABLE %s.%s, or pick another name for the query result", db, name, db, name)
		}
		stmt, err := sqlparse.ParseOne(source)
		if err != nil {
			return sqlerr.Parse("CACHE TABLE ... AS: " + err.Error())
		}
		var ok bool
		if sel, ok = stmt.(*ast.SelectStmt); !ok {
			return sqlerr.New(sqlerr.ErrNotSupported, "42000", "CACHE TABLE ... AS takes a SELECT")
		}
		for _, ref := range planner.TableRefs(sel, db) {
			i := strings.IndexByte(ref, '.')
			if p := s.pins.Get(ref[:i], ref[i+1:]); p != nil && !p.Whole {
				return sqlerr.New(sqlerr.ErrNotSupported, "42000", "CACHE TABLE ... AS reads pinned query result %s, which only this coordinator holds; define it over replica tables", ref)
			}
		}
		if sel.With == nil {
			planner.QualifyTables(sel, db)
		}
		if source, err = sqlparse.Restore(sel); err != nil {
			return err
		}
	}
	if live {
		spec, err := liveSpec(db, name, whole, source, sel)
		if err != nil {
			return err
		}
		spec.FollowPrimary = primary
		t, err := s.cacheLive(spec)
		if err != nil {
			return err
		}
		return callback(&sqltypes.Result{RowsAffected: uint64(t.Rows)})
	}
	t, err := s.loadPin(ctx, sess, db, name, source, whole)
	if err != nil {
		return err
	}
	s.stopLive(db, name, false) // a static pin replaces a live one
	if err := s.putPin(t); err != nil {
		return err
	}
	return callback(&sqltypes.Result{RowsAffected: uint64(t.Rows)})
}

// RefreshTable reloads the pin [db.]qualified and swaps the new version
// in; readers keep the version they started with. incremental appends the
// rows past the split key's high-water mark. An incremental refresh
// reports the rows it added, a full one the rows the table holds.
func (s *Store) RefreshTable(ctx context.Context, sess Session, qualified string, incremental bool, callback func(*sqltypes.Result) error) error {
	db, name, err := s.pinName(sess, qualified)
	if err != nil {
		return err
	}
	old := s.pins.Get(db, name)
	if old == nil {
		return sqlerr.New(sqlerr.ErrUnknownTable, "42S02", "Unknown pinned table '%s.%s'; SHOW CACHED TABLES lists them", db, name)
	}
	var t *pinned.Table
	if spec, live := s.liveSpecOf(db, name); live {
		if incremental {
			return sqlerr.New(sqlerr.ErrNotSupported, "42000", "%s.%s is a live pin; REFRESH TABLE %s.%s reloads it in full", db, name, db, name)
		}
		if t, err = s.refreshLive(ctx, spec); err != nil {
			return err
		}
		return callback(&sqltypes.Result{RowsAffected: uint64(t.Rows)})
	}
	if incremental {
		t, err = s.appendPin(ctx, sess, old)
	} else {
		t, err = s.loadPin(ctx, sess, db, name, old.Source, old.Whole)
	}
	if err != nil {
		return err
	}
	if err := s.putPin(t); err != nil {
		return err
	}
	return callback(&sqltypes.Result{RowsAffected: uint64(t.Refresh.Added)})
}

// appendPin is the incremental refresh of a whole-table pin: it reads the
// rows whose split key is past old's high-water mark through the same
// distributed scan as a full load and appends them to a new version
// sharing old's batches (pinned.Table.Append). It sees inserts only, and
// only those with a key above every key already pinned (docs/sql.md).
// When the new rows do not fit old's encoding or schema (a dictionary
// past its 32k values, a changed column), it loads the table in full and
// the new version's Refresh says why.
func (s *Store) appendPin(ctx context.Context, sess Session, old *pinned.Table) (*pinned.Table, error) {
	qualified := old.DB + "." + old.Name
	if !old.Whole {
		return nil, sqlerr.New(sqlerr.ErrNotSupported, "42000",
			"REFRESH TABLE ... INCREMENTAL needs a whole-table pin (CACHE TABLE db.t); %s is a pinned query result: use REFRESH TABLE %s to reload it in full", qualified, qualified)
	}
	key := old.SplitColumn()
	if key == "" {
		return nil, sqlerr.New(sqlerr.ErrNotSupported, "42000",
			"REFRESH TABLE ... INCREMENTAL needs a table with a signed integer split key (an integer primary key, or split_columns in the config); %s has none: use REFRESH TABLE %s to reload it in full", qualified, qualified)
	}
	start := time.Now()
	source := old.Source
	if hw, ok := old.HighWater(); ok {
		source += " WHERE " + sqlparse.QuoteID(key) + " > " + strconv.FormatInt(hw, 10)
	}
	rows := pinned.NewCollector(memory.NewGoAllocator())
	if err := s.src.Scan(ctx, sess, old.DB, source, rows); err != nil {
		rows.Release()
		return nil, err
	}
	fields, batches, err := rows.Result()
	defer func() { releaseAll(batches) }()
	if err != nil {
		return nil, err
	}
	var (
		t       *pinned.Table
		rebuild *pinned.RebuildError
	)
	if why := sameFields(old.Fields, fields); why != "" {
		rebuild = &pinned.RebuildError{Reason: why}
	} else if t, err = old.Append(batches); err != nil && !errors.As(err, &rebuild) {
		return nil, err
	}
	if rebuild != nil {
		s.log.Info("incremental refresh falls back to a full load", "table", qualified, "why", rebuild.Reason)
		releaseAll(batches)
		batches = nil
		if t, err = s.loadPin(ctx, sess, old.DB, old.Name, old.Source, true); err != nil {
			return nil, err
		}
		t.Refresh.Fallback = rebuild.Reason
		return t, nil
	}
	t.Loaded, t.LoadTook = time.Now(), time.Since(start)
	return t, nil
}

// sameFields says how a scan's columns differ from a pinned table's, or
// "" when an append may mix them.
func sameFields(pinnedFields, scanned []*querypb.Field) string {
	if len(pinnedFields) != len(scanned) {
		return fmt.Sprintf("the table now has %d columns, the pin %d", len(scanned), len(pinnedFields))
	}
	for i, f := range pinnedFields {
		g := scanned[i]
		if !strings.EqualFold(f.Name, g.Name) || f.Type != g.Type || f.Charset != g.Charset || f.Decimals != g.Decimals {
			return fmt.Sprintf("column %d changed from %s %s to %s %s", i+1, f.Name, f.Type, g.Name, g.Type)
		}
	}
	return ""
}

func releaseAll(batches []arrow.RecordBatch) {
	for _, b := range batches {
		b.Release()
	}
}

// putPin swaps t in, within the memory budget.
func (s *Store) putPin(t *pinned.Table) error {
	budget := s.cfg.PinnedMemoryLimit
	if ok, others := s.pins.Put(t, budget); !ok {
		t.Release() // never visible to a reader; batches shared with the pinned version stay
		return sqlerr.New(sqlerr.ErrOutOfResources, "HY000",
			"Pinning %s.%s needs %d bytes; other pinned tables hold %d of the %d-byte budget (pinned_memory_limit). Nothing was changed: UNCACHE a table or raise the limit",
			t.DB, t.Name, t.Bytes, others, budget)
	}
	s.log.Info("table pinned", "table", t.DB+"."+t.Name, "rows", t.Rows, "bytes", t.Bytes, "took", t.LoadTook, "version", t.Version,
		"refresh", t.Refresh.Kind(), "added", t.Refresh.Added)
	// Loading dropped the workers' wide batches (several times the
	// pinned size) as garbage, and a refresh drops a whole copy: hand that memory back to
	// the OS now rather than at the scavenger's pace, so RSS tracks what
	// is pinned. It runs a GC concurrently with queries.
	go debug.FreeOSMemory()
	return nil
}

// loadPin runs source through the distributed scan when it can (the
// workers' Arrow batches), through the coordinator's merge otherwise, or
// on a replica when it does not distribute, and builds the pinned table
// while the rows arrive (pinned.Builder): each batch is encoded and
// dropped as it comes, so the load peaks near the pin's own size, not
// that of all the raw batches.
func (s *Store) loadPin(ctx context.Context, sess Session, db, name, source string, whole bool) (*pinned.Table, error) {
	start := time.Now()
	b := pinned.NewBuilder(memory.NewGoAllocator(), db, name)
	if err := s.src.Scan(ctx, sess, db, source, b); err != nil {
		b.Release()
		return nil, err
	}
	t, err := b.Finish()
	if err != nil {
		return nil, err
	}
	t.Source, t.Whole, t.Loaded, t.LoadTook = source, whole, time.Now(), time.Since(start)
	if whole {
		// The replica table's split key is the high-water mark's column.
		// The batches go in key order either way (pinned.Table.SetSplit).
		if rt, ok := s.src.Tables().Table(db, name); ok && rt.SplitColumn != "" {
			if !t.SetSplit(rt.SplitColumn) {
				t.OrderBatches(rt.SplitColumn)
			}
		} else if ok && len(rt.KeyColumns) > 0 {
			t.OrderBatches(rt.KeyColumns...)
		}
	}
	return t, nil
}

// ShowCached answers SHOW CACHED TABLES.
func (s *Store) ShowCached(callback func(*sqltypes.Result) error) error {
	cols := []struct {
		name string
		typ  querypb.Type
	}{
		{"Database", sqltypes.VarChar}, {"Table", sqltypes.VarChar}, {"Kind", sqltypes.VarChar},
		{"Rows", sqltypes.Int64}, {"Memory_bytes", sqltypes.Int64}, {"Bytes_per_row", sqltypes.Int64},
		{"Columns", sqltypes.VarChar}, {"Source", sqltypes.VarChar}, {"Loaded", sqltypes.VarChar},
		{"Load_ms", sqltypes.Int64}, {"Age_s", sqltypes.Int64}, {"Hits", sqltypes.Int64}, {"Version", sqltypes.Int64},
		{"Refresh", sqltypes.VarChar}, {"Rows_added", sqltypes.Int64}, {"High_water", sqltypes.Int64},
		{"Refresh_mode", sqltypes.VarChar}, {"Live_state", sqltypes.VarChar}, {"Gtid_position", sqltypes.VarChar},
		{"Lag_ms", sqltypes.Int64}, {"Events_applied", sqltypes.Int64}, {"Live_replica", sqltypes.VarChar},
		{"Last_full_load", sqltypes.VarChar},
	}
	res := &sqltypes.Result{}
	for _, c := range cols {
		f := &querypb.Field{Name: c.name, Type: c.typ, Charset: 45, ColumnLength: 4096}
		if c.typ == sqltypes.Int64 {
			f.Charset, f.ColumnLength = 63, 20
		}
		res.Fields = append(res.Fields, f)
	}
	now := time.Now()
	for _, t := range s.pins.List() {
		kind := "query"
		if t.Whole {
			kind = "table"
		}
		var desc []string
		for _, c := range t.Cols {
			desc = append(desc, c.Describe())
		}
		highWater := sqltypes.NULL // no split key, or no rows yet
		if hw, ok := t.HighWater(); ok {
			highWater = sqltypes.NewInt64(hw)
		}
		perRow := int64(0)
		if t.Rows > 0 {
			perRow = t.Bytes / t.Rows
		}
		res.Rows = append(res.Rows, []sqltypes.Value{
			sqltypes.NewVarChar(t.DB), sqltypes.NewVarChar(t.Name), sqltypes.NewVarChar(kind),
			sqltypes.NewInt64(t.Rows), sqltypes.NewInt64(t.Bytes), sqltypes.NewInt64(perRow),
			sqltypes.NewVarChar(strings.Join(desc, ", ")), sqltypes.NewVarChar(t.Source),
			sqltypes.NewVarChar(t.Loaded.UTC().Format(time.RFC3339)),
			sqltypes.NewInt64(t.LoadTook.Milliseconds()), sqltypes.NewInt64(int64(now.Sub(t.Loaded).Seconds())),
			sqltypes.NewInt64(t.Hits()), sqltypes.NewInt64(int64(t.Version)),
			sqltypes.NewVarChar(t.Refresh.Kind()), sqltypes.NewInt64(t.Refresh.Added), highWater,
		})
		row := &res.Rows[len(res.Rows)-1]
		if st, ok := s.liveStatus(t.DB, t.Name); ok {
			state := st.State
			if st.LastReload != "" {
				state += fmt.Sprintf("; %d loads, the last because: %s", st.Loads, st.LastReload)
			}
			*row = append(*row, sqltypes.NewVarChar("live"), sqltypes.NewVarChar(state), sqltypes.NewVarChar(st.Position),
				sqltypes.NewInt64(st.Lag.Milliseconds()), sqltypes.NewInt64(st.Applied), sqltypes.NewVarChar(st.Replica),
				sqltypes.NewVarChar(st.LastLoad.UTC().Format(time.RFC3339)))
		} else {
			*row = append(*row, sqltypes.NewVarChar("manual"), sqltypes.NULL, sqltypes.NULL, sqltypes.NULL, sqltypes.NULL, sqltypes.NULL,
				sqltypes.NewVarChar(t.Loaded.UTC().Format(time.RFC3339)))
		}
	}
	stopped := s.stoppedLive()
	keys := make([]string, 0, len(stopped))
	for k := range stopped {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		// A live pin that stopped by itself holds no rows any more (it
		// was unpinned); its row says why until UNCACHE or CACHE TABLE.
		st, spec := stopped[k].Status(), stopped[k].Spec()
		kind := "query"
		if spec.Whole {
			kind = "table"
		}
		db, name, _ := strings.Cut(k, ".")
		state := st.State
		if st.LastReload != "" {
			state += fmt.Sprintf("; %d loads, the last because: %s", st.Loads, st.LastReload)
		}
		row := []sqltypes.Value{sqltypes.NewVarChar(db), sqltypes.NewVarChar(name), sqltypes.NewVarChar(kind),
			sqltypes.NewInt64(0), sqltypes.NewInt64(0), sqltypes.NewInt64(0), sqltypes.NewVarChar(""), sqltypes.NewVarChar(spec.Source),
			sqltypes.NULL, sqltypes.NULL, sqltypes.NULL, sqltypes.NewInt64(0), sqltypes.NULL,
			sqltypes.NewVarChar("full"), sqltypes.NULL, sqltypes.NULL,
			sqltypes.NewVarChar("live"), sqltypes.NewVarChar(state), sqltypes.NewVarChar(st.Position),
			sqltypes.NULL, sqltypes.NewInt64(st.Applied), sqltypes.NewVarChar(st.Replica),
			sqltypes.NewVarChar(st.LastLoad.UTC().Format(time.RFC3339))}
		res.Rows = append(res.Rows, row)
	}
	return callback(res)
}

// Start pins the tables of the config file, then refreshes
// those with an interval on their schedule, until the server closes. A
// failed load is logged and retried at the next interval (or, without one,
// after a minute), never fatal: the server serves without the pin.
func (s *Store) Start() {
	for _, p := range s.cfg.Pins {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.keepPinned(p)
		}()
	}
}

func (s *Store) keepPinned(p config.Pin) {
	db, name, _ := strings.Cut(p.Table, ".")
	retry := time.Minute
	for {
		var err error
		if p.Live {
			// Loaded once; from then on the pin follows its replica and
			// reloads by itself (livepin). Retried until it loads.
			if err = s.loadConfiguredLive(db, name, p.Query); err == nil {
				return
			}
		} else {
			err = s.loadConfigured(db, name, p.Query, p.Incremental)
		}
		wait := p.Refresh.D()
		if p.Live {
			wait = 0
		}
		if err != nil {
			s.log.Warn("configured pin failed to load", "table", p.Table, "err", err)
			if wait == 0 || wait > retry {
				wait = retry
			}
		} else if wait == 0 {
			return
		}
		select {
		case <-s.ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

func (s *Store) loadConfigured(db, name, query string, incremental bool) error {
	ctx, cancel := context.WithTimeout(s.ctx, s.cfg.QueryTimeout.D())
	defer cancel()
	sess := database(db)
	ok := func(*sqltypes.Result) error { return nil }
	if s.pins.Get(db, name) != nil {
		return s.RefreshTable(ctx, sess, sqlparse.QuoteID(db)+"."+sqlparse.QuoteID(name), incremental, ok)
	}
	return s.CacheTable(ctx, sess, sqlparse.QuoteID(db)+"."+sqlparse.QuoteID(name), query, ok)
}

// loadConfiguredLive is CACHE TABLE … OPTIONS ('refresh' = 'live') for a
// pin of the config file (refresh: live).
func (s *Store) loadConfiguredLive(db, name, query string) error {
	ctx, cancel := context.WithTimeout(s.ctx, s.cfg.QueryTimeout.D())
	defer cancel()
	return s.CacheTableOptions(ctx, database(db), sqlparse.QuoteID(db)+"."+sqlparse.QuoteID(name), "'refresh' = 'live'", query, func(*sqltypes.Result) error { return nil })
}
