// Package schedule runs one distributed execution over the workers: it
// cuts the split table into fragments (key samples, key windows,
// partitions), places them on worker slots (affinity, stealing), runs each
// as a Flight DoGet with a deadline, retries a failed attempt elsewhere,
// accounts the batches against the query memory budget, and hands each
// fragment's complete output to the caller's Sink. It knows the plan, the
// catalog snapshot and the workers; what the output means (the merge) is
// the engine's.
package schedule

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"golang.org/x/sync/errgroup"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/engine/catalog"
	"github.com/shoaldb/shoal/engine/cluster"
	"github.com/shoaldb/shoal/engine/querymem"
	"github.com/shoaldb/shoal/observe"
	"github.com/shoaldb/shoal/planner"
	"github.com/shoaldb/shoal/pushdown"
	"github.com/shoaldb/shoal/sqlerr"
	"github.com/shoaldb/shoal/ticket"
)

// maxAttempts bounds how often one fragment is tried. Fragments are reads,
// so running one again on another replica is always safe; the output of a
// failed attempt is dropped, never merged.
const maxAttempts = 3

// maxRowsPerRowFragment bounds the rows a fragment of a row plan (no
// aggregates, no LIMIT) is expected to return.
const maxRowsPerRowFragment = 100_000

// fragment is one key range of a distributed query.
type fragment struct {
	id       int
	rng      pushdown.Range
	sql      string
	attempts int
	stat     FragmentStat
	floor    Floor // the statement's freshness floor (engine/replicaset/consistency.go)
	// clock is the statement's clock in microseconds (ticket.Timestamp),
	// 0 when its plan reads none (planner.Plan.Clock).
	clock int64
	// stopWarned is the job's StopOnWarnings.
	stopWarned func() bool
	// home identifies the fragment's key range for affinity: the same
	// part of the table gets the same home, query after query.
	home uint64
}

// FragmentStat is what EXPLAIN ANALYZE and the query log report.
type FragmentStat struct {
	Range   string
	Worker  string
	Rows    int64
	Bytes   int64
	Elapsed time.Duration
	Tries   int
	// Warnings is how many warnings the fragment's statement raised on
	// its replica.
	Warnings uint64
	// Preferred is the worker the range's affinity prefers ("" without
	// affinity); Worker differs from it when the range was stolen or
	// retried.
	Preferred string
}

// Stats summarises one distributed execution.
type Stats struct {
	Fragments []FragmentStat
	Rows      int64
	Bytes     int64
	Warnings  uint64 // raised by the fragments' statements, summed
}

// Sink receives the complete output of one fragment. It may be called
// from several goroutines at once; it must not keep the batches after it
// returns (Retain what it keeps). rank is the fragment's place in the
// split key's order (0 first), which the server's own scan follows: of
// group keys equal under a collation, MySQL shows the first it read.
type Sink func(rank int, batches []arrow.RecordBatch) error

// Scheduler runs the distributed executions of one coordinator.
type Scheduler struct {
	cfg     config.Coordinator
	log     *slog.Logger
	mem     memory.Allocator
	workers []*cluster.Worker
	qmem    *querymem.Budget
	running atomic.Int64 // statements in Run
}

// Busy reports whether a statement planned for distribution over the
// replicas should run on one replica instead, for load: whether at least
// threshold statements are running their fragments (route_busy_statements;
// 0: half the healthy workers' slots, at least 1; negative: never). A new
// statement would get less than two slots, and a distributed plan's own
// work (fragments, Arrow batches, the merge, 1.3-2x the scan's CPU on
// this project's 2-core machine) is not paid back by one slot more than
// the session's replica connection gives it. There, at 50 connections,
// the distributed classes ran 1.3-1.5x slower than the replica without
// the rule, 1.07 and 1.28x with all slots as the threshold, 1.03 and
// 1.11x with half (docs/benchmarks.md).
func (s *Scheduler) Busy(threshold int) bool {
	if threshold < 0 {
		return false
	}
	if threshold == 0 {
		threshold = max(1, s.Slots()/2)
	}
	return s.running.Load() >= int64(threshold)
}

// New returns the scheduler over workers; fragments' batches are decoded
// with mem and counted in qmem.
func New(cfg config.Coordinator, log *slog.Logger, mem memory.Allocator, workers []*cluster.Worker, qmem *querymem.Budget) *Scheduler {
	return &Scheduler{cfg: cfg, log: log, mem: mem, workers: workers, qmem: qmem}
}

// Floor is the position every fragment of a statement must see (the
// engine's consistency floors): the worker waits until its replica has
// applied GTID, at most Wait.
type Floor struct {
	GTID string        // "" for none
	Wait time.Duration // how long a replica may take to reach it
}

// Job is one distributed execution.
type Job struct {
	Plan *planner.Plan
	// EstRows is the replica optimizer's estimate of the rows the
	// statement returns (-1: unknown); a selective row plan runs as few
	// fragments as its rows need.
	EstRows int64
	QID     string // the execution's id, in tickets and traces
	Floor   Floor
	// StopOnWarnings, when it returns true, ends the execution with a
	// *Warned error as soon as a fragment's statement raised warnings
	// (before that fragment's output reaches the sink): the caller runs
	// the statement on one replica instead, whose warnings are MariaDB's
	// own. Called from the fragments' goroutines. nil: never stop.
	StopOnWarnings func() bool
}

// Warnings of distributed statements. A fragment's statement can raise
// warnings on its replica (a string compared as a number: 1292 per row; a
// value truncated), which MariaDB reports with the statement and lists in
// SHOW WARNINGS. Fragments cut the work otherwise than the replica's one
// scan (a constant's conversion warns once per fragment), so their counts
// cannot be summed into MariaDB's. Instead the worker sends each
// fragment's count in its stream's trailer, and a statement whose
// fragment warned, while nothing of its result has been sent, ends with
// *Warned: its caller runs it on one replica, whose rows and warnings the
// client gets, exact by construction.

type stopKey struct{}

// WithStopOnWarnings returns ctx carrying stop, the StopOnWarnings of the
// jobs run under it that set none.
func WithStopOnWarnings(ctx context.Context, stop func() bool) context.Context {
	return context.WithValue(ctx, stopKey{}, stop)
}

// StopOnWarningsOf is the stop function ctx carries, nil if none.
func StopOnWarningsOf(ctx context.Context) func() bool {
	f, _ := ctx.Value(stopKey{}).(func() bool)
	return f
}

// Warned ends an execution whose fragment raised warnings on its replica
// (Job.StopOnWarnings).
type Warned struct {
	Range    string
	Warnings uint64
}

func (w *Warned) Error() string {
	return fmt.Sprintf("fragment %s raised %d warning(s) on its replica", w.Range, w.Warnings)
}

// Slots counts the healthy workers' fragment slots (0: no worker can run
// anything now).
func (s *Scheduler) Slots() int {
	slots := 0
	for _, w := range s.workers {
		if w.Healthy() {
			slots += w.Slots()
		}
	}
	return slots
}

// FragmentCount is how many fragments job would be cut into over slots.
func (s *Scheduler) FragmentCount(snap *catalog.Snapshot, job Job, slots int) int {
	return len(s.fragments(snap, job, slots))
}

// ErrStop is returned by a sink that has all the rows it needs (LIMIT
// without ORDER BY): the remaining fragments are cancelled.
var ErrStop = errors.New("enough rows")

// fragments cuts the plan's table into ranges for the current workers:
// at the quantiles of the table's split-key sample when the catalog has
// one (sample.go), so every range holds about as many rows, else into
// ranges of equal key width; a composite or non-integer key between its
// sampled boundary keys (keysample.go); a partitioned table partition by
// partition (partitions.go); a table without a key as one range. Each
// fragment gets its affinity key (affinity.go).
func (s *Scheduler) fragments(snap *catalog.Snapshot, job Job, slots int) []*fragment {
	p := job.Plan
	n := slots * s.cfg.FragmentsPerSlot
	lo, hi := int64(0), int64(0)
	var sample *pushdown.KeySample
	var keys [][]string
	nullable := false
	t, ok := snap.Tables.Table(p.DB, p.Table)
	var clip *keyWindow
	if ok {
		lo, hi, nullable = t.Min, t.Max, t.SplitNullable
		sample, keys = snap.Sample(p.DB, p.Table, catalog.SplitKey(t))
		rows := t.Rows
		if p.Split == planner.SplitInt && !p.Partitioned && (p.KeyLo != nil || p.KeyHi != nil) {
			clip = clipToKeys(p, t, sample)
			rows, sample = clip.rows, clip.sample
		}
		if m := rows / s.cfg.MinRowsPerFragment; int64(n) > m {
			n = int(max(m, 1))
		}
		// A fragment's output is held until it completes (so a failed
		// attempt is never half-sent); for row plans that bounds memory by
		// fragment size, so cut them small enough.
		if !p.Aggregate && p.PushedLimit < 0 {
			if job.EstRows >= 0 {
				// The optimizer's estimate of what the statement returns:
				// a selective query runs as few fragments as its rows need.
				rows = job.EstRows
				n = min(n, int(max(rows/s.cfg.MinRowsPerFragment, 1)))
			}
			n = max(n, int(rows/maxRowsPerRowFragment)+1)
		}
	}
	var ranges []pushdown.Range
	switch {
	case p.Partitioned && ok && len(t.Partitions) > 0:
		ranges = catalog.PartitionRanges(t, p.Split, keys, n, nullable)
	case p.Split == planner.SplitNone:
		ranges = []pushdown.Range{{}}
	case p.Split == planner.SplitKey:
		// Without a sample (not yet taken, failed, too large to scan) this
		// is one range: the whole table.
		ranges = pushdown.SplitKeys(keys, n)
	case sample != nil && n > 1:
		ranges = pushdown.SplitSample(sample, n, nullable)
	case clip != nil:
		ranges = pushdown.Split(clip.lo, clip.hi, n, nullable)
	default:
		ranges = pushdown.Split(lo, hi, n, nullable)
	}
	out := make([]*fragment, len(ranges))
	for i, r := range ranges {
		home := affinityKey(p.DB+"."+p.Table, clip.bounded(r), lo, hi)
		switch {
		case r.Partition != "":
			// Each partition is homed on its own, by its own key bounds.
			plo, phi := catalog.PartitionBoundsOf(t, r.Partition)
			home = affinityKey(p.DB+"."+p.Table+"/"+r.Partition, r, plo, phi)
		case p.Split == planner.SplitKey:
			// Key ranges have no integer bounds: their place in the
			// sample's order stands in for them.
			a, b := int64(i), int64(i+1)
			home = affinityKey(p.DB+"."+p.Table, pushdown.Range{Lo: &a, Hi: &b}, 0, int64(len(ranges)))
		}
		out[i] = &fragment{id: i, rng: r, sql: pushdown.Bind(p, r), stat: FragmentStat{Range: pushdown.Describe(p, r)}, home: home}
	}
	return out
}

// Run executes every fragment of job on the healthy workers, handing each
// fragment's complete output to sink. More fragments than slots are cut, and
// each slot pulls the next fragment when it frees, so a dense range does
// not hold the query up: its own worker's ranges first (affinity.go), then
// a down worker's, then any other's. A fragment that fails for a reason
// other than a MySQL error is retried on another worker.
func (s *Scheduler) Run(ctx context.Context, snap *catalog.Snapshot, job Job, sink Sink) (*Stats, error) {
	s.running.Add(1)
	defer s.running.Add(-1)
	qid := job.QID
	var live []*cluster.Worker
	slots := 0
	for _, w := range s.workers {
		if w.Healthy() {
			live = append(live, w)
			slots += w.Slots()
		}
	}
	if len(live) == 0 {
		return nil, sqlerr.Unavailable("no healthy replica can run the query; check `shoal` worker logs and replica replication status")
	}
	frags := s.fragments(snap, job, slots)
	var clock int64
	if job.Plan.Clock {
		clock = time.Now().UnixMicro()
	}
	for _, f := range frags {
		f.floor, f.clock, f.stopWarned = job.Floor, clock, job.StopOnWarnings
	}
	// Fragment progress for SHOW PROCESSLIST and the slow query log (progress.go).
	sink = progress(ctx, len(frags), sink)
	queue := newPlacer(s.workers, frags, s.cfg.AffinityOn()) // affinity.go
	for _, f := range frags {
		f.stat.Preferred = queue.preferred(f)
	}
	// The query's account in query_memory_limit (package querymem): every
	// attempt has released its batches once g.Wait returns.
	qm := s.qmem.Open()
	defer func() {
		if n := qm.Close(); n != 0 {
			s.log.Error("query memory not released by its fragments", "query", qid, "bytes", n)
		}
	}()
	var remaining atomic.Int64
	remaining.Store(int64(len(frags)))
	var lastFail atomic.Pointer[error] // the last retried failure
	done := make(chan struct{})

	g, gctx := errgroup.WithContext(ctx)
	// Outputs in the split key's order when the caller asks (inorder.go):
	// what is held back is counted in the query's account and given back
	// when a reservation does not fit, and order is given up where the
	// next rank may not run soon (a retry, a worker lost). Released
	// before the account closes.
	var inOrder *InOrder
	if KeyOrdered(ctx) {
		inOrder = NewInOrder(gctx, KeyOrderHold, sink)
		inOrder.Account(qm.TryHold, qm.Unhold)
		qm.OnPressure(inOrder.ToArrival)
		defer inOrder.Release()
		sink = inOrder.Sink
	}
	giveUpOrder := func() {
		if inOrder != nil {
			inOrder.ToArrival()
		}
	}
	for wi, w := range s.workers {
		if !slices.Contains(live, w) {
			continue
		}
		for slot := 0; slot < w.Slots(); slot++ {
			g.Go(func() error {
				for {
					// A worker found failing mid-query (here or by the
					// poller) takes no more fragments; the others drain
					// the queue.
					if !w.Healthy() {
						giveUpOrder() // its ranges wait for the others' slots
						return nil
					}
					f, wake := queue.take(wi)
					if f == nil {
						// Nothing queued: the rest run elsewhere or wait
						// for a retry.
						select {
						case <-gctx.Done():
							return nil
						case <-done:
							return nil
						case <-wake:
							continue
						}
					}
					ended := traceAttempt(gctx, qid, w.Name(), f) // the status page's timeline (observe)
					err := s.runFragment(gctx, w, f, qid, qm, sink)
					ended(err)
					if err == nil {
						if remaining.Add(-1) == 0 {
							close(done)
						}
						continue
					}
					if errors.Is(err, ErrStop) {
						return ErrStop
					}
					if _, ok := errors.AsType[*Warned](err); ok {
						return err // the statement's, not the worker's
					}
					if over := statementOver(gctx); over != nil {
						// The statement's own end (KILL, its deadline), not
						// the worker's failure: no retry, no MarkDown.
						return over
					}
					if !retryable(err) || f.attempts >= maxAttempts {
						if retryable(err) {
							return sqlerr.Unavailable("fragment %s failed %d times, last on %s: %v", f.rng, f.attempts, w.Name(), err)
						}
						return err
					}
					s.log.Warn("fragment failed; retrying elsewhere", "query", qid, "fragment", f.id, "worker", w.Name(), "err", err)
					lastFail.Store(&err)
					// The worker (or its replica) failed: stop using it until
					// its status says it is healthy again, and put the
					// fragment back for the other workers' slots.
					w.MarkDown("fragment failed: " + err.Error())
					giveUpOrder()
					backoff := time.Duration(f.attempts*f.attempts)*50*time.Millisecond + time.Duration(rand.IntN(50))*time.Millisecond
					time.AfterFunc(backoff, func() { queue.put(f) })
					return nil
				}
			})
		}
	}
	err := g.Wait()
	if errors.Is(err, ErrStop) {
		err = nil
	} else if err == nil && remaining.Load() > 0 && ctx.Err() == nil {
		err = sqlerr.Unavailable("%d of %d fragments could not run: every worker that tried failed; check worker and replica health (SHOW SHOAL REPLICAS)", remaining.Load(), len(frags))
		if last := lastFail.Load(); last != nil && sqlerr.IsReplicaBehind(*last) {
			err = *last // no replica reached the statement's floor: say so (3781)
		}
	}
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	st := &Stats{}
	for _, f := range frags {
		st.Fragments = append(st.Fragments, f.stat)
		st.Rows += f.stat.Rows
		st.Bytes += f.stat.Bytes
		st.Warnings += f.stat.Warnings
	}
	return st, err
}

// retryable reports whether a fragment error might not recur elsewhere: a
// transport or worker failure rather than a MySQL error about the SQL.
func retryable(err error) bool {
	if errors.Is(err, errStalled) {
		return true
	}
	if se, ok := sqlerr.As(err); ok {
		switch se.Num {
		case 1317, 2006, 2013, 1053, 1927, 1152, 1040, 1203, sqlerr.ErrReplicaBehind: // interrupted, gone, lost, shutdown, killed, aborted, too many connections, behind the floor
			return true
		}
		return sqlerr.IsClientError(int(se.Num))
	}
	return true
}

// errStalled marks an attempt that ran past fragment_timeout while the
// query itself still had time: the worker or its replica hangs, so the
// fragment is worth trying elsewhere.
var errStalled = errors.New("fragment attempt exceeded fragment_timeout")

// runFragment runs one attempt of f on w and hands its output to sink. An
// attempt that yielded its memory to an older query (package querymem) runs
// again, uncounted, once there is room.
func (s *Scheduler) runFragment(ctx context.Context, w *cluster.Worker, f *fragment, qid string, qm *querymem.Query, sink Sink) error {
	parent := ctx
	err := s.runAttempt(ctx, w, f, qid, qm, sink)
	for y := (*querymem.Yield)(nil); errors.As(err, &y); {
		f.attempts--
		if err = qm.AwaitRoom(ctx, y.Need); err != nil {
			return err
		}
		err = s.runAttempt(ctx, w, f, qid, qm, sink)
	}
	if err != nil && statementOver(parent) == nil && (errors.Is(err, context.DeadlineExceeded) || isDeadlineStatus(err)) {
		return fmt.Errorf("%w (%s on %s): %v", errStalled, s.cfg.FragmentTimeout.D(), w.Name(), err)
	}
	return err
}

// statementOver is the statement's own end: its context's error, or
// context.DeadlineExceeded once its deadline has passed. The router's
// statement context is expired by a clock, so a worker can report the
// deadline (the ticket carries it) before the context says so; a
// failure then is the statement's, never the worker's.
func statementOver(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if dl, ok := ctx.Deadline(); ok && !time.Now().Before(dl) {
		return context.DeadlineExceeded
	}
	return nil
}

// runAttempt is one attempt of runFragment.
func (s *Scheduler) runAttempt(ctx context.Context, w *cluster.Worker, f *fragment, qid string, qm *querymem.Query, sink Sink) error {
	f.attempts++
	f.stat.Tries = f.attempts
	f.stat.Worker = w.Name()
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, s.cfg.FragmentTimeout.D())
	defer cancel()
	c, err := w.Conn(ctx)
	if err != nil {
		return err
	}
	dl, _ := ctx.Deadline()
	rd, err := c.Fragment(ctx, fragmentTicket(w, f, qid, dl), s.mem)
	if err != nil {
		return err
	}
	defer rd.Release()
	var batches []arrow.RecordBatch
	var rows, bytes int64 // bytes: reserved in qm for batches
	defer func() {
		for _, b := range batches {
			b.Release()
		}
		qm.Release(bytes)
	}()
	for rd.Next() {
		rec := rd.RecordBatch()
		// Until the reservation is granted the stream is not read: the
		// worker stalls on flow control (back-pressure).
		n := recordBytes(rec)
		if err := qm.Reserve(ctx, n, bytes); err != nil {
			return err
		}
		rec.Retain()
		batches = append(batches, rec)
		rows += rec.NumRows()
		bytes += n
	}
	if err := rd.Err(); err != nil {
		return err
	}
	if n := rd.Warnings(); n > 0 {
		f.stat.Warnings = n
		if f.stopWarned != nil && f.stopWarned() {
			return &Warned{Range: f.stat.Range, Warnings: n}
		}
	}
	if err := sink(f.id, batches); err != nil {
		return err
	}
	f.stat.Rows, f.stat.Bytes, f.stat.Elapsed = rows, bytes, time.Since(start)
	return nil
}

// fragmentTicket is the ticket asking w to run f until dl: the fragment's
// SQL and freshness floor, and the IPC codec configured for w's replica
// (replicas[].ipc_compression; "" leaves it to the worker), since the link
// to each worker decides whether compression pays.
func fragmentTicket(w *cluster.Worker, f *fragment, qid string, dl time.Time) ticket.Ticket {
	// Rounded up to the millisecond: the worker's deadline (and the
	// client's, worker.Client.Fragment) never falls before the statement's.
	ms := dl.UnixMilli()
	if time.UnixMilli(ms).Before(dl) {
		ms++
	}
	return ticket.Ticket{QueryID: qid, FragmentID: f.id, SQL: f.sql, Deadline: ms,
		MinGTID: f.floor.GTID, GTIDWait: f.floor.Wait.Milliseconds(), Compression: w.Config().IPCCompression, Timestamp: f.clock}
}

// recordBytes is the size of a batch's Arrow buffers: what crossed the wire
// from the worker, uncompressed.
func recordBytes(rec arrow.RecordBatch) int64 {
	var n int64
	for _, col := range rec.Columns() {
		for _, b := range col.Data().Buffers() {
			if b != nil {
				n += int64(b.Len())
			}
		}
	}
	return n
}

// LockedSink serialises a sink.
func LockedSink(f Sink) Sink {
	var mu sync.Mutex
	return func(rank int, b []arrow.RecordBatch) error {
		mu.Lock()
		defer mu.Unlock()
		return f(rank, b)
	}
}

// isDeadlineStatus reports a gRPC DeadlineExceeded from the worker (the
// fragment's deadline, which the ticket carries, passed on its side).
func isDeadlineStatus(err error) bool {
	st, ok := status.FromError(err)
	return ok && err != nil && st.Code() == codes.DeadlineExceeded
}

// traceAttempt records an attempt of f on worker in the statement's trace
// and returns the function that records its end with the attempt's error.
// It reads f, which only the attempt's goroutine writes while it runs.
func traceAttempt(ctx context.Context, qid, worker string, f *fragment) func(error) {
	end := observe.TraceAttempt(ctx, qid, worker, f.id, f.stat.Range, f.attempts+1)
	return func(err error) {
		a := observe.Attempt{Outcome: attemptOutcome(ctx, err, f.attempts), Try: f.attempts, Err: err}
		if a.Outcome == "ok" {
			a.Rows, a.Bytes = f.stat.Rows, f.stat.Bytes
		}
		end(a)
	}
}

// attemptOutcome names how an attempt ended with err after tries
// attempts of its fragment: ok (ErrStop too: the LIMIT has its rows),
// cancelled (the statement ended), retried (another attempt follows) or
// failed (the statement fails).
func attemptOutcome(ctx context.Context, err error, tries int) string {
	switch {
	case err == nil || errors.Is(err, ErrStop):
		return "ok"
	case ctx.Err() != nil:
		return "cancelled"
	case retryable(err) && tries < maxAttempts:
		return "retried"
	}
	return "failed"
}
