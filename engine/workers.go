package engine

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/observe"
	"github.com/shoaldb/shoal/worker"
)

// workerRef is the coordinator's view of one worker and its replica.
//
// Health is a set of atomics written by the status poller (and by the
// scheduler when a fragment attempt fails on the worker) and read lock-free
// on the query path. A replica is healthy when its worker answered the last
// poll, the replica answered the worker, replication runs (both threads)
// and the lag is known and at most max_replica_lag. An unhealthy replica
// gets no fragments and is not chosen for passthrough or metadata reads; the
// next poll that finds it healthy takes it back.
type workerRef struct {
	cfg    config.Replica
	secret string
	mu     sync.Mutex // guards client creation only
	client *worker.Client
	status atomic.Pointer[worker.Status]
	up     atomic.Bool
	// lastErr is why the replica is not healthy ("" when it is).
	lastErr atomic.Pointer[string]
	// checked is when the last poll finished (unix nanoseconds; 0: never).
	checked atomic.Int64
}

func newWorkerRef(r config.Replica, secret string) *workerRef {
	return &workerRef{cfg: r, secret: secret}
}

func (w *workerRef) name() string {
	if w.cfg.Name != "" {
		return w.cfg.Name
	}
	return w.cfg.Worker
}

func (w *workerRef) healthy() bool { return w.up.Load() }

// slots is how many fragments the worker runs at once.
func (w *workerRef) slots() int {
	if st := w.status.Load(); st != nil && st.Slots > 0 {
		return st.Slots
	}
	return 1
}

func (w *workerRef) conn(ctx context.Context) (*worker.Client, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.client != nil {
		return w.client, nil
	}
	c, err := worker.Dial(ctx, w.cfg.Worker, worker.WithSecret(w.secret))
	if err != nil {
		return nil, err
	}
	w.client = c
	return c, nil
}

func (w *workerRef) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.client != nil {
		w.client.Close()
		w.client = nil
	}
}

// markDown takes the replica out of service until a poll finds it healthy
// again. It reports whether it was up.
func (w *workerRef) markDown(reason string) bool {
	w.lastErr.Store(&reason)
	return w.up.Swap(false)
}

func (w *workerRef) lastError() string {
	if p := w.lastErr.Load(); p != nil {
		return *p
	}
	return ""
}

// assess decides whether a replica whose worker reported st may serve
// reads: it must answer, replicate (when it is a replica) and be at most
// maxLag behind. The reason is empty when it may.
func assess(st worker.Status, maxLag time.Duration) (bool, string) {
	if !st.Healthy {
		if st.Error == "" {
			return false, "worker reports the replica unhealthy"
		}
		return false, st.Error
	}
	if !st.IsReplica {
		return true, "" // a standalone server or a cluster node: never behind
	}
	if !st.IORunning || !st.SQLRunning {
		return false, fmt.Sprintf("replication not running (io %v, sql %v)", st.IORunning, st.SQLRunning)
	}
	if st.ReplicaLagSeconds == nil {
		return false, "replication lag unknown (Seconds_Behind_Master is NULL)"
	}
	if lag := time.Duration(*st.ReplicaLagSeconds * float64(time.Second)); lag > maxLag {
		return false, fmt.Sprintf("replica is %s behind, more than max_replica_lag %s", lag, maxLag)
	}
	return true, ""
}

// pollWorkers asks every worker for its status concurrently and updates
// the health view.
func (s *Engine) pollWorkers(ctx context.Context) {
	var wg sync.WaitGroup
	for _, w := range s.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { w.checked.Store(time.Now().UnixNano()) }()
			cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
			defer cancel()
			c, err := w.conn(cctx)
			if err != nil {
				if w.markDown("worker unreachable: " + err.Error()) {
					s.log.Warn("worker down", "worker", w.name(), "err", err)
				}
				return
			}
			st, err := c.Status(cctx)
			if err != nil {
				w.status.Store(nil)
				if w.markDown("worker unreachable: " + err.Error()) {
					s.log.Warn("worker down", "worker", w.name(), "err", err)
				}
				return
			}
			w.status.Store(&st)
			ok, why := assess(st, s.cfg.MaxReplicaLag.D())
			w.lastErr.Store(&why)
			if was := w.up.Swap(ok); was != ok {
				s.log.Info("replica health changed", "replica", w.name(), "healthy", ok, "reason", why)
			}
		}()
	}
	wg.Wait()
}

// Workers describes the replicas and their workers for observe.
func (s *Engine) Workers() []observe.Worker {
	out := make([]observe.Worker, 0, len(s.workers))
	for _, w := range s.workers {
		ow := observe.Worker{Name: w.name(), MySQL: w.cfg.MySQL, Addr: w.cfg.Worker, Healthy: w.healthy(),
			LastError: w.lastError(), Status: w.status.Load()}
		if ns := w.checked.Load(); ns != 0 {
			ow.Checked = time.Unix(0, ns)
		}
		out = append(out, ow)
	}
	return out
}
