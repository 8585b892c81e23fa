package runqueue

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/shoaldb/shoal/sqlerr"
)

// vitess (through sqlerr) starts glog's flush daemon at init; every
// goroutine of the queue's own must end.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		goleak.IgnoreAnyFunction("github.com/golang/glog.(*fileSink).flushDaemon"),
		goleak.IgnoreAnyFunction("github.com/golang/glog.(*loggingT).flushDaemon"))
}

func errno(err error) int {
	se, ok := sqlerr.As(err)
	if !ok {
		return 0
	}
	return int(se.Num)
}

// TestBound: never more than slots holders at once, every caller served.
func TestBound(t *testing.T) {
	q := New(3, 0)
	var now, peak atomic.Int64
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := q.Acquire(context.Background()); err != nil {
				t.Error(err)
				return
			}
			n := now.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			time.Sleep(time.Millisecond)
			now.Add(-1)
			q.Release()
		}()
	}
	wg.Wait()
	if p := peak.Load(); p > 3 || p < 1 {
		t.Errorf("peak %d holders, slots 3", p)
	}
	if s := q.Stats(); s.Running != 0 || s.Waiting != 0 || s.Admitted != 50 {
		t.Errorf("after: %+v", s)
	}
}

// TestFIFO: waiters are admitted in arrival order.
func TestFIFO(t *testing.T) {
	q := New(1, 0)
	if err := q.Acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	const n = 20
	order := make(chan int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := q.Acquire(context.Background()); err != nil {
				t.Error(err)
				return
			}
			order <- i
			q.Release()
		}()
		// Wait until it is queued so arrival order is i's order.
		for q.Stats().Waiting != i+1 {
			time.Sleep(100 * time.Microsecond)
		}
	}
	q.Release()
	wg.Wait()
	close(order)
	want := 0
	for got := range order {
		if got != want {
			t.Fatalf("admitted %d, want %d", got, want)
		}
		want++
	}
}

// TestAcquireFirst: a caller that asks to go first is admitted before
// every earlier waiter, and the others keep their order behind it.
func TestAcquireFirst(t *testing.T) {
	q := New(1, 0)
	if err := q.Acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	const n = 5
	order := make(chan int, n+1)
	var wg sync.WaitGroup
	enqueue := func(id int, acquire func(context.Context) error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := acquire(context.Background()); err != nil {
				t.Error(err)
				return
			}
			order <- id
			q.Release()
		}()
	}
	for i := range n {
		enqueue(i, q.Acquire)
		for q.Stats().Waiting != i+1 {
			time.Sleep(100 * time.Microsecond)
		}
	}
	enqueue(-1, q.AcquireFirst) // arrives last, goes first
	for q.Stats().Waiting != n+1 {
		time.Sleep(100 * time.Microsecond)
	}
	q.Release()
	wg.Wait()
	close(order)
	var got []int
	for id := range order {
		got = append(got, id)
	}
	if want := []int{-1, 0, 1, 2, 3, 4}; !slices.Equal(got, want) {
		t.Fatalf("admitted in order %v, want %v", got, want)
	}
}

// TestAhead: a nil queue and a queue whose slots stay busy past the wait
// give a release that does nothing; a free slot is taken and given back;
// giving up is not counted as a refusal.
func TestAhead(t *testing.T) {
	var none *Queue
	none.Ahead(context.Background(), time.Millisecond)()

	q := New(1, 0)
	release := q.Ahead(context.Background(), time.Second)
	if got := q.Stats().Running; got != 1 {
		t.Fatalf("running %d after Ahead on a free queue, want 1", got)
	}
	start := time.Now()
	q.Ahead(context.Background(), 20*time.Millisecond)() // the slot is held: gives up
	if waited := time.Since(start); waited < 20*time.Millisecond {
		t.Fatalf("gave up after %s, before the wait", waited)
	}
	if st := q.Stats(); st.Running != 1 || st.Waiting != 0 || st.Refused != 0 {
		t.Fatalf("after giving up: %+v, want 1 running, none waiting or refused", st)
	}
	release()
	if got := q.Stats().Running; got != 0 {
		t.Fatalf("running %d after the release, want 0", got)
	}
}

// TestQueueWait: a caller that waits past the queue wait gets 1040, the
// queue stays consistent, and the slot it never got is not lost.
func TestQueueWait(t *testing.T) {
	q := New(1, 20*time.Millisecond)
	if err := q.Acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err := q.Acquire(context.Background())
	if errno(err) != sqlerr.ErrTooManyConns {
		t.Fatalf("err %v, want 1040", err)
	}
	if d := time.Since(start); d < 20*time.Millisecond || d > 2*time.Second {
		t.Errorf("gave up after %s", d)
	}
	q.Release()
	if err := q.Acquire(context.Background()); err != nil {
		t.Fatalf("slot lost: %v", err)
	}
	q.Release()
	if s := q.Stats(); s.Running != 0 || s.Waiting != 0 || s.Refused != 1 {
		t.Errorf("after: %+v", s)
	}
}

// TestContext: a statement deadline while queued is 3024, a kill 1317.
func TestContext(t *testing.T) {
	q := New(1, time.Minute)
	if err := q.Acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if err := q.Acquire(ctx); errno(err) != sqlerr.ErrQueryTimeout {
		t.Errorf("deadline: %v, want 3024", err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	go func() { time.Sleep(5 * time.Millisecond); cancel() }()
	if err := q.Acquire(ctx); errno(err) != sqlerr.ErrQueryInterrupted {
		t.Errorf("cancel: %v, want 1317", err)
	}
	q.Release()
	if s := q.Stats(); s.Running != 0 || s.Waiting != 0 {
		t.Errorf("after: %+v", s)
	}
}

// TestGiveUpRace: callers that give up while slots are handed over never
// leak a slot (run with -race; goleak checks the goroutines).
func TestGiveUpRace(t *testing.T) {
	q := New(2, time.Millisecond)
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			if i%3 == 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, time.Duration(i%5)*100*time.Microsecond)
				defer cancel()
			}
			if q.Acquire(ctx) == nil {
				time.Sleep(200 * time.Microsecond)
				q.Release()
			}
		}()
	}
	wg.Wait()
	if s := q.Stats(); s.Running != 0 || s.Waiting != 0 || s.Admitted+s.Refused != 200 {
		t.Errorf("after: %+v", s)
	}
	for range 2 {
		if err := q.Acquire(context.Background()); err != nil {
			t.Fatalf("slot lost: %v", err)
		}
	}
}

// TestExtra: a holder alone takes the idle slots; once anybody waits it
// takes none, and the extra slots it gives back go to the waiters in
// order, as any other slot does.
func TestExtra(t *testing.T) {
	q := New(4, 0)
	if err := q.Acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := q.Extra(2); got != 2 {
		t.Fatalf("alone: Extra(2) took %d, want 2", got)
	}
	if got := q.Extra(5); got != 1 {
		t.Fatalf("one slot left: Extra(5) took %d, want 1", got)
	}
	if s := q.Stats(); s.Running != 4 {
		t.Fatalf("running %d, want 4", s.Running)
	}
	admitted := make(chan int, 2)
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := q.Acquire(context.Background()); err != nil {
				t.Error(err)
				return
			}
			admitted <- i
		}()
		for q.Stats().Waiting != i+1 {
			time.Sleep(100 * time.Microsecond)
		}
	}
	q.Release() // one of the four: to waiter 0
	if got := <-admitted; got != 0 {
		t.Fatalf("admitted %d first, want 0", got)
	}
	// Waiter 1 still waits: no extra slot for anybody, not even a free one.
	if got := q.Extra(1); got != 0 {
		t.Fatalf("Extra with a waiter took %d", got)
	}
	q.Release()
	if got := <-admitted; got != 1 {
		t.Fatalf("admitted %d, want 1", got)
	}
	wg.Wait()
	for range 4 {
		q.Release()
	}
	if s := q.Stats(); s.Running != 0 || s.Waiting != 0 || s.Admitted != 3 || s.Queued != 2 {
		t.Errorf("after: %+v", s)
	}
}

// TestFastPathNoLoss: many holders acquiring, taking extras and releasing
// at once never exceed the slots, never lose one, and leave the queue
// empty (run with -race).
func TestFastPathNoLoss(t *testing.T) {
	q := New(3, 0)
	var now, peak atomic.Int64
	var wg sync.WaitGroup
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				k, err := q.AcquireUpTo(context.Background(), 3)
				if err != nil {
					t.Error(err)
					return
				}
				n := now.Add(int64(k))
				for {
					p := peak.Load()
					if n <= p || peak.CompareAndSwap(p, n) {
						break
					}
				}
				now.Add(-int64(k))
				q.ReleaseN(k)
			}
		}()
	}
	wg.Wait()
	if p := peak.Load(); p > 3 {
		t.Errorf("peak %d slots held, 3 exist", p)
	}
	if s := q.Stats(); s.Running != 0 || s.Waiting != 0 || s.Admitted != 64*200 {
		t.Errorf("after: %+v", s)
	}
}

func BenchmarkAcquireRelease(b *testing.B) {
	q := New(1<<20, 0)
	ctx := context.Background()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := q.Acquire(ctx); err != nil {
				b.Fatal(err)
			}
			q.Release()
		}
	})
}
