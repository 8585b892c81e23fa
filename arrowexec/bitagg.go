package arrowexec

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"vitess.io/vitess/go/sqltypes"
)

// bitAcc merges BIT_AND, BIT_OR and BIT_XOR partials (BIGINT UNSIGNED).
// MySQL's bit aggregates are never NULL: a group without values gives the
// operation's neutral element (all ones for AND, zero for OR and XOR), and
// fragments already report it for their empty groups, so merging starts
// from the neutral element and ignores NULL partials.
type bitAcc struct {
	kind AggKind
	v    []uint64
}

func (a *bitAcc) neutral() uint64 {
	if a.kind == AggBitAnd {
		return ^uint64(0)
	}
	return 0
}

func (a *bitAcc) grow(n int) {
	for len(a.v) < n {
		a.v = append(a.v, a.neutral())
	}
}

func (a *bitAcc) groupBytes() int64 { return 8 }

func (a *bitAcc) result(g int) sqltypes.Value { return sqltypes.NewUint64(a.v[g]) }

func (a *bitAcc) update(arr arrow.Array, _ arrow.Field, grp []int32) (int64, error) {
	var at func(i int) uint64
	switch c := arr.(type) {
	case *array.Uint64:
		at = c.Value
	case *array.Int64:
		at = func(i int) uint64 { return uint64(c.Value(i)) }
	case *array.Null:
		return 0, nil
	default:
		return 0, fmt.Errorf("arrowexec: %s partial of type %s", a.kind, arr.DataType())
	}
	for r, g := range grp {
		if arr.IsNull(r) {
			continue
		}
		x := at(r)
		switch a.kind {
		case AggBitAnd:
			a.v[g] &= x
		case AggBitOr:
			a.v[g] |= x
		default:
			a.v[g] ^= x
		}
	}
	return 0, nil
}
