package router

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/shoaldb/shoal/engine/rowformat"
	"github.com/shoaldb/shoal/observe"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// SHOW [FULL] PROCESSLIST lists the coordinator's own client sessions, the
// ids KILL takes, with what each runs and, for a distributed statement,
// how many of its fragments are done.
//
// Every session carries a procInfo. Its own goroutine writes it at the
// start and end of each statement (vitess serializes a connection's
// handler calls); SHOW PROCESSLIST, the status page and the scheduler's
// slot goroutines read or bump it through atomics. Sessions are found
// through the server's sync.Map registry, so neither a statement nor a
// listing takes a lock the other waits for.
//
//	ComQuery ─ startStatement: publish activity{query, start} ─┬─ query ─ … ─ run (execute.go)
//	                                                             │    progress(): total += n fragments,
//	                                                             │    each fragment merged: done++, rows, bytes
//	           finish: clear activity, slow query log ◀─────────┘
//	SHOW PROCESSLIST / status page ─ sessions.Range ─ load procInfo atomics

// procInfo is the part of a session other goroutines may read.
type procInfo struct {
	user atomic.Pointer[string] // nil until the handshake completes
	host atomic.Pointer[string]
	db   atomic.Pointer[string]
	// since is when the session connected or its last statement ended
	// (unix nanoseconds): the Time of a sleeping session.
	since atomic.Int64
	// stmt is the statement running now, nil when the session sleeps.
	stmt atomic.Pointer[observe.Activity]
	// lastQuery is the query id of the session's last statement (its
	// QUERY_ID while it sleeps, as MariaDB shows it).
	lastQuery atomic.Uint64
}

// connected publishes a session's user and client address once its
// handshake has completed.
func (p *procInfo) connected(user, host string) {
	p.user.Store(&user)
	p.host.Store(&host)
	p.since.Store(time.Now().UnixNano())
}

// startStatement publishes query as ss's running statement and returns the
// context to run it under (carrying its activity), the client callback
// counting the rows sent, and the function to call with the statement's
// final error once it has ended.
func (s *Router) startStatement(ctx context.Context, ss *Session, query string,
	callback func(*sqltypes.Result) error) (context.Context, func(*sqltypes.Result) error, func(error)) {
	act := observe.NewActivity(s.ids.Next(), query)
	ss.publishDB()
	ss.proc.lastQuery.Store(act.ID)
	ss.proc.stmt.Store(act)
	ss.last.begin()
	counted := func(r *sqltypes.Result) error {
		act.Sent.Add(int64(len(r.Rows)))
		ss.last.sent += int64(len(r.Rows))
		ss.last.fields = ss.last.fields || r.Fields != nil
		return callback(r)
	}
	if raw := rowformat.RawRowsOf(ctx); raw != nil {
		ctx = rowformat.WithRawRows(ctx, func(payload []byte) error {
			act.Sent.Add(1)
			ss.last.sent++
			return raw(payload)
		})
	}
	finish := func(err error) {
		ss.proc.stmt.Store(nil)
		ss.publishDB() // USE may have changed it
		end := time.Now()
		ss.proc.since.Store(end.UnixNano())
		s.slow.Finish(observe.Statement{Session: ss.id, User: ss.user, DB: ss.DB, Kind: ss.Kind}, act, end, err)
	}
	return observe.WithActivity(ctx, act), counted, finish
}

// publishDB makes the session's current database visible to other
// goroutines. Called on the session's own goroutine.
func (ss *Session) publishDB() {
	if p := ss.proc.db.Load(); p == nil || *p != ss.DB {
		db := ss.DB
		ss.proc.db.Store(&db)
	}
}

// processList lists the sessions viewer may see — its own account's, or
// all of them for root or viewer "" (the status page) — by id. self is the
// session asking, shown running selfQuery.
func (s *Router) processList(viewer string, self *Session, selfQuery string) []observe.ProcRow {
	now := time.Now()
	var out []observe.ProcRow
	s.sessions.Range(func(_, v any) bool {
		ss := v.(*Session)
		r := observe.ProcRow{ID: ss.id, Command: "Connect", State: "login", User: "unauthenticated user"}
		if u := ss.proc.user.Load(); u != nil {
			r.User, r.Command, r.State = *u, "Sleep", ""
		}
		if viewer != "" && viewer != "root" && r.User != viewer {
			return true
		}
		if h := ss.proc.host.Load(); h != nil {
			r.Host = *h
		}
		if d := ss.proc.db.Load(); d != nil {
			r.DB = *d
		}
		if ns := ss.proc.since.Load(); ns != 0 {
			r.Time = now.Sub(time.Unix(0, ns))
		}
		r.QueryID = ss.proc.lastQuery.Load()
		switch act := ss.proc.stmt.Load(); {
		case ss == self:
			r.Command, r.Time, r.State, r.Info = "Query", 0, "starting", selfQuery
		case act != nil:
			r.Running(act, now)
		}
		out = append(out, r)
		return true
	})
	slices.SortFunc(out, func(a, b observe.ProcRow) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

var processlistRE = regexp.MustCompile(`(?is)^\s*SHOW\s+(FULL\s+)?PROCESSLIST\s*;?\s*$`)

// infoWidth is how much of a statement SHOW PROCESSLIST shows without
// FULL, as MySQL and MariaDB cut it.
const infoWidth = 100

// processlistColumns are MariaDB's SHOW PROCESSLIST columns.
var processlistColumns = []*querypb.Field{
	{Name: "Id", Type: sqltypes.Int64, Charset: 63, ColumnLength: 21, Flags: uint32(querypb.MySqlFlag_NOT_NULL_FLAG)},
	rowformat.StrField("User", 128),
	rowformat.StrField("Host", 64),
	rowformat.StrField("db", 64),
	rowformat.StrField("Command", 16),
	{Name: "Time", Type: sqltypes.Int32, Charset: 63, ColumnLength: 7, Flags: uint32(querypb.MySqlFlag_NOT_NULL_FLAG)},
	rowformat.StrField("State", 64),
	rowformat.StrField("Info", 100),
	{Name: "Progress", Type: sqltypes.Decimal, Charset: 63, ColumnLength: 9, Decimals: 3, Flags: uint32(querypb.MySqlFlag_NOT_NULL_FLAG)},
}

// showProcesslist answers SHOW [FULL] PROCESSLIST when query is one
// (ok false otherwise). It never reaches a replica: a replica's own list
// would show the coordinator's connections, not the clients.
func (s *Router) showProcesslist(ss *Session, query string, callback func(*sqltypes.Result) error) (ok bool, err error) {
	m := processlistRE.FindStringSubmatch(query)
	if m == nil {
		return false, nil
	}
	full := m[1] != ""
	fields := processlistColumns
	if full {
		fields = slices.Clone(fields)
		fields[7] = rowformat.StrField("Info", 1<<24)
	}
	res := &sqltypes.Result{Fields: fields}
	for _, r := range s.processList(ss.user, ss, strings.TrimSpace(query)) {
		null := sqltypes.NULL
		db, info := null, null
		if r.DB != "" {
			db = sqltypes.NewVarChar(r.DB)
		}
		if r.Info != "" {
			text := r.Info
			if !full {
				text = observe.TruncateRunes(text, infoWidth)
			}
			info = sqltypes.NewVarChar(text)
		}
		res.Rows = append(res.Rows, []sqltypes.Value{
			sqltypes.NewInt64(int64(r.ID)), sqltypes.NewVarChar(r.User), sqltypes.NewVarChar(r.Host), db,
			sqltypes.NewVarChar(r.Command), sqltypes.NewInt32(int32(min(r.Time/time.Second, 1<<31-1))),
			sqltypes.NewVarChar(r.State), info,
			sqltypes.MakeTrusted(sqltypes.Decimal, fmt.Appendf(nil, "%.3f", r.Progress)),
		})
	}
	return true, callback(res)
}

// ProcessList lists every session as root sees it (the status page).
func (s *Router) ProcessList() []observe.ProcRow { return s.processList("", nil, "") }
