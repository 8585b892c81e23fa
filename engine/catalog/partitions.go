package catalog

import (
	"fmt"
	"strings"

	"github.com/shoaldb/shoal/planner"
	"github.com/shoaldb/shoal/pushdown"
	"github.com/shoaldb/shoal/replica"
	"github.com/shoaldb/shoal/sqlparse"
)

// Native partitions. A partitioned table's fragments each read one
// partition (PARTITION (p) in the fragment's FROM, see planner.Plan.
// Partitioned) and, within a large partition, one key range of it: the
// partition's own key bounds place the ranges, so a table partitioned by
// the key (RANGE on id or on a date) is not cut into ranges that its
// partitions mostly do not hold.
//
// Every row is in exactly one partition, so the partitions known at the
// last catalog refresh read every row once, as long as the partitioning
// has not changed since: a partition dropped or reorganised meanwhile
// fails the fragment (MariaDB: unknown partition) until the next refresh,
// and rows of a partition added meanwhile are not read until then.

// maxPartitionBounds bounds the partitions whose key bounds are read (one
// statement per table); a table with more is cut by its rows alone.
const maxPartitionBounds = 1024

// loadPartitions reads the native partitions of tables (subpartitions
// count as their partition, which PARTITION (p) selects whole) and, for a
// table with a split column, each partition's key bounds.
func loadPartitions(b *replica.Conn, tables planner.MapCatalog) error {
	r, err := b.Fetch(`SELECT TABLE_SCHEMA, TABLE_NAME, PARTITION_NAME, SUM(IFNULL(TABLE_ROWS, 0))
		FROM information_schema.PARTITIONS WHERE PARTITION_NAME IS NOT NULL
		AND TABLE_SCHEMA NOT IN ('mysql','information_schema','performance_schema','sys')
		GROUP BY TABLE_SCHEMA, TABLE_NAME, PARTITION_NAME
		ORDER BY TABLE_SCHEMA, TABLE_NAME, MIN(PARTITION_ORDINAL_POSITION)`, 10000000)
	if err != nil {
		return err
	}
	for _, row := range r.Rows {
		t, ok := tables.Table(row[0].ToString(), row[1].ToString())
		if !ok {
			continue
		}
		t.Partitions = append(t.Partitions, planner.Partition{Name: row[2].ToString(), Rows: rowCount(row[3]), Min: 0, Max: -1})
	}
	for _, t := range tables {
		if len(t.Partitions) < 2 || t.SplitColumn == "" || len(t.Partitions) > maxPartitionBounds {
			continue
		}
		if err := partitionBounds(b, t); err != nil {
			return err
		}
	}
	return nil
}

// partitionBounds reads the split column's bounds in each partition of t,
// in one statement (an index dive at each end per partition).
func partitionBounds(b *replica.Conn, t *planner.Table) error {
	col := sqlparse.QuoteID(t.SplitColumn)
	var sb strings.Builder
	for i, p := range t.Partitions {
		if i > 0 {
			sb.WriteString(" UNION ALL ")
		}
		fmt.Fprintf(&sb, "SELECT %d, MIN(%s), MAX(%s) FROM %s.%s PARTITION (%s)",
			i, col, col, sqlparse.QuoteID(t.Schema), sqlparse.QuoteID(t.Name), sqlparse.QuoteID(p.Name))
	}
	r, err := b.Fetch(sb.String(), len(t.Partitions))
	if err != nil {
		return err
	}
	for _, row := range r.Rows {
		i, err := row[0].ToInt64()
		if err != nil || i < 0 || int(i) >= len(t.Partitions) || row[1].IsNull() {
			continue // an empty partition keeps Max < Min
		}
		p := &t.Partitions[i]
		if t.SplitType != "" {
			lo, ok1 := pushdown.DateKey(t.Split(), row[1].ToString())
			hi, ok2 := pushdown.DateKey(t.Split(), row[2].ToString())
			if ok1 && ok2 {
				p.Min, p.Max = lo, hi
			}
			continue
		}
		p.Min, _ = row[1].ToInt64()
		p.Max, _ = row[2].ToInt64()
		if w := p.Max - p.Min + 1; w > p.Rows && w > 0 {
			p.Rows = w // a stale estimate (zero on a fresh replica): the key width stands in
		}
	}
	return nil
}

// partitionRanges cuts a partitioned table into about n ranges: each
// partition gets a share of n by its rows (at least one), cut within its
// own key bounds (keys: a SplitKey table's boundary keys, which cover
// every partition), with a NULL range when the split column is nullable.
// Each range names its partition.
func PartitionRanges(t *planner.Table, kind planner.SplitKind, keys [][]string, n int, nullable bool) []pushdown.Range {
	var total float64
	for _, p := range t.Partitions {
		total += float64(max(p.Rows, 1))
	}
	var out []pushdown.Range
	for _, p := range t.Partitions {
		k := max(1, int(float64(n)*float64(max(p.Rows, 1))/total+0.5))
		var rs []pushdown.Range
		switch kind {
		case planner.SplitNone:
			rs = []pushdown.Range{{}}
		case planner.SplitKey:
			rs = pushdown.SplitKeys(keys, k)
		default:
			if p.Max < p.Min {
				k = 1 // empty, or bounds unknown
			}
			rs = pushdown.Split(p.Min, p.Max, k, nullable)
		}
		for i := range rs {
			rs[i].Partition = p.Name
		}
		out = append(out, rs...)
	}
	return out
}

// partitionBoundsOf returns the key bounds of t's partition name (0, 0
// when unknown), for affinity.
func PartitionBoundsOf(t *planner.Table, name string) (lo, hi int64) {
	for _, p := range t.Partitions {
		if p.Name == name && p.Max >= p.Min {
			return p.Min, p.Max
		}
	}
	return 0, 0
}
