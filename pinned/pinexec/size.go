package pinexec

import "vitess.io/vitess/go/sqltypes"

// Bytes estimates the memory a compiled Program holds: its expressions
// and the vectorized path's tables (filter pass tables, ordinal maps,
// lookups, group-key and aggregate tables). Tables shared per pin
// version (shared.go) are counted too when the Program points at them,
// so the estimate errs high; callers bounding a cache by it keep fewer
// Programs, never more memory than they think.
func (p *Program) Bytes() int64 {
	const exprBytes, headerBytes = 512, 1024
	n := int64(headerBytes) + exprBytes*int64(len(p.where)+len(p.keys)+len(p.aggs)+len(p.outs))
	f := p.fast
	if f == nil {
		return n
	}
	for _, ff := range f.filters {
		n += 128 + int64(len(ff.pass)) + 4*int64(len(ff.ord)+len(ff.points)+len(ff.ord2))
		if ff.vals != nil {
			n += 96 + 8*int64(ff.vals.Points())
		}
	}
	for _, k := range f.keys {
		n += 64 + lookupSize(k.lk) + 4*int64(len(k.canon)) + valuesSize(k.values) + valuesSize(k.spellings)
	}
	for _, a := range f.aggs {
		n += 128 + lookupSize(a.lk) + 8*int64(len(a.ints)) + int64(len(a.isNull)) + 4*int64(len(a.rank)+len(a.byRank))
	}
	n += 32 * int64(len(f.codeCol))
	return n
}

func lookupSize(lk *lookup) int64 {
	if lk == nil {
		return 0
	}
	return 32 + valuesSize(lk.vals)
}

// valuesSize is the memory of vals: each Value's header and its bytes.
func valuesSize(vals []sqltypes.Value) int64 {
	n := 32 * int64(len(vals))
	for _, v := range vals {
		n += int64(v.Len())
	}
	return n
}
