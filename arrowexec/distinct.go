package arrowexec

import (
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Distinct groups: a producer that already grouped its rows (the pinned
// engine's vectorized path, when one partition read the whole table)
// hands the merge rows that are each a group of their own. Hashing them
// again only to find every key new is the largest cost of a small
// in-memory aggregate under load (a 9,000-group chart: key encoding, the
// map and its string keys, ~13% of the coordinator's CPU at 300 users).
// The producer says so in the batch's schema metadata, naming the key
// collations its grouping used; a HashAgg whose keys have the same
// collations, and which has seen no other input, then opens one group
// per row without hashing, and refuses any later input (it would not
// find these groups).

// metaDistinctGroups is the schema metadata key of a distinct-groups
// batch; its value lists the key collations, comma separated.
const metaDistinctGroups = "shoal.distinct_groups"

func distinctMark(keys []KeySpec) string {
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(int(k.Collation)))
	}
	return b.String()
}

// MarkDistinctGroups returns rec (retained; the caller releases both)
// with its schema saying that rec is a merge's whole input and that no
// two of its rows have keys equal under keys (one spec per leading key
// column: the collations its producer grouped by). The caller
// guarantees both; a HashAgg with other key collations ignores the mark.
func MarkDistinctGroups(rec arrow.RecordBatch, keys []KeySpec) arrow.RecordBatch {
	s := rec.Schema()
	md := s.Metadata()
	m := arrow.NewMetadata(append(slices.Clone(md.Keys()), metaDistinctGroups), append(slices.Clone(md.Values()), distinctMark(keys)))
	marked := arrow.NewSchema(s.Fields(), &m)
	return array.NewRecordBatch(marked, rec.Columns(), rec.NumRows())
}

// distinctGroups reports whether rec carries the mark for keys.
func distinctGroups(rec arrow.RecordBatch, keys []KeySpec) bool {
	v, ok := rec.Schema().Metadata().GetValue(metaDistinctGroups)
	return ok && len(keys) > 0 && v == distinctMark(keys)
}
