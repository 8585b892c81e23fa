package pinexec

import (
	"bytes"
	"cmp"
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"vitess.io/vitess/go/sqltypes"
	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shoaldb/shoal/arrowexec"
	"github.com/shoaldb/shoal/pinned"
	"github.com/shoaldb/shoal/pinned/pinexec/valrange"
)

// Row statements with ORDER BY and LIMIT: the first rows per partition.
//
// A fragment `SELECT … ORDER BY … LIMIT n` over a pin sent every row
// that passed its filter for the coordinator to sort and cut: "the 20
// largest amounts" built, encoded and sorted a hundred thousand rows.
// Each partition now keeps its first n rows under the fragment's ORDER BY
// in a heap (arrowexec.TopN, with the comparer the coordinator's merge
// sorts with, so the rows kept contain the statement's answer) and sends
// only those. When the first ORDER BY item is a bare integer, DECIMAL,
// DOUBLE, DATE or DATETIME column, a row whose value there sorts strictly
// after the worst row kept is skipped before any of its values is built:
// once the heap is full nearly every row costs one comparison.

// maxTop bounds the LIMIT kept per partition; past it rows are sent as
// before and the coordinator cuts them.
const maxTop = 10000

type topPlan struct {
	n     int
	order []arrowexec.Ordering
	// rawCol is the split-table column the first ORDER BY item reads
	// bare, compared in place (-1: none); rawKind how its values read.
	rawCol  int
	rawKind pinned.Kind
	desc    bool
}

// compileTop plans the top rows of a row statement, or returns nil.
func (p *Program) compileTop(sel *sqlparser.Select) *topPlan {
	if sel.Limit == nil || sel.Limit.Offset != nil || len(sel.OrderBy) == 0 || p.join != nil {
		return nil
	}
	lit, ok := sel.Limit.Rowcount.(*sqlparser.Literal)
	if !ok || lit.Type != sqlparser.IntVal {
		return nil
	}
	n, err := strconv.Atoi(lit.Val)
	if err != nil || n <= 0 || n > maxTop {
		return nil
	}
	tp := &topPlan{n: n, rawCol: -1}
	for _, o := range sel.OrderBy {
		col := -1
		switch e := o.Expr.(type) {
		case *sqlparser.Literal:
			if k, err := strconv.Atoi(e.Val); e.Type == sqlparser.IntVal && err == nil && k >= 1 && k <= len(p.outs) {
				col = k - 1
			}
		case *sqlparser.ColName:
			if e.Qualifier.IsEmpty() {
				for i, f := range p.fields[:len(p.outs)] {
					if strings.EqualFold(f.Name, e.Name.String()) {
						col = i
						break
					}
				}
			}
		}
		if col < 0 {
			return nil
		}
		tp.order = append(tp.order, arrowexec.Ordering{Col: col, Desc: o.Direction == sqlparser.DescOrder, Collation: collationOf(p.fields[col])})
	}
	first := p.outs[tp.order[0].Col]
	if isColumn(first) && len(first.cols) == 1 {
		c := first.cols[0]
		if kind, ok := rawKind(p.t, c); ok {
			tp.rawCol, tp.rawKind, tp.desc = c, kind, tp.order[0].Desc
		}
	}
	return tp
}

// rawKind reports whether column c of t has stored values that order as
// its MySQL values do, and how they read.
func rawKind(t *pinned.Table, c int) (pinned.Kind, bool) {
	col := t.Cols[c]
	switch k := col.Kind(); k {
	case pinned.KindInt:
		return k, valrange.PlainInteger(col.Field.Type)
	case pinned.KindDate:
		return k, col.Field.Type == sqltypes.Date
	case pinned.KindFloat, pinned.KindDecimal, pinned.KindTimestamp:
		sp, ok := valrange.SpaceOf(t, c)
		return k, ok && sp.Kind == k
	}
	return 0, false
}

// topState is a partition's heap and the bound a row must beat.
type topState struct {
	plan *topPlan
	heap *arrowexec.TopN
	// This batch's raw values of the first ORDER BY column, and their
	// validity (nil: no NULLs).
	ints   []int64
	floats []float64
	valid  []byte
	off    int
	buf    []int64
	// The worst kept row's raw value: none yet, NULL, or a value.
	bounded, boundNull bool
	bound              int64
	fbound             float64
}

func newTopState(plan *topPlan, p *Program) *topState {
	return &topState{plan: plan, heap: arrowexec.NewTopN(plan.order, p.env.Collations(), plan.n)}
}

// load reads batch b's raw values of the first ORDER BY column.
func (ts *topState) load(b arrow.RecordBatch) {
	if ts.plan.rawCol < 0 {
		return
	}
	arr := b.Column(ts.plan.rawCol)
	ts.valid, ts.off = nil, arr.Data().Offset()
	if arr.NullN() > 0 {
		ts.valid = arr.NullBitmapBytes()
	}
	ts.ints, ts.floats = nil, nil
	switch ts.plan.rawKind {
	case pinned.KindFloat:
		ts.floats = arr.(*array.Float64).Float64Values()
	case pinned.KindDecimal:
		ts.ints = valrange.DecimalInts(arr.(*array.Decimal128), nil, ts.buf)
		ts.buf = ts.ints
	case pinned.KindDate:
		vals := arr.(*array.Date32).Date32Values()
		ts.ints = ts.widen(len(vals))
		for i, v := range vals {
			ts.ints[i] = int64(v)
		}
	case pinned.KindTimestamp:
		vals := arr.(*array.Timestamp).TimestampValues()
		ts.ints = ts.widen(len(vals))
		for i, v := range vals {
			ts.ints[i] = int64(v)
		}
	default:
		ts.ints = pinned.IntValues(arr, ts.buf)
		if _, own := arr.(*array.Int64); !own {
			ts.buf = ts.ints // widened into the buffer, perhaps grown
		}
	}
}

func (ts *topState) widen(n int) []int64 {
	if cap(ts.buf) < n {
		ts.buf = make([]int64, n)
	}
	return ts.buf[:n]
}

// rawCompare compares row r's raw value with the bound as ORDER BY
// places them (NULL first ascending).
func (ts *topState) rawCompare(r int) int {
	null := ts.valid != nil && ts.valid[(ts.off+r)>>3]&(1<<((ts.off+r)&7)) == 0
	var c int
	switch {
	case null && ts.boundNull:
		c = 0
	case null:
		c = -1
	case ts.boundNull:
		c = 1
	case ts.floats != nil:
		c = cmp.Compare(ts.floats[r], ts.fbound) // no NaN in MySQL values
	default:
		c = cmp3(ts.ints[r], ts.bound)
	}
	if ts.plan.desc {
		return -c
	}
	return c
}

// skip reports whether row r sorts strictly after every row the heap
// keeps on the first ORDER BY item alone, so it cannot be kept.
func (ts *topState) skip(r int) bool {
	return ts.bounded && ts.plan.rawCol >= 0 && ts.rawCompare(r) > 0
}

// offer pushes the output row vals of input row r if the heap admits it,
// copied (vals and their bytes are reused), with its raw first-key value
// after the outputs.
func (ts *topState) offer(vals []sqltypes.Value, r int) {
	if !ts.heap.Admits(vals) {
		return
	}
	row := make([]sqltypes.Value, len(vals), len(vals)+1)
	for i, v := range vals {
		if v.IsNull() {
			row[i] = v
			continue
		}
		row[i] = sqltypes.MakeTrusted(v.Type(), bytes.Clone(v.Raw()))
	}
	if ts.plan.rawCol >= 0 {
		raw := sqltypes.NULL
		switch {
		case ts.valid != nil && ts.valid[(ts.off+r)>>3]&(1<<((ts.off+r)&7)) == 0:
		case ts.floats != nil:
			raw = sqltypes.NewInt64(int64(math.Float64bits(ts.floats[r])))
		default:
			raw = sqltypes.NewInt64(ts.ints[r])
		}
		row = append(row, raw)
	}
	ts.heap.Push(row)
	ts.rebound(len(vals))
}

// rebound reads the bound off the worst kept row's raw value.
func (ts *topState) rebound(width int) {
	w := ts.heap.Worst()
	if w == nil || ts.plan.rawCol < 0 {
		return
	}
	raw := w[width]
	ts.bounded, ts.boundNull = true, raw.IsNull()
	if ts.boundNull {
		return
	}
	v, _ := raw.ToInt64()
	ts.bound, ts.fbound = v, math.Float64frombits(uint64(v))
}

// rows returns the kept rows in order, outputs only.
func (ts *topState) rows(width int) ([][]sqltypes.Value, error) {
	rows, err := ts.heap.Rows()
	if err != nil {
		return nil, err
	}
	for i, r := range rows {
		rows[i] = r[:width]
	}
	return rows, nil
}
