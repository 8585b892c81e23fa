package querymem

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/shoaldb/shoal/sqlerr"
)

// isOutOfResources reports a 1041 error.
func isOutOfResources(err error) bool {
	se, ok := sqlerr.As(err)
	return ok && se.Num == sqlerr.ErrOutOfResources
}

// waitWaiters waits until n reservations are waiting on b.
func waitWaiters(t *testing.T, b *Budget, n int64) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for b.waiters.Load() != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d waiters, want %d", b.waiters.Load(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestMemBudgetConcurrent(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	const limit = 1000
	b := New(limit, 10*time.Second)
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			q := b.Open()
			defer q.Close()
			r := rand.New(rand.NewPCG(uint64(g), 1))
			for range 300 {
				n := int64(1 + r.IntN(120)) // 16 × 120 > limit: some wait
				// held 0: never yields; n ≤ limit: never too big alone.
				if err := q.Reserve(context.Background(), n, 0); err != nil {
					t.Error(err)
					return
				}
				if u := b.used.Load(); u > limit {
					t.Errorf("used %d over limit %d", u, limit)
				}
				time.Sleep(50 * time.Microsecond) // hold it a while
				q.Release(n)
			}
		})
	}
	wg.Wait()
	if u := b.used.Load(); u != 0 {
		t.Errorf("used %d after every release", u)
	}
	if p := b.peak.Load(); p > limit || p == 0 {
		t.Errorf("peak %d, want in (0, %d]", p, limit)
	}
	if b.waits.Load() == 0 {
		t.Error("16 goroutines holding up to 120 bytes each under a 1000-byte limit never waited")
	}
}

func TestMemBudgetCases(t *testing.T) {
	type step func(t *testing.T, b *Budget)
	cases := []struct {
		name  string
		wait  time.Duration
		run   step
		waits int64
	}{
		{"fits", time.Second, func(t *testing.T, b *Budget) {
			q := b.Open()
			defer q.Close()
			if err := q.Reserve(context.Background(), 100, 0); err != nil {
				t.Fatal(err)
			}
			q.Release(100)
		}, 0},
		{"too big alone fails at once", time.Hour, func(t *testing.T, b *Budget) {
			q := b.Open()
			defer q.Close()
			if err := q.Reserve(context.Background(), 60, 0); err != nil {
				t.Fatal(err)
			}
			defer q.Release(60)
			err := q.Reserve(context.Background(), 41, 60)
			if !isOutOfResources(err) {
				t.Fatalf("got %v, want 1041", err)
			}
		}, 0},
		{"waits until another query releases", time.Minute, func(t *testing.T, b *Budget) {
			q1, q2 := b.Open(), b.Open()
			defer q1.Close()
			defer q2.Close()
			if err := q1.Reserve(context.Background(), 80, 0); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- q2.Reserve(context.Background(), 50, 0) }()
			waitWaiters(t, b, 1)
			select {
			case err := <-done:
				t.Fatalf("reserved over the limit: %v", err)
			default:
			}
			q1.Release(80)
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if q2.used.Load() != 50 || b.used.Load() != 50 {
				t.Fatalf("q2 %d, budget %d; want 50, 50", q2.used.Load(), b.used.Load())
			}
			q2.Release(50)
		}, 1},
		{"wait times out with 1041", 50 * time.Millisecond, func(t *testing.T, b *Budget) {
			q1, q2 := b.Open(), b.Open()
			defer q1.Close()
			defer q2.Close()
			if err := q1.Reserve(context.Background(), 80, 0); err != nil {
				t.Fatal(err)
			}
			defer q1.Release(80)
			start := time.Now()
			err := q2.Reserve(context.Background(), 50, 0)
			if !isOutOfResources(err) {
				t.Fatalf("got %v, want 1041", err)
			}
			if d := time.Since(start); d < 50*time.Millisecond {
				t.Fatalf("gave up after %s, before query_memory_wait", d)
			}
			if q2.used.Load() != 0 || b.used.Load() != 80 {
				t.Fatalf("q2 %d, budget %d after a refusal", q2.used.Load(), b.used.Load())
			}
		}, 1},
		{"cancel ends the wait", time.Hour, func(t *testing.T, b *Budget) {
			q1, q2 := b.Open(), b.Open()
			defer q1.Close()
			defer q2.Close()
			if err := q1.Reserve(context.Background(), 80, 0); err != nil {
				t.Fatal(err)
			}
			defer q1.Release(80)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- q2.Reserve(ctx, 50, 0) }()
			waitWaiters(t, b, 1)
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Fatalf("got %v, want context.Canceled", err)
			}
		}, 1},
		{"younger query holding batches yields; oldest waits", time.Minute, func(t *testing.T, b *Budget) {
			old, young := b.Open(), b.Open()
			defer old.Close()
			defer young.Close()
			if err := old.Reserve(context.Background(), 60, 0); err != nil {
				t.Fatal(err)
			}
			if err := young.Reserve(context.Background(), 30, 0); err != nil {
				t.Fatal(err)
			}
			var y *Yield
			if err := young.Reserve(context.Background(), 20, 30); !errors.As(err, &y) || y.Need != 50 {
				t.Fatalf("young: got %v, want a yield of 50", err)
			}
			// The oldest waits (holding its 60) instead of yielding.
			done := make(chan error, 1)
			go func() { done <- old.Reserve(context.Background(), 30, 60) }()
			waitWaiters(t, b, 1)
			young.Release(30) // the yielded attempt drops its batches
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			// The young attempt runs again once 50 bytes are free.
			again := make(chan error, 1)
			go func() { again <- young.AwaitRoom(context.Background(), y.Need) }()
			waitWaiters(t, b, 1)
			old.Release(90)
			if err := <-again; err != nil {
				t.Fatal(err)
			}
		}, 2},
		{"close returns what was not released", time.Second, func(t *testing.T, b *Budget) {
			q := b.Open()
			if err := q.Reserve(context.Background(), 70, 0); err != nil {
				t.Fatal(err)
			}
			if n := q.Close(); n != 70 {
				t.Fatalf("close reported %d leaked, want 70", n)
			}
		}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			b := New(100, c.wait)
			c.run(t, b)
			if u := b.used.Load(); u != 0 {
				t.Errorf("budget holds %d bytes at the end", u)
			}
			if w := b.waiters.Load(); w != 0 {
				t.Errorf("%d waiters at the end", w)
			}
			if w := b.waits.Load(); w != c.waits {
				t.Errorf("%d waits, want %d", w, c.waits)
			}
			n := 0
			b.queries.Range(func(any, any) bool { n++; return true })
			if n != 0 {
				t.Errorf("%d queries still registered", n)
			}
		})
	}
}

func TestMemBudgetUnlimitedCounts(t *testing.T) {
	b := New(-1, time.Second)
	q := b.Open()
	if err := q.Reserve(context.Background(), 1<<40, 0); err != nil {
		t.Fatal(err)
	}
	if b.used.Load() != 1<<40 || b.peak.Load() != 1<<40 {
		t.Fatalf("used %d peak %d", b.used.Load(), b.peak.Load())
	}
	q.Release(1 << 40)
	q.Close()
	if b.used.Load() != 0 {
		t.Fatal("not released")
	}
}

// TestMemBudgetPressure: what a query holds through TryHold is given back
// by its pressure callback when one of its own reservations does not fit:
// with 80 of 100 bytes held that way, a reservation of 50 succeeds at
// once. TryHold never waits. Held bytes do not make a query too big: with
// 80 held and not given back, a reservation of 50 waits (1041 only after
// query_memory_wait), where 80 reserved by attempts fail it at once.
func TestMemBudgetPressure(t *testing.T) {
	b := New(100, time.Minute)
	q := b.Open()
	if !q.TryHold(80) {
		t.Fatal("80 of 100 bytes refused")
	}
	if q.TryHold(30) {
		t.Fatal("30 more bytes fitted in 20")
	}
	calls := 0
	q.OnPressure(func() {
		calls++
		q.Unhold(80)
	})
	if err := q.Reserve(context.Background(), 50, 0); err != nil {
		t.Fatalf("reservation after pressure: %v", err)
	}
	if calls != 1 || b.used.Load() != 50 {
		t.Errorf("%d pressure calls, %d bytes used", calls, b.used.Load())
	}
	q.Release(50)
	if n := q.Close(); n != 0 {
		t.Errorf("%d bytes left", n)
	}

	// Held and not given back (the client is not reading yet): a wait,
	// not 1041 at once.
	b = New(100, 50*time.Millisecond)
	q = b.Open()
	defer q.Close()
	q.TryHold(80)
	start := time.Now()
	if err := q.Reserve(context.Background(), 50, 0); !isOutOfResources(err) || time.Since(start) < 40*time.Millisecond {
		t.Errorf("reservation beside 80 held bytes: %v after %v, want 1041 after query_memory_wait", err, time.Since(start))
	}
	q.Unhold(80)
	q2 := b.Open()
	defer q2.Close()
	if err := q2.Reserve(context.Background(), 80, 0); err != nil {
		t.Fatal(err)
	}
	if err := q2.Reserve(context.Background(), 50, 80); !isOutOfResources(err) {
		t.Errorf("80 reserved by attempts and 50 more: %v, want 1041 at once", err)
	}
	q2.Release(80)
}
