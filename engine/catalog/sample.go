package catalog

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"vitess.io/vitess/go/mysql/sqlerror"
	"vitess.io/vitess/go/sqltypes"

	"github.com/shoaldb/shoal/planner"
	"github.com/shoaldb/shoal/pushdown"
	"github.com/shoaldb/shoal/replica"
	"github.com/shoaldb/shoal/sqlerr"
	"github.com/shoaldb/shoal/sqlparse"
)

// Key sampling: how a table's rows spread over its split key, read at
// catalog refresh (in the background, never per query) so fragments() can
// cut ranges of about equal rows instead of equal key width. ontime's ids,
// like many real keys, have dense runs, sparse runs and holes: ranges of
// equal width over them differ by 2x or more in rows.
//
// The estimates are InnoDB's own range estimates (records_in_range), read
// with EXPLAIN: for `col >= a AND col < b` on an index whose first column
// is col, InnoDB descends the B-tree at both ends and counts the pages
// between them at the level where the paths part, reading at most a few
// pages per estimate and no rows. The count is proportional to the rows
// in the range (it is pages times an average of rows per page, so it
// measures bytes to scan, which is what a fragment's time follows), it
// sees holes and density alike, and it is as fresh as the data. Many
// ranges are estimated in one statement (EXPLAIN of a UNION ALL of
// SELECTs), so a sample of a few hundred intervals is two or three round
// trips. pushdown.Sample decides where to probe: evenly first, then finer
// where the rows are.
//
// Rejected: mysql.column_stats histograms exist only after ANALYZE TABLE
// ... PERSISTENT FOR COLUMNS, which reads the whole table and writes on
// the replica (errant GTIDs on a read-only replica), and they go stale
// between runs; `ORDER BY id LIMIT 1 OFFSET k` reads k rows per quantile;
// `WHERE RAND() < p` reads the whole table; index dives (`WHERE id >= ?
// ORDER BY id LIMIT 1`) find holes but not how densely a run is filled.

// tableSample is a key sample and what it was taken for. A failed sample
// (sample nil, err set) is kept like a good one, so a table that cannot be
// sampled is tried again only when a good sample would be retaken.
type tableSample struct {
	sample *pushdown.KeySample
	// keys are the boundary keys of a SplitKey table (keysample.go), in
	// index order, each one SQL literal per key column.
	keys      [][]string
	err       error
	splitCol  string
	min, max  int64
	rows      int64
	fragments int // the most fragments it was sized for
	at        time.Time
	took      time.Duration
	probes    int
}

const (
	// maxProbesPerStatement bounds the SELECTs of one EXPLAIN.
	maxProbesPerStatement = 256
	// maxSampleAge is how long a sample is reused while its table's size
	// and bounds hold still.
	maxSampleAge = 10 * time.Minute
	// maxProbesPerRefresh bounds the estimates of all tables in one
	// catalog refresh; the largest tables are sampled first.
	maxProbesPerRefresh = 4096
)

// reusable reports whether old still describes t well enough for up to
// fragments ranges: same split column, bounds within 5% of the key span,
// row estimate within 10%, sized for as many fragments, and young.
func (old *tableSample) reusable(t *planner.Table, fragments int, now time.Time) bool {
	if old == nil || old.splitCol != SplitKey(t) || old.fragments < fragments || now.Sub(old.at) > maxSampleAge {
		return false
	}
	span := float64(old.max-old.min) + 1
	moved := func(a, b int64) bool { return float64(a-b) > 0.05*span || float64(b-a) > 0.05*span }
	if moved(t.Min, old.min) || moved(t.Max, old.max) {
		return false
	}
	return float64(t.Rows) <= 1.1*float64(old.rows) && float64(t.Rows) >= 0.9*float64(old.rows)
}

// sampleTables samples the split keys of snap's splittable tables worth
// more than one fragment, reusing prev's samples where they still hold.
// A table whose sample fails is cut by key width; the failures are
// returned for the log. A broken connection stops the sampling.
func sampleTables(b *replica.Conn, snap, prev *Snapshot, fragments int, minRows int64, now time.Time) []error {
	snap.samples = map[string]*tableSample{}
	var tables []*planner.Table
	for key, t := range snap.Tables {
		if t.Pinned || t.Rows < 2*max(minRows, 1) {
			continue
		}
		switch t.Split() {
		case planner.SplitNone:
			continue
		case planner.SplitKey:
			if t.Rows > maxKeyScanRows {
				continue
			}
		default:
			if t.Max <= t.Min {
				continue
			}
		}
		if prev != nil {
			if old := prev.samples[key]; old.reusable(t, fragments, now) {
				snap.samples[key] = old
				continue
			}
		}
		tables = append(tables, t)
	}
	// Largest first, within the refresh's budget.
	slices.SortFunc(tables, func(a, b *planner.Table) int {
		return cmp.Or(cmp.Compare(b.Rows, a.Rows), cmp.Compare(a.Schema, b.Schema), cmp.Compare(a.Name, b.Name))
	})
	var errs []error
	budget := maxProbesPerRefresh
	for _, t := range tables {
		o := pushdown.OptionsFor(fragments)
		if o.Budget > budget {
			break
		}
		var ts *tableSample
		var err error
		if t.Split() == planner.SplitKey {
			ts, err = sampleKeys(b, t, fragments)
		} else {
			ts, err = sampleTable(b, t, o)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("sampling %s.%s: %w", t.Schema, t.Name, err))
			if connLost(err) {
				break // the connection is gone: readCatalog reports it
			}
			ts = &tableSample{err: err, splitCol: SplitKey(t), min: t.Min, max: t.Max, rows: t.Rows}
		}
		budget -= ts.probes
		ts.fragments, ts.at = fragments, now
		snap.samples[t.Schema+"."+t.Name] = ts
	}
	return errs
}

// sampleTable samples t's split column on b.
func sampleTable(b *replica.Conn, t *planner.Table, o pushdown.SampleOptions) (*tableSample, error) {
	start := time.Now()
	index, err := splitIndex(b, t)
	if err != nil {
		return nil, err
	}
	if index == "" {
		return nil, fmt.Errorf("no index starts with %s", t.SplitColumn)
	}
	exactBelow, err := exactEstimates(b, t)
	if err != nil {
		return nil, err
	}
	probes := 0
	s, err := pushdown.Sample(t.Min, t.Max, o, func(iv [][2]int64) ([]float64, error) {
		out := make([]float64, 0, len(iv))
		for len(iv) > 0 {
			n := min(len(iv), maxProbesPerStatement)
			r, err := b.Fetch(probeSQL(t, index, iv[:n]), n+1)
			if err != nil {
				return nil, err
			}
			est, err := parseProbe(r, n)
			if err != nil {
				return nil, err
			}
			for i, e := range est {
				if e < exactBelow {
					est[i] = 2 * e // an exact count: bring it to the scale of the others
				}
			}
			out = append(out, est...)
			probes += n
			iv = iv[n:]
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	if !s.Valid() {
		return nil, fmt.Errorf("the range estimates hold no rows")
	}
	return &tableSample{sample: s, splitCol: SplitKey(t), min: t.Min, max: t.Max, rows: t.Rows,
		took: time.Since(start), probes: probes}, nil
}

// exactEstimates returns the estimate below which InnoDB's range estimate
// is an exact count rather than an extrapolation (0: unknown).
//
// InnoDB reads up to 10 pages of a level to count the records of a range
// (N_PAGES_READ_LIMIT); a range on at most that many leaf pages gets its
// exact row count. A larger range gets the pages counted one level up
// times the records per page of the pages read, and that estimate is then
// doubled ("in trees whose height is > 1 our algorithm tends to
// underestimate: multiply the estimate by 2"): measured on ontime, 2.0 to
// 2.2 times the rows. Mixing both scales in one sample would weigh a dense
// interval twice as much per row as a sparse one next to it, so exact
// counts are doubled too. They are told apart by size: exact counts are
// at most ~10 pages of rows, doubled estimates at least ~20, and 14 pages
// of rows (the table's rows per page from information_schema) lies
// between.
func exactEstimates(b *replica.Conn, t *planner.Table) (float64, error) {
	r, err := b.Fetch(fmt.Sprintf(`SELECT IFNULL(TABLE_ROWS, 0), IFNULL(DATA_LENGTH, 0), @@innodb_page_size
		FROM information_schema.TABLES WHERE TABLE_SCHEMA = %s AND TABLE_NAME = %s AND ENGINE = 'InnoDB'`,
		sqltypes.EncodeStringSQL(t.Schema), sqltypes.EncodeStringSQL(t.Name)), 1)
	if err != nil || len(r.Rows) == 0 {
		return 0, err
	}
	var v [3]float64
	for i := range v {
		v[i], _ = strconv.ParseFloat(r.Rows[0][i].ToString(), 64)
	}
	rows, bytes, page := v[0], v[1], v[2]
	if rows <= 0 || bytes <= 0 || page <= 0 {
		return 0, nil
	}
	return 14 * rows / (bytes / page), nil
}

// splitIndex names an index of t whose first column is the split column,
// the primary key first.
func splitIndex(b *replica.Conn, t *planner.Table) (string, error) {
	r, err := b.Fetch(fmt.Sprintf(`SELECT INDEX_NAME FROM information_schema.STATISTICS
		WHERE TABLE_SCHEMA = %s AND TABLE_NAME = %s AND COLUMN_NAME = %s AND SEQ_IN_INDEX = 1
		ORDER BY INDEX_NAME = 'PRIMARY' DESC, NON_UNIQUE, INDEX_NAME LIMIT 1`,
		sqltypes.EncodeStringSQL(t.Schema), sqltypes.EncodeStringSQL(t.Name), sqltypes.EncodeStringSQL(t.SplitColumn)), 1)
	if err != nil {
		return "", err
	}
	if len(r.Rows) == 0 {
		return "", nil
	}
	return r.Rows[0][0].ToString(), nil
}

// probeSQL is one EXPLAIN estimating the rows of each interval: SELECT i
// of the UNION ALL (EXPLAIN id i) is interval i-1.
func probeSQL(t *planner.Table, index string, iv [][2]int64) string {
	var sb strings.Builder
	sb.WriteString("EXPLAIN ")
	from := fmt.Sprintf("SELECT 1 FROM %s.%s FORCE INDEX (%s) WHERE %s >= ",
		sqlparse.QuoteID(t.Schema), sqlparse.QuoteID(t.Name), sqlparse.QuoteID(index), sqlparse.QuoteID(t.SplitColumn))
	col := " AND " + sqlparse.QuoteID(t.SplitColumn) + " < "
	lit := func(v int64) string { return strconv.FormatInt(v, 10) }
	if k := t.Split(); k == planner.SplitDate || k == planner.SplitDatetime {
		lit = func(v int64) string { return pushdown.DateLiteral(k, v) }
	}
	for i, r := range iv {
		if i > 0 {
			sb.WriteString(" UNION ALL ")
		}
		sb.WriteString(from)
		sb.WriteString(lit(r[0]))
		sb.WriteString(col)
		sb.WriteString(lit(r[1]))
	}
	return sb.String()
}

// parseProbe reads the estimates of n intervals from probeSQL's EXPLAIN:
// the "rows" column of the rows whose "id" is 1..n (MySQL and MariaDB
// place the columns differently; a UNION RESULT row has no id).
func parseProbe(r *sqltypes.Result, n int) ([]float64, error) {
	idCol, rowsCol := -1, -1
	for i, f := range r.Fields {
		switch strings.ToLower(f.Name) {
		case "id":
			idCol = i
		case "rows":
			rowsCol = i
		}
	}
	if idCol < 0 || rowsCol < 0 {
		return nil, fmt.Errorf("EXPLAIN has no id or rows column")
	}
	out := make([]float64, n)
	seen := 0
	for _, row := range r.Rows {
		if row[idCol].IsNull() {
			continue
		}
		id, err := strconv.ParseInt(row[idCol].ToString(), 10, 64)
		if err != nil || id < 1 || id > int64(n) {
			return nil, fmt.Errorf("EXPLAIN row id %s out of 1..%d", row[idCol].ToString(), n)
		}
		est := 0.0 // NULL rows: nothing to read ("Impossible WHERE")
		if !row[rowsCol].IsNull() {
			if est, err = strconv.ParseFloat(row[rowsCol].ToString(), 64); err != nil || est < 0 {
				return nil, fmt.Errorf("EXPLAIN rows %s: not a row count", row[rowsCol].ToString())
			}
		}
		out[id-1] = est
		seen++
	}
	if seen != n {
		return nil, fmt.Errorf("EXPLAIN answered %d of %d intervals", seen, n)
	}
	return out, nil
}

// connLost reports a client-side error of the replica connection (CR_*,
// 2000-2999): the connection cannot be used any more. Errors of the
// sampling itself (no usable index, an EXPLAIN it cannot read) are not.
func connLost(err error) bool {
	var se *sqlerror.SQLError
	return errors.As(err, &se) && sqlerr.IsClientError(int(se.Num))
}
