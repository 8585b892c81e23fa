package planner

import (
	"fmt"
	"strings"
)

// Column is one column of a table as the catalog knows it.
type Column struct {
	Name string
	// Type is the MySQL data type (information_schema DATA_TYPE), lower case.
	Type string
	// Charset and Collation are a character column's own
	// (information_schema CHARACTER_SET_NAME, COLLATION_NAME), "" for
	// other columns. Values of a column whose charset is not the
	// connection's (utf8mb4) reach the coordinator converted to it; the
	// engine converts them back before merging (see Table.Recoded).
	Charset, Collation string
	// Scale is a DECIMAL column's digits after the point, 0 for others.
	Scale int
	// Precision is a DECIMAL column's number of digits, 0 for others
	// (and when unknown).
	Precision int
}

// Recoded reports whether t has a character column in a charset other
// than utf8mb4, whose values the replica converts for the connection.
func (t *Table) Recoded() bool {
	for _, c := range t.Columns {
		if c.Charset != "" && c.Charset != "utf8mb4" && c.Charset != "binary" {
			return true
		}
	}
	return false
}

// Table is what the planner knows of one replica table. It is a snapshot:
// the coordinator refreshes the catalog in the background and hands each
// planning call the current snapshot, so planning does no I/O.
type Table struct {
	Schema  string
	Name    string
	Columns []Column
	// SplitColumn is the column whose ranges cut the table into
	// fragments: an integer, DATE or DATETIME primary key, or the column
	// set in config. Empty when the table has none.
	SplitColumn string
	// SplitNullable is true when the split column (a configured one:
	// primary key columns are NOT NULL) may hold NULL: its NULL keys get
	// a range of their own.
	SplitNullable bool
	// SplitUnique is true when the split column is the table's
	// single-column primary key: one key value is at most one row.
	SplitUnique bool
	// SplitType is the split column's type when it is not an integer:
	// "date" or "datetime". Its values are cut as integers (days or
	// seconds since 1970-01-01, see pushdown.DateKey), so the integer
	// splitting and sampling serve it unchanged; only the literals in the
	// fragment SQL differ.
	SplitType string
	// KeyColumns is the primary key, in index order, when there is no
	// SplitColumn and the key is composite or not of a type above (e.g. a
	// VARCHAR). Such a table is cut at boundary keys sampled from the
	// index (engine/catalog/sample.go), with row comparisons on the columns.
	// A table with neither runs as one fragment.
	KeyColumns []string
	// IndexLeads are the first columns of the table's indexes (primary
	// and secondary), lower case: a GROUP BY on one of them may be done
	// through the index rather than a temporary table, which changes how
	// MySQL rounds a DECIMAL quotient's running sum. Nil when unknown.
	IndexLeads []string
	// Indexed are the columns of any index, at any position, lower
	// case: a WHERE clause that names none of them gives the optimizer
	// no access path its literals could choose (engine/pinshape). Nil
	// when unknown.
	Indexed []string
	// Rows is the estimated row count (information_schema.TABLES).
	Rows int64
	// Min and Max are the split column's bounds when last read. They only
	// place the inner range boundaries: the first and last ranges are open,
	// so stale bounds cost balance, never rows.
	Min, Max int64
	// Partitions are the table's native partitions (information_schema.
	// PARTITIONS), in order; nil when it is not partitioned. A plan over
	// a partitioned table reads each partition with PARTITION (p) in its
	// own fragments, each cut further by the split key.
	Partitions []Partition
	// Pinned marks a table held in the coordinator's memory (CACHE
	// TABLE): it is not split into key ranges but into in-memory
	// partitions, and it cannot be joined inside a replica fragment.
	Pinned bool
	// Unsplittable says why a table with a primary key has neither a
	// SplitColumn nor KeyColumns (EXPLAIN's reason); "" otherwise.
	Unsplittable string
}

// Partition is one native partition of a table.
type Partition struct {
	Name string
	// Rows is the partition's estimated row count.
	Rows int64
	// Min and Max are the split column's bounds in the partition (split
	// kinds SplitInt, SplitDate, SplitDatetime); Max < Min when unknown
	// or empty. Like Table.Min and Max they only place inner boundaries.
	Min, Max int64
}

// SplitKind is how a table is cut into fragments.
type SplitKind int

// Split kinds.
const (
	// SplitNone: no usable key; the table is read by one fragment.
	SplitNone SplitKind = iota
	// SplitInt: ranges of an integer column.
	SplitInt
	// SplitDate and SplitDatetime: ranges of a DATE or DATETIME column.
	SplitDate
	SplitDatetime
	// SplitKey: ranges between sampled keys of a composite or
	// non-integer primary key.
	SplitKey
)

func (k SplitKind) String() string {
	switch k {
	case SplitNone:
		return "none"
	case SplitInt:
		return "integer"
	case SplitDate:
		return "date"
	case SplitDatetime:
		return "datetime"
	case SplitKey:
		return "sampled key"
	}
	return fmt.Sprintf("SplitKind(%d)", int(k))
}

// Split returns how t is cut into fragments.
func (t *Table) Split() SplitKind {
	switch {
	case t.SplitColumn != "" && t.SplitType == "date":
		return SplitDate
	case t.SplitColumn != "" && t.SplitType == "datetime":
		return SplitDatetime
	case t.SplitColumn != "":
		return SplitInt
	case len(t.KeyColumns) > 0:
		return SplitKey
	}
	return SplitNone
}

// Column returns the column named name (case-insensitive), if any.
// WithScanOrder gives t, the planner's view of a whole-table pin of the
// replica table base (ok: there is one; a pinned query result never has
// a replica table's name), what decides the order MariaDB's scan of base
// meets its rows in, so that a LIMIT without ORDER BY over the pin takes
// the rows the replica would: its indexes (over columns a secondary index
// holds it passes through, indexCovers) and its unique split key (the
// first rows in key order). It returns t.
func (t *Table) WithScanOrder(base *Table, ok bool) *Table {
	if ok {
		t.Indexed = base.Indexed
		t.SplitUnique = base.SplitUnique && strings.EqualFold(base.SplitColumn, t.SplitColumn)
	}
	return t
}

func (t *Table) Column(name string) (Column, bool) {
	for _, c := range t.Columns {
		if strings.EqualFold(c.Name, name) {
			return c, true
		}
	}
	return Column{}, false
}

// Catalog is a read-only snapshot of the replicas' tables.
type Catalog interface {
	// Table returns the table db.name, or false. Names compare as MySQL
	// compares them on Linux: database and table names case-sensitively.
	Table(db, name string) (*Table, bool)
}

// MapCatalog is a Catalog backed by a map keyed "db.table".
type MapCatalog map[string]*Table

// Table implements Catalog.
func (m MapCatalog) Table(db, name string) (*Table, bool) {
	t, ok := m[db+"."+name]
	return t, ok
}

// Add puts t into the catalog.
func (m MapCatalog) Add(t *Table) { m[t.Schema+"."+t.Name] = t }
