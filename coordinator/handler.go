package coordinator

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
	"vitess.io/vitess/go/vt/vtenv"

	"github.com/shoaldb/shoal/planner"
	"github.com/shoaldb/shoal/sqlerr"
	"github.com/shoaldb/shoal/sqlparse"
)

// handler implements vitess' mysql.Handler. vitess calls a connection's
// methods one at a time.
type handler struct {
	mysql.UnimplementedHandler
	s *Server
}

func (h *handler) Env() *vtenv.Environment { return h.s.vt }

func (h *handler) NewConnection(c *mysql.Conn) {
	ss := &session{id: c.ConnectionID}
	c.ClientData = ss
	h.s.register(c, ss)
	h.s.metrics.conns.Inc()
	h.s.metrics.connsTotal.Inc()
}

func (h *handler) ConnectionReady(c *mysql.Conn) {
	if ss, ok := c.ClientData.(*session); ok {
		ss.user = c.User
		ss.proc.connected(c)
	}
}

func (h *handler) ConnectionClosed(c *mysql.Conn) {
	h.s.metrics.conns.Dec()
	if ss, ok := c.ClientData.(*session); ok {
		h.s.unregister(ss)
		ss.kill()
		ss.closeBackend()
	}
}

func (h *handler) ComResetConnection(c *mysql.Conn) {
	if ss, ok := c.ClientData.(*session); ok {
		ss.closeBackend()
		ss.sets = nil
	}
}

func (h *handler) WarningCount(*mysql.Conn) uint16 { return 0 }

func (h *handler) ComQuery(c *mysql.Conn, query string, callback func(*sqltypes.Result) error) error {
	ss, ok := c.ClientData.(*session)
	if !ok {
		return sqlerr.New(sqlerr.ErrUnknown, "HY000", "connection has no session")
	}
	if err := h.s.checkSize(query); err != nil { // packet.go
		return err
	}
	if err := h.s.checkUTF8Conn(c, ss, query); err != nil { // utf8.go
		return err
	}
	// Statements the TiDB parser does not know, and KILL, which must never
	// reach a replica (its ids are the coordinator's).
	if isShowReplicas(query) {
		return h.s.showReplicas(callback)
	}
	if id, queryOnly, ok := parseKill(query); ok {
		return sqlerr.ToMySQL(h.s.kill(ss, id, queryOnly, callback))
	}
	if ok, err := connectionID(query, ss, callback); ok {
		return err
	}
	if ok, err := h.s.showProcesslist(ss, query, callback); ok {
		return err
	}
	ctx, cancel := context.WithTimeout(h.s.ctx, h.s.cfg.QueryTimeout.D())
	defer cancel()
	ss.setCancel(cancel)
	defer ss.setCancel(nil)
	defer watchClient(c, cancel)()
	start := time.Now()
	ss.kind = ""
	ctx, callback, finish := h.s.startStatement(ctx, ss, query, callback) // processlist.go
	err := h.s.query(ctx, ss, query, callback)
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		err = sqlerr.Timeout(h.s.cfg.QueryTimeout.D())
	}
	err = sqlerr.ToMySQL(err)
	h.s.metrics.observe(ss.kind, err, time.Since(start))
	finish(err)
	return err
}

// query classifies and runs one statement.
func (s *Server) query(ctx context.Context, ss *session, query string, callback func(*sqltypes.Result) error) error {
	if ok, err := s.pinStatement(ctx, ss, query, callback); ok {
		ss.kind = kindLocal
		return err
	}
	if concatLenChanged(ss.sets) && mentionsConcat(query) && readsOnly(query) {
		// The merge cuts GROUP_CONCAT at the default group_concat_max_len
		// and the result metadata (VARCHAR or TEXT, its length) is the
		// default's too: the session's own value is on its replica.
		return s.passthrough(ctx, ss, query, callback)
	}
	// A statement seen before skips parsing and planning.
	if e, ok := s.plans.get(ss.db+"\x00"+query, s.planGen()); ok {
		s.metrics.planHits.Inc()
		if e.pr == nil {
			if e.derived {
				if handled, err := s.tryDerived(ctx, ss, query, callback); handled {
					return err
				}
			}
			return s.passthrough(ctx, ss, query, callback)
		}
		ss.kind = e.pr.kind()
		return s.runPrepared(ctx, e.pr, callback)
	}
	var (
		stmts []ast.StmtNode
		perr  error
	)
	if lexDepth(query) > maxPlanDepth { // depth.go: not worth parsing here
		perr = errTooDeep
	} else {
		stmts, perr = sqlparse.Parse(query)
	}
	if perr != nil || len(stmts) != 1 {
		if len(stmts) > 1 {
			return sqlerr.New(sqlerr.ErrNotSupported, "42000", "Shoal runs one statement per query; send the statements separately")
		}
		kind, why := planner.ClassifyUnparsed(query)
		switch kind {
		case planner.Refuse:
			return sqlerr.ReadOnly(why)
		case planner.Unparsable:
			return sqlerr.Parse(fmt.Sprintf("You have an error in your SQL syntax; check the manual that corresponds to your MariaDB/MySQL server version for the right syntax to use near '%s'", truncate(query, 80)))
		}
		return s.passthrough(ctx, ss, query, callback)
	}
	stmt := stmts[0]
	kind, why := planner.Classify(stmt)
	switch kind {
	case planner.Refuse:
		return sqlerr.ReadOnly(why)
	case planner.Use:
		return s.use(ctx, ss, stmt.(*ast.UseStmt).DBName, callback)
	case planner.Set:
		if err := s.passthrough(ctx, ss, query, callback); err != nil {
			return err
		}
		ss.rememberSet(query)
		return nil
	case planner.Select:
		// information_schema.PROCESSLIST is the coordinator's sessions (processlist_schema.go).
		if handled, err := s.selectProcesslist(ctx, ss, stmt.(*ast.SelectStmt), callback); handled {
			return err
		}
		pr, _, err := s.plan(ctx, ss.db, query, stmt.(*ast.SelectStmt))
		if err != nil {
			return err
		}
		if pr == nil {
			if handled, err := s.tryDerived(ctx, ss, query, callback); handled {
				return err
			}
			return s.passthrough(ctx, ss, query, callback)
		}
		ss.kind = pr.kind()
		return s.runPrepared(ctx, pr, callback)
	case planner.Explain:
		return s.explain(ctx, ss, query, stmt.(*ast.ExplainStmt), callback)
	}
	if u, ok := stmt.(*ast.SetOprStmt); ok {
		if handled, err := s.runUnion(ctx, ss, u, callback); handled {
			return err
		}
	}
	return s.passthrough(ctx, ss, query, callback)
}

// concatLenChanged reports whether the session SET group_concat_max_len
// (to any value: the merge only knows the default).
func concatLenChanged(sets []string) bool {
	for _, set := range sets {
		if containsFold(set, "group_concat_max_len") {
			return true
		}
	}
	return false
}

// mentionsConcat reports whether a statement may use an aggregate that
// group_concat_max_len limits.
func mentionsConcat(query string) bool {
	return containsFold(query, "group_concat") || containsFold(query, "json_arrayagg") || containsFold(query, "json_objectagg")
}

// readsOnly reports whether a statement is one the coordinator would
// answer or pass through anyway (a SELECT, EXPLAIN, UNION, SHOW, ...), so
// sending it to the replica changes nothing but who merges.
func readsOnly(query string) bool {
	stmts, err := sqlparse.Parse(query)
	if err != nil || len(stmts) != 1 {
		return false
	}
	switch k, _ := planner.Classify(stmts[0]); k {
	case planner.Select, planner.Explain, planner.Passthrough:
		return true
	}
	return false
}

// containsFold is an ASCII case-insensitive strings.Contains that does not
// allocate.
func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

func (s *Server) runPrepared(ctx context.Context, pr *prepared, callback func(*sqltypes.Result) error) error {
	if s.cacheable(pr) {
		return s.runCached(ctx, pr, callback)
	}
	qid := strconv.FormatUint(s.queryID.Add(1), 10)
	st, err := s.execute(ctx, pr, qid, &resultWriter{pr: pr, callback: callback})
	s.metrics.shipped(st)
	return err
}

func (s *Server) use(ctx context.Context, ss *session, db string, callback func(*sqltypes.Result) error) error {
	if !s.snap.Load().schemas[db] {
		// The catalog may be older than the database: let the session's
		// replica decide with one statement (and answer 1049 itself)
		// rather than re-reading the whole catalog for every unknown name.
		if err := s.passthrough(ctx, ss, "USE `"+escapeID(db)+"`", callback); err != nil {
			return err
		}
		ss.db = db
		return nil
	}
	ss.db = db
	return callback(&sqltypes.Result{})
}

// plan returns the prepared plan of a SELECT, or nil and the reason when it
// passes through. Plans are cached per database and statement text, for
// one generation of the catalog and of the pinned tables.
func (s *Server) plan(ctx context.Context, db, query string, sel *ast.SelectStmt) (*prepared, string, error) {
	snap := s.snap.Load()
	gen := s.planGen()
	key := db + "\x00" + query
	if e, ok := s.plans.get(key, gen); ok {
		s.metrics.planHits.Inc()
		return e.pr, e.pass, nil
	}
	s.metrics.planMisses.Inc()
	var (
		pr   *prepared
		pass string
		err  error
	)
	if pass = tooDeep(sel); pass != "" { // depth.go
		return nil, pass, nil
	}
	if s.pins.Len() > 0 {
		pr, pass, err = s.planPinned(ctx, snap, db, query, sel)
	} else {
		pr, pass, err = s.planOn(ctx, snap.tables, db, query, sel)
	}
	if err != nil {
		return nil, "", err
	}
	s.plans.put(key, &cacheEntry{gen: gen, pr: pr, pass: pass})
	return pr, pass, nil
}

// planGen is the generation plans are cached for: it changes with the
// catalog snapshot and with every CACHE, UNCACHE and REFRESH.
func (s *Server) planGen() uint64 { return s.snap.Load().gen<<32 | s.pins.Gen()&0xffffffff }

// planOn plans and prepares sel over cat without caching.
func (s *Server) planOn(ctx context.Context, cat planner.Catalog, db, query string, sel *ast.SelectStmt) (*prepared, string, error) {
	p, err := planner.PlanSelect(cat, db, sel)
	if err != nil {
		var nd *planner.NotDistributed
		if errors.As(err, &nd) {
			return nil, nd.Reason, nil
		}
		return nil, "", err
	}
	pr, err := s.prepare(ctx, db, p)
	if err != nil {
		if _, ok := sqlerr.As(err); ok {
			return nil, "", err // the replica's own error for the statement
		}
		// The final stage could not be compiled (an expression the
		// evaluator does not know, for instance): pass through.
		reason := "final stage: " + err.Error()
		s.log.Info("statement passes through", "reason", reason)
		return nil, reason, nil
	}
	return pr, "", nil
}

// planPinned plans a statement while tables are pinned. A statement whose
// one table is pinned, or whose tables are all pinned (a join, run as a
// hash join in memory), runs in memory; one the engine cannot run (a join
// with a replica table among others) falls back
// to the replicas when every pinned table it reads is a whole-table pin
// (the replicas hold the same table), and fails with a clear error when it
// reads a pinned query result, which only the coordinator holds.
func (s *Server) planPinned(ctx context.Context, snap *snapshot, db, query string, sel *ast.SelectStmt) (*prepared, string, error) {
	var resultPin string // a pinned query result the statement reads
	pinnedRef := false
	for _, ref := range planner.TableRefs(sel, db) {
		i := strings.IndexByte(ref, '.')
		if t := s.pins.Get(ref[:i], ref[i+1:]); t != nil {
			pinnedRef = true
			if !t.Whole && resultPin == "" {
				resultPin = ref
			}
		}
	}
	if !pinnedRef {
		return s.planOn(ctx, snap.tables, db, query, sel)
	}
	why := ""
	p, err := planner.PlanSelect(pinCatalog{base: snap.tables, pins: s.pins}, db, sel)
	var nd *planner.NotDistributed
	switch {
	case errors.As(err, &nd):
		why = nd.Reason
	case err != nil:
		return nil, "", err
	default:
		t := s.pins.Get(p.DB, p.Table)
		if t == nil {
			why = "the pinned table is not the statement's main table"
			break
		}
		pr, err := s.preparePinned(ctx, db, p, t)
		if err == nil {
			return pr, "", nil
		}
		if _, ok := sqlerr.As(err); ok {
			return nil, "", err
		}
		why = err.Error()
	}
	if resultPin != "" {
		return nil, "", errPinnedOnly(resultPin, why)
	}
	// Whole-table pins only: the replicas have the tables.
	s.log.Debug("statement over a pinned table runs on replicas", "reason", why)
	stmt, err := sqlparse.ParseOne(query)
	if err != nil {
		return nil, "", err
	}
	fresh, ok := stmt.(*ast.SelectStmt)
	if !ok {
		return nil, "", fmt.Errorf("re-parsed statement is %T", stmt)
	}
	return s.planOn(ctx, snap.tables, db, query, fresh)
}

// explain answers EXPLAIN [ANALYZE] with the distributed plan, one line per
// row, or with the reason the statement passes through.
func (s *Server) explain(ctx context.Context, ss *session, query string, ex *ast.ExplainStmt, callback func(*sqltypes.Result) error) error {
	sel := ex.Stmt.(*ast.SelectStmt)
	text, err := sqlparse.Restore(sel)
	if err != nil {
		return err
	}
	pr, reason, err := s.plan(ctx, ss.db, text, sel)
	if err != nil {
		return err
	}
	var lines []string
	if pr == nil {
		lines = append(lines, "passthrough to one replica: "+reason)
	} else {
		lines = append(lines, pr.plan.Describe()...)
		var live []string
		slots := 0
		for _, w := range s.workers {
			if w.healthy() {
				live = append(live, fmt.Sprintf("%s (%d slots)", w.name(), w.slots()))
				slots += w.slots()
			}
		}
		if pr.prog != nil {
			path := "row at a time (evalengine)"
			if pr.prog.Fast() {
				path = "vectorized (lookup tables, dense groups)"
			}
			lines = append(lines, fmt.Sprintf("in memory: %s.%s v%d, %d rows in %d batches, %s", pr.pin.DB, pr.pin.Name, pr.pin.Version, pr.pin.Rows, len(pr.pin.Batches), path))
			if j := pr.prog.JoinDescribe(); j != "" {
				lines = append(lines, j)
			}
		} else {
			lines = append(lines, fmt.Sprintf("fragments: %d over %s", len(s.fragments(pr, slots)), strings.Join(live, ", ")))
		}
		if ex.Analyze {
			qid := strconv.FormatUint(s.queryID.Add(1), 10)
			start := time.Now()
			discard := &resultWriter{pr: pr, callback: func(*sqltypes.Result) error { return nil }}
			st, err := s.execute(ctx, pr, qid, discard)
			if err != nil {
				return err
			}
			lines = append(lines, fmt.Sprintf("analyze: %d rows returned in %s; %d rows, %d bytes shipped from workers",
				discard.rows, time.Since(start).Round(time.Microsecond), st.Rows, st.Bytes))
			for i, f := range st.Fragments {
				worker := f.Worker
				if f.Preferred != "" && f.Preferred != f.Worker {
					// Stolen, or its preferred worker was down.
					worker += " (preferred " + f.Preferred + ")"
				}
				lines = append(lines, fmt.Sprintf("fragment %d %s: worker %s, %d rows, %d bytes, %s, tries %d",
					i, f.Range, worker, f.Rows, f.Bytes, f.Elapsed.Round(time.Microsecond), f.Tries))
			}
		}
	}
	res := &sqltypes.Result{Fields: []*querypb.Field{{Name: "plan", Type: sqltypes.VarChar, Charset: 45, ColumnLength: 4096}}}
	for _, l := range lines {
		res.Rows = append(res.Rows, []sqltypes.Value{sqltypes.NewVarChar(l)})
	}
	return callback(res)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
