// Package cluster is the coordinator's view of its workers: one Worker per
// replica with its Flight client, its last status answer and whether it
// may get fragments (Poll asks them all; Assess is the health rule:
// replication running, lag within max_replica_lag). The engine's
// scheduler places fragments over these; observe shows them.
package cluster

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/worker"
)

// Worker is the coordinator's view of one worker and its replica.
//
// Health is a set of atomics written by the status poller (and by the
// scheduler when a fragment attempt fails on the worker) and read lock-free
// on the query path. A replica is healthy when its worker answered the last
// poll, the replica answered the worker, replication runs (both threads)
// and the lag is known and at most max_replica_lag. An unhealthy replica
// gets no fragments and is not chosen for passthrough or metadata reads; the
// next poll that finds it healthy takes it back.
type Worker struct {
	cfg    config.Replica
	secret string
	dial   []worker.DialOption // transport (TLS) options
	mu     sync.Mutex          // guards client creation only
	client *worker.Client
	status atomic.Pointer[worker.Status]
	up     atomic.Bool
	// lastErr is why the replica is not healthy ("" when it is).
	lastErr atomic.Pointer[string]
	// checked is when the last poll finished (unix nanoseconds; 0: never).
	checked atomic.Int64
}

// NewWorker is the replica r's worker, called with the cluster secret and
// dial's options (worker.WithTLS) once a poll or a fragment needs it.
func NewWorker(r config.Replica, secret string, dial ...worker.DialOption) *Worker {
	return &Worker{cfg: r, secret: secret, dial: dial}
}

func (w *Worker) Name() string {
	if w.cfg.Name != "" {
		return w.cfg.Name
	}
	return w.cfg.Worker
}

func (w *Worker) Healthy() bool { return w.up.Load() }

// slots is how many fragments the worker runs at once.
func (w *Worker) Slots() int {
	if st := w.status.Load(); st != nil && st.Slots > 0 {
		return st.Slots
	}
	return 1
}

func (w *Worker) Conn(ctx context.Context) (*worker.Client, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.client != nil {
		return w.client, nil
	}
	c, err := worker.Dial(ctx, w.cfg.Worker, append([]worker.DialOption{worker.WithSecret(w.secret)}, w.dial...)...)
	if err != nil {
		return nil, err
	}
	w.client = c
	return c, nil
}

func (w *Worker) Close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.client != nil {
		w.client.Close()
		w.client = nil
	}
}

// markDown takes the replica out of service until a poll finds it healthy
// again. It reports whether it was up.
func (w *Worker) MarkDown(reason string) bool {
	w.lastErr.Store(&reason)
	return w.up.Swap(false)
}

func (w *Worker) LastError() string {
	if p := w.lastErr.Load(); p != nil {
		return *p
	}
	return ""
}

// assess decides whether a replica whose worker reported st may serve
// reads: it must answer, replicate (when it is a replica) and be at most
// maxLag behind. The reason is empty when it may.
func Assess(st worker.Status, maxLag time.Duration) (bool, string) {
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

// Poll asks every worker for its status concurrently and updates their
// health: a replica more than maxLag behind, or with replication stopped,
// is unhealthy until a later poll finds it well.
func Poll(ctx context.Context, workers []*Worker, maxLag time.Duration, log *slog.Logger) {
	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { w.checked.Store(time.Now().UnixNano()) }()
			cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
			defer cancel()
			c, err := w.Conn(cctx)
			if err != nil {
				if w.MarkDown("worker unreachable: " + err.Error()) {
					log.Warn("worker down", "worker", w.Name(), "err", err)
				}
				return
			}
			st, err := c.Status(cctx)
			if err != nil {
				w.status.Store(nil)
				if w.MarkDown("worker unreachable: " + err.Error()) {
					log.Warn("worker down", "worker", w.Name(), "err", err)
				}
				return
			}
			w.status.Store(&st)
			ok, why := Assess(st, maxLag)
			if w.SetHealth(ok, why) {
				log.Info("replica health changed", "replica", w.Name(), "healthy", ok, "reason", why)
			}
		}()
	}
	wg.Wait()
}

// Config is the replica's configuration (name, MySQL and worker
// addresses, IPC compression).
func (w *Worker) Config() config.Replica { return w.cfg }

// Status is the worker's answer to the last poll, nil when it did not
// answer.
func (w *Worker) Status() *worker.Status { return w.status.Load() }

// Checked is when the worker was last polled (zero: never).
func (w *Worker) Checked() time.Time {
	if ns := w.checked.Load(); ns != 0 {
		return time.Unix(0, ns)
	}
	return time.Time{}
}

// SetHealth records whether the worker may get fragments and why not;
// changed reports a change (Poll sets it from each status answer).
func (w *Worker) SetHealth(up bool, why string) (changed bool) {
	w.lastErr.Store(&why)
	return w.up.Swap(up) != up
}
