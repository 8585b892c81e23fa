package router

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"vitess.io/vitess/go/sqltypes"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/observe"
)

// observedServer is a Router with what SHOW PROCESSLIST and KILL need,
// and no engine.
func observedServer(t *testing.T, cfg config.Coordinator) *Router {
	t.Helper()
	return &Router{cfg: cfg, log: slog.New(slog.DiscardHandler), ids: &observe.QueryIDs{}}
}

// addSession registers a session as NewConnection and ConnectionReady
// would (user "" leaves it in the handshake).
func addSession(s *Router, id uint32, user, db string, idle time.Duration) *Session {
	ss := &Session{id: id, user: user}
	ss.DB = db
	if user != "" {
		host := fmt.Sprintf("127.0.0.1:%d", 50000+id)
		ss.proc.user.Store(&user)
		ss.proc.host.Store(&host)
		ss.proc.since.Store(time.Now().Add(-idle).UnixNano())
	}
	ss.publishDB()
	s.sessions.Store(id, ss)
	return ss
}

// running makes ss run query for d, with total fragments of which done
// are merged (total 0: not distributed).
func running(ss *Session, query string, d time.Duration, total, done int64) *observe.Activity {
	act := &observe.Activity{Query: query, Start: time.Now().Add(-d)}
	act.Total.Store(total)
	act.Done.Store(done)
	ss.proc.stmt.Store(act)
	return act
}

func TestProcessList(t *testing.T) {
	s := observedServer(t, config.Coordinator{})
	self := addSession(s, 7, "root", "ontime", 0)
	addSession(s, 3, "root", "", 90*time.Second)
	dist := addSession(s, 12, "alice", "ontime", 0)
	running(dist, "select Carrier, count(*) from ontime group by Carrier", 4*time.Second, 16, 5)
	pass := addSession(s, 9, "root", "ontime", 0)
	running(pass, "select sleep(10)", 2*time.Second, 0, 0)
	addSession(s, 15, "", "", 0) // in its handshake

	rows := s.processList("root", self, "SHOW PROCESSLIST")
	var ids []uint32
	for _, r := range rows {
		ids = append(ids, r.ID)
	}
	if len(ids) != 5 || ids[0] != 3 || ids[1] != 7 || ids[2] != 9 || ids[3] != 12 || ids[4] != 15 {
		t.Fatalf("ids %v, want [3 7 9 12 15]", ids)
	}
	byID := map[uint32]observe.ProcRow{}
	for _, r := range rows {
		byID[r.ID] = r
	}
	if r := byID[3]; r.Command != "Sleep" || r.Time < 89*time.Second || r.DB != "" || r.Info != "" {
		t.Errorf("idle session: %+v", r)
	}
	if r := byID[7]; r.Command != "Query" || r.State != "starting" || r.Info != "SHOW PROCESSLIST" || r.Time != 0 {
		t.Errorf("the asking session: %+v", r)
	}
	if r := byID[9]; r.Command != "Query" || r.State != "executing" || r.Info != "select sleep(10)" || r.Time < 2*time.Second || r.Fragments != 0 {
		t.Errorf("passthrough session: %+v", r)
	}
	if r := byID[12]; r.State != "fragments 5/16 done" || r.Progress != 31.25 || r.Fragments != 16 || r.Done != 5 || r.User != "alice" || r.DB != "ontime" {
		t.Errorf("distributed session: %+v", r)
	}
	if r := byID[15]; r.User != "unauthenticated user" || r.Command != "Connect" {
		t.Errorf("session in its handshake: %+v", r)
	}

	// shoal_statements_running counts the rows with a statement.
	n := 0
	for _, r := range s.ProcessList() {
		if r.Act != nil {
			n++
		}
	}
	if n != 2 {
		t.Errorf("statements running = %v, want 2", n)
	}

	// An account sees its own sessions only, as KILL lets it kill them.
	for _, r := range s.processList("alice", dist, "show processlist") {
		if r.User != "alice" {
			t.Errorf("alice sees %+v", r)
		}
	}
	// The status page ("") sees them all.
	if n := len(s.processList("", nil, "")); n != 5 {
		t.Errorf("status page sees %d sessions, want 5", n)
	}
	// The statement ends: the session sleeps again.
	dist.proc.stmt.Store(nil)
	for _, r := range s.processList("alice", nil, "") {
		if r.Command != "Sleep" || r.State != "" {
			t.Errorf("after the statement: %+v", r)
		}
	}
}

func TestShowProcesslist(t *testing.T) {
	s := observedServer(t, config.Coordinator{})
	self := addSession(s, 1, "root", "ontime", 0)
	other := addSession(s, 2, "root", "", 0)
	long := "select /* " + strings.Repeat("é", 150) + " */ 1"
	running(other, long, time.Second, 4, 4)

	var got *sqltypes.Result
	grab := func(r *sqltypes.Result) error { got = r; return nil }
	for _, q := range []string{"select 1", "SHOW PROCESSLISTS", "show full processlist extra"} {
		if ok, _ := s.showProcesslist(self, q, grab); ok {
			t.Errorf("%q taken for SHOW PROCESSLIST", q)
		}
	}
	if ok, err := s.showProcesslist(self, "  show\n processlist ; ", grab); !ok || err != nil {
		t.Fatalf("SHOW PROCESSLIST: %v %v", ok, err)
	}
	var names []string
	for _, f := range got.Fields {
		names = append(names, f.Name)
	}
	if strings.Join(names, ",") != "Id,User,Host,db,Command,Time,State,Info,Progress" {
		t.Errorf("columns %v", names)
	}
	if len(got.Rows) != 2 {
		t.Fatalf("%d rows, want 2", len(got.Rows))
	}
	r := got.Rows[1]
	if info := r[7].ToString(); len([]rune(info)) != infoWidth || !strings.HasPrefix(long, info) {
		t.Errorf("Info not cut at %d characters: %q", infoWidth, info)
	}
	if !r[3].IsNull() || r[6].ToString() != "fragments 4/4 done" || r[8].ToString() != "100.000" {
		t.Errorf("row %v", r)
	}
	if got.Rows[0][7].ToString() != "show\n processlist ;" || got.Rows[0][3].ToString() != "ontime" {
		t.Errorf("own row %v", got.Rows[0])
	}
	if ok, err := s.showProcesslist(self, "SHOW FULL PROCESSLIST", grab); !ok || err != nil {
		t.Fatalf("SHOW FULL PROCESSLIST: %v %v", ok, err)
	}
	if info := got.Rows[1][7].ToString(); info != long {
		t.Errorf("FULL Info cut: %q", info)
	}
}
