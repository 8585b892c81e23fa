package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/prometheus/client_golang/prometheus"
	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/sqltypes"

	"github.com/shoaldb/shoal/arrowexec"
	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/engine/remerge"
	"github.com/shoaldb/shoal/engine/rowformat"
	"github.com/shoaldb/shoal/engine/schedule"
	"github.com/shoaldb/shoal/evalexpr"
)

// resultWriter streams a prepared plan's result to the client.
type resultWriter = rowformat.Writer

// newResultWriter writes pr's result through callback.
func newResultWriter(pr *prepared, callback func(*sqltypes.Result) error) *resultWriter {
	return &rowformat.Writer{Fields: pr.fields, OutFrom: pr.outFrom, Callback: callback}
}

// execute runs a prepared distributed SELECT and streams its result.
// merger turns a prepared plan's fragment outputs into the client's rows:
// the hash aggregate of partial states (and its second level for
// DISTINCT aggregates, WITH ROLLUP), the final stage, sort or top-N, and
// streaming row plans, each written through a resultWriter. It needs the
// evaluator, an allocator, the merge memory limit and a way to run the
// plan's fragments, nothing else of the engine.
type merger struct {
	cfg config.Coordinator
	env *evalexpr.Env
	mem memory.Allocator
	// run executes pr and hands each fragment's complete output to sink
	// (Engine.run: in memory, or by the scheduler).
	run func(ctx context.Context, pr *prepared, qid string, sink schedule.Sink) (*schedule.Stats, error)
	// wholeMerges counts aggregates merged from one partition's distinct
	// groups (arrowexec.MarkDistinctGroups); nil: not counted.
	wholeMerges prometheus.Counter
}

func (s *merger) execute(ctx context.Context, pr *prepared, qid string, w *resultWriter) (*schedule.Stats, error) {
	if pr.recode != nil && pr.prog == nil {
		// Fragment columns in another charset than utf8mb4 arrive
		// converted to it: back to their own before anything reads them.
		// (The in-memory engine reads no such column: pinfields.go.)
		run, mem := s.run, s.mem
		s = &merger{cfg: s.cfg, env: s.env, mem: s.mem, wholeMerges: s.wholeMerges, run: func(ctx context.Context, pr *prepared, qid string, sink schedule.Sink) (*schedule.Stats, error) {
			return run(ctx, pr, qid, func(rank int, bs []arrow.RecordBatch) error {
				out := make([]arrow.RecordBatch, len(bs))
				for i, b := range bs {
					out[i] = arrowexec.Recode(mem, b, pr.recode)
				}
				defer func() {
					for _, b := range out {
						b.Release()
					}
				}()
				return sink(rank, out)
			})
		}}
	}
	if pr.plan.Aggregate {
		return s.executeAggregate(ctx, pr, qid, w)
	}
	if len(pr.order) == 0 {
		return s.executeStream(ctx, pr, qid, w)
	}
	return s.executeSorted(ctx, pr, qid, w)
}

func (s *merger) executeAggregate(ctx context.Context, pr *prepared, qid string, w *resultWriter) (*schedule.Stats, error) {
	h := arrowexec.NewHashAgg(s.mem, s.env.Collations(), pr.keys, pr.aggs, s.cfg.MergeMemoryLimit)
	defer h.Release()
	var schema *arrow.Schema
	st, err := s.run(ctx, pr, qid, schedule.LockedSink(func(rank int, bs []arrow.RecordBatch) error {
		for _, b := range bs {
			if schema == nil {
				schema = b.Schema()
			}
			if err := h.AddRanked(b, rank); err != nil {
				return err
			}
		}
		return nil
	}))
	if err != nil {
		return st, err
	}
	merged, err := h.RowsWithUnknown()
	if err != nil {
		return st, err
	}
	if h.Whole() && s.wholeMerges != nil {
		s.wholeMerges.Inc()
	}
	// A value the merge could not compute (a JSON_ARRAYAGG over
	// group_concat_max_len) fails the query only if it is read: by HAVING,
	// ORDER BY, or an output row inside the LIMIT window.
	var unknown map[int]unknownRow // nil (read as empty) in the usual case
	if h.HasUnknown() {
		unknown = map[int]unknownRow{}
		for g := range merged {
			if cols, err := h.Unknown(g); err != nil {
				if pr.plan.DistinctKeys > 0 || pr.plan.Rollup {
					return st, err // those merges read every value
				}
				unknown[g] = unknownRow{cols: cols, err: err}
			}
		}
	}
	rm := &remerge.Merge{Mem: s.mem, Env: s.env.Collations(), MemLimit: s.cfg.MergeMemoryLimit, Plan: pr.plan,
		Keys: pr.keys, Aggs: pr.aggs, Keys2: pr.keys2, Aggs2: pr.aggs2}
	if pr.plan.DistinctKeys > 0 {
		if merged, err = rm.Distinct(schema, merged); err != nil {
			return st, err
		}
	}
	if pr.plan.Rollup {
		if merged, err = rm.Rollup(schema, merged); err != nil {
			return st, err
		}
	}
	ev := s.env.NewEvaluator()
	// Over the replicas, a division by zero is the replica's to answer,
	// with its warning, where the caller lets it (schedule.WithStopOnWarnings); a
	// pin's statement has no replica to answer it.
	stop := schedule.StopOnWarningsOf(ctx)
	checkDiv := pr.pin == nil && stop != nil && stop()
	divZero := func(x *evalexpr.Expr, row []sqltypes.Value) error {
		if checkDiv && x.Divides() && ev.DividesByZero(x, row) {
			return evalexpr.ErrDividesByZero
		}
		return nil
	}
	nout := len(pr.outputs)
	final := make([][]sqltypes.Value, 0, len(merged))
	orderColls := make([]collations.ID, len(pr.order))
	for i, o := range pr.order {
		orderColls[i] = o.coll
	}
	var unread map[*sqltypes.Value]unknownRow // kept rows holding unknown outputs, by &ext[0]
	// lazy[i]: with a LIMIT, an output ORDER BY does not read waits for the kept rows (a top 10
	// of 3,000 groups: ORDER BY COUNT(*) leaves an AVG's decimal division to the 10).
	var lazy []bool
	if pr.plan.Limit >= 0 && pr.having == nil && unknown == nil && pr.plan.DistinctKeys == 0 && !pr.plan.Rollup && len(merged) > 0 {
		lazy = make([]bool, nout)
		for i := range lazy {
			lazy[i] = !slices.ContainsFunc(pr.order, func(o orderKey) bool { return o.expr.Reads(len(merged[0]) + i) })
		}
	}
	for g, row := range merged {
		ext := make([]sqltypes.Value, len(row), len(row)+nout+len(pr.order))
		copy(ext, row)
		u, isUnknown := unknown[g]
		for i, x := range pr.outputs {
			var v sqltypes.Value // lazy: set after the window
			if lazy == nil || !lazy[i] {
				if v, _, err = ev.Eval(x, ext[:len(row)]); err != nil {
					return st, &evalexpr.RuntimeError{What: fmt.Sprintf("evaluating %s", x), Err: err}
				}
				if err := divZero(x, ext[:len(row)]); err != nil {
					return st, err
				}
			}
			ext = append(ext, v)
			if isUnknown && x.Reads(u.cols...) {
				u.cols = append(u.cols, len(row)+i)
				u.outputs = true
			}
		}
		if isUnknown {
			if pr.having != nil && pr.having.Reads(u.cols...) {
				return st, u.err
			}
			for _, o := range pr.order {
				if o.expr.Reads(u.cols...) {
					return st, u.err
				}
			}
		}
		if pr.having != nil {
			ok, err := ev.True(pr.having, ext)
			if err != nil {
				return st, &evalexpr.RuntimeError{What: fmt.Sprintf("evaluating HAVING %s", pr.having), Err: err}
			}
			if err := divZero(pr.having, ext); err != nil {
				return st, err
			}
			if !ok {
				continue
			}
		}
		base := len(ext)
		for i, o := range pr.order {
			v, c, err := ev.Eval(o.expr, ext[:base])
			if err != nil {
				return st, &evalexpr.RuntimeError{What: fmt.Sprintf("evaluating ORDER BY %s", o.expr), Err: err}
			}
			if err := divZero(o.expr, ext[:base]); err != nil {
				return st, err
			}
			if orderColls[i] == collations.Unknown && !v.IsNull() && v.IsText() {
				orderColls[i] = c
			}
			ext = append(ext, v)
		}
		if isUnknown && u.outputs {
			if unread == nil {
				unread = map[*sqltypes.Value]unknownRow{}
			}
			unread[&ext[0]] = u
		}
		final = append(final, ext)
	}
	if len(pr.order) > 0 && len(final) > 1 {
		base := len(final[0]) - len(pr.order)
		ords := make([]arrowexec.Ordering, len(pr.order))
		for i, o := range pr.order {
			ords[i] = arrowexec.Ordering{Col: base + i, Desc: o.desc, Collation: orderColls[i]}
		}
		if err := arrowexec.SortRowsTop(final, ords, s.env.Collations(), arrowexec.Keep(pr.plan.Offset, pr.plan.Limit)); err != nil {
			return st, err
		}
	}
	outStart := len(merged[0:0]) // outputs start after keys and partials
	if len(final) > 0 {
		outStart = len(final[0]) - len(pr.order) - nout
	}
	final = arrowexec.Window(final, pr.plan.Offset, pr.plan.Limit)
	for _, ext := range final {
		for i, x := range pr.outputs {
			if n := len(ext) - nout - len(pr.order); lazy != nil && lazy[i] {
				if ext[n+i], _, err = ev.Eval(x, ext[:n]); err != nil {
					return st, &evalexpr.RuntimeError{What: fmt.Sprintf("evaluating %s", x), Err: err}
				}
				if err := divZero(x, ext[:n]); err != nil {
					return st, err
				}
			}
		}
	}
	if len(unread) > 0 {
		for _, row := range final {
			if u, ok := unread[&row[0]]; ok {
				return st, u.err
			}
		}
	}
	for _, row := range final {
		if err := w.Add(row[outStart : outStart+nout]); err != nil {
			return st, err
		}
	}
	return st, w.Flush()
}

// unknownRow is a merged row with values the merge could not compute: the
// columns that hold or derive from them, whether an output does, and the
// error a reader of them gets.
type unknownRow struct {
	cols    []int
	outputs bool
	err     error
}

// executeStream streams fragment rows to the client in the split key's
// order; with a LIMIT it stops once it has enough, cancelling the rest.
func (s *merger) executeStream(ctx context.Context, pr *prepared, qid string, w *resultWriter) (*schedule.Stats, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	chunks := make(chan [][]sqltypes.Value, 4)
	type result struct {
		st  *schedule.Stats
		err error
	}
	res := make(chan result, 1)
	go func() {
		// In key order (schedule.InOrder); the channel serialises.
		st, err := s.run(schedule.WithKeyOrder(ctx), pr, qid, func(_ int, bs []arrow.RecordBatch) error {
			for _, b := range bs {
				select {
				case chunks <- arrowexec.RecordRows(b):
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			return nil
		})
		close(chunks)
		res <- result{st, err}
	}()
	skip, left := pr.plan.Offset, pr.plan.Limit
	var werr error
	for rows := range chunks {
		if werr != nil || left == 0 {
			continue // drain
		}
		for _, row := range rows {
			if skip > 0 {
				skip--
				continue
			}
			if left == 0 {
				break
			}
			if werr = w.Add(row[:pr.visible]); werr != nil {
				cancel()
				break
			}
			if left > 0 {
				left--
			}
		}
		if left == 0 {
			cancel()
		}
	}
	r := <-res
	if werr != nil {
		return r.st, werr
	}
	if r.err != nil && !(left == 0 && errors.Is(r.err, context.Canceled) && ctx.Err() != nil) {
		return r.st, r.err
	}
	return r.st, w.Flush()
}

// executeSorted gathers fragment rows (only the top offset+limit with a
// LIMIT), sorts them and sends them.
func (s *merger) executeSorted(ctx context.Context, pr *prepared, qid string, w *resultWriter) (*schedule.Stats, error) {
	ords := make([]arrowexec.Ordering, len(pr.order))
	for i, o := range pr.order {
		ords[i] = arrowexec.Ordering{Col: o.col, Desc: o.desc, Collation: o.coll}
	}
	var top *arrowexec.TopN
	var all [][]sqltypes.Value
	if pr.plan.Limit >= 0 {
		top = arrowexec.NewTopN(ords, s.env.Collations(), int(pr.plan.Limit+pr.plan.Offset))
	}
	st, err := s.run(ctx, pr, qid, schedule.LockedSink(func(_ int, bs []arrow.RecordBatch) error {
		for _, b := range bs {
			for _, row := range arrowexec.RecordRows(b) {
				if top != nil {
					top.Push(row)
				} else {
					all = append(all, row)
				}
			}
		}
		return nil
	}))
	if err != nil {
		return st, err
	}
	if top != nil {
		if all, err = top.Rows(); err != nil {
			return st, err
		}
	} else if err := arrowexec.SortRows(all, ords, s.env.Collations()); err != nil {
		return st, err
	}
	for _, row := range arrowexec.Window(all, pr.plan.Offset, pr.plan.Limit) {
		if err := w.Add(row[:pr.visible]); err != nil {
			return st, err
		}
	}
	return st, w.Flush()
}
