package arrowexec

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/sqltypes"

	"github.com/shoaldb/shoal/sqlerr"
)

// partialConcatAcc joins partial GROUP_CONCAT, JSON_ARRAYAGG or
// JSON_OBJECTAGG strings that fragments computed over disjoint ranges:
//
//	GROUP_CONCAT(S1 ∪ S2)   = p1 + sep + p2
//	JSON_ARRAYAGG(S1 ∪ S2)  = "[" + members(p1) + "," + members(p2) + "]"
//	JSON_OBJECTAGG(S1 ∪ S2) = "{" + members(p1) + ", " + members(p2) + "}"
//
// (MariaDB writes array members with "," and object members with ", ".)
// That is exact because MySQL promises no order of the values without an
// ORDER BY inside the aggregate; the planner only pushes those. A group's
// partials are joined in byte order, not arrival order, so the answer does
// not depend on which fragment finished first. NULL partials (a fragment
// group whose values were all NULL) are skipped; a group without partials
// is NULL.
//
// GROUP_CONCAT results are cut to MaxLen bytes at a character boundary, as
// MySQL cuts at group_concat_max_len. MariaDB cuts JSON_ARRAYAGG there too,
// into text that is no longer JSON and that a merge cannot reproduce: a
// group whose array grows over MaxLen drops its partials and is unknown
// (see unknowner). That is an error only if the query reads the value: a
// HAVING that drops the group on other columns does not need it. MariaDB
// does not cut JSON_OBJECTAGG.
type partialConcatAcc struct {
	kind   AggKind
	sep    []byte
	maxLen int
	utf8   bool // the charset is UTF-8: cut at character boundaries
	binary bool // the partials were binary strings
	parts  [][][]byte
	size   []int  // joined length of a group's partials so far
	over   []bool // the group's JSON array outgrew maxLen: unknown
	nOver  int    // groups with over set
}

func newPartialConcat(env *collations.Environment, spec AggSpec) *partialConcatAcc {
	a := &partialConcatAcc{kind: spec.Kind, maxLen: spec.MaxLen, utf8: isUTF8(env, spec.Collation)}
	switch spec.Kind {
	case AggJSONArray:
		a.sep = []byte(",")
	case AggJSONObject:
		a.sep, a.maxLen = []byte(", "), 0
	default:
		a.sep = []byte(spec.Sep)
	}
	return a
}

func (a *partialConcatAcc) grow(n int) {
	a.parts = growTo(a.parts, n)
	a.size = growTo(a.size, n)
	a.over = growTo(a.over, n)
}

func (a *partialConcatAcc) groupBytes() int64 { return 32 }

func (a *partialConcatAcc) update(arr arrow.Array, _ arrow.Field, grp []int32) (int64, error) {
	var at func(int) []byte
	switch c := arr.(type) {
	case *array.String:
		at = newStrCol(c).at
	case *array.Binary:
		at = c.Value
		a.binary = true
	case *array.Null:
		return 0, nil
	default:
		return 0, fmt.Errorf("%s partials of type %s", a.kind, arr.DataType())
	}
	var grown int64
	for r, g := range grp {
		if arr.IsNull(r) || a.over[g] {
			continue
		}
		v, err := a.members(at(r))
		if err != nil {
			return grown, err
		}
		v = bytes.Clone(v)
		if len(a.parts[g]) > 0 {
			a.size[g] += len(a.sep)
		}
		a.size[g] += len(v)
		a.parts[g] = append(a.parts[g], v)
		grown += int64(len(v)) + 24
		if a.kind == AggJSONArray && a.maxLen > 0 && a.size[g]+2 > a.maxLen {
			for _, p := range a.parts[g] {
				grown -= int64(len(p)) + 24
			}
			a.parts[g], a.over[g] = nil, true
			a.nOver++
		}
	}
	return grown, nil
}

// anyUnknown reports whether some group's value could not be merged.
func (a *partialConcatAcc) anyUnknown() bool { return a.nOver > 0 }

// unknown reports whether group g's value could not be merged, and why.
func (a *partialConcatAcc) unknown(g int) error {
	if !a.over[g] {
		return nil
	}
	return sqlerr.New(sqlerr.ErrNotSupported, "42000",
		"JSON_ARRAYAGG result longer than group_concat_max_len (%d bytes): MariaDB would cut it into invalid JSON, which Shoal does not reproduce; raise group_concat_max_len (the query then runs on one replica) or narrow the groups", a.maxLen)
}

// members strips a JSON partial's brackets; GROUP_CONCAT partials are
// joined as they are.
func (a *partialConcatAcc) members(v []byte) ([]byte, error) {
	var open, close byte
	switch a.kind {
	case AggJSONArray:
		open, close = '[', ']'
	case AggJSONObject:
		open, close = '{', '}'
	default:
		return v, nil
	}
	if len(v) < 2 || v[0] != open || v[len(v)-1] != close {
		return nil, fmt.Errorf("%s partial %.40q is not a JSON %s", a.kind, v, map[byte]string{'[': "array", '{': "object"}[open])
	}
	return v[1 : len(v)-1], nil
}

func (a *partialConcatAcc) result(g int) sqltypes.Value {
	parts := a.parts[g]
	if len(parts) == 0 || a.over[g] {
		return sqltypes.NULL
	}
	slices.SortFunc(parts, bytes.Compare)
	out := make([]byte, 0, a.size[g]+2)
	switch a.kind {
	case AggJSONArray:
		out = append(out, '[')
	case AggJSONObject:
		out = append(out, '{')
	}
	for i, p := range parts {
		if i > 0 {
			out = append(out, a.sep...)
		}
		out = append(out, p...)
	}
	switch a.kind {
	case AggJSONArray:
		out = append(out, ']')
	case AggJSONObject:
		out = append(out, '}')
	case AggConcatPartial:
		out = cutConcat(out, a.maxLen, a.utf8)
	}
	if a.binary {
		return sqltypes.MakeTrusted(sqltypes.VarBinary, out)
	}
	return sqltypes.MakeTrusted(sqltypes.VarChar, out)
}

// isUTF8 reports whether collation id belongs to a UTF-8 charset (utf8mb3
// or utf8mb4).
func isUTF8(env *collations.Environment, id collations.ID) bool {
	if id == 0 {
		return false
	}
	if env == nil {
		env = collations.MySQL8()
	}
	return strings.HasPrefix(env.LookupName(id), "utf8")
}

// cutConcat cuts a GROUP_CONCAT result to at most max bytes (max <= 0: no
// cut) as MySQL cuts at group_concat_max_len: on a character boundary
// (Well_formed_prefix), so a UTF-8 character is never split; single-byte
// and binary strings are cut at the byte.
func cutConcat(out []byte, max int, utf8 bool) []byte {
	if max <= 0 || len(out) <= max {
		return out
	}
	out = out[:max]
	if !utf8 {
		return out
	}
	start := len(out) - 1 // first byte of the last character
	for start > 0 && out[start]&0xC0 == 0x80 {
		start--
	}
	need := 1
	switch b := out[start]; {
	case b >= 0xF0:
		need = 4
	case b >= 0xE0:
		need = 3
	case b >= 0xC0:
		need = 2
	}
	if start+need > len(out) {
		out = out[:start]
	}
	return out
}
