package schedule

import (
	"cmp"
	"math/bits"
	"slices"
	"sync"

	"github.com/shoaldb/shoal/engine/cluster"
	"github.com/shoaldb/shoal/pushdown"
)

// Range affinity (Presto's soft affinity): each key range of the split
// table has a preferred replica, the same one query after query, so each
// replica's buffer pool holds its share of the table instead of every
// replica cycling through all of it. A free slot takes its own worker's
// ranges first; when it has none left it takes a range whose preferred
// replica is down, if it is that range's next choice, and else steals
// from the worker with the most ranges left (from the end of its queue,
// the ranges it would reach last). Nobody waits for a busy replica: the
// affinity is a preference, never a constraint.
//
// The preference is rendezvous hashing (highest random weight): every
// worker scores every range, score = mix(hash(worker name), range key),
// and the range prefers the workers in descending score. Adding a worker
// takes from each other worker only the ranges the new one outscores
// them on; removing one hands only its ranges to their second choices.
// Nothing else moves, and the coordinator keeps no placement state.
//
// The range key (affinityKey) is the bucket of the range's middle on a
// coarse grid of the table's key span (about 64 power-of-two buckets), so
// a range keeps its key, and its worker, when its bounds move a little (a
// new sample, new rows: a shift of 0.1% of the span re-homes about one
// range in sixteen), and ranges cut finer than the grid (more slots, row
// plans) keep each part of the table on the same worker.

// affinityBuckets is about how many grid buckets a table's key span has.
const affinityBuckets = 64

// affinityKey identifies range r of table, whose keys were last seen in
// [lo, hi], for affinity.
func affinityKey(table string, r pushdown.Range, lo, hi int64) uint64 {
	h := stringHash(table)
	if r.Null {
		return mix(h ^ 0x6e756c6c) // "null"
	}
	if hi < lo {
		hi = lo
	}
	a, b := lo, hi
	if r.Lo != nil {
		a = *r.Lo
	}
	if r.Hi != nil && *r.Hi-1 < b {
		b = *r.Hi - 1
	}
	if b < a {
		b = a // a range outside the bounds seen: its one end stands for it
	}
	mid := a + int64(uint64(b-a)/2)
	// Grid: the smallest power of two giving at most affinityBuckets
	// buckets over the span, so the grid moves only when the span doubles.
	span := uint64(hi-lo) + 1
	shift := 0
	if span > affinityBuckets {
		shift = bits.Len64((span - 1) / affinityBuckets)
	}
	bucket := uint64(mid>>shift) ^ uint64(shift)<<58
	return mix(h ^ mix(bucket))
}

// rendezvous returns the worker indexes in the order range key prefers
// them: by descending mix(hash(name) ^ key), ties by index.
func rendezvous(names []uint64, key uint64) []int {
	order := make([]int, len(names))
	scores := make([]uint64, len(names))
	for i, n := range names {
		order[i] = i
		scores[i] = mix(n ^ key)
	}
	slices.SortFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(scores[b], scores[a]), cmp.Compare(a, b))
	})
	return order
}

// stringHash is FNV-1a: stable across processes and restarts, so a
// restarted coordinator places ranges where the last one did.
func stringHash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// mix is splitmix64's finalizer: a bijection that spreads every input bit
// over the output.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// placer hands one query's fragments to worker slots. With affinity each
// worker has a queue of the fragments that prefer it, in key order;
// without, all share one FIFO queue and any free slot takes its head.
//
// Concurrency: every method may be called from any goroutine; a mutex
// guards the queues (a query has tens to thousands of fragments and each
// take is a few comparisons, far from contended). Worker health is read
// from the workers' atomics at each take, so a worker marked down during
// the query loses its ranges to their next choices at once.
type placer struct {
	workers []*cluster.Worker
	// prefs[f.id] is fragment f's worker order (affinity only).
	prefs [][]int

	mu     sync.Mutex
	queues [][]*fragment // per worker: the fragments it is first choice for
	shared []*fragment   // affinity off: one FIFO queue
	wake   chan struct{} // closed (and replaced) when a fragment is put back
}

// newPlacer queues frags for workers (all configured workers, healthy or
// not, so a worker that is down keeps its ranges' place in the hash).
func newPlacer(workers []*cluster.Worker, frags []*fragment, affinity bool) *placer {
	p := &placer{workers: workers, wake: make(chan struct{})}
	if !affinity || len(workers) == 0 {
		p.shared = slices.Clone(frags)
		return p
	}
	names := make([]uint64, len(workers))
	for i, w := range workers {
		names[i] = stringHash(w.Name())
	}
	p.queues = make([][]*fragment, len(workers))
	p.prefs = make([][]int, len(frags))
	for _, f := range frags {
		p.prefs[f.id] = rendezvous(names, f.home)
		first := p.prefs[f.id][0]
		p.queues[first] = append(p.queues[first], f)
	}
	return p
}

// take returns the next fragment for a free slot of worker wi, or nil and
// a channel closed when a fragment is put back (wait on it, then ask
// again).
func (p *placer) take(wi int) (*fragment, <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.queues == nil {
		if len(p.shared) == 0 {
			return nil, p.wake
		}
		f := p.shared[0]
		p.shared = p.shared[1:]
		return f, nil
	}
	// Its own ranges, in key order.
	if q := p.queues[wi]; len(q) > 0 {
		p.queues[wi] = q[1:]
		return q[0], nil
	}
	// Ranges of a worker that is down, where this one is the next choice.
	for u, q := range p.queues {
		if u == wi || len(q) == 0 || p.workers[u].Healthy() {
			continue
		}
		for k, f := range q {
			if p.nextChoice(f) == wi {
				p.queues[u] = slices.Delete(q, k, k+1)
				return f, nil
			}
		}
	}
	// Steal the last range of the worker with the most left.
	victim := -1
	for u, q := range p.queues {
		if u != wi && len(q) > 0 && (victim < 0 || len(q) > len(p.queues[victim])) {
			victim = u
		}
	}
	if victim < 0 {
		return nil, p.wake
	}
	q := p.queues[victim]
	f := q[len(q)-1]
	p.queues[victim] = q[:len(q)-1]
	return f, nil
}

// nextChoice is the first healthy worker in f's order (-1: none).
func (p *placer) nextChoice(f *fragment) int {
	for _, u := range p.prefs[f.id] {
		if p.workers[u].Healthy() {
			return u
		}
	}
	return -1
}

// put queues f again (a retry) and wakes the waiting slots.
func (p *placer) put(f *fragment) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.queues == nil {
		p.shared = append(p.shared, f)
	} else {
		first := p.prefs[f.id][0]
		p.queues[first] = append(p.queues[first], f)
	}
	close(p.wake)
	p.wake = make(chan struct{})
}

// preferred names f's first-choice worker ("" without affinity).
func (p *placer) preferred(f *fragment) string {
	if p.prefs == nil {
		return ""
	}
	return p.workers[p.prefs[f.id][0]].Name()
}
