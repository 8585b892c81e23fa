package arrowexec

import (
	"container/heap"
	"slices"

	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/sqltypes"
)

// SortRowsTop is SortRows for a statement that keeps only the first k
// rows (ORDER BY … LIMIT: k = offset + limit): afterwards rows[:k] are
// the first k rows SortRows would give, in its order (ties in input
// order); the rest follow in no particular order. A dashboard's "top 10
// routes" over thousands of groups then costs one comparison per group
// against the k-th best instead of a stable sort of them all. k < 0 or
// k >= len(rows) sorts everything.
func SortRowsTop(rows [][]sqltypes.Value, order []Ordering, env *collations.Environment, k int64) error {
	if k < 0 || k >= int64(len(rows)) || int64(len(rows)) < 4*k+16 {
		return SortRows(rows, order, env)
	}
	rc, err := newRowComparer(order, env)
	if err != nil {
		return err
	}
	if k == 0 {
		return nil
	}
	// h holds the indexes of the best k rows seen, worst on top; the index
	// breaks ties, so the result is what a stable sort keeps.
	h := &topHeap{rows: rows, rc: rc, idx: make([]int, 0, k)}
	for i := range rows {
		if len(h.idx) < int(k) {
			heap.Push(h, i)
			continue
		}
		if h.less(i, h.idx[0]) {
			h.idx[0] = i
			heap.Fix(h, 0)
		}
	}
	if rc.err != nil {
		return rc.err
	}
	slices.SortFunc(h.idx, func(a, b int) int {
		if h.less(a, b) {
			return -1
		}
		return 1
	})
	best := make([][]sqltypes.Value, len(h.idx))
	for j, i := range h.idx {
		best[j] = rows[i]
	}
	// The first k places take the best rows; the rows they held move to
	// the places the best ones left (no row is lost or duplicated).
	taken := make(map[int]bool, len(h.idx))
	for _, i := range h.idx {
		taken[i] = true
	}
	free := make([][]sqltypes.Value, 0, len(h.idx))
	for i := range int(k) {
		if !taken[i] {
			free = append(free, rows[i])
		}
	}
	for _, i := range h.idx {
		if i >= int(k) {
			rows[i], free = free[0], free[1:]
		}
	}
	copy(rows, best)
	return rc.err
}

// topHeap is a max-heap of row indexes under (row order, index).
type topHeap struct {
	rows [][]sqltypes.Value
	rc   *rowComparer
	idx  []int
}

// less orders row a before row b: by the ORDER BY, then by input order.
func (h *topHeap) less(a, b int) bool {
	if c := h.rc.compare(h.rows[a], h.rows[b]); c != 0 {
		return c < 0
	}
	return a < b
}

func (h *topHeap) Len() int           { return len(h.idx) }
func (h *topHeap) Less(i, j int) bool { return h.less(h.idx[j], h.idx[i]) } // worst first
func (h *topHeap) Swap(i, j int)      { h.idx[i], h.idx[j] = h.idx[j], h.idx[i] }
func (h *topHeap) Push(x any)         { h.idx = append(h.idx, x.(int)) }
func (h *topHeap) Pop() any {
	x := h.idx[len(h.idx)-1]
	h.idx = h.idx[:len(h.idx)-1]
	return x
}

// Keep is the k of SortRowsTop for OFFSET offset LIMIT limit (limit < 0:
// none, so -1: every row).
func Keep(offset, limit int64) int64 {
	if limit < 0 {
		return -1
	}
	return offset + limit
}

// Window applies OFFSET and LIMIT (limit < 0: none).
func Window[T any](rows []T, offset, limit int64) []T {
	if offset >= int64(len(rows)) {
		return nil
	}
	rows = rows[offset:]
	if limit >= 0 && limit < int64(len(rows)) {
		rows = rows[:limit]
	}
	return rows
}

// Span is the column indexes from, from+1, …, from+n-1.
func Span(from, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = from + i
	}
	return out
}
