package schedule

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/engine/cluster"
	"github.com/shoaldb/shoal/pushdown"
)

func testWorkers(names ...string) []*cluster.Worker {
	var ws []*cluster.Worker
	for _, n := range names {
		w := cluster.NewWorker(config.Replica{Name: n, Worker: n + ":1"}, "")
		w.SetHealth(true, "")
		ws = append(ws, w)
	}
	return ws
}

func hashes(names ...string) []uint64 {
	out := make([]uint64, len(names))
	for i, n := range names {
		out[i] = stringHash(n)
	}
	return out
}

// TestRendezvousMovesOnlyOneShare: adding a worker moves to it a fair
// share of the ranges and moves nothing between the others; removing one
// moves only its ranges, each to its second choice.
func TestRendezvousMovesOnlyOneShare(t *testing.T) {
	const ranges = 4000
	keys := make([]uint64, ranges)
	for i := range keys {
		keys[i] = mix(uint64(i)) // ranges of many tables
	}
	three := []string{"replica1", "replica2", "replica3"}
	four := append(slices.Clone(three), "replica4")
	two := []string{"replica1", "replica3"} // replica2 removed
	count := map[string]int{}
	moved := 0
	for _, k := range keys {
		o3 := rendezvous(hashes(three...), k)
		o4 := rendezvous(hashes(four...), k)
		o2 := rendezvous(hashes(two...), k)
		first3, first4, first2 := three[o3[0]], four[o4[0]], two[o2[0]]
		count[first3]++
		if first4 != first3 {
			moved++
			if first4 != "replica4" {
				t.Fatalf("adding replica4 moved a range from %s to %s", first3, first4)
			}
		}
		if first3 != "replica2" && first2 != first3 {
			t.Fatalf("removing replica2 moved a range of %s to %s", first3, first2)
		}
		if first3 == "replica2" && first2 != three[o3[1]] {
			t.Fatalf("a range of removed replica2 went to %s, not its second choice %s", first2, three[o3[1]])
		}
	}
	for _, n := range three {
		if c := count[n]; c < ranges/3*8/10 || c > ranges/3*12/10 {
			t.Errorf("%s prefers %d of %d ranges, want about a third: %v", n, c, ranges, count)
		}
	}
	if moved < ranges/4*8/10 || moved > ranges/4*12/10 {
		t.Errorf("adding a fourth worker moved %d of %d ranges, want about a quarter", moved, ranges)
	}
}

// TestAffinityKeyStable: a range keeps its key when the table's bounds or
// the range's own bounds move a little, and the ranges of a split into
// twice as many parts map the same parts of the table to the same keys.
func TestAffinityKeyStable(t *testing.T) {
	const lo, hi = 1, 15_030_978
	a := pushdown.Split(lo, hi, 16, false)
	b := pushdown.Split(lo, hi+hi/1000, 16, false) // new rows, bounds moved by 0.1%
	same := 0
	for i := range a {
		if affinityKey("db.t", a[i], lo, hi) == affinityKey("db.t", b[i], lo, hi+hi/1000) {
			same++
		}
	}
	if same < 13 {
		t.Errorf("only %d of 16 ranges kept their key when the bounds moved by 0.1%%", same)
	}
	if affinityKey("db.t", a[3], lo, hi) != affinityKey("db.t", a[3], lo, hi) {
		t.Error("affinityKey is not deterministic")
	}
	if affinityKey("db.t", a[3], lo, hi) == affinityKey("db.u", a[3], lo, hi) {
		t.Error("two tables' ranges share a key")
	}
	// Open ends and ranges outside the bounds have keys too.
	for _, r := range []pushdown.Range{{}, {Null: true}, {Hi: new(int64(-5))}, {Lo: new(int64(hi + 100))}} {
		_ = affinityKey("db.t", r, lo, hi)
	}
	if affinityKey("db.t", pushdown.Range{}, 7, 3) == 0 {
		t.Error("zero key")
	}
}

func fragmentsFor(n int) []*fragment {
	var fs []*fragment
	for i, r := range pushdown.Split(0, int64(n)*1000, n, false) {
		fs = append(fs, &fragment{id: i, rng: r, home: affinityKey("db.t", r, 0, int64(n)*1000)})
	}
	return fs
}

// TestPlacerOwnFirstThenSteal: each worker takes its preferred ranges in
// key order, then steals the last range of the worker with the most left.
func TestPlacerOwnFirstThenSteal(t *testing.T) {
	ws := testWorkers("replica1", "replica2")
	fs := fragmentsFor(32)
	p := newPlacer(ws, fs, true)
	own := [2][]int{}
	for _, f := range fs {
		w := slices.IndexFunc(ws, func(w *cluster.Worker) bool { return w.Name() == p.preferred(f) })
		own[w] = append(own[w], f.id)
	}
	if len(own[0]) == 0 || len(own[1]) == 0 {
		t.Fatalf("one worker prefers nothing: %v", own)
	}
	for _, id := range own[0] {
		f, _ := p.take(0)
		if f == nil || f.id != id {
			t.Fatalf("worker 0 took %v, want its own range %d next", f, id)
		}
	}
	// Worker 0 is out of its own: it steals worker 1's last range.
	f, _ := p.take(0)
	if want := own[1][len(own[1])-1]; f == nil || f.id != want {
		t.Fatalf("worker 0 stole %v, want worker 1's last range %d", f, want)
	}
	if f, _ := p.take(1); f == nil || f.id != own[1][0] {
		t.Fatalf("worker 1 took %v, want its first range %d", f, own[1][0])
	}
}

// TestPlacerDownWorker: the ranges of a worker that is down go to their
// next choice before anyone steals them.
func TestPlacerDownWorker(t *testing.T) {
	ws := testWorkers("replica1", "replica2", "replica3")
	fs := fragmentsFor(60)
	p := newPlacer(ws, fs, true)
	ws[1].MarkDown("test")
	// Drain worker 0's own ranges; after them it must get only ranges of
	// replica2 whose second choice it is, then steal.
	for len(p.queues[0]) > 0 {
		p.take(0)
	}
	var second []int
	for _, f := range p.queues[1] {
		if p.prefs[f.id][1] == 0 {
			second = append(second, f.id)
		}
	}
	for _, id := range second {
		f, _ := p.take(0)
		if f == nil || f.id != id {
			t.Fatalf("worker 0 took %v, want replica2's range %d (its second choice)", f, id)
		}
	}
	for _, f := range p.queues[1] {
		if p.nextChoice(f) != 2 {
			t.Fatalf("range %d of replica2 left, next choice %d, want replica3", f.id, p.nextChoice(f))
		}
	}
}

func TestPlacerNoAffinityIsFIFO(t *testing.T) {
	ws := testWorkers("replica1", "replica2")
	fs := fragmentsFor(8)
	p := newPlacer(ws, fs, false)
	for i := range fs {
		f, _ := p.take(i % 2)
		if f == nil || f.id != i {
			t.Fatalf("take %d: %v", i, f)
		}
		if p.preferred(f) != "" {
			t.Fatal("no preference without affinity")
		}
	}
	f, wake := p.take(0)
	if f != nil {
		t.Fatal("queue should be empty")
	}
	p.put(fs[3])
	select {
	case <-wake:
	default:
		t.Fatal("put did not wake the waiting slots")
	}
	if f, _ := p.take(1); f != fs[3] {
		t.Fatalf("took %v after put, want fragment 3", f)
	}
}

// TestPlacerEveryFragmentOnce: slots of three workers (one going down
// midway) take fragments concurrently, some fail and are put back; every
// fragment completes exactly once.
func TestPlacerEveryFragmentOnce(t *testing.T) {
	for _, affinity := range []bool{true, false} {
		ws := testWorkers("replica1", "replica2", "replica3")
		fs := fragmentsFor(200)
		p := newPlacer(ws, fs, affinity)
		var mu sync.Mutex
		done := map[int]int{}
		tries := map[int]int{}
		var wg sync.WaitGroup
		for wi := range ws {
			for range 2 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						mu.Lock()
						if wi == 1 && len(done) > 50 {
							ws[1].MarkDown("test")
						}
						mu.Unlock()
						if !ws[wi].Healthy() {
							return
						}
						f, wake := p.take(wi)
						if f == nil {
							mu.Lock()
							all := len(done) == len(fs)
							mu.Unlock()
							if all {
								return
							}
							select {
							case <-wake:
							case <-time.After(5 * time.Millisecond):
							}
							continue
						}
						mu.Lock()
						tries[f.id]++
						fail := tries[f.id] == 1 && f.id%7 == 0
						if !fail {
							done[f.id]++
						}
						mu.Unlock()
						if fail {
							p.put(f)
						}
					}
				}()
			}
		}
		wg.Wait()
		for _, f := range fs {
			if done[f.id] != 1 {
				t.Fatalf("affinity %v: fragment %d completed %d times", affinity, f.id, done[f.id])
			}
		}
	}
}
