package observe

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"vitess.io/vitess/go/sqltypes"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/planner"
	"github.com/shoaldb/shoal/sqlerr"
)

// readSlowLog parses every line of a slow query log, rejecting unknown
// fields.
func readSlowLog(t *testing.T, path string) []slowEntry {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []slowEntry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		var e slowEntry
		if err := dec.Decode(&e); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		out = append(out, e)
	}
	return out
}

// TestSlowLog: a statement past long_query_time is one JSON line with its
// session, path, rows, fragments, plans and attempts and error; a faster
// one is not logged; the database logged is the one it left.
func TestSlowLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "slow.log")
	s := observedServer(t, config.Coordinator{SlowQueryLog: path, LongQueryTime: new(config.Duration(50 * time.Millisecond))})
	ss := addSession(s, 42, "alice", "ontime", 0)

	sent := 0
	ctx, cb, finish := s.startStatement(context.Background(), ss, "select Carrier, count(*) from ontime group by Carrier", func(r *sqltypes.Result) error {
		sent += len(r.Rows)
		return nil
	})
	act, ok := ActivityFrom(ctx)
	if cur, _ := s.src.running(ss); !ok || cur != act {
		t.Fatal("the statement's activity is not in its context while it runs")
	}
	// One execution with two fragments, one of them retried.
	TracePlan(ctx, plannedLines{&planner.Plan{DB: "ontime", Table: "ontime", Split: planner.SplitInt, SplitColumn: "`id`",
		FragmentSQL: "SELECT `Carrier`, COUNT(*) FROM `ontime`.`ontime` WHERE " + planner.RangeMarker + " GROUP BY `Carrier`"}}, "q9")
	f0 := &fragment{id: 0, rng: "[1, 50)"}
	f1 := &fragment{id: 1, rng: "[50, 100)"}
	attempt(ctx, "q9", "replica1", f0, "ok", 200, 2000, nil)
	attempt(ctx, "q9", "replica2", f1, "retried", 0, 0, errStalled)
	attempt(ctx, "q9", "replica1", f1, "ok", 120, 1200, nil)
	act.Total.Store(16)
	act.Done.Store(16)
	act.Rows.Store(320)
	act.Bytes.Store(9000)
	cb(&sqltypes.Result{Fields: nil})
	cb(&sqltypes.Result{Rows: make([][]sqltypes.Value, 20)})
	ss.kind = KindDistributed
	ss.db = "other" // as USE would
	time.Sleep(60 * time.Millisecond)
	finish(nil)
	if _, ok := s.src.running(ss); ok || sent != 20 {
		t.Errorf("after the statement: still running %v, sent %d", ok, sent)
	}

	// Fast: not logged.
	_, _, finish = s.startStatement(context.Background(), ss, "select 1", func(*sqltypes.Result) error { return nil })
	finish(nil)

	// Slow and failed: logged with its error number.
	_, _, finish = s.startStatement(context.Background(), ss, "select sleep(1) from dual", func(*sqltypes.Result) error { return nil })
	ss.kind = KindPassthrough
	time.Sleep(60 * time.Millisecond)
	finish(sqlerr.ToMySQL(sqlerr.Interrupted()))

	es := readSlowLog(t, path)
	if len(es) != 2 {
		t.Fatalf("%d entries, want 2: %+v", len(es), es)
	}
	e := es[0]
	if e.Session != 42 || e.User != "alice" || e.DB != "other" || e.Path != KindDistributed || e.RowsSent != 20 ||
		e.Fragments != 16 || e.RowsShipped != 320 || e.BytesShipped != 9000 || e.Error != "" || e.Duration < 0.05 ||
		e.Statement != "select Carrier, count(*) from ontime group by Carrier" || time.Since(e.Time) > time.Minute || e.Time.Location() != time.UTC {
		t.Errorf("distributed entry: %+v", e)
	}
	if len(e.Plans) != 1 || e.Plans[0].QID != "q9" || len(e.Plans[0].Lines) < 2 ||
		e.Plans[0].Lines[0] != "split ontime.ontime on `id`" || !strings.HasPrefix(e.Plans[0].Lines[1], "fragment: SELECT `Carrier`, COUNT(*)") {
		t.Errorf("distributed entry's plan: %+v", e.Plans)
	}
	want := []Span{
		{QID: "q9", Fragment: 0, Range: "[1, 50)", Worker: "replica1", Try: 1, Rows: 200, Bytes: 2000, Outcome: "ok"},
		{QID: "q9", Fragment: 1, Range: "[50, 100)", Worker: "replica2", Try: 1, Outcome: "retried", Error: errStalled.Error()},
		{QID: "q9", Fragment: 1, Range: "[50, 100)", Worker: "replica1", Try: 2, Rows: 120, Bytes: 1200, Outcome: "ok"},
	}
	if len(e.Attempts) != len(want) {
		t.Fatalf("distributed entry's attempts: %+v", e.Attempts)
	}
	prevStart := -1.0
	for i, w := range want {
		a := e.Attempts[i]
		if a.ElapsedMS < 2 || a.StartMS <= prevStart || a.EndMS > e.Duration*1000 || math.Abs(a.EndMS-a.StartMS-a.ElapsedMS) > 1e-6 {
			t.Errorf("attempt %d times: start %v ms, end %v ms, elapsed %v ms (statement %v s)", i, a.StartMS, a.EndMS, a.ElapsedMS, e.Duration)
		}
		prevStart = a.StartMS
		a.StartMS, a.EndMS, a.ElapsedMS = 0, 0, 0
		if a != w {
			t.Errorf("attempt %d: %+v, want %+v", i, a, w)
		}
	}
	if e := es[1]; e.Path != KindPassthrough || e.Errno != sqlerr.ErrQueryInterrupted || e.Error == "" || e.Fragments != 0 ||
		e.Plans != nil || e.Attempts != nil {
		t.Errorf("failed entry: %+v", e)
	}
	recent := s.slow.recentEntries()
	if len(recent) != 2 || recent[0].Statement != "select sleep(1) from dual" || recent[1].Attempts != nil {
		t.Errorf("recent entries, newest first: %+v", recent)
	}
}

// TestSlowLogEverything: long_query_time 0 logs every statement; a long
// statement is cut on a character boundary; the recent list keeps the
// newest recentSlow.
func TestSlowLogEverything(t *testing.T) {
	path := filepath.Join(t.TempDir(), "slow.log")
	s := observedServer(t, config.Coordinator{SlowQueryLog: path, LongQueryTime: new(config.Duration(0))})
	ss := addSession(s, 1, "root", "", 0)
	long := "select '" + strings.Repeat("ü", maxLoggedStatement) + "'"
	for i := range recentSlow + 5 {
		q := "select " + string(rune('a'+i))
		if i == 0 {
			q = long
		}
		_, _, finish := s.startStatement(context.Background(), ss, q, func(*sqltypes.Result) error { return nil })
		finish(nil)
	}
	es := readSlowLog(t, path)
	if len(es) != recentSlow+5 {
		t.Fatalf("%d entries, want %d", len(es), recentSlow+5)
	}
	if st := es[0].Statement; len(st) > maxLoggedStatement || len(st) < maxLoggedStatement-1 || !utf8.ValidString(st) {
		t.Errorf("long statement logged as %d bytes (valid UTF-8: %v)", len(st), utf8.ValidString(st))
	}
	if es[0].Path != KindLocal {
		t.Errorf("a statement without a path is %q", es[0].Path)
	}
	recent := s.slow.recentEntries()
	if len(recent) != recentSlow || recent[0].Statement != es[len(es)-1].Statement {
		t.Errorf("recent: %d entries, newest %q", len(recent), recent[0].Statement)
	}
}

func TestSlowLogConfig(t *testing.T) {
	if _, err := NewLog(config.Coordinator{LongQueryTime: new(config.Duration(-time.Second))}, nil, nil); err == nil {
		t.Error("negative long_query_time accepted")
	}
	if _, err := NewLog(config.Coordinator{SlowQueryLog: filepath.Join(t.TempDir(), "no", "such", "dir", "slow.log")}, nil, nil); err == nil {
		t.Error("an unwritable slow_query_log accepted")
	}
	l, err := NewLog(config.Coordinator{}, nil, nil)
	if err != nil || l.threshold != defaultLongQueryTime || l.f != nil {
		t.Errorf("defaults: %+v %v", l, err)
	}
}
