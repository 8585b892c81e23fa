package pinexec

import (
	"context"
	"runtime"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"golang.org/x/sync/errgroup"
	"vitess.io/vitess/go/sqltypes"

	"github.com/shoaldb/shoal/arrowexec"
	"github.com/shoaldb/shoal/evalexpr"
	"github.com/shoaldb/shoal/pinned/pinexec/bitarg"
	"github.com/shoaldb/shoal/pinned/pinexec/literal"
)

// Sink receives one partition's output. It may be called from several
// goroutines at once and must not keep the batches after it returns
// (Retain what it keeps). rank is the index of the pinned batch the rows
// come from when the program returns the rows it scans (scanOrdered):
// each batch taken is reported once, empty or not, so the caller can keep
// the table's order. Other outputs (groups, joins, a top-N): rank -1.
type Sink func(rank int, bs []arrow.RecordBatch) error

// scanOrdered: the output is the rows p scans, batch by batch (Sink).
func scanOrdered(p *Program) bool { return !p.aggregate && p.join == nil && p.top == nil }

// rowBatch is how many rows the generic path buffers before handing them
// on (to the partition's hash aggregate, or to the sink).
const rowBatch = 4096

// Options tune one run.
type Options struct {
	// Parallel is the number of partitions (goroutines); 0 means
	// GOMAXPROCS.
	Parallel int
	// MemLimit bounds each partition's hash aggregate (generic path);
	// <= 0 means none.
	MemLimit int64
}

// Run executes the program over every batch of its table and hands the
// output to sink: for aggregate statements one set of partial rows per
// partition, for row statements the rows in chunks. A sink error stops
// the run and is returned.
func (p *Program) Run(ctx context.Context, mem memory.Allocator, opt Options, sink Sink) error {
	n := opt.Parallel
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	n = max(min(n, len(p.t.Batches)), 1)
	if p.ordered {
		n = 1 // groups show their first row's spelling (Program.ordered)
	}
	var built []*builtTable
	if p.join != nil {
		// The joined tables' hash tables, once per run, before any
		// partition probes them.
		var err error
		if built, err = p.join.build(ctx, opt.MemLimit); err != nil {
			return err
		}
	}
	var next atomic.Int64
	var produced atomic.Int64 // row statements with a pushed LIMIT
	g, gctx := errgroup.WithContext(ctx)
	for range n {
		g.Go(func() error {
			part := newPartition(p, mem, opt)
			part.built, part.ctx, part.lone = built, gctx, n == 1
			defer part.release()
			for {
				if err := gctx.Err(); err != nil {
					return err
				}
				i := int(next.Add(1) - 1)
				if i >= len(p.t.Batches) {
					break
				}
				if p.limit >= 0 && produced.Load() >= p.limit {
					break
				}
				n, err := part.batch(i, p.t.Batches[i], sink)
				if err != nil {
					return err
				}
				produced.Add(n)
			}
			return part.finish(sink)
		})
	}
	return g.Wait()
}

// partition is one goroutine's state.
type partition struct {
	p     *Program
	mem   memory.Allocator
	ev    *evalexpr.Evaluator
	row   []sqltypes.Value
	arena []byte
	vals  []sqltypes.Value

	rb      *arrowexec.RowBuilder // generic: pre-aggregate rows or output rows
	pending int
	agg     *arrowexec.HashAgg
	fast    *fastState
	top     *topState
	sent    int64
	lone    bool // the run's only partition: its groups are the merged ones

	// Joins (join.go): the run's hash tables, a key buffer, and the
	// output rows produced so far.
	ctx    context.Context
	built  []*builtTable
	key    []byte
	joined int64
}

func newPartition(p *Program, mem memory.Allocator, opt Options) *partition {
	width := len(p.t.Cols)
	if p.join != nil {
		width = len(p.join.cols)
	}
	part := &partition{p: p, mem: mem, ev: p.env.NewEvaluator(), row: make([]sqltypes.Value, width)}
	if p.fast != nil {
		part.fast = newFastState(p.fast)
	}
	if p.top != nil {
		part.top = newTopState(p.top, p)
	}
	switch {
	case p.fast != nil && !p.fast.rowsOnly:
	case p.aggregate:
		part.rb = arrowexec.NewRowBuilder(mem, p.pre)
		part.agg = arrowexec.NewHashAgg(mem, p.env.Collations(), p.keySpecs, p.aggSpecs, opt.MemLimit)
		part.vals = make([]sqltypes.Value, len(p.keys)+len(p.aggs))
	default:
		part.rb = arrowexec.NewRowBuilder(mem, p.out)
		part.vals = make([]sqltypes.Value, len(p.outs))
	}
	return part
}

func (part *partition) release() {
	if part.fast != nil {
		part.fast.release()
	}
	if part.rb != nil {
		part.rb.Release()
	}
	if part.agg != nil {
		part.agg.Release()
	}
}

// batch processes one input batch; it returns the rows it sent (row
// statements).
func (part *partition) batch(rank int, b arrow.RecordBatch, sink Sink) (int64, error) {
	p := part.p
	var sel []int32 // rows that passed the vectorized filter
	if part.fast != nil {
		if !p.fast.rowsOnly {
			return 0, part.fast.batch(part, b)
		}
		sel = part.fast.filter(b)
	}
	var sent int64
	n := int(b.NumRows())
	if sel != nil {
		n = len(sel)
	}
	if part.top != nil {
		part.top.load(b)
	}
	for i := 0; i < n; i++ {
		r := i
		if sel != nil {
			r = int(sel[i])
		}
		if part.top != nil && part.top.skip(r) {
			continue
		}
		part.arena = part.arena[:0]
		for _, c := range p.used {
			part.row[c], part.arena = part.value(b, c, r, part.arena)
		}
		if p.join != nil {
			before := part.joined
			stop, err := part.joinRow(sink)
			sent += part.joined - before
			if err != nil {
				return sent, err
			}
			if stop {
				break
			}
			continue
		}
		ok := true
		for _, w := range p.where {
			if sel != nil {
				break // the filter ran vectorized
			}
			t, err := part.ev.True(w.x, part.row)
			if err != nil {
				return sent, evalErr(w, err)
			}
			if !t {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		if p.aggregate {
			if err := part.preAggregate(); err != nil {
				return sent, err
			}
			continue
		}
		for i, o := range p.outs {
			v, _, err := part.ev.Eval(o.x, part.row)
			if err != nil {
				return sent, evalErr(o, err)
			}
			part.vals[i] = v
		}
		if part.top != nil {
			part.top.offer(part.vals, r)
			continue
		}
		if err := part.rb.Append(part.vals); err != nil {
			return sent, err
		}
		sent++
		part.pending++
		if p.limit >= 0 && part.sent+sent >= p.limit {
			break
		}
		if part.pending >= rowBatch && !scanOrdered(p) {
			if err := part.flushRows(sink); err != nil {
				return sent, err
			}
		}
	}
	part.sent += sent
	if scanOrdered(p) {
		// The batch's rows as one output with the batch's rank, none
		// too (the caller waits for every rank it has not seen).
		return sent, part.flushRank(rank, sink)
	}
	return sent, nil
}

func evalErr(x *expr, err error) error {
	return &evalexpr.RuntimeError{What: "evaluating " + x.src + " over a pinned table", Err: err}
}

// preAggregate appends the current row's keys and aggregate inputs.
func (part *partition) preAggregate() error {
	p := part.p
	for i, k := range p.keys {
		v, _, err := part.ev.Eval(k.x, part.row)
		if err != nil {
			return evalErr(k, err)
		}
		part.vals[i] = v
	}
	nk := len(p.keys)
	for i, a := range p.aggs {
		var v sqltypes.Value
		if a.arg != nil {
			x, _, err := part.ev.Eval(a.arg.x, part.row)
			if err != nil {
				return evalErr(a.arg, err)
			}
			v = x
			switch a.fn {
			case aggSum:
				v = literal.TemporalNumber(v)
			case aggBitAnd, aggBitOr, aggBitXor:
				v = bitarg.Integer(v, a.bit)
			}
		}
		if a.fn == aggCount {
			if a.arg == nil || !v.IsNull() {
				v = one
			} else {
				v = zero
			}
		}
		part.vals[nk+i] = v
	}
	if err := part.rb.Append(part.vals); err != nil {
		return err
	}
	part.pending++
	if part.pending >= rowBatch {
		return part.flushAgg()
	}
	return nil
}

var (
	one  = sqltypes.NewInt64(1)
	zero = sqltypes.NewInt64(0)
)

func (part *partition) flushAgg() error {
	rec := part.rb.NewRecordBatch()
	defer rec.Release()
	part.pending = 0
	return part.agg.Add(rec)
}

func (part *partition) flushRows(sink Sink) error {
	if part.pending == 0 {
		return nil
	}
	return part.flushRank(-1, sink)
}

// flushRank sends the rows pending (maybe none) as rank's output.
func (part *partition) flushRank(rank int, sink Sink) error {
	if part.pending == 0 {
		return sink(rank, nil)
	}
	rec := part.rb.NewRecordBatch()
	defer rec.Release()
	part.pending = 0
	return sink(rank, []arrow.RecordBatch{rec})
}

// finish sends what the partition still holds.
func (part *partition) finish(sink Sink) error {
	p := part.p
	if !p.aggregate {
		if part.top != nil {
			rows, err := part.top.rows(len(p.outs))
			if err != nil {
				return err
			}
			for _, r := range rows {
				if err := part.rb.Append(r); err != nil {
					return err
				}
				part.pending++
			}
		}
		return part.flushRows(sink)
	}
	var rows [][]sqltypes.Value
	if part.fast != nil && !p.fast.rowsOnly {
		rows = part.fast.rows(part)
	} else {
		if part.pending > 0 {
			if err := part.flushAgg(); err != nil {
				return err
			}
		}
		var err error
		if rows, err = part.agg.Rows(); err != nil {
			return err
		}
	}
	if len(rows) == 0 && len(p.keys) == 0 {
		// An aggregate without GROUP BY has one row over no input, as a
		// fragment on MySQL would return: counts 0, the rest NULL.
		row := make([]sqltypes.Value, len(p.aggs))
		for i, a := range p.aggs {
			if a.fn == aggCount {
				row[i] = zero
			} else if a.fn >= aggBitAnd {
				row[i] = sqltypes.NewUint64(bitNeutral(a.fn))
			}
		}
		rows = append(rows, row)
	}
	rb := arrowexec.NewRowBuilder(part.mem, p.out)
	defer rb.Release()
	for _, r := range rows {
		if err := rb.Append(r); err != nil {
			return err
		}
	}
	rec := rb.NewRecordBatch()
	defer rec.Release()
	if part.lone && part.fast != nil && p.fast.distinct {
		// The whole table's groups, each distinct in the merge: it
		// need not hash them again (arrowexec.MarkDistinctGroups).
		marked := arrowexec.MarkDistinctGroups(rec, p.keySpecs)
		defer marked.Release()
		return sink(-1, []arrow.RecordBatch{marked})
	}
	return sink(-1, []arrow.RecordBatch{rec})
}

func bitNeutral(fn aggFunc) uint64 {
	if fn == aggBitAnd {
		return ^uint64(0)
	}
	return 0
}

// value returns column c of row r of batch b as a MySQL value typed as the
// column, its text appended to arena.
func (part *partition) value(b arrow.RecordBatch, c, r int, arena []byte) (sqltypes.Value, []byte) {
	return part.p.t.Cols[c].Value(b.Column(c), r, arena)
}
