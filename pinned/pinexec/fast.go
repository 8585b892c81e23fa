package pinexec

import (
	"math/big"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shoaldb/shoal/arrowexec"
	"github.com/shoaldb/shoal/evalexpr"
	"github.com/shoaldb/shoal/pinned"
	"github.com/shoaldb/shoal/pinned/pinexec/aggloop"
	"github.com/shoaldb/shoal/pinned/pinexec/fold"
	"github.com/shoaldb/shoal/pinned/pinexec/valrange"
)

// The vectorized path.
//
// A column is "coded" when each row's value maps to a small integer code:
// a dictionary-encoded string column (the code is the dictionary index), or
// an integer or DATE column whose values span at most maxDomain (the code
// is value − min). NULL takes the last code. An expression over one coded
// column is evaluated by evalengine once per code, at compile time, into a
// lookup table; per row it is one indexed load. Filters become boolean
// tables; group keys become tables of dense group numbers (codes that
// compare equal under the key's collation share one), combined across keys
// by mixed-radix arithmetic into one group id; aggregates read bare numeric
// columns directly (DECIMALs of up to 18 digits as scaled integers), in
// package aggloop's loops (NULLs read from the validity bitmap a word at
// a time; a statement without GROUP BY, or a batch whose groups come in
// long runs, folded one group at a time without per-row group ids), or
// integer-valued lookup tables. A statement runs here
// only if every WHERE conjunct, key and aggregate argument fits; otherwise
// the whole statement takes the generic path.

// maxDomain is the widest integer range coded by value − min.
const maxDomain = 1 << 16

// maxGroups bounds the dense group-id space (product of key cardinalities).
const maxGroups = 1 << 20

type codeSrc struct {
	col  int
	kind pinned.Kind
	min  int64
	size int // value codes 0..size-2; size-1 is NULL
}

type lookup struct {
	src  codeSrc
	vals []sqltypes.Value
}

type fastKey struct {
	lk     *lookup
	canon  []int32 // code → group number of this key
	values []sqltypes.Value
	stride int32
	// spellings: the key's value for each code, kept only when one group
	// holds several (under a _ci collation 'Hello' and 'hello', or 'a'
	// and 'a ' under PAD SPACE). MySQL shows a group with the spelling of
	// its first row in key order, so the partition notes each group's
	// first code (fastState.first) and runs alone (Program.ordered).
	spellings []sqltypes.Value
	// distinct: values stay distinct in the merge, read back from the
	// partition's output column under the merge's key equality (see
	// mergeDistinct).
	distinct bool
}

type fastAgg struct {
	fn aggFunc
	// Exactly one argument source: none (COUNT(*)), a bare column, or an
	// integer-valued lookup.
	star   bool
	col    int
	kind   pinned.Kind
	lk     *lookup
	ints   []int64 // lk values as integers
	isNull []bool  // lk values that are NULL
	// Dictionary MIN/MAX: rank of each code under the collation, and the
	// code of each rank.
	rank   []int32
	byRank []int32
	field  *querypb.Field
	scale  int32 // a DECIMAL column's
	// countOf: a COUNT(col) whose count is aggregate countOf's, another
	// over the same bare column (every aggregate counts its non-NULL
	// rows); -1 when it counts for itself.
	countOf int
}

type fastPlan struct {
	// distinct: every key's values stay distinct in the merge, so one
	// partition's groups are the merged groups (fastKey.distinct).
	distinct bool
	filters  []*fastFilter // row passes when every filter does
	none     bool          // a constant conjunct is false: no row passes
	keys     []*fastKey
	aggs     []*fastAgg
	groups   int
	codeCol  map[int]codeSrc
	rowsOnly bool // row statement: only the filter is vectorized
}

func (p *Program) codeSource(c int) (codeSrc, bool) {
	col := p.t.Cols[c]
	switch col.Kind() {
	case pinned.KindDict:
		return codeSrc{col: c, kind: pinned.KindDict, size: len(col.Dict) + 1}, true
	case pinned.KindInt, pinned.KindDate:
		if !col.HasVals {
			return codeSrc{col: c, kind: col.Kind(), size: 1}, true
		}
		if col.Max-col.Min >= maxDomain {
			return codeSrc{}, false
		}
		return codeSrc{col: c, kind: col.Kind(), min: col.Min, size: int(col.Max-col.Min) + 2}, true
	}
	return codeSrc{}, false
}

func dateString(days int64) string {
	return time.Unix(days*86400, 0).UTC().Format("2006-01-02")
}

// lookupOf tabulates x over its one coded column; false if x does not
// read exactly one coded column. The table is the statement's own: for
// tables shared across statements see sharedKey and sharedAgg.
func (p *Program) lookupOf(x *expr) (*lookup, bool) {
	if len(x.cols) != 1 || fold.Volatile(x.ast) {
		return nil, false
	}
	src, ok := p.codeSource(x.cols[0])
	if !ok {
		return nil, false
	}
	vals := p.codeValues(src)
	ev := p.env.NewEvaluator()
	row := make([]sqltypes.Value, len(p.t.Cols))
	lk := &lookup{src: src, vals: make([]sqltypes.Value, src.size)}
	for k := 0; k < src.size; k++ {
		row[src.col] = vals[k]
		v, _, err := ev.Eval(x.x, row)
		if err != nil {
			return nil, false // evaluation errors surface on the generic path
		}
		lk.vals[k] = v
	}
	return lk, true
}

// lookupBytes estimates a lookup table's size over src.
func lookupBytes(src codeSrc) int64 { return int64(src.size) * 64 }

// sharedKey is the group key table of x under collation coll, shared per
// pin version by expression text (within the version's budget). Its
// lookup keeps the source only.
func (p *Program) sharedKey(x *expr, coll collations.ID, field arrow.Field) *fastKey {
	if len(x.cols) != 1 {
		return nil
	}
	src, ok := p.codeSource(x.cols[0])
	if !ok {
		return nil
	}
	key := "key:" + strconv.Itoa(int(coll)) + ":" + field.Type.String() + ":" + x.src
	return p.t.SharedExpr(key, lookupBytes(src), func() any { return p.buildKey(x, coll, field) }).(*fastKey)
}

func (p *Program) buildKey(x *expr, collID collations.ID, field arrow.Field) *fastKey {
	lk, ok := p.lookupOf(x)
	if !ok {
		return nil
	}
	coll, err := arrowexec.NewCollator(p.env.Collations(), collID)
	if err != nil {
		return nil
	}
	fk := &fastKey{lk: &lookup{src: lk.src}, canon: make([]int32, len(lk.vals))}
	seen := map[string]int32{}
	var kb []byte
	for c, v := range lk.vals {
		kb = kb[:0]
		switch {
		case v.IsNull():
			kb = append(kb, 0)
		case sqltypes.IsText(v.Type()) || sqltypes.IsBinary(v.Type()):
			kb = append(kb, 's')
			kb = coll.Key(kb, v.Raw())
		default:
			kb = append(kb, 'v')
			kb = append(kb, v.Type().String()...)
			kb = append(kb, ':')
			kb = append(kb, v.Raw()...)
		}
		g, ok := seen[string(kb)]
		if !ok {
			g = int32(len(fk.values))
			seen[string(kb)] = g
			fk.values = append(fk.values, v)
		} else if w := fk.values[g]; w.Type() != v.Type() || string(w.Raw()) != string(v.Raw()) {
			fk.spellings = lk.vals
		}
		fk.canon[c] = g
	}
	fk.distinct = mergeDistinct(p.env, fk.values, collID, field)
	return fk
}

// mergeDistinct reports whether vals, written as the partition's output
// column field, open one group each in the merge (arrowexec.HashAgg with
// collation coll). buildKey tells values apart by collation key, or by
// type and text; the merge reads them back as Arrow values, where 1.5 and
// 1.50, or -0 and 0, are one group. Only then may a lone partition hand
// its groups over as distinct (arrowexec.MarkDistinctGroups).
func mergeDistinct(env *evalexpr.Env, vals []sqltypes.Value, coll collations.ID, field arrow.Field) bool {
	mem := memory.DefaultAllocator
	rb := arrowexec.NewRowBuilder(mem, arrow.NewSchema([]arrow.Field{field}, nil))
	defer rb.Release()
	for _, v := range vals {
		if rb.Append([]sqltypes.Value{v}) != nil {
			return false
		}
	}
	rec := rb.NewRecordBatch()
	defer rec.Release()
	h := arrowexec.NewHashAgg(mem, env.Collations(), []arrowexec.KeySpec{{Collation: coll}}, nil, 0)
	defer h.Release()
	first, err := h.AddNew(rec)
	if err != nil {
		return false
	}
	return !slices.Contains(first, false)
}

// aggTable is an aggregate argument's table: its values as integers and
// which are NULL.
type aggTable struct {
	src    codeSrc
	ints   []int64
	isNull []bool
}

// sharedAgg is the aggregate argument table of x (counting: only its
// NULLs matter), shared per pin version like sharedKey; nil when x does
// not tabulate to integers.
func (p *Program) sharedAgg(x *expr, counting bool) *aggTable {
	if len(x.cols) != 1 {
		return nil
	}
	src, ok := p.codeSource(x.cols[0])
	if !ok {
		return nil
	}
	key := "agg:" + strconv.FormatBool(counting) + ":" + x.src
	return p.t.SharedExpr(key, int64(src.size)*9, func() any {
		lk, ok := p.lookupOf(x)
		if !ok {
			return (*aggTable)(nil)
		}
		at := &aggTable{src: lk.src, ints: make([]int64, len(lk.vals)), isNull: make([]bool, len(lk.vals))}
		for k, v := range lk.vals {
			if v.IsNull() {
				at.isNull[k] = true
				continue
			}
			if !counting {
				if !sqltypes.IsIntegral(v.Type()) || sqltypes.IsUnsigned(v.Type()) {
					return (*aggTable)(nil)
				}
				n, err := v.ToInt64()
				if err != nil {
					return (*aggTable)(nil)
				}
				at.ints[k] = n
			}
		}
		return at
	}).(*aggTable)
}

// filterOf compiles one WHERE conjunct: a recognized shape (fastfilter.go)
// or a table of booleans evaluated per code.
func (p *Program) filterOf(w *expr) (*fastFilter, bool) {
	if ff, ok := p.recognize(w); ok {
		return ff, true
	}
	lk, ok := p.lookupOf(w)
	if !ok {
		return nil, false
	}
	pass := make([]bool, len(lk.vals))
	for k, v := range lk.vals {
		pass[k] = truthy(v)
	}
	return &fastFilter{kind: fTable, col: lk.src.col, pass: pass}, true
}

func planFast(p *Program) *fastPlan {
	f := &fastPlan{codeCol: map[int]codeSrc{}, groups: 1}
	ev := p.env.NewEvaluator()
	for _, w := range p.where {
		if len(w.cols) == 0 {
			ok, err := ev.True(w.x, make([]sqltypes.Value, len(p.t.Cols)))
			if err != nil {
				return nil
			}
			if !ok {
				f.none = true
			}
			continue
		}
		ff, ok := p.filterOf(w)
		if !ok {
			return nil
		}
		f.filters = append(f.filters, ff)
		if ff.kind == fVals {
			continue // reads the column's values, not codes
		}
		cols := []int{ff.col}
		if ff.kind == fPair {
			cols = append(cols, ff.col2)
		}
		for _, c := range cols {
			src, _ := p.codeSource(c)
			f.codeCol[c] = src
		}
	}
	if !p.aggregate {
		f.rowsOnly = true
		if len(f.filters) == 0 && !f.none {
			return nil // nothing to vectorize
		}
		return f
	}
	for i, k := range p.keys {
		shared := p.sharedKey(k, collationOf(p.fields[i]), p.out.Field(i))
		if shared == nil {
			return nil
		}
		// The key's table is shared; its stride is this statement's.
		fk := *shared
		fk.stride = int32(f.groups)
		f.groups *= len(fk.values)
		if f.groups > maxGroups {
			return nil
		}
		f.keys = append(f.keys, &fk)
		f.codeCol[fk.lk.src.col] = fk.lk.src
	}
	f.distinct = len(f.keys) > 0 && !slices.ContainsFunc(f.keys, func(k *fastKey) bool { return !k.distinct })
	nk := len(p.keys)
	for i, a := range p.aggs {
		fa := &fastAgg{fn: a.fn, col: -1, field: p.fields[nk+i], countOf: -1}
		if a.fn >= aggBitAnd {
			return nil
		}
		switch {
		case a.arg == nil:
			fa.star = true
		case len(a.arg.cols) == 0:
			// A constant argument: COUNT(1) counts rows; others are rare.
			v, _, err := ev.Eval(a.arg.x, make([]sqltypes.Value, len(p.t.Cols)))
			if err != nil || v.IsNull() || a.fn != aggCount {
				return nil
			}
			fa.star = true
		case len(a.arg.cols) == 1 && isColumn(a.arg):
			c := a.arg.cols[0]
			fa.col, fa.kind = c, p.t.Cols[c].Kind()
			switch fa.kind {
			case pinned.KindInt, pinned.KindFloat:
			case pinned.KindDecimal:
				// Scaled integers, summed exactly (past int64 in big.Int).
				scale, ok := valrange.DecimalScale(p.t.Schema.Field(c).Type)
				if !ok && a.fn != aggCount {
					return nil
				}
				fa.scale = scale
			case pinned.KindDate:
				if a.fn == aggSum {
					return nil
				}
			case pinned.KindDict:
				if a.fn == aggSum {
					return nil
				}
				if a.fn != aggCount && p.t.Cols[c].Field != nil && p.t.Cols[c].Field.Type == sqltypes.Time {
					// TIME is held as text: '-27:13:52' sorts below
					// '-25:33:20'. The generic path compares times.
					return nil
				}
				if a.fn != aggCount && !fa.rankDict(p, c) {
					return nil
				}
				if a.fn != aggCount {
					src, _ := p.codeSource(c)
					f.codeCol[c] = src
				}
			default:
				if a.fn != aggCount {
					return nil
				}
			}
		default:
			at := p.sharedAgg(a.arg, a.fn == aggCount)
			if at == nil {
				return nil
			}
			fa.lk = &lookup{src: at.src}
			fa.ints, fa.isNull = at.ints, at.isNull
			f.codeCol[at.src.col] = at.src
		}
		f.aggs = append(f.aggs, fa)
	}
	shareCounts(f.aggs)
	return f
}

// shareCounts points each COUNT(col) of a bare column at the count of
// another aggregate over that column (a SUM or MIN or MAX first, else
// the first COUNT), so AVG's SUM(x), COUNT(x) reads x's NULLs once.
func shareCounts(aggs []*fastAgg) {
	owner := map[int]int{}
	for _, countPass := range []bool{false, true} {
		for j, a := range aggs {
			if a.star || a.lk != nil || a.col < 0 || (a.fn == aggCount) != countPass {
				continue
			}
			if k, ok := owner[a.col]; ok && a.fn == aggCount {
				a.countOf = k
			} else if !ok {
				owner[a.col] = j
			}
		}
	}
}

func isColumn(x *expr) bool {
	_, ok := x.ast.(*sqlparser.ColName)
	return ok
}

// rankDict orders a dictionary column's values under the aggregate's
// collation for MIN and MAX (shared per pin version).
func (fa *fastAgg) rankDict(p *Program, c int) bool {
	m := p.minMaxOf(c)
	if m == nil {
		return false
	}
	fa.rank, fa.byRank = m.rank, m.byRank
	return true
}

func truthy(v sqltypes.Value) bool {
	if v.IsNull() {
		return false
	}
	if sqltypes.IsIntegral(v.Type()) {
		n, err := v.ToInt64()
		return err == nil && n != 0
	}
	f, err := v.ToFloat64()
	return err == nil && f != 0
}

// fastState is one partition's accumulators.
type fastState struct {
	f     *fastPlan
	codes map[int][]int32 // per coded column, this batch's codes
	bufs  map[int][]int32 // their buffers, reused across batches
	wide  []int64         // scratch for narrow integer columns
	sel   []int32
	gid   []int32
	runs  []int32 // a batch's runs of one group (aggloop.Runs)
	// keyCodes: the batch's codes of each key.
	keyCodes [][]int32
	grows    []int64 // rows per group
	// first[j][g]: the code of key j in group g's first row, -1 before
	// one; nil for a key without spellings (fastKey.spellings).
	first [][]int32
	accs  []*fastAcc
	sc    *fastScratch // where the buffers above came from
}

type fastAcc struct {
	cnt  []int64
	isum []int64
	ovf  []*big.Int // int sums past int64, carried exactly (nil until one is)
	fsum []float64
	imm  []int64 // MIN/MAX of ints, dates (days) and dictionary ranks
	fmm  []float64
}

// fastScratch is a partition's buffers, kept for the next statement's
// partition (scratchPool): under a dashboard's load every statement
// would otherwise allocate its per-group accumulators and per-batch
// buffers afresh, and the collector's work grows with the statement
// rate rather than with the data. The pool is per P, so no lock is
// shared between the cores.
type fastScratch struct {
	codes, bufs map[int][]int32
	wide        []int64
	sel, gid    []int32
	runs        []int32
	ints        []int64   // the accumulators' int arrays, carved per group count
	floats      []float64 // and float arrays
}

var scratchPool = sync.Pool{New: func() any {
	return &fastScratch{codes: map[int][]int32{}, bufs: map[int][]int32{}}
}}

func newFastState(f *fastPlan) *fastState {
	sc := scratchPool.Get().(*fastScratch)
	clear(sc.codes)
	s := &fastState{f: f, codes: sc.codes, bufs: sc.bufs, wide: sc.wide, sel: sc.sel[:0], gid: sc.gid, runs: sc.runs, sc: sc}
	if f.rowsOnly {
		return s
	}
	nInt, nFloat := 1, 0 // grows
	for _, a := range f.aggs {
		if !a.star && a.countOf < 0 {
			nInt++ // cnt
		}
		switch {
		case a.fn == aggSum && a.kind == pinned.KindFloat && a.lk == nil,
			(a.fn == aggMin || a.fn == aggMax) && a.kind == pinned.KindFloat && a.lk == nil:
			nFloat++
		case a.fn == aggSum, a.fn == aggMin || a.fn == aggMax:
			nInt++
		}
	}
	ints := carve(&sc.ints, nInt*f.groups)
	floats := carve(&sc.floats, nFloat*f.groups)
	nextInt := func() []int64 {
		x := ints[:f.groups:f.groups]
		ints = ints[f.groups:]
		return x
	}
	nextFloat := func() []float64 {
		x := floats[:f.groups:f.groups]
		floats = floats[f.groups:]
		return x
	}
	s.grows = nextInt()
	for _, a := range f.aggs {
		var acc *fastAcc
		switch {
		case a.star:
			// COUNT(*) of a group is its row count: the same slice,
			// counted once per row (batch).
			acc = &fastAcc{cnt: s.grows}
		case a.countOf >= 0:
			// Set below, once the owner's count exists.
			acc = &fastAcc{}
		default:
			acc = &fastAcc{cnt: nextInt()}
		}
		switch {
		case a.fn == aggSum && a.kind == pinned.KindFloat && a.lk == nil:
			acc.fsum = nextFloat()
		case a.fn == aggSum:
			acc.isum = nextInt()
		case (a.fn == aggMin || a.fn == aggMax) && a.kind == pinned.KindFloat && a.lk == nil:
			acc.fmm = nextFloat()
		case a.fn == aggMin || a.fn == aggMax:
			acc.imm = nextInt()
		}
		s.accs = append(s.accs, acc)
	}
	for j, a := range f.aggs {
		if a.countOf >= 0 {
			s.accs[j].cnt = s.accs[a.countOf].cnt
		}
	}
	return s
}

// carve returns n zeroed elements of *buf, growing it when short.
func carve[T any](buf *[]T, n int) []T {
	if cap(*buf) < n {
		*buf = make([]T, n)
	}
	out := (*buf)[:n]
	clear(out)
	return out
}

// release hands the buffers back for another statement; s is not used
// after it (rows has copied what it returns).
func (s *fastState) release() {
	sc := s.sc
	if sc == nil {
		return
	}
	s.sc = nil
	sc.bufs, sc.wide, sc.sel, sc.gid, sc.runs = s.bufs, s.wide, s.sel, s.gid, s.runs
	clear(sc.codes)
	scratchPool.Put(sc)
}

// codesOf returns column c's codes for batch b.
func (s *fastState) codesOf(b arrow.RecordBatch, c int) []int32 {
	if cs, ok := s.codes[c]; ok {
		return cs
	}
	src := s.f.codeCol[c]
	n := int(b.NumRows())
	out := s.bufs[c]
	if cap(out) < n {
		out = make([]int32, n)
		s.bufs[c] = out
	}
	out = out[:n]
	null := int32(src.size - 1)
	arr := b.Column(c)
	switch src.kind {
	case pinned.KindDict:
		idx := arr.(*array.Dictionary).Indices().(*array.Int16).Int16Values()
		idx = idx[:n]
		for i, v := range idx {
			out[i] = int32(v)
		}
	case pinned.KindInt:
		// From the column's own width in one pass (not widened to
		// int64 first: a pinned DayOfWeek is one byte a row).
		switch a := arr.(type) {
		case *array.Int8:
			intCodes(a.Int8Values()[:n], src.min, out)
		case *array.Int16:
			intCodes(a.Int16Values()[:n], src.min, out)
		case *array.Int32:
			intCodes(a.Int32Values()[:n], src.min, out)
		default:
			intCodes(pinned.IntValues(arr, s.wide)[:n], src.min, out)
		}
	case pinned.KindDate:
		vals := arr.(*array.Date32).Date32Values()
		for i, v := range vals {
			out[i] = int32(int64(v) - src.min)
		}
	}
	if arr.NullN() > 0 {
		bits, off := arr.NullBitmapBytes(), arr.Data().Offset()
		for i := range out {
			if j := off + i; bits[j>>3]&(1<<(j&7)) == 0 {
				out[i] = null
			}
		}
	}
	s.codes[c] = out
	return out
}

// intCodes writes the codes of integer values: value - min.
func intCodes[T int8 | int16 | int32 | int64](vals []T, min int64, out []int32) {
	out = out[:len(vals)]
	for i, v := range vals {
		out[i] = int32(int64(v) - min)
	}
}

// identity is 0, 1, 2, …: the selection vector of a whole batch, copied
// (or, with no filter, used as it is) instead of built a row at a time.
var identity = func() []int32 {
	out := make([]int32, 1<<16)
	for i := range out {
		out[i] = int32(i)
	}
	return out
}()

// filter computes the selection vector of batch b.
func (s *fastState) filter(b arrow.RecordBatch) []int32 {
	clear(s.codes)
	n := int(b.NumRows())
	if cap(s.wide) < n {
		s.wide = make([]int64, n)
	}
	if cap(s.sel) < n {
		s.sel = make([]int32, 0, n)
	}
	s.sel = s.sel[:0]
	if s.f.none {
		return s.sel
	}
	if n <= len(identity) {
		if !slices.ContainsFunc(s.f.filters, func(ff *fastFilter) bool { return !passesAll(ff, b) }) {
			return identity[:n:n] // read only: no filter compacts it
		}
		s.sel = append(s.sel, identity[:n]...)
	} else {
		for i := 0; i < n; i++ {
			s.sel = append(s.sel, int32(i))
		}
	}
	for _, ff := range s.f.filters {
		if len(s.sel) == 0 {
			break
		}
		if passesAll(ff, b) {
			continue
		}
		if ff.kind == fVals {
			s.sel = ff.vals.Select(b.Column(ff.col), s.wide, s.sel, ff.neg)
			continue
		}
		c1 := s.codesOf(b, ff.col)
		var c2 []int32
		if ff.kind == fPair {
			c2 = s.codesOf(b, ff.col2)
		}
		s.sel = ff.apply(c1, c2, s.sel)
	}
	return s.sel
}

// passesAll reports whether ff passes every row of b: it passes every
// value of its column, and b has no NULL there.
func passesAll(ff *fastFilter, b arrow.RecordBatch) bool {
	return ff.all && b.Column(ff.col).NullN() == 0
}

func (s *fastState) batch(part *partition, b arrow.RecordBatch) error {
	sel := s.filter(b)
	if len(sel) == 0 {
		return nil
	}
	f := s.f
	if len(f.keys) == 0 {
		// One group: no group ids.
		s.grows[0] += int64(len(sel))
		s.aggregate(b, sel, nil, nil)
		return nil
	}
	if cap(s.gid) < len(sel) {
		s.gid = make([]int32, len(sel), int(b.NumRows()))
	}
	gid := s.gid[:len(sel)]
	keyCodes := s.keyCodes[:0]
	for _, k := range f.keys {
		keyCodes = append(keyCodes, s.codesOf(b, k.lk.src.col))
	}
	s.keyCodes = keyCodes
	if runs := aggloop.Runs(keyCodes, sel, minRun, s.runs); runs != nil {
		// Group ids of the runs' first rows only (all eachRun reads).
		s.runs = runs
		for i := range len(runs) - 1 {
			r, g := sel[runs[i]], int32(0)
			for j, k := range f.keys {
				g += k.canon[keyCodes[j][r]] * k.stride
			}
			gid[runs[i]] = g
			s.grows[g] += int64(runs[i+1] - runs[i])
		}
		s.noteFirst(keyCodes, sel, gid, runs)
		s.aggregate(b, sel, gid, runs)
		return nil
	}
	for j, k := range f.keys {
		codes, canon, stride := keyCodes[j], k.canon, k.stride
		if j == 0 {
			for i, r := range sel {
				gid[i] = canon[codes[r]] * stride
			}
			continue
		}
		for i, r := range sel {
			gid[i] += canon[codes[r]] * stride
		}
	}
	for _, g := range gid {
		s.grows[g]++
	}
	s.noteFirst(keyCodes, sel, gid, nil)
	s.aggregate(b, sel, gid, nil)
	return nil
}

// noteFirst records, for each key with spellings, the code of each
// group's first row (fastState.first): gid holds the selected rows'
// groups, or with runs set only those of each run's first row.
func (s *fastState) noteFirst(keyCodes [][]int32, sel, gid, runs []int32) {
	for j, k := range s.f.keys {
		if k.spellings == nil {
			continue
		}
		if s.first == nil {
			s.first = make([][]int32, len(s.f.keys))
		}
		first := s.first[j]
		if first == nil {
			first = make([]int32, s.f.groups)
			for g := range first {
				first[g] = -1
			}
			s.first[j] = first
		}
		codes := keyCodes[j]
		if runs != nil {
			for i := range len(runs) - 1 {
				if g := gid[runs[i]]; first[g] < 0 {
					first[g] = codes[sel[runs[i]]]
				}
			}
			continue
		}
		for i, r := range sel {
			if g := gid[i]; first[g] < 0 {
				first[g] = codes[r]
			}
		}
	}
}

// minRun is the shortest average run of one group's rows for which a
// batch is aggregated run by run, each run as one group (aggloop.Runs).
const minRun = 256

// aggregate folds the selected rows of batch b into the accumulators:
// gid is each row's group (nil: the one group, 0); runs, when set,
// splits sel into runs of one group each.
func (s *fastState) aggregate(b arrow.RecordBatch, sel, gid, runs []int32) {
	for j, a := range s.f.aggs {
		acc := s.accs[j]
		switch {
		case a.star:
			// acc.cnt is s.grows (newFastState), counted by the caller.
		case a.countOf >= 0:
			// acc.cnt is another aggregate's over the column, counted there.
		case a.lk != nil:
			codes := s.codesOf(b, a.lk.src.col)
			eachRun(sel, gid, runs, func(sel []int32, gs aggloop.Groups) {
				for i, r := range sel {
					c := codes[r]
					if a.isNull[c] {
						continue
					}
					g := gs.One
					if gs.Gid != nil {
						g = gs.Gid[i]
					}
					acc.cnt[g]++
					if a.fn != aggCount {
						acc.addInt(a.fn, g, a.ints[c])
					}
				}
			})
		default:
			s.columnAgg(a, acc, b, sel, gid, runs)
		}
	}
}

// eachRun calls fn with sel's rows and their groups: once with gid
// (nil: group 0), or once per run when runs is set.
func eachRun(sel, gid, runs []int32, fn func(sel []int32, gs aggloop.Groups)) {
	switch {
	case runs != nil:
		for i := range len(runs) - 1 {
			lo, hi := runs[i], runs[i+1]
			fn(sel[lo:hi], aggloop.Groups{One: gid[lo]})
		}
	case gid != nil:
		fn(sel, aggloop.Groups{Gid: gid})
	default:
		fn(sel, aggloop.Groups{})
	}
}

// columnAgg folds the selected rows of a bare column (aggloop's loops).
func (s *fastState) columnAgg(a *fastAgg, acc *fastAcc, b arrow.RecordBatch, sel, gid, runs []int32) {
	arr := b.Column(a.col)
	var valid aggloop.Valid
	if arr.NullN() > 0 {
		valid = aggloop.Valid{Bits: arr.NullBitmapBytes(), Off: arr.Data().Offset()}
	}
	isMin := a.fn == aggMin
	switch {
	case a.fn == aggCount:
		eachRun(sel, gid, runs, func(sel []int32, gs aggloop.Groups) {
			aggloop.Count(sel, gs, valid, acc.cnt)
		})
	case a.kind == pinned.KindInt:
		switch x := arr.(type) {
		case *array.Int8:
			intAgg(a.fn, x.Int8Values(), sel, gid, runs, valid, acc)
		case *array.Int16:
			intAgg(a.fn, x.Int16Values(), sel, gid, runs, valid, acc)
		case *array.Int32:
			intAgg(a.fn, x.Int32Values(), sel, gid, runs, valid, acc)
		default:
			intAgg(a.fn, pinned.IntValues(arr, s.wide), sel, gid, runs, valid, acc)
		}
	case a.kind == pinned.KindDecimal:
		// Scaled integers.
		intAgg(a.fn, valrange.DecimalInts(arr.(*array.Decimal128), sel, s.wide), sel, gid, runs, valid, acc)
	case a.kind == pinned.KindDate:
		intAgg(a.fn, arr.(*array.Date32).Date32Values(), sel, gid, runs, valid, acc)
	case a.kind == pinned.KindFloat:
		vals := arr.(*array.Float64).Float64Values()
		eachRun(sel, gid, runs, func(sel []int32, gs aggloop.Groups) {
			if a.fn == aggSum {
				aggloop.SumFloat(vals, sel, gs, valid, acc.cnt, acc.fsum)
			} else {
				aggloop.MinMaxFloat(vals, sel, gs, valid, acc.cnt, acc.fmm, isMin)
			}
		})
	case a.kind == pinned.KindDict:
		codes := s.codesOf(b, a.col)
		eachRun(sel, gid, runs, func(sel []int32, gs aggloop.Groups) {
			for i, r := range sel {
				rk := a.rank[codes[r]]
				if rk < 0 {
					continue
				}
				g := gs.One
				if gs.Gid != nil {
					g = gs.Gid[i]
				}
				acc.cnt[g]++
				acc.minMax(a.fn, g, int64(rk))
			}
		})
	}
}

// intAgg folds integer values (or DECIMALs as scaled integers, or dates
// as days) into acc's SUM, MIN or MAX.
func intAgg[T aggloop.Int](fn aggFunc, vals []T, sel, gid, runs []int32, valid aggloop.Valid, acc *fastAcc) {
	eachRun(sel, gid, runs, func(sel []int32, gs aggloop.Groups) {
		if fn == aggSum {
			aggloop.Sum(vals, sel, gs, valid, acc.cnt, acc.isum, acc.carry)
		} else {
			aggloop.MinMax(vals, sel, gs, valid, acc.cnt, acc.imm, fn == aggMin)
		}
	})
}

// carry moves group g's running sum a into its exact overflow sum: the
// int64 sum restarts.
func (acc *fastAcc) carry(g int32, a int64) {
	if acc.ovf == nil {
		acc.ovf = make([]*big.Int, len(acc.isum))
	}
	if acc.ovf[g] == nil {
		acc.ovf[g] = new(big.Int)
	}
	acc.ovf[g].Add(acc.ovf[g], big.NewInt(a))
}

// addInt adds v to group g's SUM, MIN or MAX; cnt[g] already counts v.
func (acc *fastAcc) addInt(fn aggFunc, g int32, v int64) {
	if fn != aggSum {
		acc.minMax(fn, g, v)
		return
	}
	a := acc.isum[g]
	sum := a + v
	if (v > 0 && sum < a) || (v < 0 && sum > a) {
		// Past int64: carry the running sum exactly and restart.
		acc.carry(g, a)
		sum = v
	}
	acc.isum[g] = sum
}

func (acc *fastAcc) minMax(fn aggFunc, g int32, v int64) {
	if acc.cnt[g] == 1 || (fn == aggMin && v < acc.imm[g]) || (fn == aggMax && v > acc.imm[g]) {
		acc.imm[g] = v
	}
}

// rows returns the partition's partial rows: keys, then partials.
func (s *fastState) rows(part *partition) [][]sqltypes.Value {
	f := s.f
	p := part.p
	n, width := 0, len(f.keys)+len(f.aggs)
	for _, c := range s.grows {
		if c != 0 {
			n++
		}
	}
	// One allocation for every row's values and one for the rows.
	flat := make([]sqltypes.Value, n*width)
	out := make([][]sqltypes.Value, 0, n)
	for g := 0; g < f.groups; g++ {
		if s.grows[g] == 0 {
			continue
		}
		row := flat[:0:width]
		flat = flat[width:]
		for j, k := range f.keys {
			if s.first != nil && s.first[j] != nil && s.first[j][g] >= 0 {
				row = append(row, k.spellings[s.first[j][g]])
				continue
			}
			idx := (int32(g) / k.stride) % int32(len(k.values))
			row = append(row, k.values[idx])
		}
		for j, a := range f.aggs {
			row = append(row, s.result(p, a, s.accs[j], g))
		}
		out = append(out, row)
	}
	return out
}

func (s *fastState) result(p *Program, a *fastAgg, acc *fastAcc, g int) sqltypes.Value {
	if a.fn == aggCount {
		return sqltypes.NewInt64(acc.cnt[g])
	}
	if acc.cnt[g] == 0 {
		return sqltypes.NULL
	}
	switch {
	case acc.fsum != nil:
		return sqltypes.MakeTrusted(sqltypes.Float64, strconv.AppendFloat(nil, acc.fsum[g], 'g', -1, 64))
	case acc.fmm != nil:
		return sqltypes.MakeTrusted(sqltypes.Float64, strconv.AppendFloat(nil, acc.fmm[g], 'g', -1, 64))
	case acc.isum != nil:
		if acc.ovf != nil && acc.ovf[g] != nil {
			t := new(big.Int).Add(acc.ovf[g], big.NewInt(acc.isum[g]))
			return sqltypes.MakeTrusted(sqltypes.Decimal, scaledText([]byte(t.String()), a.scale))
		}
		return sqltypes.MakeTrusted(sqltypes.Decimal, scaledText(strconv.AppendInt(nil, acc.isum[g], 10), a.scale))
	}
	v := acc.imm[g]
	switch {
	case a.lk != nil:
		return sqltypes.NewInt64(v)
	case a.kind == pinned.KindDecimal:
		return sqltypes.MakeTrusted(sqltypes.Decimal, scaledText(strconv.AppendInt(nil, v, 10), a.scale))
	case a.kind == pinned.KindDict:
		return p.t.Cols[a.col].DictValues()[a.byRank[v]]
	case a.kind == pinned.KindDate:
		return sqltypes.MakeTrusted(sqltypes.Date, []byte(dateString(v)))
	}
	return sqltypes.MakeTrusted(p.t.Cols[a.col].Field.Type, strconv.AppendInt(nil, v, 10))
}

// scaledText writes the integer text n (an optional '-', then digits) as
// a DECIMAL of the given scale: n / 10^scale with scale digits after the
// point.
func scaledText(n []byte, scale int32) []byte {
	if scale <= 0 {
		return n
	}
	neg := len(n) > 0 && n[0] == '-'
	digits := n
	if neg {
		digits = n[1:]
	}
	s := int(scale)
	out := make([]byte, 0, len(n)+s+2)
	if neg {
		out = append(out, '-')
	}
	if len(digits) <= s {
		out = append(out, '0', '.')
		for range s - len(digits) {
			out = append(out, '0')
		}
		return append(out, digits...)
	}
	out = append(out, digits[:len(digits)-s]...)
	out = append(out, '.')
	return append(out, digits[len(digits)-s:]...)
}
