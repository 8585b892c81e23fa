package coordinator

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/worker"
)

// workerRef is the coordinator's view of one worker and its replica.
type workerRef struct {
	cfg    config.Replica
	mu     sync.Mutex // guards client creation only
	client *worker.Client
	status atomic.Pointer[worker.Status]
	up     atomic.Bool
}

func newWorkerRef(r config.Replica) *workerRef { return &workerRef{cfg: r} }

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
	c, err := worker.Dial(ctx, w.cfg.Worker)
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

// pollWorkers asks every worker for its status concurrently and updates
// the health view.
func (s *Server) pollWorkers(ctx context.Context) {
	var wg sync.WaitGroup
	for _, w := range s.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
			defer cancel()
			c, err := w.conn(cctx)
			if err != nil {
				w.up.Store(false)
				return
			}
			st, err := c.Status(cctx)
			if err != nil {
				if w.up.Swap(false) {
					s.log.Warn("worker down", "worker", w.name(), "err", err)
				}
				return
			}
			w.status.Store(&st)
			ok := st.Healthy
			if was := w.up.Swap(ok); was != ok {
				s.log.Info("worker health changed", "worker", w.name(), "healthy", ok, "error", st.Error)
			}
		}()
	}
	wg.Wait()
}
