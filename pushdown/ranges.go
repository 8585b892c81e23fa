// Package pushdown turns a plan's fragment template into the SQL each
// fragment runs: it cuts the split column's key space into ranges — of
// equal key width, or of about equal rows at the quantiles of a key sample
// (sample.go) — and binds each range into the template.
//
// Every row belongs to exactly one fragment: ranges are half-open
// [lo, hi), the first is open below and the last open above, so rows
// outside the bounds read when planning (new rows, stale statistics) are
// still counted exactly once. A NULL split key (possible only for a
// configured, nullable split column) gets a fragment of its own.
package pushdown

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"

	"github.com/shoaldb/shoal/planner"
	"github.com/shoaldb/shoal/sqlparse"
)

// Range is a half-open range of the split column. Nil bounds are open.
// Null selects the rows whose split key IS NULL instead.
//
// Ranges of a sampled key (planner.SplitKey) use LoKey and HiKey instead
// of Lo and Hi: one SQL literal per key column, as read from the index
// (nil: open). Ranges of DATE and DATETIME columns use Lo and Hi in the
// units of DateKey.
//
// Partition names the native partition the range is within, for the
// fragments of a planner.Plan that is Partitioned.
type Range struct {
	Lo, Hi       *int64
	Null         bool
	LoKey, HiKey []string
	Partition    string
}

// String renders the range for logs and EXPLAIN ANALYZE.
func (r Range) String() string {
	if r.Partition != "" {
		q := r
		q.Partition = ""
		return "partition " + r.Partition + " " + q.String()
	}
	if r.Null {
		return "NULL"
	}
	lo, hi := "-inf", "+inf"
	if r.LoKey != nil || r.HiKey != nil {
		if r.LoKey != nil {
			lo = "(" + strings.Join(r.LoKey, ", ") + ")"
		}
		if r.HiKey != nil {
			hi = "(" + strings.Join(r.HiKey, ", ") + ")"
		}
		return "[" + lo + ", " + hi + ")"
	}
	if r.Lo != nil {
		lo = strconv.FormatInt(*r.Lo, 10)
	}
	if r.Hi != nil {
		hi = strconv.FormatInt(*r.Hi, 10)
	}
	return "[" + lo + ", " + hi + ")"
}

// Describe renders r for EXPLAIN ANALYZE and logs as p's split kind reads
// it: the bounds of a DATE or DATETIME range as dates.
func Describe(p *planner.Plan, r Range) string {
	if (p.Split != planner.SplitDate && p.Split != planner.SplitDatetime) || r.Null {
		return r.String()
	}
	lo, hi := "-inf", "+inf"
	if r.Lo != nil {
		lo = DateLiteral(p.Split, *r.Lo)
	}
	if r.Hi != nil {
		hi = DateLiteral(p.Split, *r.Hi)
	}
	s := "[" + lo + ", " + hi + ")"
	if r.Partition != "" {
		s = "partition " + r.Partition + " " + s
	}
	return s
}

// Split cuts [min, max] into n ranges of equal key width, the first open
// below and the last open above. n < 1 is treated as 1. When nullable is
// true a NULL range is added. Equal width means equal rows only when the
// keys are evenly dense; SplitSample cuts by a sample of the data instead.
func Split(min, max int64, n int, nullable bool) []Range {
	if n < 1 || max <= min {
		n = 1
	}
	width := uint64(max-min) + 1
	if width != 0 && uint64(n) > width {
		n = int(width)
	}
	cuts := make([]int64, 0, n)
	for i := 1; i < n; i++ {
		hi, lo := bits.Mul64(width, uint64(i))
		q, _ := bits.Div64(hi, lo, uint64(n))
		cuts = append(cuts, min+int64(q))
	}
	return SplitAt(cuts, nullable)
}

// SplitAt cuts the key space at the given boundaries: len(cuts)+1 ranges,
// [-inf, cuts[0]), [cuts[0], cuts[1]), ..., [cuts[last], +inf). Cuts must
// be increasing; a cut not above the one before it is skipped, so every
// key is in exactly one range whatever the cuts. When nullable is true a
// NULL range is added.
func SplitAt(cuts []int64, nullable bool) []Range {
	out := make([]Range, 0, len(cuts)+2)
	var prev *int64
	for _, c := range cuts {
		if prev != nil && c <= *prev {
			continue
		}
		b := c
		out = append(out, Range{Lo: prev, Hi: &b})
		prev = &b
	}
	out = append(out, Range{Lo: prev})
	if nullable {
		out = append(out, Range{Null: true})
	}
	return out
}

// Predicate renders the range as a predicate on the integer column col
// (already quoted).
func Predicate(col string, r Range) string {
	return predicateAs(col, r, func(v int64) string { return strconv.FormatInt(v, 10) })
}

// predicateAs renders the range as a predicate on col, its bounds as lit
// renders them.
func predicateAs(col string, r Range, lit func(int64) string) string {
	switch {
	case r.Null:
		return "(" + col + " IS NULL)"
	case r.Lo == nil && r.Hi == nil:
		return "(" + col + " IS NOT NULL)"
	case r.Lo == nil:
		return fmt.Sprintf("(%s < %s)", col, lit(*r.Hi))
	case r.Hi == nil:
		return fmt.Sprintf("(%s >= %s)", col, lit(*r.Lo))
	}
	return fmt.Sprintf("(%s >= %s AND %s < %s)", col, lit(*r.Lo), col, lit(*r.Hi))
}

// Bind returns the fragment SQL for one range.
func Bind(p *planner.Plan, r Range) string {
	var pred string
	switch p.Split {
	case planner.SplitNone:
		pred = "TRUE"
	case planner.SplitDate, planner.SplitDatetime:
		pred = predicateAs(p.SplitColumn, r, func(v int64) string { return DateLiteral(p.Split, v) })
	case planner.SplitKey:
		pred = KeyPredicate(p.KeyColumns, r)
	default:
		pred = Predicate(p.SplitColumn, r)
	}
	sql := strings.Replace(p.FragmentSQL, planner.RangeMarker, pred, 1)
	switch {
	case p.Partitioned && r.Partition == "":
		// The table is no longer partitioned: read all of it.
		sql = strings.Replace(sql, " PARTITION("+planner.PartitionMarker+")", "", 1)
	case p.Partitioned:
		sql = strings.Replace(sql, planner.PartitionMarker, sqlparse.QuoteID(r.Partition), 1)
	}
	return sql
}

// Empty returns the fragment SQL with a predicate no row satisfies: a
// replica answers it with the fragment's column metadata and no rows.
func Empty(p *planner.Plan) string {
	sql := strings.Replace(p.FragmentSQL, planner.RangeMarker, "FALSE", 1)
	if p.Partitioned {
		// Any partition will do; the marker itself is no partition.
		sql = strings.Replace(sql, " PARTITION("+planner.PartitionMarker+")", "", 1)
	}
	return sql
}
