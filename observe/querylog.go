package observe

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/sqlerr"
)

// The slow query log: every statement that ran at least long_query_time is
// appended to the file slow_query_log names as one JSON object per line
// (slowEntry), and kept among the recent ones the status page shows.
//
// Only slow statements take the log's mutex; every other statement pays
// one comparison. Entries are written with a single write on a file
// opened for appending, so lines from concurrent statements never
// interleave and a `logrotate copytruncate` loses nothing but the line
// being written.

// defaultLongQueryTime is long_query_time when the configuration does not
// set it (MySQL's default).
const defaultLongQueryTime = 10 * time.Second

// maxLoggedStatement bounds the statement text of one entry.
const maxLoggedStatement = 64 << 10

// recentSlow is how many slow statements the status page shows.
const recentSlow = 20

// slowEntry is one line of the slow query log.
type slowEntry struct {
	// Time is when the statement started (UTC).
	Time    time.Time `json:"time"`
	Session uint32    `json:"session"`
	User    string    `json:"user"`
	DB      string    `json:"db"`
	// Statement is the text as the client sent it (prepared statements:
	// with their values bound), cut at maxLoggedStatement bytes.
	Statement string `json:"statement"`
	// Duration is from receipt to the last row sent, in seconds.
	Duration float64 `json:"duration_seconds"`
	RowsSent int64   `json:"rows_sent"`
	// Path is the statement's path (a kind: distributed, passthrough,
	// local, refused, error).
	Path string `json:"path"`
	// Fragments is how many fragments a distributed statement was cut
	// into; RowsShipped and BytesShipped what their merged attempts
	// shipped from the workers.
	Fragments    int64 `json:"fragments"`
	RowsShipped  int64 `json:"rows_shipped"`
	BytesShipped int64 `json:"bytes_shipped"`
	// Error is the error the client got, with its MySQL error number.
	Error string `json:"error,omitempty"`
	Errno int    `json:"errno,omitempty"`
	// Plans are the statement's executions as EXPLAIN shows them (split
	// table, fragment SQL template, merge), one per distributed or
	// in-memory run (a derived table or a UNION ALL has several).
	Plans []planView `json:"plans,omitempty"`
	// Attempts are its fragment attempts in the order they started, a
	// retried fragment once per try; Untraced counts the attempts and
	// executions beyond what one statement's trace keeps (maxSpans,
	// maxPlans).
	Attempts []Span `json:"attempts,omitempty"`
	Untraced int    `json:"untraced,omitempty"`
}

// Span is one fragment attempt as the slow query log, the status page and
// /status/queries.json show it: times are milliseconds from the
// statement's start (EndMS is now while it runs). It is rendered from the
// trace's own record (fragmentSpan, absolute times) by fragmentSpan.view.
type Span struct {
	QID       string  `json:"qid"`
	Fragment  int     `json:"fragment"`
	Range     string  `json:"range"`
	Worker    string  `json:"worker"`
	Try       int     `json:"try"`
	StartMS   float64 `json:"start_ms"`
	EndMS     float64 `json:"end_ms"`
	ElapsedMS float64 `json:"elapsed_ms"`
	Rows      int64   `json:"rows"`
	Bytes     int64   `json:"bytes"`
	Outcome   string  `json:"outcome"` // running, ok, retried, failed, cancelled
	Error     string  `json:"error,omitempty"`
}

// Log is the slow query log, the recent slow statements and the
// ring of recent statements of any speed. Its methods are safe for
// concurrent use.
type Log struct {
	threshold time.Duration
	path      string
	log       *slog.Logger
	onSlow    func() // counts a slow statement (metrics)

	mu     sync.Mutex
	f      *os.File    // nil without slow_query_log
	recent []slowEntry // oldest first, at most recentSlow
	broken bool        // the last write failed (logged once)

	// ring is the recent statements of every speed (lock-free).
	ring recentRing
}

// NewLog opens the configured slow query log for appending.
func NewLog(cfg config.Coordinator, log *slog.Logger, onSlow func()) (*Log, error) {
	l := &Log{threshold: defaultLongQueryTime, path: cfg.SlowQueryLog, log: log, onSlow: onSlow}
	if cfg.LongQueryTime != nil {
		if l.threshold = cfg.LongQueryTime.D(); l.threshold < 0 {
			return nil, fmt.Errorf("config: long_query_time must not be negative")
		}
	}
	if cfg.SlowQueryLog != "" {
		f, err := os.OpenFile(cfg.SlowQueryLog, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o640)
		if err != nil {
			return nil, fmt.Errorf("slow_query_log: %w", err)
		}
		l.f = f
	}
	return l, nil
}

// observe logs the finished statement f (remember's copy) if it took at
// least the threshold. Its plans and attempts come from f, whose plans are
// already rendered: a statement under the threshold costs one comparison.
func (l *Log) observe(f *finished) {
	if l == nil || f == nil {
		return
	}
	d := f.end.Sub(f.start)
	if d < l.threshold {
		return
	}
	e := slowEntry{
		Time: f.start.UTC(), Session: f.session, User: f.user, DB: f.db,
		Statement: f.query, Duration: d.Seconds(), RowsSent: f.sent, Path: f.path,
		Fragments: f.total, RowsShipped: f.rows, BytesShipped: f.bytes, Error: f.err, Errno: f.errno,
		Untraced: f.untraced,
	}
	for _, p := range f.plans {
		e.Plans = append(e.Plans, planView{QID: p.qid, Lines: p.lines})
	}
	for _, sp := range f.spans {
		e.Attempts = append(e.Attempts, sp.view(f.start, f.end))
	}
	if l.onSlow != nil {
		l.onSlow()
	}
	line, jerr := json.Marshal(e)
	if jerr != nil { // cannot happen with these field types
		l.log.Warn("slow query log: encoding an entry", "err", jerr)
		return
	}
	line = append(line, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.recent) == recentSlow {
		copy(l.recent, l.recent[1:])
		l.recent = l.recent[:recentSlow-1]
	}
	// The status page lists the recent ones without their traces (its
	// recent statements show those): keep only the summary.
	e.Plans, e.Attempts = nil, nil
	l.recent = append(l.recent, e)
	if l.f == nil {
		return
	}
	if _, werr := l.f.Write(line); werr != nil {
		if !l.broken {
			l.log.Warn("slow query log: write failed; entries are lost until a write succeeds", "path", l.path, "err", werr)
		}
		l.broken = true
		return
	}
	l.broken = false
}

// recentEntries returns the recent slow statements, newest first.
func (l *Log) recentEntries() []slowEntry {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]slowEntry, len(l.recent))
	for i, e := range l.recent {
		out[len(out)-1-i] = e
	}
	return out
}

// Close closes the log file.
func (l *Log) Close() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil {
		l.f.Close()
		l.f = nil
	}
}

// The recent statements and their traces, for the status page: every
// statement's executions (plans) and fragment attempts are recorded in its
// own activity (trace, under the statement's own mutex, taken once per
// attempt start and end), and each finished statement goes into a ring of
// the last recentQueries, written with one atomic add and one atomic
// store: no lock is shared between statements.

// recentQueries is how many finished statements the status page keeps.
const recentQueries = 64

// maxSpans and maxPlans bound one statement's trace; beyond them attempts
// and executions are only counted.
const (
	maxSpans = 4096
	maxPlans = 16
)

// trace is one statement's record of its executions.
type trace struct {
	mu      sync.Mutex
	plans   []execPlan
	spans   []fragmentSpan
	dropped int // attempts beyond maxSpans, and executions beyond maxPlans
}

// execPlan is one execution (one distributed or in-memory run) of a
// statement: a derived table or a UNION ALL has several.
type execPlan struct {
	qid string
	// plan is the execution's plan while the statement runs (immutable
	// once prepared, rendered when shown); in the ring of finished
	// statements lines replace it, so the ring keeps no plan's pinned
	// table alive.
	plan  Plan
	lines []string
}

// view renders the attempt for a statement that started at start; end
// stands for the attempt's end while it runs.
func (sp fragmentSpan) view(start, end time.Time) Span {
	if !sp.end.IsZero() {
		end = sp.end
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	return Span{QID: sp.qid, Fragment: sp.fragment, Range: sp.rng, Worker: sp.worker, Try: sp.try,
		StartMS: ms(sp.start.Sub(start)), EndMS: ms(end.Sub(start)), ElapsedMS: ms(end.Sub(sp.start)),
		Rows: sp.rows, Bytes: sp.bytes, Outcome: sp.outcome, Error: sp.err}
}

// fragmentSpan is one attempt of one fragment, as the trace records it.
type fragmentSpan struct {
	qid      string
	fragment int
	rng      string
	worker   string
	try      int
	start    time.Time
	end      time.Time // zero while it runs
	rows     int64
	bytes    int64
	outcome  string // running, ok, retried, failed, cancelled
	err      string
}

// Plan is an execution's plan as EXPLAIN shows it, rendered only when
// someone looks (the status page, the slow log).
type Plan interface{ Lines() []string }

// TracePlan records an execution of plan in the statement of ctx.
func TracePlan(ctx context.Context, plan Plan, qid string) {
	act, ok := ActivityFrom(ctx)
	if !ok {
		return
	}
	t := &act.trace
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.plans) == maxPlans {
		t.dropped++
		return
	}
	t.plans = append(t.plans, execPlan{qid: qid, plan: plan})
}

// Attempt is the end of a fragment attempt as TraceAttempt's caller
// reports it.
type Attempt struct {
	Outcome     string // ok, retried, failed, cancelled
	Try         int
	Rows, Bytes int64 // of an attempt whose output was merged
	Err         error
}

// TraceAttempt records the start of try try of fragment (key range rng) on
// worker in the statement of ctx and returns the function that records
// its end.
func TraceAttempt(ctx context.Context, qid, worker string, fragment int, rng string, try int) func(Attempt) {
	act, ok := ActivityFrom(ctx)
	if !ok {
		return func(Attempt) {}
	}
	t := &act.trace
	t.mu.Lock()
	i := len(t.spans)
	if i == maxSpans {
		t.dropped++
		t.mu.Unlock()
		return func(Attempt) {}
	}
	t.spans = append(t.spans, fragmentSpan{qid: qid, fragment: fragment, rng: rng, worker: worker,
		try: try, start: time.Now(), outcome: "running"})
	t.mu.Unlock()
	return func(a Attempt) {
		end := time.Now()
		t.mu.Lock()
		defer t.mu.Unlock()
		sp := &t.spans[i]
		sp.end, sp.outcome, sp.try = end, a.Outcome, a.Try
		if a.Outcome == "ok" {
			sp.rows, sp.bytes = a.Rows, a.Bytes
		}
		if a.Err != nil && a.Outcome != "ok" {
			sp.err = TruncateRunes(a.Err.Error(), 300)
		}
	}
}

// snapshot copies the trace.
func (t *trace) snapshot() ([]execPlan, []fragmentSpan, int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.plans), slices.Clone(t.spans), t.dropped
}

// finished is a statement that has ended, as the ring keeps it: a copy,
// with its text cut at maxLoggedStatement, so the ring holds neither the
// activity nor a huge statement.
type finished struct {
	seq      uint64
	id       uint64
	query    string
	start    time.Time
	end      time.Time
	session  uint32
	user     string
	db       string
	path     string
	err      string
	errno    int
	total    int64
	done     int64
	sent     int64
	rows     int64
	bytes    int64
	plans    []execPlan // lines only
	spans    []fragmentSpan
	untraced int
}

// recentRing holds the last recentQueries finished statements.
type recentRing struct {
	next  atomic.Uint64
	slots [recentQueries]atomic.Pointer[finished]
}

// Statement is who ran a statement and the path it took.
type Statement struct {
	Session  uint32
	User, DB string
	Kind     string // the path: distributed, passthrough, local, ...
}

// Finish puts the finished statement act in the ring of recent
// statements and, when it ran at least long_query_time, in the slow log.
// It runs once the statement's fragments have ended.
func (l *Log) Finish(st Statement, act *Activity, end time.Time, err error) {
	l.observe(l.remember(st, act, end, err))
}

// remember puts the finished statement act in the ring and returns it
// (nil without a log).
func (l *Log) remember(st Statement, act *Activity, end time.Time, err error) *finished {
	if l == nil {
		return nil
	}
	kind, _ := classify(st.Kind, err)
	f := &finished{id: act.ID, query: cutStatement(act.Query), start: act.Start, end: end, session: st.Session,
		user: st.User, db: st.DB, path: kind, total: act.Total.Load(), done: act.Done.Load(),
		sent: act.Sent.Load(), rows: act.Rows.Load(), bytes: act.Bytes.Load()}
	if err != nil {
		f.err = err.Error()
		if se, ok := sqlerr.As(err); ok {
			f.err, f.errno = se.Message, int(se.Num)
		}
	}
	f.plans, f.spans, f.untraced = act.trace.snapshot()
	for i := range f.plans {
		if p := f.plans[i].plan; p != nil {
			f.plans[i].lines = p.Lines()
		}
		f.plans[i].plan = nil
	}
	f.seq = l.ring.next.Add(1)
	l.ring.slots[f.seq%recentQueries].Store(f)
	return f
}

// cutStatement cuts a statement's text at maxLoggedStatement bytes, on a
// character boundary.
func cutStatement(q string) string {
	if len(q) <= maxLoggedStatement {
		return q
	}
	cut := maxLoggedStatement
	for cut > 0 && !utf8.RuneStart(q[cut]) {
		cut--
	}
	return q[:cut]
}

// recentFinished returns the finished statements in the ring, newest first.
func (l *Log) recentFinished() []*finished {
	if l == nil {
		return nil
	}
	var out []*finished
	for i := range l.ring.slots {
		if f := l.ring.slots[i].Load(); f != nil {
			out = append(out, f)
		}
	}
	slices.SortFunc(out, func(a, b *finished) int { return cmp.Compare(b.seq, a.seq) })
	return out
}
