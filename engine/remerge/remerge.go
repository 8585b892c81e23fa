// Package remerge merges the coordinator's merged groups again: the
// second level of a plan with DISTINCT aggregates (by the group keys
// alone, counting, summing or joining each group's distinct values once)
// and WITH ROLLUP's subtotals (the groups' partials merged by each key
// prefix, in MariaDB's row order).
//
// Both take the first merge's rows (keys, distinct keys, merged partials)
// and the plan's merge specifications, and return rows for the final
// stage; they need an allocator, the collations and the merge memory
// limit, nothing of a statement's execution. It is a package of its own
// so that the engine's merger (fragments in, client rows out) and the
// rules of these two re-merges read apart. It imports planner (the
// partials' kinds) and arrowexec.
package remerge

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/sqltypes"

	"github.com/shoaldb/shoal/arrowexec"
	"github.com/shoaldb/shoal/planner"
)

// Merge is one aggregate plan's re-merge: its plan, the first level's
// key and aggregate specifications (group keys then distinct keys) and
// the second level's (a plan with DISTINCT aggregates).
type Merge struct {
	Mem      memory.Allocator
	Env      *collations.Environment
	MemLimit int64 // merge_memory_limit, as the first level's
	Plan     *planner.Plan
	Keys     []arrowexec.KeySpec
	Aggs     []arrowexec.AggSpec
	Keys2    []arrowexec.KeySpec
	Aggs2    []arrowexec.AggSpec
}

// Distinct is the second merge level of a plan with DISTINCT
// aggregates. Its input has one row per group and distinct-key combination
// (keys, distinct keys, merged partials); it aggregates by the keys alone:
// ordinary partials merge again, COUNT(DISTINCT) counts the combinations
// whose distinct keys are all non-NULL, SUM(DISTINCT) adds the distinct key.
func (m *Merge) Distinct(schema *arrow.Schema, rows [][]sqltypes.Value) ([][]sqltypes.Value, error) {
	p := m.Plan
	h := arrowexec.NewHashAgg(m.Mem, m.Env, m.Keys2, m.Aggs2, m.MemLimit)
	defer h.Release()
	if len(rows) > 0 {
		nk := p.Keys + p.DistinctKeys
		fields := append([]arrow.Field{}, schema.Fields()[:p.Keys]...)
		src := make([]int, len(p.Partials)) // level-1 column of each partial
		j := nk
		for i, pa := range p.Partials {
			var f arrow.Field
			switch pa.Kind {
			case planner.MergeDistinctCount:
				f = arrow.Field{Name: fmt.Sprintf("d%d", i), Type: arrow.PrimitiveTypes.Int64, Nullable: true}
				src[i] = -1
			case planner.MergeDistinctSum:
				f = widen(schema.Field(p.Keys + pa.Arg))
				src[i] = p.Keys + pa.Arg
			case planner.MergeDistinctConcat:
				f = schema.Field(p.Keys + pa.Arg)
				src[i] = p.Keys + pa.Arg
			default:
				f = widen(schema.Field(j))
				src[i] = j
				j++
			}
			fields = append(fields, f)
		}
		// first[i], for a DISTINCT aggregate over some of the distinct
		// keys only, says which combinations are the first of their group
		// with its keys' values: the others are not counted again.
		first := make([][]bool, len(p.Partials))
		for i, pa := range p.Partials {
			if set := distinctSet(pa, p.DistinctKeys); set != nil {
				f, err := m.firstOf(schema, rows, set)
				if err != nil {
					return nil, err
				}
				first[i] = f
			}
		}
		rb := arrowexec.NewRowBuilder(m.Mem, arrow.NewSchema(fields, nil))
		defer rb.Release()
		out := make([]sqltypes.Value, len(fields))
		for r, row := range rows {
			copy(out, row[:p.Keys])
			for i, c := range src {
				if first[i] != nil && !first[i][r] {
					if c >= 0 {
						out[p.Keys+i] = sqltypes.NULL // SUM and GROUP_CONCAT skip it
					} else {
						out[p.Keys+i] = sqltypes.NewInt64(0)
					}
					continue
				}
				if c >= 0 {
					out[p.Keys+i] = row[c]
					continue
				}
				cols := row[p.Keys:nk]
				if pa := p.Partials[i]; pa.Set != nil {
					cols = cols[:0:0]
					for _, j := range pa.Set {
						cols = append(cols, row[p.Keys+j])
					}
				}
				all := int64(1)
				for _, v := range cols {
					if v.IsNull() {
						all = 0
					}
				}
				out[p.Keys+i] = sqltypes.NewInt64(all)
			}
			if err := rb.Append(out); err != nil {
				return nil, err
			}
		}
		if err := addBuilt(h, rb); err != nil {
			return nil, err
		}
	}
	return h.Rows()
}

// distinctSet is the distinct keys whose values a DISTINCT partial must
// see once per group, when they are not all of them (the combinations of
// all of them are distinct already): nil when none need it.
func distinctSet(pa planner.Partial, distinctKeys int) []int {
	var set []int
	switch pa.Kind {
	case planner.MergeDistinctCount:
		set = pa.Set
	case planner.MergeDistinctSum, planner.MergeDistinctConcat:
		set = []int{pa.Arg}
	default:
		return nil
	}
	if set == nil || len(set) == distinctKeys {
		return nil
	}
	return set
}

// firstOf reports for each level-1 row (keys, distinct keys, partials)
// whether it is the first with its keys and the distinct keys of set,
// compared as the merge compares them (the keys' collations).
func (m *Merge) firstOf(schema *arrow.Schema, rows [][]sqltypes.Value, set []int) ([]bool, error) {
	k := m.Plan.Keys
	specs := make([]arrowexec.KeySpec, 0, k+len(set))
	specs = append(specs, m.Keys[:k]...)
	fields := make([]arrow.Field, 0, k+len(set))
	fields = append(fields, schema.Fields()[:k]...)
	for _, j := range set {
		specs = append(specs, m.Keys[k+j])
		fields = append(fields, schema.Field(k+j))
	}
	h := arrowexec.NewHashAgg(m.Mem, m.Env, specs, nil, m.MemLimit)
	defer h.Release()
	rb := arrowexec.NewRowBuilder(m.Mem, arrow.NewSchema(fields, nil))
	defer rb.Release()
	proj := make([]sqltypes.Value, len(fields))
	for _, row := range rows {
		copy(proj, row[:k])
		for i, j := range set {
			proj[k+i] = row[k+j]
		}
		if err := rb.Append(proj); err != nil {
			return nil, err
		}
	}
	rec := rb.NewRecordBatch()
	defer rec.Release()
	return h.AddNew(rec)
}

// addBuilt merges the rows built so far into h.
func addBuilt(h *arrowexec.HashAgg, rb *arrowexec.RowBuilder) error {
	rec := rb.NewRecordBatch()
	defer rec.Release()
	return h.Add(rec)
}

// widen gives a DECIMAL column room for sums of sums.
func widen(f arrow.Field) arrow.Field {
	switch t := f.Type.(type) {
	case *arrow.Decimal128Type:
		f.Type = &arrow.Decimal256Type{Precision: 76, Scale: t.Scale}
	case *arrow.Decimal256Type:
		f.Type = &arrow.Decimal256Type{Precision: 76, Scale: t.Scale}
	}
	return f
}

// Rollup adds WITH ROLLUP's super-aggregate rows to the merged groups and
// returns all rows in MariaDB's order: groups sorted by their keys, each
// prefix's subtotal after its last group, the grand total last. Subtotals
// merge the groups' merged partials again, which is exact for every
// partial kind a ROLLUP plan has (the planner refuses DISTINCT ones).
// A subtotal shows its kept keys as its last group spells them: MariaDB
// sends a ROLLUP row from the group fields it holds when the prefix
// changes, the last group's ('A' and 'a ' under one latin1 key give a
// subtotal spelled 'a ' when the group spelled 'a ' sorts last).
func (m *Merge) Rollup(schema *arrow.Schema, rows [][]sqltypes.Value) ([][]sqltypes.Value, error) {
	k := m.Plan.Keys
	if len(rows) == 0 || k == 0 {
		return rows, nil
	}
	ords := make([]arrowexec.Ordering, k)
	for i := range ords {
		ords[i] = arrowexec.Ordering{Col: i, Collation: m.Keys[i].Collation}
	}
	env := m.Env
	if err := arrowexec.SortRows(rows, ords, env); err != nil {
		return nil, err
	}
	levels := make([][][]sqltypes.Value, k)
	for l := 0; l < k; l++ {
		sub, err := m.reaggregate(schema, rows, l)
		if err != nil {
			return nil, err
		}
		if err := arrowexec.SortRows(sub, ords[:l], env); err != nil {
			return nil, err
		}
		levels[l] = sub
	}
	cmps := make([]*arrowexec.Comparer, k)
	for l := range cmps {
		c, err := arrowexec.NewComparer(ords[:l], env)
		if err != nil {
			return nil, err
		}
		cmps[l] = c
	}
	next := make([]int, k)
	out := make([][]sqltypes.Value, 0, len(rows)*2)
	for i, row := range rows {
		out = append(out, row)
		for l := k - 1; l >= 0; l-- {
			if i+1 < len(rows) && cmps[l].Compare(row, rows[i+1]) == 0 {
				break
			}
			if next[l] < len(levels[l]) {
				sub := levels[l][next[l]]
				copy(sub[:l], row[:l])
				out = append(out, sub)
				next[l]++
			}
		}
	}
	return out, nil
}

// reaggregate merges rows (keys then partials) by their first l keys and
// returns rows of the same width with the other keys NULL.
func (m *Merge) reaggregate(schema *arrow.Schema, rows [][]sqltypes.Value, l int) ([][]sqltypes.Value, error) {
	k := m.Plan.Keys
	h := arrowexec.NewHashAgg(m.Mem, m.Env, m.Keys[:l], m.Aggs, m.MemLimit)
	defer h.Release()
	fields := append([]arrow.Field{}, schema.Fields()[:l]...)
	for _, f := range schema.Fields()[k:] {
		fields = append(fields, widen(f))
	}
	rb := arrowexec.NewRowBuilder(m.Mem, arrow.NewSchema(fields, nil))
	defer rb.Release()
	buf := make([]sqltypes.Value, len(fields))
	for _, row := range rows {
		copy(buf, row[:l])
		copy(buf[l:], row[k:])
		if err := rb.Append(buf); err != nil {
			return nil, err
		}
	}
	if err := addBuilt(h, rb); err != nil {
		return nil, err
	}
	sub, err := h.Rows()
	if err != nil {
		return nil, err
	}
	out := make([][]sqltypes.Value, len(sub))
	for i, r := range sub {
		row := make([]sqltypes.Value, len(rows[0]))
		copy(row, r[:l])
		for j := l; j < k; j++ {
			row[j] = sqltypes.NULL
		}
		copy(row[k:], r[l:])
		out[i] = row
	}
	return out, nil
}
