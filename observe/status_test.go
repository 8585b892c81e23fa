package observe

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"vitess.io/vitess/go/sqltypes"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/worker"
)

// TestStatusPage serves the status page on a real HTTP listener and checks
// what it shows: each replica's health and why, running statements with
// their fragment progress (escaped: statements are client text), recent
// slow statements, the pinned tables section.
func TestStatusPage(t *testing.T) {
	s := observedServer(t, config.Coordinator{
		HTTPListen: new("127.0.0.1:0"), SlowQueryLog: "", LongQueryTime: new(config.Duration(0)),
	})
	s.src.workers = []Worker{
		{Name: "replica1", MySQL: "127.0.0.1:3307", Addr: "127.0.0.1:4100", Healthy: true, Checked: time.Now(),
			Status: &worker.Status{Healthy: true, IsReplica: true, IORunning: true, SQLRunning: true, ReplicaLagSeconds: lag(0), Slots: 2, Running: 1}},
		{Name: "replica2", MySQL: "127.0.0.1:3308", Addr: "127.0.0.1:4101", LastError: "worker unreachable: connection refused"},
	}

	ss := addSession(s, 5, "alice", "ontime", 0)
	running(s, ss, "select count(*) from ontime where Origin = '<script>alert(1)</script>'", 3*time.Second, 16, 12)
	addSession(s, 6, "root", "", time.Minute) // idle: not listed as running
	slowSess := addSession(s, 8, "root", "ontime", 0)
	_, _, finish := s.startStatement(context.Background(), slowSess, "select Dest, max(Distance) from ontime group by Dest", func(*sqltypes.Result) error { return nil })
	slowSess.kind = KindDistributed
	finish(nil)

	if err := s.startHTTP(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	base := "http://" + s.Addr().String()
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode == http.StatusOK && !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
			t.Errorf("GET %s: Content-Type %q", path, resp.Header.Get("Content-Type"))
		}
		return resp.StatusCode, string(b)
	}

	code, page := get("/")
	if code != http.StatusOK {
		t.Fatalf("GET /: %d\n%s", code, page)
	}
	for _, want := range []string{
		"<title>Shoal coordinator</title>",
		"1 of 2 replicas healthy", "3 client sessions",
		"replica1", "127.0.0.1:3307", "replica2", "worker unreachable: connection refused",
		`<span class="ok">healthy</span>`, `<span class="bad">unhealthy</span>`, "running",
		"Running statements", "fragments 12/16 done", `<progress max="16" value="12">`, "75 %",
		"&lt;script&gt;alert(1)&lt;/script&gt;",
		"Recent slow statements", "select Dest, max(Distance) from ontime group by Dest", "distributed",
		"set <code>slow_query_log</code>",
		"Pinned tables",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("GET / lacks %q", want)
		}
	}
	if strings.Contains(page, "<script>") {
		t.Error("a statement's text reached the page unescaped")
	}
	if strings.Contains(page, `http-equiv="refresh"`) {
		t.Error("the page refreshes itself without ?refresh")
	}
	if code, page := get("/status?refresh=5"); code != http.StatusOK || !strings.Contains(page, `<meta http-equiv="refresh" content="5">`) {
		t.Errorf("GET /status?refresh=5: %d, refresh meta missing", code)
	}
	if code, page := get("/status?refresh=0"); code != http.StatusOK || strings.Contains(page, `http-equiv="refresh"`) {
		t.Errorf("GET /status?refresh=0: %d, refreshes anyway", code)
	}
	if code, _ := get("/nothing-here"); code != http.StatusNotFound {
		t.Errorf("GET /nothing-here: %d, want 404", code)
	}
}
