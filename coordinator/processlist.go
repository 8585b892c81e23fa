package coordinator

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"vitess.io/vitess/go/mysql"
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
	stmt atomic.Pointer[activity]
	// lastQuery is the query id of the session's last statement (its
	// QUERY_ID while it sleeps, as MariaDB shows it).
	lastQuery atomic.Uint64
}

// activity is one running statement. Its counters are bumped by the
// scheduler's slot goroutines while SHOW PROCESSLIST reads them.
type activity struct {
	id    uint64 // the statement's query id (QUERY_ID), from Server.queryID
	query string
	start time.Time
	// Fragments scheduled and merged, and the rows and Arrow bytes their
	// merged attempts shipped (failed attempts are not counted).
	total, done atomic.Int64
	rows, bytes atomic.Int64
	// sent counts rows sent to the client.
	sent atomic.Int64
	// trace is the statement's executions and fragment attempts, for the
	// status page (querylog.go). Its mutex is the statement's own.
	trace trace
}

// activityKey carries the running statement's *activity in its context,
// for the scheduler (progress).
type activityKey struct{}

// connected publishes a session's user and client address once its
// handshake has completed.
func (p *procInfo) connected(c *mysql.Conn) {
	user, host := c.User, ""
	if a := c.RemoteAddr(); a != nil {
		host = a.String()
	}
	p.user.Store(&user)
	p.host.Store(&host)
	p.since.Store(time.Now().UnixNano())
}

// startStatement publishes query as ss's running statement and returns the
// context to run it under (carrying its activity), the client callback
// counting the rows sent, and the function to call with the statement's
// final error once it has ended.
func (s *Server) startStatement(ctx context.Context, ss *session, query string,
	callback func(*sqltypes.Result) error) (context.Context, func(*sqltypes.Result) error, func(error)) {
	act := &activity{id: s.queryID.Add(1), query: query, start: time.Now()}
	ss.publishDB()
	ss.proc.lastQuery.Store(act.id)
	ss.proc.stmt.Store(act)
	counted := func(r *sqltypes.Result) error {
		act.sent.Add(int64(len(r.Rows)))
		return callback(r)
	}
	finish := func(err error) {
		ss.proc.stmt.Store(nil)
		ss.publishDB() // USE may have changed it
		end := time.Now()
		ss.proc.since.Store(end.UnixNano())
		s.slow.observe(s.slow.remember(ss, act, end, err))
	}
	return context.WithValue(ctx, activityKey{}, act), counted, finish
}

// publishDB makes the session's current database visible to other
// goroutines. Called on the session's own goroutine.
func (ss *session) publishDB() {
	if p := ss.proc.db.Load(); p == nil || *p != ss.db {
		db := ss.db
		ss.proc.db.Store(&db)
	}
}

// progress counts the n fragments of a distributed execution in its
// statement's activity and returns sink wrapped to count each fragment as
// done, with its rows and bytes, once its output is merged. Without an
// activity in ctx (a statement not started by startStatement) sink is
// returned as is.
func (s *Server) progress(ctx context.Context, n int, sink batchSink) batchSink {
	act, ok := ctx.Value(activityKey{}).(*activity)
	if !ok {
		return sink
	}
	act.total.Add(int64(n))
	return func(batches []arrow.RecordBatch) error {
		var rows, bytes int64
		for _, b := range batches {
			rows += b.NumRows()
			bytes += recordBytes(b)
		}
		if err := sink(batches); err != nil {
			return err
		}
		act.rows.Add(rows)
		act.bytes.Add(bytes)
		act.done.Add(1)
		return nil
	}
}

// procRow is one line of the process list.
type procRow struct {
	ID      uint32
	User    string
	Host    string
	DB      string
	Command string // Connect, Sleep or Query
	Time    time.Duration
	State   string
	Info    string // the running statement, "" when none
	// Progress is the share of fragments done, 0–100; Fragments and Done
	// are 0 for a statement that is not distributed (yet).
	Progress        float64
	Fragments, Done int64
	// Examined is the rows the statement's fragments shipped so far;
	// QueryID its query id (the last statement's while the session sleeps).
	Examined int64
	QueryID  uint64
	// act is the running statement, nil when none (the status page reads
	// its trace).
	act *activity
}

// processList lists the sessions viewer may see — its own account's, or
// all of them for root or viewer "" (the status page) — by id. self is the
// session asking, shown running selfQuery.
func (s *Server) processList(viewer string, self *session, selfQuery string) []procRow {
	now := time.Now()
	var out []procRow
	s.sessions.Range(func(_, v any) bool {
		ss := v.(*session)
		r := procRow{ID: ss.id, Command: "Connect", State: "login", User: "unauthenticated user"}
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
			r.Command, r.Time, r.State, r.Info = "Query", now.Sub(act.start), "executing", act.query
			r.QueryID, r.Examined, r.act = act.id, act.rows.Load(), act
			if total := act.total.Load(); total > 0 {
				done := min(act.done.Load(), total)
				r.Fragments, r.Done = total, done
				r.State = fmt.Sprintf("fragments %d/%d done", done, total)
				r.Progress = 100 * float64(done) / float64(total)
			}
		}
		out = append(out, r)
		return true
	})
	slices.SortFunc(out, func(a, b procRow) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// statementsRunning counts the sessions running a statement now.
func (s *Server) statementsRunning() int {
	n := 0
	s.sessions.Range(func(_, v any) bool {
		if v.(*session).proc.stmt.Load() != nil {
			n++
		}
		return true
	})
	return n
}

var processlistRE = regexp.MustCompile(`(?is)^\s*SHOW\s+(FULL\s+)?PROCESSLIST\s*;?\s*$`)

// infoWidth is how much of a statement SHOW PROCESSLIST shows without
// FULL, as MySQL and MariaDB cut it.
const infoWidth = 100

// processlistColumns are MariaDB's SHOW PROCESSLIST columns.
var processlistColumns = []*querypb.Field{
	{Name: "Id", Type: sqltypes.Int64, Charset: 63, ColumnLength: 21, Flags: uint32(querypb.MySqlFlag_NOT_NULL_FLAG)},
	strField("User", 128),
	strField("Host", 64),
	strField("db", 64),
	strField("Command", 16),
	{Name: "Time", Type: sqltypes.Int32, Charset: 63, ColumnLength: 7, Flags: uint32(querypb.MySqlFlag_NOT_NULL_FLAG)},
	strField("State", 64),
	strField("Info", 100),
	{Name: "Progress", Type: sqltypes.Decimal, Charset: 63, ColumnLength: 9, Decimals: 3, Flags: uint32(querypb.MySqlFlag_NOT_NULL_FLAG)},
}

// showProcesslist answers SHOW [FULL] PROCESSLIST when query is one
// (ok false otherwise). It never reaches a replica: a replica's own list
// would show the coordinator's connections, not the clients.
func (s *Server) showProcesslist(ss *session, query string, callback func(*sqltypes.Result) error) (ok bool, err error) {
	m := processlistRE.FindStringSubmatch(query)
	if m == nil {
		return false, nil
	}
	full := m[1] != ""
	fields := processlistColumns
	if full {
		fields = slices.Clone(fields)
		fields[7] = strField("Info", 1<<24)
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
				text = truncateRunes(text, infoWidth)
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

// truncateRunes cuts s to at most n characters (not bytes, so a
// multi-byte character is never split).
func truncateRunes(s string, n int) string {
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}
