package arrowexec

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/sqlerr"
)

// AggKind names how a partial aggregate column is merged.
type AggKind uint8

const (
	// AggSum adds partial sums. DECIMAL, BIGINT and BIGINT UNSIGNED
	// partials are added exactly in 256 bits and give a DECIMAL (scale 0
	// for integer partials, as MySQL's SUM over integers); DOUBLE partials
	// give a DOUBLE. NULL when every partial is NULL.
	AggSum AggKind = iota + 1
	// AggCount adds partial counts (BIGINT). Never NULL: 0 over no rows.
	AggCount
	// AggMin keeps the smallest partial: numbers, dates and datetimes by
	// value, strings under the spec's collation, binary strings bytewise.
	AggMin
	// AggMax keeps the largest partial, compared as for AggMin.
	AggMax
	// AggBitAnd, AggBitOr and AggBitXor combine BIGINT UNSIGNED partials
	// bitwise; never NULL (see bitAcc).
	AggBitAnd
	AggBitOr
	AggBitXor
	// AggConcat is GROUP_CONCAT over distinct values (see concatAcc).
	AggConcat
	// AggConcatPartial, AggJSONArray and AggJSONObject join partial
	// GROUP_CONCAT, JSON_ARRAYAGG and JSON_OBJECTAGG strings (see
	// partialConcatAcc).
	AggConcatPartial
	AggJSONArray
	AggJSONObject
)

func (k AggKind) String() string {
	switch k {
	case AggSum:
		return "SUM"
	case AggCount:
		return "COUNT"
	case AggMin:
		return "MIN"
	case AggMax:
		return "MAX"
	case AggBitAnd:
		return "BIT_AND"
	case AggBitOr:
		return "BIT_OR"
	case AggBitXor:
		return "BIT_XOR"
	case AggConcat, AggConcatPartial:
		return "GROUP_CONCAT"
	case AggJSONArray:
		return "JSON_ARRAYAGG"
	case AggJSONObject:
		return "JSON_OBJECTAGG"
	}
	return fmt.Sprintf("AggKind(%d)", uint8(k))
}

// KeySpec describes a group-key column.
type KeySpec struct {
	// Collation for string keys; 0 compares bytes.
	Collation collations.ID
}

// AggSpec describes a partial aggregate column.
type AggSpec struct {
	Kind AggKind
	// Collation for MIN/MAX over strings; 0 compares bytes.
	Collation collations.ID
	// Sep, Desc and MaxLen configure AggConcat: the separator, descending
	// order, and the length cut (group_concat_max_len; 0: none).
	// AggConcatPartial uses Sep and MaxLen, AggJSONArray MaxLen.
	Sep    string
	Desc   bool
	MaxLen int
}

// Approximate per-group bookkeeping beyond the key bytes and the
// accumulators' state: the map entry, the group's key values.
const (
	groupOverhead = 64
	valueOverhead = 32
)

// HashAgg merges partial aggregates from fragments into one row per group.
//
//	batch ──▶ encode keys per row ──▶ map[key]group ──▶ group ids
//	                                                      │
//	          partial columns ──▶ accumulators (column at a time, by group id)
//
// Groups keep their first-seen order. Add and Rows are not safe for
// concurrent use; one goroutine drives a HashAgg. State lives on the Go heap
// and is counted, approximately, against memLimit.
type HashAgg struct {
	mem      memory.Allocator // for Arrow output built from the groups
	keys     []keyCol
	accs     []accumulator
	memLimit int64
	used     int64
	err      error // sticky: a failed Add leaves partially merged state

	groups  map[string]int32
	keyVals []sqltypes.Value // len(keys) values per group, flat
	// keyRank is the rank of the input each group's displayed key values
	// came from (AddRanked); nil until a ranked input arrives.
	keyRank []int
	ngroups int
	buf     []byte
	rowGrp  []int32
	// specs are the keys' specs, for distinctGroups; whole is set once a
	// distinct-groups batch (distinct.go) opened the groups without the
	// map: no other input may follow.
	specs []KeySpec
	whole bool
}

// NewHashAgg returns a merge for len(keys) key columns followed by
// len(aggs) partial columns. memLimit <= 0 means no limit. env resolves
// collation names; nil means MySQL 8's.
func NewHashAgg(mem memory.Allocator, env *collations.Environment, keys []KeySpec, aggs []AggSpec, memLimit int64) *HashAgg {
	h := &HashAgg{mem: mem, memLimit: memLimit, groups: make(map[string]int32), specs: keys}
	h.keys = make([]keyCol, len(keys))
	for i, k := range keys {
		c, err := newCollator(env, k.Collation)
		if err != nil && h.err == nil {
			h.err = err
		}
		h.keys[i].coll = c
	}
	h.accs = make([]accumulator, len(aggs))
	for i, a := range aggs {
		acc, err := newAccumulator(env, a)
		if err != nil && h.err == nil {
			h.err = err
		}
		h.accs[i] = acc
	}
	return h
}

// Add merges one batch. It does not retain rec: keys and MIN/MAX values that
// it keeps are copied. After an error the HashAgg refuses further input.
func (h *HashAgg) Add(rec arrow.RecordBatch) error {
	if h.err != nil {
		return h.err
	}
	if want := len(h.keys) + len(h.accs); int(rec.NumCols()) != want {
		h.err = fmt.Errorf("arrowexec: hash aggregate got %d columns, want %d keys + %d aggregates", rec.NumCols(), len(h.keys), len(h.accs))
		return h.err
	}
	if err := h.add(rec, -1); err != nil {
		h.err = err
		return err
	}
	return nil
}

// AddRanked is Add for the output of one fragment of rank rank, the
// fragment's place in the split key's order. Of keys equal under their
// collation ('AA', 'aa') a group shows the spelling from the input of
// the lowest rank, whatever the order the inputs arrive in: the one a
// server scanning the table in key order reads first, and shows.
func (h *HashAgg) AddRanked(rec arrow.RecordBatch, rank int) error {
	if h.err != nil {
		return h.err
	}
	if want := len(h.keys) + len(h.accs); int(rec.NumCols()) != want {
		h.err = fmt.Errorf("arrowexec: hash aggregate got %d columns, want %d keys + %d aggregates", rec.NumCols(), len(h.keys), len(h.accs))
		return h.err
	}
	if err := h.add(rec, rank); err != nil {
		h.err = err
		return err
	}
	return nil
}

func (h *HashAgg) add(rec arrow.RecordBatch, rank int) error {
	if h.whole {
		return fmt.Errorf("arrowexec: hash aggregate got input after a batch marked as its whole input")
	}
	n := int(rec.NumRows())
	defer func() { // keep no reference to rec
		for i := range h.keys {
			h.keys[i].unbind()
		}
	}()
	for i := range h.keys {
		if err := h.keys[i].bind(rec.Column(i), rec.Schema().Field(i)); err != nil {
			return fmt.Errorf("arrowexec: group key %d: %w", i, err)
		}
	}
	if cap(h.rowGrp) < n {
		h.rowGrp = make([]int32, n)
	}
	grp := h.rowGrp[:n]
	switch {
	case len(h.keys) == 0:
		if h.ngroups == 0 {
			if err := h.newGroup("", nil, 0); err != nil {
				return err
			}
		}
		clear(grp)
	case h.ngroups == 0 && distinctGroups(rec, h.specs):
		// Each row a group of its own (distinct.go): no hashing, no map,
		// and the groups' state sized once. No rank is kept: only later
		// input reads it (rerank), and none may follow.
		h.whole = true
		h.keyVals = slices.Grow(h.keyVals, n*len(h.keys))
		for _, acc := range h.accs {
			acc.grow(n)
		}
		for r := range n {
			if err := h.newGroup("", rec, r); err != nil {
				return err
			}
			grp[r] = int32(r)
		}
	default:
		buf := h.buf
		for r := range n {
			buf = buf[:0]
			for i := range h.keys {
				buf = h.keys[i].encode(buf, r)
			}
			g, ok := h.groups[string(buf)]
			if !ok {
				g = int32(h.ngroups)
				if err := h.newGroup(string(buf), rec, r); err != nil {
					h.buf = buf
					return err
				}
				if rank >= 0 {
					h.keyRank = append(growTo(h.keyRank, int(g)), rank)
				}
			} else if rank >= 0 {
				h.rerank(g, rank, rec, r)
			}
			grp[r] = g
		}
		h.buf = buf
	}
	for j, acc := range h.accs {
		col := len(h.keys) + j
		if r, ok := acc.(interface{ setRank(int) }); ok && rank >= 0 {
			r.setRank(rank)
		}
		grown, err := acc.update(rec.Column(col), rec.Schema().Field(col), grp)
		if err != nil {
			return fmt.Errorf("arrowexec: aggregate %d: %w", j, err)
		}
		h.used += grown
	}
	return h.checkMem()
}

// AddNew merges rec like Add and reports, for each of its rows, whether
// its key opened a group: no row before it, in this batch or an earlier
// one, had a key equal to it. With no aggregates it is a set of keys
// under the keys' collations.
func (h *HashAgg) AddNew(rec arrow.RecordBatch) ([]bool, error) {
	before := int32(h.ngroups)
	if err := h.Add(rec); err != nil {
		return nil, err
	}
	n := int(rec.NumRows())
	first := make([]bool, n)
	next := before // groups are numbered in the order they open
	for r, g := range h.rowGrp[:n] {
		if g == next {
			first[r] = true
			next++
		}
	}
	return first, nil
}

// rerank shows group g's key values from row r of rec when rec's rank is
// below that of the input they came from.
func (h *HashAgg) rerank(g int32, rank int, rec arrow.RecordBatch, r int) {
	if int(g) >= len(h.keyRank) {
		h.keyRank = growTo(h.keyRank, int(g)+1)
		h.keyRank[g] = int(^uint(0) >> 1) // shown from an unranked input: any rank wins
	}
	if rank >= h.keyRank[g] {
		return
	}
	h.keyRank[g] = rank
	vals := h.keyVals[int(g)*len(h.keys) : (int(g)+1)*len(h.keys)]
	for i := range h.keys {
		v := fieldValue(rec.Column(i), rec.Schema().Field(i), r)
		if t := h.keys[i].retype; t != 0 && !v.IsNull() {
			v = retyped(t, v)
		}
		h.used += int64(v.Len() - vals[i].Len())
		vals[i] = v
	}
}

// newGroup registers group h.ngroups for key, taking its displayed key
// values from row r of rec.
func (h *HashAgg) newGroup(key string, rec arrow.RecordBatch, r int) error {
	g := h.ngroups
	h.ngroups++
	if len(h.keys) > 0 && !h.whole {
		h.groups[key] = int32(g)
	}
	cost := int64(groupOverhead + 2*len(key))
	for i := range h.keys {
		v := fieldValue(rec.Column(i), rec.Schema().Field(i), r)
		if t := h.keys[i].retype; t != 0 && !v.IsNull() {
			v = retyped(t, v)
		}
		h.keyVals = append(h.keyVals, v)
		cost += valueOverhead + int64(v.Len())
	}
	for _, acc := range h.accs {
		acc.grow(h.ngroups)
		cost += acc.groupBytes()
	}
	h.used += cost
	return h.checkMem()
}

func (h *HashAgg) checkMem() error {
	if h.memLimit > 0 && h.used > h.memLimit {
		return sqlerr.New(sqlerr.ErrOutOfResources, "HY000",
			"Out of resources merging aggregate results: %d groups need about %d bytes, over merge_memory_limit (%d bytes); raise merge_memory_limit or add a more selective WHERE",
			h.ngroups, h.used, h.memLimit)
	}
	return nil
}

// Rows returns one row per group, in first-seen order: the key values, then
// the final aggregate values. Without keys there is always exactly one row,
// as for MySQL's aggregate over no rows (COUNT 0, every other aggregate
// NULL); with keys and no input there are none. A value the merge could not
// compute (see Unknown) is an error.
func (h *HashAgg) Rows() ([][]sqltypes.Value, error) {
	rows, err := h.RowsWithUnknown()
	if err != nil || !h.HasUnknown() {
		return rows, err
	}
	for g := range rows {
		if _, err := h.Unknown(g); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// Unknown returns the columns of row g (of RowsWithUnknown) whose values the
// merge could not compute, NULL placeholders in the row, and why; nil and
// nil when the row is whole. A JSON_ARRAYAGG longer than
// group_concat_max_len is one: the caller may still drop the row on
// columns it does not read.
func (h *HashAgg) Unknown(g int) (cols []int, err error) {
	for j, acc := range h.accs {
		if u, ok := acc.(unknowner); ok {
			if e := u.unknown(g); e != nil {
				cols = append(cols, len(h.keys)+j)
				if err == nil {
					err = e
				}
			}
		}
	}
	return cols, err
}

// HasUnknown reports whether any row has a value the merge could not
// compute, without looking at every group.
func (h *HashAgg) HasUnknown() bool {
	for _, acc := range h.accs {
		if u, ok := acc.(unknowner); ok && u.anyUnknown() {
			return true
		}
	}
	return false
}

// RowsWithUnknown is Rows for a caller that checks Unknown per row.
func (h *HashAgg) RowsWithUnknown() ([][]sqltypes.Value, error) {
	if h.err != nil {
		return nil, h.err
	}
	if len(h.keys) == 0 && h.ngroups == 0 {
		if err := h.newGroup("", nil, 0); err != nil {
			return nil, err
		}
	}
	nk, width := len(h.keys), len(h.keys)+len(h.accs)
	flat := make([]sqltypes.Value, h.ngroups*width)
	rows := make([][]sqltypes.Value, h.ngroups)
	for g := range rows {
		row := flat[g*width : (g+1)*width : (g+1)*width]
		copy(row, h.keyVals[g*nk:(g+1)*nk])
		for j, acc := range h.accs {
			row[nk+j] = acc.result(g)
		}
		rows[g] = row
	}
	return rows, nil
}

// Whole reports whether the groups came from one batch marked as distinct
// groups (MarkDistinctGroups), opened without hashing.
func (h *HashAgg) Whole() bool { return h.whole }

// Groups returns the number of groups so far.
func (h *HashAgg) Groups() int { return h.ngroups }

// MemoryUsed returns the approximate bytes of group state.
func (h *HashAgg) MemoryUsed() int64 { return h.used }

// Release drops the group state. The HashAgg must not be used afterwards.
func (h *HashAgg) Release() {
	h.groups, h.keyVals, h.accs, h.buf, h.rowGrp = nil, nil, nil, nil, nil
	h.ngroups, h.used = 0, 0
	h.err = fmt.Errorf("arrowexec: hash aggregate used after Release")
}

// Key encoding: one tag byte per column, then a fixed-width value or a
// 4-byte length and bytes. Values that MySQL groups together encode alike.
const (
	tagNull byte = iota
	tagInt       // int64, and uint64 values that fit
	tagUint      // uint64 values above MaxInt64
	tagFloat
	tagDecimal
	tagDate
	tagDatetime
	tagString
	tagBinary
)

// keyCol encodes one key column of the batch being added.
type keyCol struct {
	coll   collator
	retype querypb.Type // from field metadata (YEAR, TIME, TIMESTAMP)

	arr    arrow.Array
	nulls  bool
	i64    []int64
	u64    []uint64
	f64    []float64
	d128   *array.Decimal128
	d256   *array.Decimal256
	date   []arrow.Date32
	ts     []arrow.Timestamp
	unit   arrow.TimeUnit
	str    strCol
	bin    *array.Binary
	isNull bool // Null-typed column
}

func (c *keyCol) bind(arr arrow.Array, f arrow.Field) error {
	*c = keyCol{coll: c.coll, retype: c.retype, arr: arr, nulls: arr.NullN() > 0}
	if t := metaType(f); t != 0 {
		c.retype = t
	}
	switch a := arr.(type) {
	case *array.Null:
		c.isNull = true
	case *array.Int64:
		c.i64 = a.Int64Values()
	case *array.Uint64:
		c.u64 = a.Uint64Values()
	case *array.Float64:
		c.f64 = a.Float64Values()
	case *array.Decimal128:
		c.d128 = a
	case *array.Decimal256:
		c.d256 = a
	case *array.Date32:
		c.date = a.Date32Values()
	case *array.Timestamp:
		c.ts = a.TimestampValues()
		c.unit = a.DataType().(*arrow.TimestampType).Unit
	case *array.String:
		c.str = newStrCol(a)
	case *array.Binary:
		c.bin = a
	default:
		return fmt.Errorf("unsupported Arrow type %s", arr.DataType())
	}
	return nil
}

func (c *keyCol) unbind() { *c = keyCol{coll: c.coll, retype: c.retype} }

func (c *keyCol) encode(dst []byte, r int) []byte {
	if c.isNull || (c.nulls && c.arr.IsNull(r)) {
		return append(dst, tagNull)
	}
	switch {
	case c.i64 != nil:
		return binary.LittleEndian.AppendUint64(append(dst, tagInt), uint64(c.i64[r]))
	case c.u64 != nil:
		v := c.u64[r]
		if v <= math.MaxInt64 {
			return binary.LittleEndian.AppendUint64(append(dst, tagInt), v)
		}
		return binary.LittleEndian.AppendUint64(append(dst, tagUint), v)
	case c.f64 != nil:
		v := c.f64[r]
		if v == 0 {
			v = 0 // -0 and 0 are one group
		}
		return binary.LittleEndian.AppendUint64(append(dst, tagFloat), math.Float64bits(v))
	case c.d128 != nil:
		v := c.d128.Value(r)
		dst = append(dst, tagDecimal)
		dst = binary.LittleEndian.AppendUint64(dst, v.LowBits())
		return binary.LittleEndian.AppendUint64(dst, uint64(v.HighBits()))
	case c.d256 != nil:
		w := c.d256.Value(r).Array()
		dst = append(dst, tagDecimal)
		dst = binary.LittleEndian.AppendUint64(dst, w[0])
		dst = binary.LittleEndian.AppendUint64(dst, w[1])
		if ext := uint64(int64(w[1]) >> 63); w[2] == ext && w[3] == ext {
			return dst // fits in 128 bits: same bytes as a Decimal128 key
		}
		dst = binary.LittleEndian.AppendUint64(dst, w[2])
		return binary.LittleEndian.AppendUint64(dst, w[3])
	case c.date != nil:
		return binary.LittleEndian.AppendUint32(append(dst, tagDate), uint32(c.date[r]))
	case c.ts != nil:
		us := toMicros(int64(c.ts[r]), c.unit)
		return binary.LittleEndian.AppendUint64(append(dst, tagDatetime), uint64(us))
	case c.str.offs != nil:
		return appendSized(append(dst, tagString), c.str.at(r), &c.coll)
	case c.bin != nil:
		// Binary strings compare bytes (their KeySpec has no collation);
		// text vitess types VARBINARY (utf8mb4_bin, latin1_bin) keeps
		// its collation's PAD SPACE: 'a' and 'a ' are one group.
		return appendSized(append(dst, tagBinary), c.bin.Value(r), &c.coll)
	}
	return append(dst, tagNull)
}

// appendSized appends a 4-byte length followed by the collation key of s.
func appendSized(dst, s []byte, coll *collator) []byte {
	at := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	dst = coll.appendKey(dst, s)
	binary.LittleEndian.PutUint32(dst[at:], uint32(len(dst)-at-4))
	return dst
}

// strCol reads a String array's values as byte slices without copying.
type strCol struct {
	offs []int32
	data []byte
}

func newStrCol(a *array.String) strCol {
	c := strCol{offs: a.ValueOffsets()}
	if b := a.Data().Buffers()[2]; b != nil {
		c.data = b.Bytes()
	}
	return c
}

func (c strCol) at(r int) []byte { return c.data[c.offs[r]:c.offs[r+1]] }
