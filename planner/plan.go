// Package planner turns a parsed SELECT into a distributed plan: fragment
// SQL that every worker runs on its own key range, and a merge that the
// coordinator runs over the fragments' Arrow batches.
//
// The planner is a pure function of a catalog snapshot and a statement: no
// I/O, no clock. That keeps plans golden-testable and planning cheap enough
// to cache per statement.
//
// Decomposition rule (as in TiDB's aggregation push-down): an aggregate F is
// pushed when F(S1 ∪ S2) = F2(F1(S1), F1(S2)) for a partial F1 and a final
// F2: COUNT → SUM of counts, SUM → SUM, MIN → MIN, MAX → MAX, AVG → SUM and
// COUNT divided at the end. Anything the planner cannot prove exact (DISTINCT
// aggregates, non-grouped columns, unknown functions, more than one table, …)
// is not distributed: the statement passes through to one replica unchanged.
package planner

import (
	"fmt"
	"strings"
)

// RangeMarker stands in the fragment SQL template where the split range
// predicate goes. It is a back-quoted identifier, which user SQL restored
// by the parser can only contain if the user wrote it; the planner refuses
// to distribute such statements.
const RangeMarker = "`__SHOAL_RANGE__`"

// PartitionMarker stands in the fragment SQL template of a Partitioned
// plan where the name of the partition a fragment reads goes, inside the
// split table's PARTITION (...) selection.
const PartitionMarker = "`__SHOAL_PARTITION__`"

// partitionMarkerName is PartitionMarker unquoted.
const partitionMarkerName = "__SHOAL_PARTITION__"

// AggKind is the merge function of one partial aggregate column.
type AggKind int

// Merge functions.
const (
	MergeSum   AggKind = iota + 1 // SUM of partial SUMs
	MergeCount                    // SUM of partial COUNTs (0 over no rows)
	MergeMin
	MergeMax
	// MergeDistinctCount counts the distinct-key combinations (all
	// non-NULL) of a group; it has no fragment column.
	MergeDistinctCount
	// MergeDistinctSum sums distinct key Arg over a group's distinct-key
	// combinations; it has no fragment column.
	MergeDistinctSum
	// MergeBitAnd, MergeBitOr and MergeBitXor combine partial BIT_AND,
	// BIT_OR and BIT_XOR bitwise.
	MergeBitAnd
	MergeBitOr
	MergeBitXor
	// MergeDistinctConcat is GROUP_CONCAT(DISTINCT key Arg [ORDER BY it]
	// [SEPARATOR Sep]) over a group's distinct-key combinations.
	MergeDistinctConcat
	// MergeConcat joins partial GROUP_CONCATs (no DISTINCT, no ORDER BY)
	// with Sep; MergeJSONArray and MergeJSONObject join partial
	// JSON_ARRAYAGGs and JSON_OBJECTAGGs (see planner/rewrite.go).
	MergeConcat
	MergeJSONArray
	MergeJSONObject
)

func (k AggKind) String() string {
	switch k {
	case MergeSum:
		return "sum"
	case MergeCount:
		return "count"
	case MergeMin:
		return "min"
	case MergeMax:
		return "max"
	case MergeDistinctCount:
		return "count-distinct"
	case MergeDistinctSum:
		return "sum-distinct"
	case MergeBitAnd:
		return "bit_and"
	case MergeBitOr:
		return "bit_or"
	case MergeBitXor:
		return "bit_xor"
	case MergeDistinctConcat:
		return "group_concat-distinct"
	case MergeConcat:
		return "group_concat"
	case MergeJSONArray:
		return "json_arrayagg"
	case MergeJSONObject:
		return "json_objectagg"
	}
	return fmt.Sprintf("AggKind(%d)", int(k))
}

// Partial is one partial aggregate a fragment computes.
type Partial struct {
	Kind AggKind
	// SQL is the fragment's expression, e.g. "SUM(`ArrDelayMinutes`)";
	// empty for the distinct merges, which read the distinct keys.
	SQL string
	// Arg is the distinct key a MergeDistinctSum adds up or a
	// MergeDistinctConcat joins.
	Arg int
	// Set lists the distinct keys (indices, ascending) whose combinations
	// a MergeDistinctCount counts. When a statement's DISTINCT aggregates
	// have different arguments, the fragments group by all of them, and
	// each aggregate counts (sums, joins) the distinct values of its own
	// keys among the combinations.
	Set []int
	// Sep and Desc are GROUP_CONCAT's separator and order.
	Sep  string
	Desc bool
}

// FromFragment reports whether the partial is a fragment column.
func (p Partial) FromFragment() bool { return p.SQL != "" }

// JoinedTable is a table of the statement other than the split table.
type JoinedTable struct {
	// Alias is the name columns qualify it with (EXPLAIN's table).
	Alias string
	// DB and Name name the table.
	DB, Name string
}

// OrderItem is one ORDER BY key of the final stage.
type OrderItem struct {
	// Expr is evaluated over the final row (see Plan.FinalColumns).
	Expr string
	Desc bool
}

// Plan is a distributed plan for one SELECT.
type Plan struct {
	// DB and Table name the split table.
	DB, Table string
	// SplitColumn is the split table's key column, qualified as the
	// fragment SQL names it (SplitInt, SplitDate, SplitDatetime).
	SplitColumn string
	// Split is how the table is cut; SplitNone: one fragment whose range
	// predicate is TRUE.
	Split SplitKind
	// KeyLo and KeyHi are inclusive bounds on the split column (SplitInt,
	// not partitioned) implied by the WHERE clause, nil where none: the
	// coordinator cuts its ranges within them. They place cuts only; the
	// WHERE clause still filters (see keyBounds).
	KeyLo, KeyHi *int64
	// KeyPoints is the most distinct split keys the WHERE clause lists
	// (id = 5: 1, id IN (1, 9, 40): 3, a window that matches no key: 0),
	// -1 when it lists none (a range, or nothing understood). With a
	// unique split column it bounds the rows the split table gives,
	// whatever the values listed.
	KeyPoints int64
	// Clock is true when the fragments call the clock (NOW(), CURDATE(),
	// UNIX_TIMESTAMP(), in WHERE or ON): they must run with the
	// statement's one instant (ticket.Timestamp), and the result is not
	// kept for another execution.
	Clock bool
	// WhereKeyOnly is true when the statement reads one table and its
	// WHERE clause is absent or only bounds the split column: every row
	// of the key window passes it (the routing of exports, engine/route).
	WhereKeyOnly bool
	// KeyColumns are the primary key columns, qualified, for SplitKey.
	KeyColumns []string
	// Joined are the tables joined to the split table inside each
	// fragment, in FROM order: a statement MariaDB reads from one of them
	// first is described by a probe on that table (engine/coldefs).
	Joined []JoinedTable
	// KeyFirstLo and KeyFirstHi are inclusive bounds the WHERE clause puts
	// on the first of KeyColumns when it is an integer (SplitKey), nil
	// where none. They cut nothing: a statement that bounds the key's
	// first column on both sides is described by a probe inside that
	// window (engine/coldefs).
	KeyFirstLo, KeyFirstHi *int64
	// Partitioned is true when the split table is natively partitioned
	// and the fragment SQL selects one partition (PartitionMarker); the
	// coordinator cuts each partition into its own key ranges.
	Partitioned bool
	// FragmentSQL is the fragment statement with RangeMarker where the range
	// predicate goes.
	FragmentSQL string
	// primaryAt is where KeepPrimary inserts its index hint into
	// FragmentSQL (after the split table's name and alias), -1 when it
	// cannot: not one table split on its primary key, the statement's
	// own index hints, partitions.
	primaryAt int
	// MetaSQL is the original statement with LIMIT 0: a replica answers it
	// with the result's column metadata and no rows.
	MetaSQL string

	// Aggregate is true when fragments return group keys and partial
	// aggregates that the coordinator merges by hash.
	Aggregate bool
	// Keys is the number of group-key columns at the front of a fragment
	// row (aggregate plans).
	Keys int
	// DistinctKeys is the number of fragment columns after the keys that
	// hold the arguments of DISTINCT aggregates. Fragments group by them
	// too; the coordinator merges in two levels: first by keys and
	// distinct keys, then by keys alone, counting or summing the distinct
	// values.
	DistinctKeys int
	// Rollup adds WITH ROLLUP's super-aggregate rows: for every prefix of
	// the keys, rows with the remaining keys NULL, each after its group, the
	// grand total last (MariaDB's order).
	Rollup bool
	// Partials are the partial aggregates, in final-row order. Those with
	// SQL are fragment columns, after the keys and distinct keys, in order.
	Partials []Partial

	// Outputs are the final select expressions, evaluated over the final
	// row. For aggregate plans the final row is the merged row (keys then
	// partials, named __g<i> and __a<i>). For row plans it is the fragment
	// row: row plans leave Outputs empty and send every fragment column
	// but the Hidden ones as it is (their count comes from the metadata,
	// which also covers SELECT *).
	Outputs []string
	// Hidden is the number of trailing fragment columns that carry ORDER BY
	// keys only (row plans).
	Hidden int
	// Having filters final rows; it may reference outputs as __o<i>.
	Having string
	// OrderBy sorts final rows; items may reference outputs as __o<i>.
	OrderBy []OrderItem
	// Limit and Offset apply last; Limit < 0 means none.
	Limit, Offset int64
	// PushedLimit is the LIMIT each fragment applies (row plans with
	// LIMIT), or -1.
	PushedLimit int64
	// Notes explain the plan's choices for EXPLAIN.
	Notes []string
}

// Describe renders the plan for EXPLAIN, one step per line.
func (p *Plan) Describe() []string {
	var out []string
	rng := "(" + p.SplitColumn + " >= ? AND " + p.SplitColumn + " < ?)"
	switch p.Split {
	case SplitNone:
		if p.Partitioned {
			out = append(out, fmt.Sprintf("one fragment per partition of %s.%s", p.DB, p.Table))
		} else {
			out = append(out, fmt.Sprintf("one fragment over %s.%s (not split)", p.DB, p.Table))
		}
		rng = "TRUE"
	case SplitDate, SplitDatetime:
		out = append(out, fmt.Sprintf("split %s.%s on %s (%s ranges)", p.DB, p.Table, p.SplitColumn, p.Split))
	case SplitKey:
		cols := strings.Join(p.KeyColumns, ", ")
		out = append(out, fmt.Sprintf("split %s.%s on key (%s) at sampled boundaries", p.DB, p.Table, cols))
		qs := strings.TrimSuffix(strings.Repeat("?, ", len(p.KeyColumns)), ", ")
		rng = "((" + cols + ") >= (" + qs + ") AND (" + cols + ") < (" + qs + "))"
	default:
		out = append(out, fmt.Sprintf("split %s.%s on %s", p.DB, p.Table, p.SplitColumn))
	}
	if p.Partitioned && p.Split != SplitNone {
		out[len(out)-1] += ", within each partition"
	}
	frag := strings.ReplaceAll(p.FragmentSQL, RangeMarker, rng)
	out = append(out, "fragment: "+strings.ReplaceAll(frag, PartitionMarker, "?"))
	if p.Aggregate {
		parts := make([]string, len(p.Partials))
		for i, pa := range p.Partials {
			arg := pa.SQL
			if !pa.FromFragment() {
				arg = fmt.Sprintf("distinct key %d", pa.Arg)
				if pa.Kind == MergeDistinctCount && len(pa.Set) != p.DistinctKeys {
					arg = fmt.Sprintf("distinct keys %v", pa.Set)
				}
			}
			parts[i] = fmt.Sprintf("__a%d=%s(%s)", i, pa.Kind, arg)
		}
		if p.DistinctKeys > 0 {
			out = append(out, fmt.Sprintf("merge: hash aggregate on %d key(s) + %d distinct key(s), then on the key(s): %s", p.Keys, p.DistinctKeys, strings.Join(parts, ", ")))
		} else {
			out = append(out, fmt.Sprintf("merge: hash aggregate on %d key(s): %s", p.Keys, strings.Join(parts, ", ")))
		}
	} else if len(p.OrderBy) > 0 {
		out = append(out, "merge: gather rows")
	} else {
		out = append(out, "merge: concatenate streams")
	}
	if len(p.Outputs) > 0 {
		out = append(out, "project: "+strings.Join(p.Outputs, ", "))
	}
	if p.Having != "" {
		out = append(out, "having: "+p.Having)
	}
	if len(p.OrderBy) > 0 {
		items := make([]string, len(p.OrderBy))
		for i, o := range p.OrderBy {
			items[i] = o.Expr
			if o.Desc {
				items[i] += " DESC"
			}
		}
		kind := "sort"
		if p.Limit >= 0 {
			kind = fmt.Sprintf("top-%d", p.Limit+p.Offset)
		}
		out = append(out, kind+": "+strings.Join(items, ", "))
	}
	if p.Limit >= 0 {
		out = append(out, fmt.Sprintf("limit: %d offset %d", p.Limit, p.Offset))
	}
	for _, n := range p.Notes {
		out = append(out, "note: "+n)
	}
	return out
}

// NotDistributed explains why a statement passes through.
type NotDistributed struct{ Reason string }

func (e *NotDistributed) Error() string { return "not distributed: " + e.Reason }

func notDist(format string, args ...any) error {
	return &NotDistributed{Reason: fmt.Sprintf(format, args...)}
}

// CanKeepPrimary reports whether KeepPrimary applies to p.
func (p *Plan) CanKeepPrimary() bool { return p.primaryAt > 0 }

// KeepPrimary makes each fragment read its range of the primary key
// (FORCE INDEX (PRIMARY)), whatever index the replica's optimizer would
// pick for the fragment alone. Within a key range a secondary index on a
// WHERE column can look cheaper to it than the range (57,544 index
// entries against 187,000 rows) and cost far more (a row lookup for each
// entry, where the range reads the rows in order): the routing calls it
// when the optimizer scans the whole table for the statement itself.
func (p *Plan) KeepPrimary() {
	if p.primaryAt <= 0 {
		return
	}
	p.FragmentSQL = p.FragmentSQL[:p.primaryAt] + " FORCE INDEX (PRIMARY)" + p.FragmentSQL[p.primaryAt:]
	p.primaryAt = -1
}
