package worker

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/ticket"
)

// scrapeWorker reads the worker's /metrics through its handler:
// "name{labels}" → value.
func scrapeWorker(t *testing.T, base string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %d %v", resp.StatusCode, err)
	}
	out := map[string]float64{}
	for _, line := range strings.Split(string(body), "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if v, err := strconv.ParseFloat(line[i+1:], 64); err == nil {
			out[line[:i]] = v
		}
	}
	return out
}

// serveMetrics serves ts's HTTP handler with ServeMetrics on a loopback
// port until the test ends, and returns its base URL.
func serveMetrics(t *testing.T, ts *testServer) string {
	t.Helper()
	lis, err := ListenHTTP(config.Worker{HTTPListen: new("127.0.0.1:0")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ts.srv.ServeMetrics(ctx, lis) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeMetrics: %v", err)
		}
	})
	return "http://" + lis.Addr().String()
}

// TestWorkerMetrics: fragments are counted by outcome, with the rows and
// bytes they streamed and their latency; gauges show slots and running
// fragments; /healthz answers from the replica.
func TestWorkerMetrics(t *testing.T) {
	ts := startServer(t, func(c *config.Worker) { c.Slots = 3 })
	base := serveMetrics(t, ts)
	before := scrapeWorker(t, base)
	if before["shoal_worker_slots"] != 3 || before["shoal_worker_active_fragments"] != 0 {
		t.Errorf("slots %v active %v, want 3 and 0", before["shoal_worker_slots"], before["shoal_worker_active_fragments"])
	}

	ctx := context.Background()
	_, recs, err := fetch(ctx, ts, ticket.Ticket{SQL: "SELECT id, v FROM " + testDB + ".big", BatchRows: 1000})
	releaseAll(recs)
	if err != nil {
		t.Fatal(err)
	}
	_, recs, err = fetch(ctx, ts, ticket.Ticket{SQL: "DELETE FROM " + testDB + ".victim"})
	releaseAll(recs)
	if status.Code(err) != codes.PermissionDenied {
		t.Fatalf("write: %v, want PermissionDenied", err)
	}
	_, recs, err = fetch(ctx, ts, ticket.Ticket{SQL: "SELECT no_such_column FROM " + testDB + ".victim"})
	releaseAll(recs)
	if err == nil {
		t.Fatal("unknown column: no error")
	}
	cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	_, recs, err = fetch(cctx, ts, ticket.Ticket{SQL: "SELECT SLEEP(5) FROM " + testDB + ".victim"})
	cancel()
	releaseAll(recs)
	if err == nil {
		t.Fatal("a fragment past its deadline succeeded")
	}
	// The worker records a fragment when DoGet returns, which may be a
	// moment after the client saw its end.
	var after map[string]float64
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		after = scrapeWorker(t, base)
		d := func(k string) float64 { return after[k] - before[k] }
		if d(`shoal_worker_fragments_total{outcome="ok"}`) >= 1 && d(`shoal_worker_fragments_total{outcome="refused"}`) >= 1 &&
			d(`shoal_worker_fragments_total{outcome="error"}`) >= 1 &&
			d(`shoal_worker_fragments_total{outcome="cancelled"}`)+d(`shoal_worker_fragments_total{outcome="timeout"}`) >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("fragments by outcome did not move as expected:\nbefore %v\nafter  %v", withPrefix(before, "shoal_worker_fragments_total"), withPrefix(after, "shoal_worker_fragments_total"))
		}
	}
	if d := after["shoal_worker_rows_streamed_total"] - before["shoal_worker_rows_streamed_total"]; d != 25000 {
		t.Errorf("rows streamed moved by %v, want 25000", d)
	}
	// 25 batches of two BIGINT columns: at least 25000 × 16 bytes of data.
	if d := after["shoal_worker_bytes_streamed_total"] - before["shoal_worker_bytes_streamed_total"]; d < 25000*16 {
		t.Errorf("bytes streamed moved by %v, want at least %d", d, 25000*16)
	}
	// A fragment's latency is observed when it ran, i.e. got a slot: the
	// ok and the failing fragment always do, the one past its 300 ms
	// deadline only if a slot came in time (on a loaded machine it may
	// not); refused fragments never run.
	lat := after["shoal_worker_fragment_duration_seconds_count"] - before["shoal_worker_fragment_duration_seconds_count"]
	slots := after["shoal_worker_slot_wait_seconds_count"] - before["shoal_worker_slot_wait_seconds_count"]
	if lat < 2 || lat != slots {
		t.Errorf("fragment latency observations moved by %v, want one per fragment that got a slot (%v), at least 2", lat, slots)
	}
	if after["shoal_worker_slot_wait_seconds_count"] < 3 {
		t.Errorf("slot wait observations: %v", after["shoal_worker_slot_wait_seconds_count"])
	}
	if after["shoal_worker_active_fragments"] != 0 {
		t.Errorf("active fragments %v at rest", after["shoal_worker_active_fragments"])
	}
	if _, ok := after["go_goroutines"]; !ok {
		t.Error("no Go runtime metrics")
	}

	resp, err := http.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"healthy":true`) {
		t.Errorf("/healthz: %d %s", resp.StatusCode, body)
	}
}

// TestWorkerHealthzUnreachable: /healthz says 503 when the replica does
// not answer.
func TestWorkerHealthzUnreachable(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := lis.Addr().String()
	lis.Close()
	ts := startServer(t, func(c *config.Worker) { c.MySQL = dead })
	base := serveMetrics(t, ts)
	resp, err := http.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), `"healthy":false`) {
		t.Errorf("/healthz with the replica down: %d %s", resp.StatusCode, body)
	}
}

func withPrefix(m map[string]float64, prefix string) map[string]float64 {
	out := map[string]float64{}
	for k, v := range m {
		if strings.HasPrefix(k, prefix) {
			out[k] = v
		}
	}
	return out
}

func TestListenHTTP(t *testing.T) {
	if lis, err := ListenHTTP(config.Worker{HTTPListen: new("")}, nil); lis != nil || err != nil {
		t.Errorf(`http_listen "": %v %v, want no listener`, lis, err)
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	if _, err := ListenHTTP(config.Worker{HTTPListen: new(busy.Addr().String())}, nil); err == nil {
		t.Error("an explicit address in use was accepted")
	}
}

func TestOutcome(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{nil, outcomeOK},
		{status.Error(codes.InvalidArgument, "bad ticket"), outcomeRefused},
		{status.Error(codes.PermissionDenied, "1290"), outcomeRefused},
		{status.Error(codes.Canceled, "cancelled"), outcomeCancelled},
		{status.Error(codes.DeadlineExceeded, "deadline"), outcomeTimeout},
		{status.Error(codes.Unavailable, "replica gone"), outcomeError},
		{errors.New("plain"), outcomeError},
	} {
		if got := outcome(c.err); got != c.want {
			t.Errorf("outcome(%v) = %s, want %s", c.err, got, c.want)
		}
	}
}
