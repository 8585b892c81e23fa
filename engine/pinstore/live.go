package pinstore

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/gtid"
	"github.com/shoaldb/shoal/livepin"
	"github.com/shoaldb/shoal/pinned"
	"github.com/shoaldb/shoal/sqlerr"
	"github.com/shoaldb/shoal/sqlparse"
)

// Live pins: CACHE TABLE … OPTIONS ('refresh' = 'live') keeps the pin
// current from a replica's binary log (package livepin). The store keeps
// the running pins by name; a pin publishes its versions through the
// registry only while it is the one registered under its name, so an
// UNCACHE or a new CACHE TABLE of the name can never be undone by a
// version built just before.

type liveRegistry struct {
	mu   sync.Mutex
	pins map[string]*liveEntry // "db.name"
}

type liveEntry struct {
	pin *livepin.Pin // nil while the first load runs
	// stopped: the pin stopped by itself and its table was unpinned;
	// the entry stays for SHOW CACHED TABLES until UNCACHE or CACHE.
	stopped bool
}

// PinOptions parses an OPTIONS clause's body: 'key' = 'value', …
// Keys are lower-cased.
func PinOptions(s string) (map[string]string, error) {
	opts := map[string]string{}
	for rest := strings.TrimSpace(s); rest != ""; {
		m := optionRe.FindStringSubmatch(rest)
		if m == nil {
			return nil, sqlerr.Parse("OPTIONS syntax: OPTIONS ('refresh' = 'live')")
		}
		opts[strings.ToLower(unquoteOpt(m[1]))] = unquoteOpt(m[2])
		rest = strings.TrimSpace(rest[len(m[0]):])
		if m[3] == "" && rest != "" {
			return nil, sqlerr.Parse("OPTIONS syntax: OPTIONS ('refresh' = 'live')")
		}
	}
	return opts, nil
}

var optionRe = regexp.MustCompile(`^\s*('(?:[^']|'')*'|[A-Za-z_][A-Za-z0-9_.]*)\s*=\s*('(?:[^']|'')*'|[A-Za-z0-9_.]+)\s*(,?)`)

func unquoteOpt(s string) string {
	if strings.HasPrefix(s, "'") {
		return strings.ReplaceAll(s[1:len(s)-1], "''", "'")
	}
	return s
}

// liveOption reads the options: live is true for 'refresh' = 'live';
// primary for 'follow' = 'primary', or without 'follow' when the config
// says live_follow: primary.
func (s *Store) liveOption(opts map[string]string) (live, primary bool, err error) {
	for k := range opts {
		if k != "refresh" && k != "follow" {
			return false, false, sqlerr.New(sqlerr.ErrNotSupported, "42000", "Unknown CACHE TABLE option '%s'; the ones known are 'refresh' = 'live' and 'follow' = 'primary' | 'replica'", k)
		}
	}
	switch v := strings.ToLower(opts["refresh"]); v {
	case "":
	case "live":
		live = true
	default:
		return false, false, sqlerr.New(sqlerr.ErrNotSupported, "42000", "CACHE TABLE option 'refresh' = '%s': the one value known is 'live' (without it a pin is refreshed by REFRESH TABLE)", v)
	}
	follow, set := opts["follow"]
	if !set {
		follow = s.cfg.LiveFollow
	}
	switch f := strings.ToLower(follow); {
	case set && !live:
		return false, false, sqlerr.New(sqlerr.ErrNotSupported, "42000", "CACHE TABLE option 'follow' is for live pins: add 'refresh' = 'live'")
	case f == "" || f == config.LiveFollowReplica:
	case f == config.LiveFollowPrimary:
		if s.cfg.Primary == "" {
			return false, false, sqlerr.New(sqlerr.ErrNotSupported, "42000", "CACHE TABLE option 'follow' = 'primary': the coordinator does not know the primary; set primary: host:port in its config")
		}
		primary = live
	default:
		return false, false, sqlerr.New(sqlerr.ErrNotSupported, "42000", "CACHE TABLE option 'follow' = '%s': use 'primary' or 'replica'", follow)
	}
	return live, primary, nil
}

// liveSpec is the live pin of db.name: the whole table, or sel (a
// projection of one table filtered by a WHERE).
func liveSpec(db, name string, whole bool, source string, sel *ast.SelectStmt) (livepin.Spec, error) {
	spec := livepin.Spec{DB: db, Name: name, Whole: whole, Source: source, SrcDB: db, SrcTable: name}
	if whole {
		return spec, nil
	}
	notLive := func(why string) (livepin.Spec, error) {
		return spec, sqlerr.New(sqlerr.ErrNotSupported, "42000",
			"CACHE TABLE %s OPTIONS ('refresh' = 'live') cannot be live: %s. Live pins are a table, or SELECT columns FROM one table [WHERE ...]; pin it without the option and REFRESH TABLE it", name, why)
	}
	switch {
	case sel.With != nil:
		return notLive("it has a WITH clause")
	case sel.Distinct:
		return notLive("SELECT DISTINCT is not maintained incrementally")
	case sel.Having != nil:
		return notLive("HAVING drops groups by their aggregates; pin the groups live and filter in the queries over the pin")
	case sel.OrderBy != nil || sel.Limit != nil:
		return notLive("ORDER BY and LIMIT pick rows that change with every write")
	case sel.WindowSpecs != nil:
		return notLive("it has a window")
	case sel.From == nil || sel.From.TableRefs == nil || sel.From.TableRefs.Right != nil:
		return notLive("it reads more than one table")
	}
	ts, ok := sel.From.TableRefs.Left.(*ast.TableSource)
	if !ok {
		return notLive("it reads more than one table")
	}
	tn, ok := ts.Source.(*ast.TableName)
	if !ok {
		return notLive("it reads a derived table")
	}
	spec.SrcDB, spec.SrcTable = tn.Schema.O, tn.Name.O
	if spec.SrcDB == "" {
		spec.SrcDB = db
	}
	if sel.GroupBy != nil || hasAggregate(sel) {
		agg, why := aggSpec(sel)
		if why != "" {
			return notLive(why)
		}
		spec.Agg = agg
		return withWhere(spec, sel, notLive)
	}
	for _, f := range sel.Fields.Fields {
		switch {
		case f.WildCard != nil:
			if len(sel.Fields.Fields) != 1 {
				return notLive("it mixes * with other columns")
			}
			return withWhere(spec, sel, notLive)
		default:
			col, ok := f.Expr.(*ast.ColumnNameExpr)
			if !ok {
				return notLive("its select list computes values; list columns only")
			}
			spec.Columns = append(spec.Columns, col.Name.Name.O)
			n := col.Name.Name.O
			if f.AsName.O != "" {
				n = f.AsName.O
			}
			spec.Names = append(spec.Names, n)
		}
	}
	return withWhere(spec, sel, notLive)
}

func withWhere(spec livepin.Spec, sel *ast.SelectStmt, notLive func(string) (livepin.Spec, error)) (livepin.Spec, error) {
	if sel.Where == nil {
		return spec, nil
	}
	var sub subqueryFinder
	sel.Where.Accept(&sub)
	if sub.found {
		return notLive("its WHERE has a subquery")
	}
	var vol volatileFinder
	sel.Where.Accept(&vol)
	if vol.what != "" {
		return notLive("its WHERE reads " + vol.what + ", whose value changes without a row changing (a row's membership is decided when the row changes)")
	}
	w, err := sqlparse.Restore(sel.Where)
	if err != nil {
		return spec, err
	}
	spec.Where = w
	return spec, nil
}

// aggSpec is the aggregation of an aggregated live pin's SELECT (keys
// and aggregates of columns), or why it cannot be live.
func aggSpec(sel *ast.SelectStmt) (*livepin.AggSpec, string) {
	agg := &livepin.AggSpec{}
	keyOf := func(name string) int {
		for i, k := range agg.Keys {
			if strings.EqualFold(k, name) {
				return i
			}
		}
		return -1
	}
	if sel.GroupBy != nil {
		if sel.GroupBy.Rollup {
			return nil, "WITH ROLLUP's total rows are not maintained incrementally"
		}
		for _, it := range sel.GroupBy.Items {
			var col *ast.ColumnNameExpr
			switch e := it.Expr.(type) {
			case *ast.ColumnNameExpr:
				col = e
			case *ast.PositionExpr:
				if e.N >= 1 && e.N <= len(sel.Fields.Fields) {
					col, _ = sel.Fields.Fields[e.N-1].Expr.(*ast.ColumnNameExpr)
				}
			}
			if col == nil {
				return nil, "its GROUP BY lists something other than columns of the table"
			}
			if keyOf(col.Name.Name.O) < 0 {
				agg.Keys = append(agg.Keys, col.Name.Name.O)
			}
		}
	}
	for _, f := range sel.Fields.Fields {
		switch e := f.Expr.(type) {
		case *ast.ColumnNameExpr:
			k := keyOf(e.Name.Name.O)
			if k < 0 {
				return nil, fmt.Sprintf("column %s is neither grouped nor aggregated", e.Name.Name.O)
			}
			agg.Outs = append(agg.Outs, livepin.AggOut{Key: k})
		case *ast.AggregateFuncExpr:
			fn := strings.ToLower(e.F)
			switch fn {
			case "count", "sum", "avg", "min", "max":
			case "group_concat", "json_arrayagg", "json_objectagg":
				return nil, strings.ToUpper(fn) + " depends on the order of the rows and is not maintained incrementally"
			default:
				return nil, strings.ToUpper(fn) + " is not maintained incrementally; kept live are COUNT, SUM, AVG, MIN and MAX of columns"
			}
			if e.Distinct {
				return nil, strings.ToUpper(fn) + "(DISTINCT …) cannot be maintained under deletes without every distinct value's count; pin the rows live and aggregate in the queries over the pin"
			}
			if len(e.Args) != 1 {
				return nil, strings.ToUpper(fn) + " takes one column here"
			}
			out := livepin.AggOut{Func: fn}
			switch a := e.Args[0].(type) {
			case *ast.ColumnNameExpr:
				out.Col = a.Name.Name.O
			case ast.ValueExpr:
				if fn != "count" || a.GetValue() == nil {
					return nil, strings.ToUpper(fn) + " of a constant is not maintained incrementally"
				}
			default:
				return nil, "its aggregates compute their arguments; aggregate columns only (pin the rows live and aggregate expressions in the queries over the pin)"
			}
			agg.Outs = append(agg.Outs, out)
		default:
			return nil, "its select list computes values; list group columns and COUNT, SUM, AVG, MIN, MAX of columns"
		}
	}
	return agg, ""
}

// hasAggregate says whether the select list has an aggregate function
// anywhere (a grouped pin without GROUP BY is one group).
func hasAggregate(sel *ast.SelectStmt) bool {
	var v aggFinder
	for _, f := range sel.Fields.Fields {
		if f.Expr != nil {
			f.Expr.Accept(&v)
		}
	}
	return v.found
}

type aggFinder struct{ found bool }

func (v *aggFinder) Enter(n ast.Node) (ast.Node, bool) {
	if _, ok := n.(*ast.AggregateFuncExpr); ok {
		v.found = true
		return n, true
	}
	return n, false
}
func (v *aggFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// volatileFuncs are the functions whose value depends on the time, the
// session or chance rather than on the row.
var volatileFuncs = map[string]bool{"now": true, "current_timestamp": true, "localtime": true, "localtimestamp": true,
	"sysdate": true, "curdate": true, "current_date": true, "curtime": true, "current_time": true, "utc_date": true,
	"utc_time": true, "utc_timestamp": true, "rand": true, "uuid": true, "uuid_short": true, "sys_guid": true,
	"connection_id": true, "user": true, "current_user": true, "session_user": true, "system_user": true,
	"current_role": true, "database": true, "schema": true, "last_insert_id": true, "found_rows": true,
	"row_count": true, "sleep": true, "get_lock": true, "is_free_lock": true, "is_used_lock": true,
	"release_lock": true, "benchmark": true, "nextval": true, "lastval": true, "setval": true}

// volatileFinder finds a volatile function (or UNIX_TIMESTAMP() without
// an argument) or a variable in an expression.
type volatileFinder struct{ what string }

func (v *volatileFinder) Enter(n ast.Node) (ast.Node, bool) {
	switch e := n.(type) {
	case *ast.FuncCallExpr:
		if volatileFuncs[e.FnName.L] || (e.FnName.L == "unix_timestamp" && len(e.Args) == 0) {
			v.what = strings.ToUpper(e.FnName.O) + "()"
			return n, true
		}
	case *ast.VariableExpr:
		v.what = "the variable @" + e.Name
		if e.IsSystem {
			v.what = "the variable @@" + e.Name
		}
		return n, true
	}
	return n, false
}
func (v *volatileFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

type subqueryFinder struct{ found bool }

func (v *subqueryFinder) Enter(n ast.Node) (ast.Node, bool) {
	if _, ok := n.(*ast.SubqueryExpr); ok {
		v.found = true
		return n, true
	}
	return n, false
}
func (v *subqueryFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// cacheLive starts the live pin spec and swaps out any pin of its name.
func (s *Store) cacheLive(spec livepin.Spec) (*pinned.Table, error) {
	key := spec.DB + "." + spec.Name
	e := &liveEntry{}
	s.live.mu.Lock()
	if s.live.pins == nil {
		s.live.pins = map[string]*liveEntry{}
	}
	var oldPin *livepin.Pin
	if old := s.live.pins[key]; old != nil {
		oldPin = old.pin
	}
	s.live.pins[key] = e
	s.live.mu.Unlock()
	if oldPin != nil {
		oldPin.Stop()
	}
	addrs := s.src.ReplicaAddrs()
	publish := func(t *pinned.Table) error {
		s.live.mu.Lock()
		defer s.live.mu.Unlock()
		if s.live.pins[key] != e {
			return errors.New("the pin was replaced or dropped")
		}
		return s.putLive(t)
	}
	// An aggregated pin's columns are those a static pin of its query
	// has: the engine's own answer for the query (run once per load).
	describe := func(ctx context.Context) ([]*querypb.Field, error) {
		// A load after a DDL (the stream's, before the periodic catalog
		// refresh sees it) must not take the columns of plans cached for
		// the old schema: an AVG over a DECIMAL(5,0) made DECIMAL(8,2)
		// kept 4 decimals and read as 15919.4167, not 15919.416667.
		if err := s.src.RefreshCatalog(ctx); err != nil {
			s.log.Warn("live pin: catalog refresh before describing", "table", key, "err", err)
		}
		var cols fieldsOnly
		if err := s.src.Scan(ctx, database(spec.DB), spec.DB, spec.Source, &cols); err != nil {
			return nil, &describeError{err}
		}
		return cols.fields, nil
	}
	cfg := livepin.Config{Addrs: addrs, User: s.cfg.ReplicaUser, Pass: s.cfg.ReplicaPassword,
		Env: s.env, Publish: publish, Log: s.log, Describe: describe, Admit: s.hooks.Admit, OnVersion: s.hooks.OnVersion}
	if spec.FollowPrimary {
		cfg.Primary = s.cfg.Primary
	}
	p, t, err := livepin.Start(s.ctx, spec, cfg)
	s.live.mu.Lock()
	defer s.live.mu.Unlock()
	if err != nil {
		if s.live.pins[key] == e {
			delete(s.live.pins, key)
		}
		var nl *livepin.ErrNotLive
		var de *describeError
		if se, ok := sqlerr.As(err); ok && errors.As(err, &de) {
			return nil, se // the query's own error, as a static pin's load gives it
		}
		if errors.As(err, &nl) {
			return nil, sqlerr.New(sqlerr.ErrNotSupported, "42000", "CACHE TABLE %s OPTIONS ('refresh' = 'live'): %s", key, nl.Reason)
		}
		return nil, sqlerr.New(sqlerr.ErrOutOfResources, "HY000", "CACHE TABLE %s OPTIONS ('refresh' = 'live'): %v", key, err)
	}
	if s.live.pins[key] != e {
		// Replaced or dropped while it loaded: nobody else would stop
		// it. Stop waits for the pin, whose publish takes s.live.mu.
		s.live.mu.Unlock()
		p.Stop()
		s.live.mu.Lock() // for the deferred Unlock
		return nil, sqlerr.New(sqlerr.ErrOutOfResources, "HY000", "CACHE TABLE %s OPTIONS ('refresh' = 'live'): the pin was replaced or dropped while it loaded", key)
	}
	e.pin = p
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		<-p.Done()
		s.live.mu.Lock()
		defer s.live.mu.Unlock()
		if s.live.pins[key] == e && s.ctx.Err() == nil {
			// The pin stopped by itself (a value it cannot hold, a
			// reload it cannot make): its last version would answer
			// with rows that no longer are the table's. Statements go
			// to the replicas (or fail, for a pinned query result);
			// SHOW CACHED TABLES keeps showing why.
			s.pins.Delete(spec.DB, spec.Name)
			e.stopped = true
			s.log.Warn("live pin stopped; unpinned", "table", key, "state", p.Status().State)
		}
	}()
	s.log.Info("live pin following", "table", key, "rows", t.Rows, "position", p.Status().Position, "replica", p.Status().Replica)
	return t, nil
}

// describeError is the engine's error running an aggregated pin's
// query to describe its columns.
type describeError struct{ err error }

func (e *describeError) Error() string { return e.err.Error() }
func (e *describeError) Unwrap() error { return e.err }

// putLive swaps in a live pin's version within the memory budget.
// Unlike putPin it neither logs nor returns memory to the OS: a live pin
// publishes several versions a second.
func (s *Store) putLive(t *pinned.Table) error {
	budget := s.cfg.PinnedMemoryLimit
	if ok, others := s.pins.Put(t, budget); !ok {
		return sqlerr.New(sqlerr.ErrOutOfResources, "HY000",
			"Live pin %s.%s needs %d bytes; other pinned tables hold %d of the %d-byte budget (pinned_memory_limit)",
			t.DB, t.Name, t.Bytes, others, budget)
	}
	return nil
}

// stopLive stops the live pin db.name, if any; drop also unpins it under
// the same lock, so no version of it can be published after.
func (s *Store) stopLive(db, name string, drop bool) (found bool) {
	key := db + "." + name
	s.live.mu.Lock()
	var p *livepin.Pin
	if e := s.live.pins[key]; e != nil {
		p = e.pin
		found = e.stopped // unpinned already, but shown
	}
	delete(s.live.pins, key)
	if drop {
		found = s.pins.Delete(db, name) || found
	}
	s.live.mu.Unlock()
	if p != nil {
		p.Stop()
	}
	return found
}

// stoppedLive returns the live pins that stopped by themselves (and were
// unpinned), with their status, for SHOW CACHED TABLES.
func (s *Store) stoppedLive() map[string]*livepin.Pin {
	s.live.mu.Lock()
	defer s.live.mu.Unlock()
	out := map[string]*livepin.Pin{}
	for key, e := range s.live.pins {
		if e.stopped && e.pin != nil {
			out[key] = e.pin
		}
	}
	return out
}

// liveStatus is the status of the live pin db.name; ok is false for a
// pin that is not live.
func (s *Store) liveStatus(db, name string) (st livepin.Status, ok bool) {
	p := s.livePin(db, name)
	if p == nil {
		return st, false
	}
	return p.Status(), true
}

// livePin is the running live pin db.name, nil when there is none or it
// is still loading. cacheLive sets an entry's pin under s.live.mu, so it
// is read under it too.
func (s *Store) livePin(db, name string) *livepin.Pin {
	s.live.mu.Lock()
	defer s.live.mu.Unlock()
	if e := s.live.pins[db+"."+name]; e != nil {
		return e.pin
	}
	return nil
}

// liveSpecOf is the spec a running live pin was started with.
func (s *Store) liveSpecOf(db, name string) (livepin.Spec, bool) {
	s.live.mu.Lock()
	defer s.live.mu.Unlock()
	if e := s.live.pins[db+"."+name]; e != nil && e.pin != nil {
		return e.pin.Spec(), true
	}
	return livepin.Spec{}, false
}

// refreshLive reloads a live pin in full: a new pin replaces it.
func (s *Store) refreshLive(ctx context.Context, spec livepin.Spec) (*pinned.Table, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t, err := s.cacheLive(spec)
	if err != nil {
		return nil, fmt.Errorf("REFRESH TABLE %s.%s: %w", spec.DB, spec.Name, err)
	}
	return t, nil
}

// WaitLive waits until the live pin db.name shows a version at GTID
// position floor or later (livepin.Pin.WaitFor), until ctx ends. live is
// false when db.name is not a live pin (nothing to wait for); replica is
// the replica it follows, for the caller's error.
func (s *Store) WaitLive(ctx context.Context, db, name, floor string) (live bool, replica string, err error) {
	p := s.livePin(db, name)
	if p == nil {
		return false, "", nil
	}
	err = p.WaitFor(ctx, floor)
	return true, p.Status().Replica, err
}

// fieldsOnly is a Rows that keeps the columns and drops the rows (the
// groups an aggregated live pin builds itself).
type fieldsOnly struct{ fields []*querypb.Field }

func (f *fieldsOnly) Fields(fs []*querypb.Field) error {
	if f.fields == nil {
		f.fields = fs
	}
	return nil
}
func (*fieldsOnly) Batch(arrow.RecordBatch) error { return nil }
func (*fieldsOnly) Row([]sqltypes.Value) error    { return nil }

// AwaitFloor waits until each live pin version in live covers the GTID
// position floor, at most wait and never past ctx's deadline. behind is
// false when each one already does (the caller's plan may run), true
// after a wait: the registry then holds versions at the floor and the
// caller plans again. A pin that does not get there in time fails the
// statement with 3781 (sqlerr.PinBehind), as a replica behind the floor
// fails a fragment.
func (s *Store) AwaitFloor(ctx context.Context, live []*pinned.Table, floor string, wait time.Duration) (behind bool, err error) {
	var late []*pinned.Table
	for _, t := range live {
		ok, err := gtid.Covers(true, t.Position, floor) // live pins follow MariaDB only
		if err != nil {
			return false, sqlerr.Unavailable("comparing live pin %s.%s's position %s with the consistency floor %s: %v", t.DB, t.Name, t.Position, floor, err)
		}
		if !ok {
			late = append(late, t)
		}
	}
	if len(late) == 0 {
		return false, nil
	}
	if dl, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(dl))
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	for _, t := range late {
		_, replica, err := s.WaitLive(wctx, t.DB, t.Name, floor)
		switch {
		case err == nil:
		case ctx.Err() != nil:
			return false, ctx.Err() // the statement's own deadline or KILL
		case errors.Is(err, context.DeadlineExceeded):
			return false, sqlerr.PinBehind(t.DB+"."+t.Name, replica, floor, wait.Round(time.Millisecond))
		default:
			return false, sqlerr.Unavailable("live pin %s.%s: %v", t.DB, t.Name, err)
		}
	}
	return true, nil
}
