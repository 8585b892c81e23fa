package arrowexec

import (
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"vitess.io/vitess/go/sqltypes"
)

// concatAcc is GROUP_CONCAT(DISTINCT x ORDER BY x SEPARATOR s) over values
// that are already distinct per group (the second merge level of a plan
// with DISTINCT aggregates): it sorts a group's values under the column's
// collation and joins them, cut to MaxLen bytes like group_concat_max_len.
// NULL values are skipped; a group without values gives NULL.
type concatAcc struct {
	spec AggSpec
	coll collator
	utf8 bool // cut at UTF-8 character boundaries
	vals [][][]byte
}

func (a *concatAcc) grow(n int)        { a.vals = growTo(a.vals, n) }
func (a *concatAcc) groupBytes() int64 { return 24 }

func (a *concatAcc) update(arr arrow.Array, _ arrow.Field, grp []int32) (int64, error) {
	var at func(int) []byte
	switch c := arr.(type) {
	case *array.String:
		at = func(i int) []byte { return []byte(c.Value(i)) }
	case *array.Binary:
		at = c.Value
	case *array.Null:
		return 0, nil
	default:
		return 0, fmt.Errorf("arrowexec: GROUP_CONCAT over %s values", arr.DataType())
	}
	var grown int64
	for r, g := range grp {
		if arr.IsNull(r) {
			continue
		}
		v := append([]byte(nil), at(r)...)
		a.vals[g] = append(a.vals[g], v)
		grown += int64(len(v)) + 24
	}
	return grown, nil
}

func (a *concatAcc) result(g int) sqltypes.Value {
	vals := a.vals[g]
	if len(vals) == 0 {
		return sqltypes.NULL
	}
	slices.SortStableFunc(vals, func(x, y []byte) int {
		c := a.coll.compare(x, y)
		if a.spec.Desc {
			return -c
		}
		return c
	})
	var out []byte
	for i, v := range vals {
		if i > 0 {
			out = append(out, a.spec.Sep...)
		}
		out = append(out, v...)
		if a.spec.MaxLen > 0 && len(out) > a.spec.MaxLen {
			out = cutConcat(out, a.spec.MaxLen, a.utf8)
			break
		}
	}
	return sqltypes.MakeTrusted(sqltypes.VarChar, out)
}
