// Package router is where every client statement goes, from whichever
// front end (MySQL protocol, Flight SQL) it came: it classifies the
// statement once and dispatches it by kind — a query (to the engine), EXPLAIN,
// the pinned-table statements, SHOW SHOAL REPLICAS, SHOW PROCESSLIST,
// SET/USE, KILL, passthrough, or a refusal (writes get 1290).
//
// It also owns the client sessions: the registry KILL and SHOW PROCESSLIST
// read, each session's published state (procInfo), and the per-statement
// envelope both front ends share — the timeout, the cancel function KILL
// calls, the statement's Activity (observe), the metrics and the slow log.
//
// It imports the engine (which runs statements) and observe (which it
// feeds); the front ends import it, nothing below imports it.
package router

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"vitess.io/vitess/go/sqltypes"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/engine"
	"github.com/shoaldb/shoal/observe"
	"github.com/shoaldb/shoal/sqlerr"
	"github.com/shoaldb/shoal/sqlparse"
)

// Router dispatches the statements of every session of one coordinator.
type Router struct {
	cfg     config.Coordinator
	log     *slog.Logger
	eng     *engine.Engine
	metrics *observe.Metrics
	slow    *observe.Log
	ids     *observe.QueryIDs
	// ctx ends when the coordinator shuts down: running statements are
	// cancelled.
	ctx context.Context

	// sessions maps connection id → *Session for KILL and the process
	// list; conns counts open client connections for max_connections.
	sessions sync.Map
	conns    atomic.Int64
	// loose holds the sessions not in sessions (Flight SQL's) while they
	// run a statement, for the clock; clockDone is closed when the clock
	// stops (clock.go).
	loose     sync.Map
	clockDone chan struct{}
}

// New returns the router over eng; statements are numbered from ids
// (shared with the engine). ctx ends at shutdown, and with it the router's
// clock (Wait).
func New(ctx context.Context, cfg config.Coordinator, log *slog.Logger, eng *engine.Engine, m *observe.Metrics, slow *observe.Log, ids *observe.QueryIDs) *Router {
	s := &Router{ctx: ctx, cfg: cfg, log: log, eng: eng, metrics: m, slow: slow, ids: ids, clockDone: make(chan struct{})}
	go s.runClock(ctx)
	return s
}

// Engine is the engine the router dispatches to.
func (s *Router) Engine() *engine.Engine { return s.eng }

// Metrics are the coordinator's metrics.
func (s *Router) Metrics() *observe.Metrics { return s.metrics }

// Run runs one statement of session ss from any front end: the statements
// answered before parsing (SHOW SHOAL REPLICAS, KILL, CONNECTION_ID(),
// SHOW PROCESSLIST), then, under query_timeout and KILL's cancel, the
// statement itself, recorded in the process list, the metrics and the slow
// log. watch, when not nil, is asked by the router's clock whether the
// client went away while the statement runs (clock.go; the MySQL front end
// peeks at its socket). The error is a MySQL error (sqlerr.ToMySQL).
func (s *Router) Run(ctx context.Context, ss *Session, query string, callback func(*sqltypes.Result) error, watch Watcher) error {
	// The count a result without rows reports is read while the statement
	// runs (vitess writes its OK packet from the callback): never the
	// last statement's. A passthrough sets the replica's before then.
	ss.Warnings = 0
	// The statements answered before parsing, each recognised only after
	// a check of its first word (their patterns cost more than the rest
	// of a passthrough statement's routing).
	switch {
	case startsWithFold(query, "SHOW"):
		if isShowReplicas(query) {
			ss.Answered()
			return s.eng.Replicas().ShowReplicas(callback)
		}
		if ok, err := s.showProcesslist(ss, query, callback); ok {
			ss.Answered()
			return err
		}
	case startsWithFold(query, "KILL"):
		if id, queryOnly, ok := parseKill(query); ok {
			ss.Answered()
			return sqlerr.ToMySQL(s.kill(ss, id, queryOnly, callback))
		}
	case startsWithFold(query, "SELECT") && sqlparse.ContainsFold(query, "CONNECTION_ID"):
		if ok, err := connectionID(query, ss, callback); ok {
			ss.Answered()
			return err
		}
	}
	start := time.Now()
	timeout := s.cfg.QueryTimeout.D()
	// The session's own max_statement_time, when it set a shorter one:
	// MariaDB's limit and error, whichever path the statement takes.
	sessionLimit := false
	// (Not for a SET, which MariaDB does not time out: the one that
	// lifts the limit must run.)
	if st := ss.Drift().StatementTime; st > 0 && st < timeout && !startsWithFold(query, "SET") {
		timeout, sessionLimit = st, true
	}
	sctx := newStmtContext(ctx, start.Add(timeout))
	if ctx.Done() != s.ctx.Done() {
		// A front end's own context (a Flight RPC's) ends at shutdown
		// too; the MySQL front end's is the router's already (or one of
		// its values, which ends with it).
		defer context.AfterFunc(s.ctx, sctx.Cancel)()
	}
	if !ss.registered {
		s.loose.Store(ss, struct{}{})
		defer s.loose.Delete(ss)
	}
	ss.begin(sctx, start, watch)
	defer ss.end()
	ctx = sctx
	ss.Kind = ""
	ctx, callback, finish := s.startStatement(ctx, ss, query, callback)
	// CONNECTION_ID() calls become the session's id (connid.go).
	err := s.query(ctx, ss, bindConnectionID(query, ss.id), callback)
	ss.last.end(ss.Kind, err) // lastresult.go
	if ss.Kind != observe.KindPassthrough && !ss.leavesWarnings {
		ss.Answered() // the warning count sent is 0 (engine/replicaset Session.Warnings)
	}
	ss.leavesWarnings = false
	// Past the deadline is the timeout even before the router's clock
	// expires the context: a fragment or replica can report it first.
	if err != nil && (errors.Is(ctx.Err(), context.DeadlineExceeded) || !time.Now().Before(sctx.deadline)) {
		if sessionLimit {
			err = sqlerr.New(sqlerr.ErrStatementTimeout, "70100", "Query execution was interrupted (max_statement_time exceeded)")
		} else {
			err = sqlerr.Timeout(s.cfg.QueryTimeout.D())
		}
	}
	err = sqlerr.ToMySQL(err)
	// An error Shoal answered itself becomes the session replica's
	// diagnostics, for SHOW WARNINGS and @@error_count as MariaDB keeps
	// its own; a passed-through statement's the replica has already.
	if se, ok := sqlerr.As(err); ok && ss.Kind != observe.KindPassthrough {
		s.eng.Replicas().ReplayError(s.ctx, &ss.Session, se)
	}
	s.metrics.Observe(ss.Kind, err, time.Since(start))
	finish(err)
	return err
}

// Context ends when the coordinator shuts down.
func (s *Router) Context() context.Context { return s.ctx }

// AdvertisedVersion keeps MariaDB's "5.5.5-" prefix convention out of
// vitess' version parsing while still telling clients what runs behind.
func AdvertisedVersion(v string) string {
	if v == "" {
		return "8.0.40-shoal"
	}
	return v + "-shoal"
}

// startsWithFold reports whether query's first word, after the white
// space a `^\s*` pattern skips, begins with word (any case).
func startsWithFold(query, word string) bool {
	q := strings.TrimLeft(query, " \t\n\f\r")
	return len(q) >= len(word) && strings.EqualFold(q[:len(word)], word)
}
