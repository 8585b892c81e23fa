package planner

import "strings"

// Column is one column of a table as the catalog knows it.
type Column struct {
	Name string
	// Type is the MySQL data type (information_schema DATA_TYPE), lower case.
	Type string
}

// Table is what the planner knows of one replica table. It is a snapshot:
// the coordinator refreshes the catalog in the background and hands each
// planning call the current snapshot, so planning does no I/O.
type Table struct {
	Schema  string
	Name    string
	Columns []Column
	// SplitColumn is the integer column whose ranges cut the table into
	// fragments: the integer primary key, or the column set in config.
	// Empty when the table has none; the table is then not split.
	SplitColumn string
	// Rows is the estimated row count (information_schema.TABLES).
	Rows int64
	// Min and Max are the split column's bounds when last read. They only
	// place the inner range boundaries: the first and last ranges are open,
	// so stale bounds cost balance, never rows.
	Min, Max int64
	// Pinned marks a table held in the coordinator's memory (CACHE
	// TABLE): it is not split into key ranges but into in-memory
	// partitions, and it cannot be joined inside a replica fragment.
	Pinned bool
}

// Column returns the column named name (case-insensitive), if any.
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
