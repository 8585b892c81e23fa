// Package catalog reads what the planner needs to know about the replicas'
// schema — tables, columns, keys, row estimates, partitions — and samples
// split keys so fragments hold about as many rows each. A Snapshot is
// immutable: the engine swaps in a new one atomically and plans never read
// information_schema. It imports replica (for the reads) and the pure
// planner/pushdown packages, nothing above it.
package catalog

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"vitess.io/vitess/go/sqltypes"

	"github.com/shoaldb/shoal/planner"
	"github.com/shoaldb/shoal/pushdown"
	"github.com/shoaldb/shoal/replica"
	"github.com/shoaldb/shoal/sqlparse"
)

// Snapshot is one immutable reading of the replicas' schema. Queries read
// the current snapshot through an atomic pointer; a background loop
// replaces it, so no query ever reads information_schema.
type Snapshot struct {
	// Tables is what the planner plans over.
	Tables planner.MapCatalog
	// Schemas are the databases the replica has.
	Schemas map[string]bool
	// Version is the server version of the replica read.
	Version string
	// TimeZone is the zone a fresh connection to it computes in (Zone);
	// nil when it could not be read.
	TimeZone *time.Location
	// Charset is the collation id the replica's handshake offers as the
	// server's (45, utf8mb4_general_ci, for MariaDB 10; 255 for MySQL 8).
	Charset uint8
	// Gen changes when the schema does, any table of it (Follow): an
	// entry cached for one generation, untracked, is valid for it.
	Gen uint64
	// Base changes only with what every statement may depend on whatever
	// tables it names: the server version and the set of databases. A
	// cache entry that lists the tables it depends on (Deps) is valid
	// while Base and those tables' versions hold (tables.go).
	Base uint64
	// vers are the tables' versions by "db.name" (Follow); verSeq is the
	// last version handed out, carried from snapshot to snapshot.
	vers   map[string]uint64
	verSeq uint64
	// samples are the split-key samples by "db.table" (sample.go);
	// the engine cuts a table without one by key width.
	samples map[string]*tableSample
	// recoded are the back-quoted names of the tables with a character
	// column in a charset other than utf8mb4 (planner.Table.Recoded),
	// lower case.
	recoded []string
}

// Recoded reports whether a statement rendered from the AST (tables
// back-quoted) may read a character column in a charset other than
// utf8mb4: it names a table that has one. The replica converts such
// values for the connection, so their real charset and collation must be
// asked for (engine: describe with character_set_results = NULL). A false
// positive costs a metadata round trip, never an answer.
func (s *Snapshot) Recoded(sql string) bool {
	if len(s.recoded) == 0 {
		return false
	}
	sql = strings.ToLower(sql)
	for _, name := range s.recoded {
		if strings.Contains(sql, name) {
			return true
		}
	}
	return false
}

// Sample returns the table's split-key sample and boundary keys when it
// has one taken for split column col (nil, nil otherwise).
func (s *Snapshot) Sample(db, table, col string) (*pushdown.KeySample, [][]string) {
	ts := s.samples[db+"."+table]
	if ts == nil || ts.splitCol != col {
		return nil, nil
	}
	return ts.sample, ts.keys
}

// Options say how a catalog read sizes its split-key samples.
type Options struct {
	SplitColumns       map[string]string // config split_columns
	MinRowsPerFragment int64
	// Fragments is how many fragments a full scan is cut into today
	// (slots × fragments_per_slot): samples are taken fine enough for it.
	Fragments int
}

// Read reads a new snapshot from b and samples the split keys of its
// large tables, reusing prev's samples that still hold (prev may be nil).
// Sampling failures are logged, not returned (those tables are cut by key
// width), unless the connection broke.
func Read(ctx context.Context, b *replica.Conn, o Options, prev *Snapshot, log *slog.Logger) (*Snapshot, error) {
	snap, err := loadSnapshot(ctx, b, o.SplitColumns, o.MinRowsPerFragment)
	if err != nil {
		return nil, err
	}
	fragments := max(o.Fragments, 16)
	start := time.Now()
	errs := sampleTables(b, snap, prev, fragments, o.MinRowsPerFragment, start)
	for _, err := range errs {
		if connLost(err) {
			return nil, err // the connection broke: the caller drops it and tries another replica
		}
		log.Warn("split key sample failed; cutting the table by key width", "err", err)
	}
	for key, ts := range snap.samples {
		switch {
		case ts.at.Equal(start) && ts.sample != nil:
			log.Info("split key sampled", "table", key, "intervals", len(ts.sample.Rows), "probes", ts.probes, "took", ts.took)
		case ts.at.Equal(start) && ts.keys != nil:
			log.Info("boundary keys sampled", "table", key, "keys", len(ts.keys), "took", ts.took)
		}
	}
	return snap, nil
}

var integerTypes = map[string]bool{"tinyint": true, "smallint": true, "mediumint": true, "int": true, "integer": true, "bigint": true}

// recodedNames lists the back-quoted, lower-case names of the tables
// with a character column outside utf8mb4 (Snapshot.Recoded).
func recodedNames(tables planner.MapCatalog) []string {
	var out []string
	for _, t := range tables {
		if t.Recoded() {
			out = append(out, strings.ToLower(sqlparse.QuoteID(t.Name)))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// rowCount reads a row estimate of information_schema, whatever type the
// server gives it (IFNULL and SUM of the BIGINT UNSIGNED TABLE_ROWS come
// back as DECIMAL, which sqltypes' ToInt64 refuses); 0 when unreadable.
func rowCount(v sqltypes.Value) int64 {
	f, err := strconv.ParseFloat(v.ToString(), 64)
	if err != nil || !(f > 0) {
		return 0
	}
	return int64(min(f, 1<<62))
}

// splittable reports whether column c of t can be cut into integer ranges
// (pushdown: an integer, or a DATE or DATETIME as days or seconds). A
// BIGINT UNSIGNED cannot: its keys above 2^63-1 do not fit an int64.
func splittable(t *planner.Table, c planner.Column, unsigned map[string]bool) bool {
	if dateType(c.Type) != "" {
		return true
	}
	return integerTypes[c.Type] && !(c.Type == "bigint" && unsigned[t.Schema+"."+t.Name+"."+c.Name])
}

// keyComparable reports whether every column of the key cols of t
// compares with a literal of its value in the index's order: not ENUM or
// SET (ordered by their numbers, compared with a string literal as
// strings), nor a float (its text may not round-trip), BIT, JSON, a
// spatial type or TIMESTAMP (its literal is read in the session's time
// zone).
func keyComparable(t *planner.Table, cols []string) (bool, string) {
	for _, name := range cols {
		c, ok := t.Column(name)
		if !ok {
			return false, "its key column " + name + " is not among its columns"
		}
		switch c.Type {
		case "timestamp":
			return false, "its key column " + name + " is a TIMESTAMP, whose literals the session's time zone reads, not monotonic around daylight saving time"
		case "float", "double", "real":
			return false, "its key column " + name + " is a " + strings.ToUpper(c.Type) + ", whose sampled values need not read back exactly"
		case "enum", "set", "bit", "json",
			"geometry", "point", "linestring", "polygon", "multipoint", "multilinestring", "multipolygon", "geometrycollection":
			return false, "its key column " + name + " is " + strings.ToUpper(c.Type) + ", whose literals do not compare in the index's order"
		}
	}
	return true, ""
}

// dateType is Table.SplitType for a column of type typ: "date" or
// "datetime", or "" for any other type. TIMESTAMP is not cut by date: its
// literals are read in the session time zone, whose changes around
// daylight saving time are not monotonic.
func dateType(typ string) string {
	if typ == "date" || typ == "datetime" {
		return typ
	}
	return ""
}

// loadSnapshot reads tables, columns, primary keys, row estimates and split
// key bounds from one replica.
func loadSnapshot(ctx context.Context, b *replica.Conn, splitCols map[string]string, minRows int64) (*Snapshot, error) {
	s := &Snapshot{Tables: planner.MapCatalog{}, Schemas: map[string]bool{}}
	r, err := b.Fetch("SELECT VERSION(), @@global.time_zone, @@system_time_zone, TIMESTAMPDIFF(SECOND, UTC_TIMESTAMP(), NOW())", 1)
	if err != nil {
		return nil, err
	}
	if len(r.Rows) == 1 {
		row := r.Rows[0]
		s.Version = row[0].ToString()
		if off, err := row[3].ToInt64(); err == nil {
			s.TimeZone = Zone(row[1].ToString(), row[2].ToString(), int(off))
		}
	}
	s.Charset = uint8(b.MySQL.CharacterSet)
	r, err = b.Fetch("SELECT SCHEMA_NAME FROM information_schema.SCHEMATA", 100000)
	if err != nil {
		return nil, err
	}
	for _, row := range r.Rows {
		s.Schemas[row[0].ToString()] = true
	}
	r, err = b.Fetch(`SELECT TABLE_SCHEMA, TABLE_NAME, IFNULL(TABLE_ROWS, 0) FROM information_schema.TABLES
		WHERE TABLE_TYPE = 'BASE TABLE' AND TABLE_SCHEMA NOT IN ('mysql','information_schema','performance_schema','sys')`, 1000000)
	if err != nil {
		return nil, err
	}
	for _, row := range r.Rows {
		s.Tables.Add(&planner.Table{Schema: row[0].ToString(), Name: row[1].ToString(), Rows: rowCount(row[2])})
	}
	r, err = b.Fetch(`SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, IS_NULLABLE,
		IFNULL(CHARACTER_SET_NAME, ''), IFNULL(COLLATION_NAME, ''), IFNULL(NUMERIC_SCALE, 0),
		IFNULL(NUMERIC_PRECISION, 0) FROM information_schema.COLUMNS
		WHERE TABLE_SCHEMA NOT IN ('mysql','information_schema','performance_schema','sys')
		ORDER BY TABLE_SCHEMA, TABLE_NAME, ORDINAL_POSITION`, 10000000)
	if err != nil {
		return nil, err
	}
	unsigned, nullable := map[string]bool{}, map[string]bool{}
	for _, row := range r.Rows {
		t, ok := s.Tables.Table(row[0].ToString(), row[1].ToString())
		if !ok {
			continue
		}
		col := planner.Column{Name: row[2].ToString(), Type: strings.ToLower(row[3].ToString()),
			Charset: row[6].ToString(), Collation: row[7].ToString()}
		if col.Type == "decimal" {
			// IFNULL(NUMERIC_SCALE, 0) is DECIMAL(20,0) on MariaDB
			// (BIGINT UNSIGNED with an INT), which ToInt64 refuses.
			col.Scale, _ = strconv.Atoi(row[8].ToString())
			col.Precision, _ = strconv.Atoi(row[9].ToString())
		}
		t.Columns = append(t.Columns, col)
		if strings.Contains(strings.ToLower(row[4].ToString()), "unsigned") {
			unsigned[t.Schema+"."+t.Name+"."+col.Name] = true
		}
		if row[5].ToString() == "YES" {
			nullable[t.Schema+"."+t.Name+"."+col.Name] = true
		}
	}
	r, err = b.Fetch(`SELECT TABLE_SCHEMA, TABLE_NAME, GROUP_CONCAT(COLUMN_NAME ORDER BY SEQ_IN_INDEX SEPARATOR ',')
		FROM information_schema.STATISTICS WHERE INDEX_NAME = 'PRIMARY'
		AND TABLE_SCHEMA NOT IN ('mysql','information_schema','performance_schema','sys')
		GROUP BY TABLE_SCHEMA, TABLE_NAME`, 1000000)
	if err != nil {
		return nil, err
	}
	for _, row := range r.Rows {
		t, ok := s.Tables.Table(row[0].ToString(), row[1].ToString())
		if !ok {
			continue
		}
		pk := strings.Split(row[2].ToString(), ",")
		if c, ok := t.Column(pk[0]); ok && len(pk) == 1 && splittable(t, c, unsigned) {
			t.SplitColumn, t.SplitType, t.SplitUnique = c.Name, dateType(c.Type), true
			continue
		}
		// Composite or of another type: cut at keys sampled from the
		// index (keysample.go), if literals compare as the index orders.
		if ok, why := keyComparable(t, pk); ok {
			t.KeyColumns = pk
		} else {
			t.Unsplittable = why
		}
	}
	// No primary key: InnoDB clusters the rows on the first UNIQUE index
	// whose columns are all NOT NULL. When a table has exactly one such
	// index and it is one splittable column, its ranges are the table's
	// own order: split there, as split_columns would (not SplitUnique,
	// which stands for a primary key: FORCE INDEX (PRIMARY), key order).
	r, err = b.Fetch(`SELECT s.TABLE_SCHEMA, s.TABLE_NAME, COUNT(DISTINCT s.INDEX_NAME),
		MIN(s.COLUMN_NAME), COUNT(*) FROM information_schema.STATISTICS s
		JOIN information_schema.TABLES t ON t.TABLE_SCHEMA = s.TABLE_SCHEMA AND t.TABLE_NAME = s.TABLE_NAME
		WHERE s.NON_UNIQUE = 0 AND s.INDEX_NAME <> 'PRIMARY' AND t.ENGINE = 'InnoDB'
		AND s.TABLE_SCHEMA NOT IN ('mysql','information_schema','performance_schema','sys')
		AND NOT EXISTS (SELECT 1 FROM information_schema.STATISTICS n WHERE n.TABLE_SCHEMA = s.TABLE_SCHEMA
			AND n.TABLE_NAME = s.TABLE_NAME AND n.INDEX_NAME = s.INDEX_NAME AND n.NULLABLE = 'YES')
		AND NOT EXISTS (SELECT 1 FROM information_schema.STATISTICS p WHERE p.TABLE_SCHEMA = s.TABLE_SCHEMA
			AND p.TABLE_NAME = s.TABLE_NAME AND p.INDEX_NAME = 'PRIMARY')
		GROUP BY s.TABLE_SCHEMA, s.TABLE_NAME`, 1000000)
	if err != nil {
		return nil, err
	}
	for _, row := range r.Rows {
		t, ok := s.Tables.Table(row[0].ToString(), row[1].ToString())
		if !ok || t.SplitColumn != "" || len(t.KeyColumns) > 0 || row[2].ToString() != "1" || row[4].ToString() != "1" {
			continue
		}
		if c, ok := t.Column(row[3].ToString()); ok && splittable(t, c, unsigned) && !nullable[t.Schema+"."+t.Name+"."+c.Name] {
			t.SplitColumn, t.SplitType = c.Name, dateType(c.Type)
		}
	}
	// The columns of every index, the first of each apart: a GROUP BY
	// on a first column may group through the index, not a temporary
	// table (planner.Table.IndexLeads); a WHERE on no indexed column
	// leaves the access path the same for any literal (Indexed).
	r, err = b.Fetch(`SELECT DISTINCT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME, SEQ_IN_INDEX = 1
		FROM information_schema.STATISTICS
		WHERE TABLE_SCHEMA NOT IN ('mysql','information_schema','performance_schema','sys')
		ORDER BY TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME`, 1000000)
	if err != nil {
		return nil, err
	}
	for _, row := range r.Rows {
		if t, ok := s.Tables.Table(row[0].ToString(), row[1].ToString()); ok {
			col := strings.ToLower(row[2].ToString())
			if row[3].ToString() == "1" && !slices.Contains(t.IndexLeads, col) {
				t.IndexLeads = append(t.IndexLeads, col)
			}
			if !slices.Contains(t.Indexed, col) {
				t.Indexed = append(t.Indexed, col)
			}
		}
	}
	for key, col := range splitCols {
		db, name, _ := strings.Cut(key, ".")
		if t, ok := s.Tables.Table(db, name); ok {
			if c, ok := t.Column(col); ok && (integerTypes[c.Type] || dateType(c.Type) != "") {
				t.SplitUnique = t.SplitUnique && strings.EqualFold(t.SplitColumn, c.Name)
				t.SplitColumn, t.SplitType, t.KeyColumns = c.Name, dateType(c.Type), nil
				t.SplitNullable = nullable[t.Schema+"."+t.Name+"."+c.Name]
			}
		}
	}
	s.recoded = recodedNames(s.Tables)
	if err := loadPartitions(b, s.Tables); err != nil {
		return nil, err
	}
	// Split key bounds: one index dive at each end per table. Row estimates
	// from information_schema can be stale (zero on a freshly loaded
	// replica), so bounds are read for every splittable table unless there
	// are very many, and the key width then stands in for an estimate
	// below minRows.
	many := len(s.Tables) > 2000
	for _, t := range s.Tables {
		if t.SplitColumn == "" || many && t.Rows < minRows {
			continue
		}
		q := fmt.Sprintf("SELECT MIN(%s), MAX(%s) FROM %s.%s", sqlparse.QuoteID(t.SplitColumn), sqlparse.QuoteID(t.SplitColumn), sqlparse.QuoteID(t.Schema), sqlparse.QuoteID(t.Name))
		r, err := b.Fetch(q, 1)
		if err != nil {
			return nil, err
		}
		if len(r.Rows) == 1 && !r.Rows[0][0].IsNull() {
			if t.SplitType != "" {
				lo, ok1 := pushdown.DateKey(t.Split(), r.Rows[0][0].ToString())
				hi, ok2 := pushdown.DateKey(t.Split(), r.Rows[0][1].ToString())
				if ok1 && ok2 {
					t.Min, t.Max = lo, hi // days or seconds: not a row count
				}
				continue
			}
			t.Min, _ = r.Rows[0][0].ToInt64()
			t.Max, _ = r.Rows[0][1].ToInt64()
			t.Rows = rowsEstimate(t.Rows, t.Min, t.Max, minRows)
		}
	}
	return s, nil
}

// sameTable reports whether a plan made over ta holds over tb: the same
// columns, keys, indexes and partitions, and a size within a factor of
// two (resized). Plans do not read row counts (fragments read the key
// bounds when they run), but routing by cost does: a statement routed to
// one replica while its table was empty would otherwise pass through for
// good after the table filled. A growing table changes its version once
// per doubling.
func sameTable(ta, tb *planner.Table) bool {
	return ta.SplitColumn == tb.SplitColumn && ta.SplitType == tb.SplitType && ta.SplitUnique == tb.SplitUnique &&
		slices.Equal(ta.KeyColumns, tb.KeyColumns) && slices.Equal(ta.Columns, tb.Columns) &&
		slices.Equal(ta.IndexLeads, tb.IndexLeads) && slices.Equal(ta.Indexed, tb.Indexed) &&
		slices.EqualFunc(ta.Partitions, tb.Partitions, func(x, y planner.Partition) bool { return x.Name == y.Name }) &&
		!resized(ta.Rows, tb.Rows)
}

// resized reports a table size that moved by more than a factor of two
// and by more than 1,000 rows: enough to change a routing decision
// (route_small_rows is 20,000 by default), rare enough not to drop the
// plan cache at every catalog refresh.
func resized(a, b int64) bool {
	lo, hi := min(a, b), max(a, b)
	return hi-lo > 1000 && hi > 2*lo
}

// rowsEstimate is a table's row estimate given information_schema's
// estimate est and the split key's bounds. The key width stands in for a
// missing or stale-empty estimate (below minRows) only: with gaps in the
// keys it overstates the rows (75M for the 10M rows of the sample data),
// which would pick the wrong split table and cut row plans too fine.
func rowsEstimate(est, lo, hi, minRows int64) int64 {
	if w := hi - lo + 1; est < minRows && w > est {
		return w
	}
	return est
}
