package observe

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// The status page's statements — running and recent, each with the plans
// of its executions and its fragment attempts — and their per-worker
// timeline, drawn as inline SVG on the server (no script, no external
// asset). The same data is served as JSON at /status/queries.json.
//
// Everything is read from the statements' own traces (querylog.go): a
// running statement's through its session's activity, a finished one's
// through the ring of recent statements.

// queryView is one statement as the status page and its JSON show it.
type queryView struct {
	QueryID      uint64     `json:"query_id"`
	Session      uint32     `json:"session"`
	User         string     `json:"user"`
	DB           string     `json:"db"`
	Statement    string     `json:"statement"`
	Start        time.Time  `json:"start"`
	Duration     float64    `json:"duration_seconds"` // so far, while it runs
	Running      bool       `json:"running"`
	State        string     `json:"state"` // running: the process list's; ended: "ok" or "error"
	Path         string     `json:"path,omitempty"`
	Fragments    int64      `json:"fragments"`
	Done         int64      `json:"fragments_done"`
	RowsSent     int64      `json:"rows_sent"`
	RowsShipped  int64      `json:"rows_shipped"`
	BytesShipped int64      `json:"bytes_shipped"`
	Error        string     `json:"error,omitempty"`
	Errno        int        `json:"errno,omitempty"`
	Plans        []planView `json:"plans"`
	Attempts     []Span     `json:"attempts"`
	// Untraced counts attempts and executions beyond the trace's bounds.
	Untraced int `json:"untraced,omitempty"`

	Timeline *timelineView `json:"-"`
}

// planView is one execution's plan, one line per step (EXPLAIN's lines).
type planView struct {
	QID   string   `json:"qid"`
	Lines []string `json:"lines"`
}

// traceView fills q's plans, attempts and timeline from a trace of a
// statement that started at start; end is when it ended, or now while it
// runs.
func (q *queryView) traceView(plans []execPlan, spans []fragmentSpan, untraced int, start, end time.Time) {
	q.Untraced = untraced
	for _, p := range plans {
		lines := p.lines
		if p.plan != nil {
			lines = p.plan.Lines()
		}
		q.Plans = append(q.Plans, planView{QID: p.qid, Lines: lines})
	}
	for _, sp := range spans {
		q.Attempts = append(q.Attempts, sp.view(start, end))
	}
	if len(q.Attempts) > 0 {
		q.Timeline = newTimeline(q.Attempts, float64(end.Sub(start))/float64(time.Millisecond))
	}
}

// runningQueries are the statements running now, oldest first.
func (s *HTTP) runningQueries(now time.Time) []queryView {
	var out []queryView
	for _, p := range s.src.ProcessList() {
		act := p.Act
		if act == nil {
			continue
		}
		q := queryView{QueryID: act.ID, Session: p.ID, User: p.User, DB: p.DB, Statement: act.Query, Start: act.Start,
			Duration: now.Sub(act.Start).Seconds(), Running: true, State: p.State, Fragments: p.Fragments, Done: p.Done,
			RowsSent: act.Sent.Load(), RowsShipped: act.Rows.Load(), BytesShipped: act.Bytes.Load()}
		plans, spans, untraced := act.trace.snapshot()
		q.traceView(plans, spans, untraced, act.Start, now)
		out = append(out, q)
	}
	return out
}

// recentQueries are the last finished statements, newest first.
func (s *HTTP) recentQueries() []queryView {
	var out []queryView
	for _, f := range s.slow.recentFinished() {
		q := queryView{QueryID: f.id, Session: f.session, User: f.user, DB: f.db, Statement: f.query, Start: f.start,
			Duration: f.end.Sub(f.start).Seconds(), State: "ok", Path: f.path, Fragments: f.total, Done: f.done,
			RowsSent: f.sent, RowsShipped: f.rows, BytesShipped: f.bytes, Error: f.err, Errno: f.errno}
		if f.err != "" {
			q.State = "error"
		}
		q.traceView(f.plans, f.spans, f.untraced, f.start, f.end)
		out = append(out, q)
	}
	return out
}

// queriesJSON serves GET /status/queries.json: {"running": […], "recent": […]}.
func (s *HTTP) queriesJSON(w http.ResponseWriter, _ *http.Request) {
	body := struct {
		Running []queryView `json:"running"`
		Recent  []queryView `json:"recent"`
	}{Running: s.runningQueries(time.Now()), Recent: s.recentQueries()}
	if body.Running == nil {
		body.Running = []queryView{}
	}
	if body.Recent == nil {
		body.Recent = []queryView{}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if err := json.NewEncoder(w).Encode(body); err != nil {
		s.log.Debug("status queries.json", "err", err)
	}
}

// The timeline: one row per worker, each attempt a bar from its start to
// its end coloured by outcome; attempts that overlap on one worker (its
// slots) are stacked in sub-rows, each attempt in the first sub-row free
// at its start.
const (
	tlLabel   = 150 // px for the worker names
	tlPlot    = 760 // px for the time axis
	tlBar     = 12  // px per sub-row
	tlGap     = 8   // px between workers
	tlAxis    = 18  // px for the tick labels
	maxTLBars = 2000
)

// timelineView is what the template draws.
type timelineView struct {
	Width, Height int
	AxisY         int // where the tick lines end and their labels start
	Lanes         []laneView
	Bars          []barView
	Ticks         []tickView
	Omitted       int // attempts not drawn (beyond maxTLBars)
}

type laneView struct {
	Worker      string
	Y, H, TextY int
}

type barView struct {
	X, Y, W float64
	H       int
	Outcome string
	Title   string
}

type tickView struct {
	X      float64
	Label  string
	Anchor string // text-anchor: the end ticks' labels stay inside the plot
}

// newTimeline lays out spans over [0, totalMS].
func newTimeline(spans []Span, totalMS float64) *timelineView {
	for _, sp := range spans {
		totalMS = max(totalMS, sp.EndMS)
	}
	if totalMS <= 0 {
		totalMS = 1
	}
	tv := &timelineView{Width: tlLabel + tlPlot + 10}
	if len(spans) > maxTLBars {
		tv.Omitted = len(spans) - maxTLBars
		spans = spans[:maxTLBars]
	}
	// Workers in order of first appearance; sub-rows per worker.
	type lane struct {
		name string
		ends []float64 // each sub-row's last end
		bars []int     // index into tv.Bars
		subs []int     // each bar's sub-row
	}
	var lanes []*lane
	byName := map[string]*lane{}
	scale := float64(tlPlot) / totalMS
	for _, sp := range spans {
		l := byName[sp.Worker]
		if l == nil {
			l = &lane{name: sp.Worker}
			byName[sp.Worker] = l
			lanes = append(lanes, l)
		}
		sub := -1
		for i, e := range l.ends {
			if e <= sp.StartMS {
				sub = i
				break
			}
		}
		if sub < 0 {
			sub = len(l.ends)
			l.ends = append(l.ends, 0)
		}
		l.ends[sub] = sp.EndMS
		title := fmt.Sprintf("fragment %d %s, try %d on %s: %s, %.1f–%.1f ms", sp.Fragment, sp.Range, sp.Try, sp.Worker, sp.Outcome, sp.StartMS, sp.EndMS)
		if sp.Outcome == "ok" {
			title += fmt.Sprintf(", %d rows, %d bytes", sp.Rows, sp.Bytes)
		}
		if sp.Error != "" {
			title += ": " + sp.Error
		}
		tv.Bars = append(tv.Bars, barView{X: tlLabel + sp.StartMS*scale, W: max((sp.EndMS-sp.StartMS)*scale, 1.5),
			H: tlBar - 2, Outcome: sp.Outcome, Title: title})
		l.bars = append(l.bars, len(tv.Bars)-1)
		l.subs = append(l.subs, sub)
	}
	y := 0
	for _, l := range lanes {
		h := len(l.ends) * tlBar
		tv.Lanes = append(tv.Lanes, laneView{Worker: l.name, Y: y, H: h, TextY: y + h/2 + 4})
		for i, b := range l.bars {
			tv.Bars[b].Y = float64(y + l.subs[i]*tlBar + 1)
		}
		y += h + tlGap
	}
	for i := 0; i <= 4; i++ {
		ms := totalMS * float64(i) / 4
		anchor := "middle"
		switch i {
		case 0:
			anchor = "start"
		case 4:
			anchor = "end"
		}
		tv.Ticks = append(tv.Ticks, tickView{X: tlLabel + ms*scale, Label: msLabel(ms), Anchor: anchor})
	}
	tv.AxisY = y
	tv.Height = y + tlAxis
	return tv
}

// msLabel renders an axis time.
func msLabel(ms float64) string {
	switch {
	case ms >= 10_000:
		return strconv.FormatFloat(ms/1000, 'f', 1, 64) + " s"
	case ms >= 1000:
		return strconv.FormatFloat(ms/1000, 'f', 2, 64) + " s"
	case ms >= 10:
		return strconv.FormatFloat(ms, 'f', 0, 64) + " ms"
	}
	return strconv.FormatFloat(ms, 'f', 1, 64) + " ms"
}
