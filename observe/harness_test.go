package observe

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"vitess.io/vitess/go/sqltypes"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/pinned"
	"github.com/shoaldb/shoal/planner"
)

// The tests feed observe the way the router and the engine do, through
// its exported API (NewActivity, WithActivity, TracePlan, TraceAttempt,
// Log.Finish), with a Source whose sessions and workers they set.

// session is a client session as the tests' Source lists it.
type session struct {
	id       uint32
	user, db string
	kind     string
	since    time.Time
	act      *Activity
}

// fakeSource is a Source over the tests' sessions and workers.
type fakeSource struct {
	mu       sync.Mutex
	sessions map[uint32]*session
	workers  []Worker
}

func (f *fakeSource) Workers() []Worker                 { return f.workers }
func (f *fakeSource) Catalog() (string, int, bool)      { return "", 0, false }
func (f *fakeSource) Pins() []*pinned.Table             { return nil }
func (f *fakeSource) MySQLAddr() string                 { return "" }
func (f *fakeSource) add(ss *session)                   { f.mu.Lock(); f.sessions[ss.id] = ss; f.mu.Unlock() }
func (f *fakeSource) setAct(ss *session, act *Activity) { f.mu.Lock(); ss.act = act; f.mu.Unlock() }
func (f *fakeSource) setSince(ss *session, t time.Time) { f.mu.Lock(); ss.since = t; f.mu.Unlock() }
func (f *fakeSource) running(ss *session) (act *Activity, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return ss.act, ss.act != nil
}

// ProcessList lists the sessions; a running one as the router lists it
// (ProcRow.Running).
func (f *fakeSource) ProcessList() []ProcRow {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := time.Now()
	var out []ProcRow
	for _, ss := range f.sessions {
		r := ProcRow{ID: ss.id, User: ss.user, DB: ss.db, Command: "Sleep", Time: now.Sub(ss.since)}
		if act := ss.act; act != nil {
			r.Running(act, now)
		}
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b ProcRow) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// observed is an HTTP front (unstarted) over a fakeSource, with its slow
// log and the statement numbering.
type observed struct {
	*HTTP
	src *fakeSource
	ids QueryIDs
}

func observedServer(t *testing.T, cfg config.Coordinator) *observed {
	t.Helper()
	src := &fakeSource{sessions: map[uint32]*session{}}
	log := slog.New(slog.DiscardHandler)
	m := NewMetrics(src)
	slow, err := NewLog(cfg, log, m.Slow.Inc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(slow.Close)
	return &observed{HTTP: &HTTP{cfg: cfg, log: log, src: src, metrics: m, slow: slow}, src: src}
}

func (o *observed) startHTTP() error {
	if err := o.HTTP.start(); err != nil {
		return err
	}
	if o.HTTP.http == nil {
		return errors.New("http_listen not set")
	}
	return nil
}

// addSession lists a session idle for idle.
func addSession(o *observed, id uint32, user, db string, idle time.Duration) *session {
	ss := &session{id: id, user: user, db: db, since: time.Now().Add(-idle)}
	o.src.add(ss)
	return ss
}

// running makes ss run query for d, with total fragments of which done
// are merged (total 0: not distributed).
func running(o *observed, ss *session, query string, d time.Duration, total, done int64) *Activity {
	act := &Activity{Query: query, Start: time.Now().Add(-d)}
	act.Total.Store(total)
	act.Done.Store(done)
	o.src.setAct(ss, act)
	return act
}

// startStatement starts query on ss as the router does: the context
// carrying its Activity, the callback counting rows sent, and finish,
// which records it with the session's database and path as they are then.
func (o *observed) startStatement(ctx context.Context, ss *session, query string,
	callback func(*sqltypes.Result) error) (context.Context, func(*sqltypes.Result) error, func(error)) {
	act := NewActivity(o.ids.Next(), query)
	o.src.setAct(ss, act)
	counted := func(r *sqltypes.Result) error {
		act.Sent.Add(int64(len(r.Rows)))
		return callback(r)
	}
	finish := func(err error) {
		o.src.setAct(ss, nil)
		end := time.Now()
		o.src.setSince(ss, end)
		o.slow.Finish(Statement{Session: ss.id, User: ss.user, DB: ss.db, Kind: ss.kind}, act, end, err)
	}
	return WithActivity(ctx, act), counted, finish
}

// plannedLines is a plan as EXPLAIN renders it.
type plannedLines struct{ p *planner.Plan }

func (p plannedLines) Lines() []string { return p.p.Describe() }

// fragment is the part of a fragment attempt a trace records.
type fragment struct {
	id       int
	rng      string
	attempts int
}

// attempt records one attempt of f on worker ending with outcome (rows
// and bytes count only when it is "ok").
func attempt(ctx context.Context, qid, worker string, f *fragment, outcome string, rows, bytes int64, err error) {
	end := TraceAttempt(ctx, qid, worker, f.id, f.rng, f.attempts+1)
	time.Sleep(2 * time.Millisecond)
	f.attempts++
	end(Attempt{Outcome: outcome, Try: f.attempts, Rows: rows, Bytes: bytes, Err: err})
}

func lag(s float64) *float64 { return &s }

var errStalled = errors.New("fragment attempt exceeded fragment_timeout")
