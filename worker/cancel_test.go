package worker

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/ticket"
)

// running counts statements containing marker on the replica.
func running(t *testing.T, marker string) int {
	t.Helper()
	var n int
	// The marker is split so that this query does not match itself.
	q := "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE CONCAT('%', ?, ?, '%')"
	if err := admin.QueryRow(q, marker[:3], marker[3:]).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > d {
			t.Fatalf("%s: not within %v", what, d)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return time.Since(start)
}

func TestCancelKillsQuery(t *testing.T) {
	ts := startServer(t, nil)
	for _, c := range []struct {
		name     string
		deadline bool // ticket deadline instead of client cancel
		code     codes.Code
	}{
		{"cancel", false, codes.Canceled},
		{"deadline", true, codes.DeadlineExceeded},
	} {
		t.Run(c.name, func(t *testing.T) {
			marker := "shoal_kill_" + c.name
			tkt := ticket.Ticket{SQL: "SELECT SLEEP(30) AS " + marker}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var trigger time.Time
			if c.deadline {
				trigger = time.Now().Add(500 * time.Millisecond)
				tkt.Deadline = trigger.UnixMilli()
			}
			errc := make(chan error, 1)
			go func() {
				_, recs, err := fetch(ctx, ts, tkt)
				releaseAll(recs)
				errc <- err
			}()
			waitFor(t, 2*time.Second, "query visible in PROCESSLIST", func() bool { return running(t, marker) == 1 })
			if !c.deadline {
				time.Sleep(200 * time.Millisecond)
				cancel()
				trigger = time.Now()
			}
			waitFor(t, 3*time.Second, "query gone from PROCESSLIST", func() bool { return running(t, marker) == 0 })
			gone := time.Since(trigger)
			t.Logf("query gone from the replica %v after the cancel/deadline", gone)
			if gone > 2*time.Second {
				t.Errorf("query lingered %v", gone)
			}
			err := <-errc
			if code := status.Code(err); code != c.code {
				t.Errorf("err = %v, want %v", err, c.code)
			}
			waitFor(t, 2*time.Second, "slot released", func() bool { return ts.srv.running.Load() == 0 })
		})
	}
}

func TestSlotsLimitConcurrency(t *testing.T) {
	ts := startServer(t, func(c *config.Worker) { c.Slots = 1 })
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, recs, err := fetch(context.Background(), ts, ticket.Ticket{SQL: "SELECT SLEEP(1)"})
		releaseAll(recs)
		if err != nil {
			t.Error(err)
		}
	}()
	waitFor(t, 2*time.Second, "first fragment running", func() bool { return ts.srv.running.Load() == 1 })
	st, err := ts.client.Status(context.Background())
	if err != nil || st.Running != 1 || st.Slots != 1 {
		t.Errorf("status = %+v, %v; want 1 running of 1 slot", st, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, recs, err := fetch(ctx, ts, ticket.Ticket{SQL: "SELECT 1"})
	releaseAll(recs)
	if status.Code(err) != codes.DeadlineExceeded {
		t.Errorf("second fragment: err = %v, want DeadlineExceeded while waiting for the slot", err)
	}
	wg.Wait()
}

func TestClientDeadline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	// Nothing listens here; the call must end with the context.
	c, err := Dial(ctx, "127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
	_, err = c.Status(ctx)
	if err == nil || time.Since(start) > 2*time.Second {
		t.Errorf("Status on a dead address: %v after %v", err, time.Since(start))
	}
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) && status.Code(err) != codes.Unavailable {
		t.Errorf("err = %v", err)
	}
}

// Stop waits a grace period, then cancels running fragments, which kills
// their queries on the replica, and returns only once they have ended.
func TestStopCancelsRunningFragments(t *testing.T) {
	ts := startServer(t, nil)
	ts.srv.grace = 300 * time.Millisecond
	const marker = "shoal_stop_marker"
	errc := make(chan error, 1)
	go func() {
		_, recs, err := fetch(context.Background(), ts, ticket.Ticket{SQL: "SELECT SLEEP(30) AS " + marker})
		releaseAll(recs)
		errc <- err
	}()
	waitFor(t, 2*time.Second, "query visible in PROCESSLIST", func() bool { return running(t, marker) == 1 })
	start := time.Now()
	ts.srv.Stop()
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Stop took %v", d)
	}
	if ts.srv.running.Load() != 0 {
		t.Errorf("Stop returned with fragments running")
	}
	waitFor(t, 2*time.Second, "query gone from PROCESSLIST", func() bool { return running(t, marker) == 0 })
	if err := <-errc; err == nil {
		t.Errorf("fragment cut by Stop reported success")
	}
}
