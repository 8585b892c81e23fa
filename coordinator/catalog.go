package coordinator

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/shoaldb/shoal/planner"
)

// snapshot is one immutable reading of the replicas' schema. Queries read
// the current snapshot through an atomic pointer; a background loop
// replaces it, so no query ever reads information_schema.
type snapshot struct {
	tables  planner.MapCatalog
	schemas map[string]bool
	version string // server version of the replica read
	gen     uint64
	// samples are the split-key samples by "db.table" (sample.go);
	// fragments() cuts a table without one by key width.
	samples map[string]*tableSample
}

// readCatalog reads a new snapshot from b and samples the split keys of
// its large tables, reusing the current snapshot's samples that still
// hold. Sampling failures are logged, not returned (those tables are cut
// by key width), unless the connection broke.
func (s *Server) readCatalog(ctx context.Context, b *backend) (*snapshot, error) {
	snap, err := loadSnapshot(ctx, b, s.cfg.SplitColumns, s.cfg.MinRowsPerFragment)
	if err != nil {
		return nil, err
	}
	slots := 0
	for _, w := range s.workers {
		slots += w.slots()
	}
	fragments := max(slots*s.cfg.FragmentsPerSlot, 16)
	start := time.Now()
	errs := sampleTables(b, snap, s.snap.Load(), fragments, s.cfg.MinRowsPerFragment, start)
	for _, err := range errs {
		if connLost(err) {
			return nil, err // the connection broke: the caller drops it and tries another replica
		}
		s.log.Warn("split key sample failed; cutting the table by key width", "err", err)
	}
	for key, ts := range snap.samples {
		if ts.at.Equal(start) && ts.sample != nil {
			s.log.Info("split key sampled", "table", key, "intervals", len(ts.sample.Rows), "probes", ts.probes, "took", ts.took)
		}
	}
	return snap, nil
}

var integerTypes = map[string]bool{"tinyint": true, "smallint": true, "mediumint": true, "int": true, "integer": true, "bigint": true}

// loadSnapshot reads tables, columns, primary keys, row estimates and split
// key bounds from one replica.
func loadSnapshot(ctx context.Context, b *backend, splitCols map[string]string, minRows int64) (*snapshot, error) {
	s := &snapshot{tables: planner.MapCatalog{}, schemas: map[string]bool{}}
	r, err := b.fetch("SELECT VERSION()", 1)
	if err != nil {
		return nil, err
	}
	if len(r.Rows) == 1 {
		s.version = r.Rows[0][0].ToString()
	}
	r, err = b.fetch("SELECT SCHEMA_NAME FROM information_schema.SCHEMATA", 100000)
	if err != nil {
		return nil, err
	}
	for _, row := range r.Rows {
		s.schemas[row[0].ToString()] = true
	}
	r, err = b.fetch(`SELECT TABLE_SCHEMA, TABLE_NAME, IFNULL(TABLE_ROWS, 0) FROM information_schema.TABLES
		WHERE TABLE_TYPE = 'BASE TABLE' AND TABLE_SCHEMA NOT IN ('mysql','information_schema','performance_schema','sys')`, 1000000)
	if err != nil {
		return nil, err
	}
	for _, row := range r.Rows {
		n, _ := row[2].ToInt64()
		s.tables.Add(&planner.Table{Schema: row[0].ToString(), Name: row[1].ToString(), Rows: n})
	}
	r, err = b.fetch(`SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME, DATA_TYPE, COLUMN_TYPE FROM information_schema.COLUMNS
		WHERE TABLE_SCHEMA NOT IN ('mysql','information_schema','performance_schema','sys')
		ORDER BY TABLE_SCHEMA, TABLE_NAME, ORDINAL_POSITION`, 10000000)
	if err != nil {
		return nil, err
	}
	unsigned := map[string]bool{}
	for _, row := range r.Rows {
		t, ok := s.tables.Table(row[0].ToString(), row[1].ToString())
		if !ok {
			continue
		}
		col := planner.Column{Name: row[2].ToString(), Type: strings.ToLower(row[3].ToString())}
		t.Columns = append(t.Columns, col)
		if strings.Contains(strings.ToLower(row[4].ToString()), "unsigned") {
			unsigned[t.Schema+"."+t.Name+"."+col.Name] = true
		}
	}
	r, err = b.fetch(`SELECT TABLE_SCHEMA, TABLE_NAME, GROUP_CONCAT(COLUMN_NAME ORDER BY SEQ_IN_INDEX SEPARATOR ',')
		FROM information_schema.STATISTICS WHERE INDEX_NAME = 'PRIMARY'
		AND TABLE_SCHEMA NOT IN ('mysql','information_schema','performance_schema','sys')
		GROUP BY TABLE_SCHEMA, TABLE_NAME`, 1000000)
	if err != nil {
		return nil, err
	}
	for _, row := range r.Rows {
		t, ok := s.tables.Table(row[0].ToString(), row[1].ToString())
		if !ok {
			continue
		}
		pk := row[2].ToString()
		if strings.Contains(pk, ",") {
			continue // composite keys are not split (yet)
		}
		if c, ok := t.Column(pk); ok && integerTypes[c.Type] && !(c.Type == "bigint" && unsigned[t.Schema+"."+t.Name+"."+c.Name]) {
			t.SplitColumn = c.Name
		}
	}
	for key, col := range splitCols {
		db, name, _ := strings.Cut(key, ".")
		if t, ok := s.tables.Table(db, name); ok {
			if c, ok := t.Column(col); ok && integerTypes[c.Type] {
				t.SplitColumn = c.Name
			}
		}
	}
	// Split key bounds: one index dive at each end per table. Row estimates
	// from information_schema can be stale (zero on a freshly loaded
	// replica), so bounds are read for every splittable table unless there
	// are very many, and the key width then stands in for a low estimate.
	many := len(s.tables) > 2000
	for _, t := range s.tables {
		if t.SplitColumn == "" || many && t.Rows < minRows {
			continue
		}
		q := fmt.Sprintf("SELECT MIN(`%s`), MAX(`%s`) FROM `%s`.`%s`", escapeID(t.SplitColumn), escapeID(t.SplitColumn), escapeID(t.Schema), escapeID(t.Name))
		r, err := b.fetch(q, 1)
		if err != nil {
			return nil, err
		}
		if len(r.Rows) == 1 && !r.Rows[0][0].IsNull() {
			t.Min, _ = r.Rows[0][0].ToInt64()
			t.Max, _ = r.Rows[0][1].ToInt64()
			if w := t.Max - t.Min + 1; w > t.Rows {
				t.Rows = w
			}
		}
	}
	return s, nil
}

// sameSchema reports whether two snapshots agree on everything a plan
// depends on: databases, tables, their columns and split columns.
func sameSchema(a, b *snapshot) bool {
	if len(a.tables) != len(b.tables) || len(a.schemas) != len(b.schemas) || a.version != b.version {
		return false
	}
	for db := range a.schemas {
		if !b.schemas[db] {
			return false
		}
	}
	for key, ta := range a.tables {
		tb, ok := b.tables[key]
		if !ok || ta.SplitColumn != tb.SplitColumn || !slices.Equal(ta.Columns, tb.Columns) {
			return false
		}
	}
	return true
}
