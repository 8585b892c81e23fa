package observe

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"vitess.io/vitess/go/sqltypes"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/planner"
	"github.com/shoaldb/shoal/sqlerr"
)

// TestTraceOutcomes records one statement's attempts the way run does and
// checks each attempt's outcome, its rows and bytes (only when merged), and
// that the plan of each execution is kept after the statement ends.
func TestTraceOutcomes(t *testing.T) {
	s := observedServer(t, config.Coordinator{})
	ss := addSession(s, 4, "root", "ontime", 0)
	ctx, _, finish := s.startStatement(context.Background(), ss, "select count(*) from ontime", func(*sqltypes.Result) error { return nil })
	TracePlan(ctx, plannedLines{&planner.Plan{DB: "ontime", Table: "ontime", Split: planner.SplitInt, SplitColumn: "`ontime`.`id`",
		FragmentSQL: "SELECT COUNT(*) FROM `ontime`.`ontime` WHERE " + planner.RangeMarker}}, "17")

	qctx, cancel := context.WithCancel(ctx)
	frag := func(id int) *fragment {
		return &fragment{id: id, rng: "[" + strconv.Itoa(id) + "]"}
	}
	// The outcomes as the engine's scheduler reports them (its
	// traceAttempt decides them; see engine's TestAttemptOutcome).
	ok, retried, failed, stopped := frag(0), frag(1), frag(2), frag(3)
	attempt(qctx, "17", "replica1", ok, "ok", 100, 800, nil)
	attempt(qctx, "17", "replica2", retried, "retried", 0, 0, errStalled)
	attempt(qctx, "17", "replica1", retried, "ok", 40, 320, nil)
	attempt(qctx, "17", "replica2", failed, "failed", 0, 0, sqlerr.New(1054, "42S22", "Unknown column 'x'"))
	attempt(qctx, "17", "replica2", stopped, "ok", 0, 0, nil)
	running := TraceAttempt(qctx, "17", "replica1", 4, "[4]", 1) // never ends before the listing
	cancel()
	attempt(qctx, "17", "replica2", frag(5), "cancelled", 0, 0, context.Canceled)

	live := s.runningQueries(time.Now())
	if len(live) != 1 || live[0].Session != 4 || len(live[0].Plans) != 1 || len(live[0].Attempts) != 7 {
		t.Fatalf("running: %+v", live)
	}
	want := []struct {
		worker, outcome string
		try             int
		rows            int64
	}{
		{"replica1", "ok", 1, 100}, {"replica2", "retried", 1, 0}, {"replica1", "ok", 2, 40},
		{"replica2", "failed", 1, 0}, {"replica2", "ok", 1, 0}, {"replica1", "running", 1, 0}, {"replica2", "cancelled", 1, 0},
	}
	for i, w := range want {
		a := live[0].Attempts[i]
		if a.Worker != w.worker || a.Outcome != w.outcome || a.Try != w.try || a.Rows != w.rows || a.Bytes != w.rows*8 || a.EndMS < a.StartMS {
			t.Errorf("attempt %d: %+v, want %+v", i, a, w)
		}
	}
	if !strings.Contains(live[0].Attempts[3].Error, "Unknown column") {
		t.Errorf("failed attempt's error: %q", live[0].Attempts[3].Error)
	}
	running(Attempt{Outcome: "ok", Try: 1})
	finish(nil)
	if got := s.runningQueries(time.Now()); len(got) != 0 {
		t.Errorf("still running after finish: %+v", got)
	}
	recent := s.recentQueries()
	if len(recent) != 1 || recent[0].State != "ok" || len(recent[0].Plans) != 1 {
		t.Fatalf("recent: %+v", recent)
	}
	p := recent[0].Plans[0]
	if p.QID != "17" || len(p.Lines) < 2 || !strings.Contains(p.Lines[1], "SELECT COUNT(*) FROM `ontime`.`ontime`") {
		t.Errorf("plan kept after the statement ended: %+v", p)
	}
	if recent[0].Timeline == nil || len(recent[0].Timeline.Lanes) != 2 {
		t.Errorf("timeline: %+v", recent[0].Timeline)
	}
}

// TestTimelineLayout: one row per worker in order of first use, attempts
// that overlap on a worker stacked in sub-rows, bars placed on the time
// scale and never outside the plot.
func TestTimelineLayout(t *testing.T) {
	spans := []Span{
		{Worker: "a", StartMS: 0, EndMS: 50, Outcome: "ok"},
		{Worker: "a", StartMS: 10, EndMS: 40, Outcome: "ok"}, // overlaps the first: second sub-row
		{Worker: "b", StartMS: 0, EndMS: 100, Outcome: "failed"},
		{Worker: "a", StartMS: 60, EndMS: 100, Outcome: "ok"}, // after both: first sub-row again
	}
	tv := newTimeline(spans, 80)
	if len(tv.Lanes) != 2 || tv.Lanes[0].Worker != "a" || tv.Lanes[1].Worker != "b" {
		t.Fatalf("lanes %+v", tv.Lanes)
	}
	if tv.Lanes[0].H != 2*tlBar || tv.Lanes[1].H != tlBar || tv.Lanes[1].Y != 2*tlBar+tlGap {
		t.Errorf("lane heights and offsets %+v", tv.Lanes)
	}
	if tv.Bars[0].Y != tv.Bars[3].Y || tv.Bars[1].Y == tv.Bars[0].Y {
		t.Errorf("sub-rows: %v %v %v", tv.Bars[0].Y, tv.Bars[1].Y, tv.Bars[3].Y)
	}
	// The axis spans the latest end (100 ms), past the statement's 80.
	if b := tv.Bars[2]; b.X != tlLabel || b.W != tlPlot || b.Outcome != "failed" {
		t.Errorf("full-width bar %+v", b)
	}
	if b := tv.Bars[3]; b.X != tlLabel+0.6*tlPlot || b.W != 0.4*tlPlot {
		t.Errorf("bar at 60–100 ms: %+v", b)
	}
	if tv.Ticks[4].Label != "100 ms" || tv.Ticks[4].Anchor != "end" || tv.Height != tv.AxisY+tlAxis {
		t.Errorf("ticks %+v height %d", tv.Ticks, tv.Height)
	}
}

// TestRecentRing: the ring keeps the last recentQueries statements to
// finish, newest first, while many sessions finish at once (run it with
// -race).
func TestRecentRing(t *testing.T) {
	s := observedServer(t, config.Coordinator{})
	run := func(ss *session, q string) {
		_, _, finish := s.startStatement(context.Background(), ss, q, func(*sqltypes.Result) error { return nil })
		finish(nil)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		ss := addSession(s, uint32(i+1), "root", "", 0)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				run(ss, "select 1")
				s.recentQueries() // a status page read meanwhile
			}
		}()
	}
	wg.Wait()
	if got := s.recentQueries(); len(got) != recentQueries {
		t.Fatalf("%d recent statements, want %d", len(got), recentQueries)
	}
	ss := addSession(s, 99, "root", "", 0)
	for i := range recentQueries + 10 {
		run(ss, "select "+strconv.Itoa(i))
	}
	got := s.recentQueries()
	if len(got) != recentQueries {
		t.Fatalf("%d recent statements, want %d", len(got), recentQueries)
	}
	for i, q := range got {
		if want := "select " + strconv.Itoa(recentQueries+9-i); q.Statement != want || q.Session != 99 {
			t.Fatalf("recent[%d] is %q of session %d, want %q", i, q.Statement, q.Session, want)
		}
	}
}

// TestStatusQueriesServed: /status/queries.json and the status page show a
// statement's plan and timeline; ?query=ID selects it; an unknown id says
// so.
func TestStatusQueriesServed(t *testing.T) {
	s := observedServer(t, config.Coordinator{HTTPListen: new("127.0.0.1:0")})
	ss := addSession(s, 9, "root", "ontime", 0)
	ctx, _, finish := s.startStatement(context.Background(), ss, "select Carrier, count(*) from ontime group by Carrier", func(*sqltypes.Result) error { return nil })
	TracePlan(ctx, plannedLines{&planner.Plan{DB: "ontime", Table: "ontime", Split: planner.SplitInt, SplitColumn: "`id`", FragmentSQL: "SELECT 1 WHERE " + planner.RangeMarker}}, "3")
	attempt(ctx, "3", "replica1", &fragment{id: 0, rng: "[0, 10)"}, "failed", 0, 0, sqlerr.New(1054, "42S22", "Unknown column"))
	ss.kind = KindDistributed
	finish(sqlerr.New(1054, "42S22", "Unknown column"))
	if err := s.startHTTP(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	base := "http://" + s.Addr().String()
	get := func(path string) string {
		t.Helper()
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, resp.StatusCode, b)
		}
		return string(b)
	}
	var body struct {
		Running []queryView `json:"running"`
		Recent  []queryView `json:"recent"`
	}
	if err := json.Unmarshal([]byte(get("/status/queries.json")), &body); err != nil {
		t.Fatal(err)
	}
	if len(body.Running) != 0 || len(body.Recent) != 1 {
		t.Fatalf("queries.json: %+v", body)
	}
	q := body.Recent[0]
	if q.Errno != 1054 || q.State != "error" || q.Path != "distributed" || len(q.Plans) != 1 || len(q.Attempts) != 1 || q.Attempts[0].Outcome != "failed" || q.Attempts[0].Worker != "replica1" {
		t.Errorf("recent statement: %+v", q)
	}
	id := strconv.FormatUint(q.QueryID, 10)
	page := get("/?query=" + id)
	for _, want := range []string{`<h2 id="selected">Query ` + id + `</h2>`, `<svg class="tl"`, `class="b-failed"`, ">replica1</text>",
		"SELECT 1 WHERE (`id` &gt;= ? AND `id` &lt; ?)", "Recent statements", `href="?query=` + id + `#selected"`} {
		if !strings.Contains(page, want) {
			t.Errorf("status page lacks %q", want)
		}
	}
	if page := get("/?query=999"); !strings.Contains(page, "No running or recent statement has query id 999") {
		t.Error("an unknown ?query= is not reported")
	}
}
