// Package coldefs finds a statement's result column definitions as the
// replica itself writes them (type, length, decimals, charset, flags), so
// that a distributed or in-memory answer carries exactly the metadata a
// client would get from MariaDB/MySQL; and the cheap statement that
// describes a prepared statement's columns. It imports replica, planner
// and sqlparse (leaves) and is imported by the engine and the front ends.
package coldefs

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pingcap/tidb/pkg/parser/ast"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/planner"
	"github.com/shoaldb/shoal/planner/derivedmerge"
	"github.com/shoaldb/shoal/replica"
	"github.com/shoaldb/shoal/sqlerr"
	"github.com/shoaldb/shoal/sqlparse"
)

// Column definitions as MariaDB writes them.
//
// The result's column definitions (type, length, decimals, charset,
// flags) are the replica's for the client's own statement, not for a
// re-rendering of it, and not merely for the statement with LIMIT 0:
// MariaDB describes a result read from an internal temporary table (GROUP
// BY or ORDER BY it cannot do by an index, DISTINCT, some joins) by that
// table's fields — no BINARY_FLAG on numbers, GROUP_FLAG on group keys,
// NOT NULL and key flags of base columns dropped, decimals 0 for strings,
// other display lengths — and a statement that provably returns no rows
// (LIMIT 0, an impossible WHERE) by its select items. So, once per plan
// (the plan and shape caches keep the answer):
//
//  1. EXPLAIN the client's text: does the top-level SELECT use a
//     temporary table?
//  2. No: the text with LIMIT 0 describes it exactly.
//  3. Yes: the text with a predicate on the split table's key that
//     selects nothing through the primary key (id < the smallest id: one
//     index dive, not an impossible WHERE the optimizer folds) runs the
//     same temporary-table plan over no rows — when EXPLAIN says it does —
//     and its definitions are the statement's. When the statement's WHERE
//     bounds the key on both sides, those ranges are provably empty: the
//     probe bounds it to its window's two smallest keys instead.
//
// Without the client's text (a statement over a pinned query result,
// which no replica holds, is described over the pin's definition) or when
// the text cannot be spliced (sqlparse.SelectClauses), the re-rendered
// statement with LIMIT 0 describes it, as before.

// Query is how a replica describes one statement's result.
type Query struct {
	// Text is the client's statement, "" when a replica cannot run it.
	Text string
	// Meta is the rendered statement with LIMIT 0, the fallback.
	Meta string
	// Empty is a predicate that selects no row of the split table through
	// its primary key, "" when there is none (see EmptyPredicate).
	Empty string
	// Above is Empty's counterpart above the largest key ("" when none):
	// it keeps the plan of a statement whose WHERE bounds the key from
	// below (id >= 100), where Empty's range is provably empty.
	Above string
	// Inside bounds the key to the first two keys of the statement's own
	// window ("" when the window is not bounded on both sides): a range
	// MariaDB cannot prove empty, inside one it keeps its plan for. For a
	// composite key (Key), the window of its first column.
	Inside string
	// Table is the split table, `db`.`name`, for a probe through one of
	// its secondary indexes; "" when unknown.
	Table string
	// Key is the first column of the split table's primary key, qualified
	// as the statement names it, when the table is cut between sampled
	// keys (a composite or text key: planner.SplitKey), "" otherwise. A
	// temporary-table statement is probed below its smallest value or
	// above its largest (keyProbe), read when the statement is described.
	Key string
	// First is the split table's first key column, qualified as the
	// statement names it, and FirstIn the few integers the statement's
	// WHERE bounds it to (tenant_id = 7, tenant_id IN (1, 2): prefixes of
	// a composite key), nil when it does not: the probes on the first
	// column are then provably empty, and one on the key's second column
	// below its smallest value under those prefixes is a dive each
	// (prefixOutside).
	First   string
	FirstIn []int64
	// Joined are the other tables the statement joins (planner.Plan's):
	// a temporary-table statement MariaDB reads from one of them first is
	// probed on that table (joinedProbe).
	Joined []planner.JoinedTable
}

// For is how a replica describes text, planned as p over cat: with the
// probes the split table's key allows.
func For(cat planner.Catalog, p *planner.Plan, text string) Query {
	q := Query{Text: text, Meta: p.MetaSQL, Empty: EmptyPredicate(cat, p), Above: AbovePredicate(cat, p),
		Inside: InsidePredicate(cat, p), Table: TableName(p), Joined: p.Joined}
	if p.Split == planner.SplitKey && len(p.KeyColumns) > 0 {
		q.Key = p.KeyColumns[0]
		if lo, hi := p.KeyFirstLo, p.KeyFirstHi; lo != nil && hi != nil && *hi-*lo >= 2 {
			q.Inside = fmt.Sprintf("%s >= %d AND %s < %d", q.Key, *lo, q.Key, *lo+2)
		}
		if len(p.KeyColumns) > 1 {
			q.First, q.FirstIn = p.KeyColumns[0], prefixes(p.KeyFirstLo, p.KeyFirstHi)
		}
	}
	if p.Split == planner.SplitInt {
		// An integer split column the WHERE bounds to a few values: the
		// first column of a composite key perhaps (a whole-table pin of
		// one is split on it).
		q.First, q.FirstIn = p.SplitColumn, prefixes(p.KeyLo, p.KeyHi)
	}
	if q.FirstIn == nil {
		q.First = ""
	}
	return q
}

// maxPrefixes bounds the values of a key's first column that
// prefixOutside reads the second column's smallest value under, one dive
// each.
const maxPrefixes = 16

// prefixes are the integers lo..hi when both are known and there are at
// most maxPrefixes of them, else nil.
func prefixes(lo, hi *int64) []int64 {
	if lo == nil || hi == nil || *hi < *lo || *hi-*lo >= maxPrefixes {
		return nil
	}
	var out []int64
	for v := *lo; ; v++ {
		out = append(out, v)
		if v == *hi {
			return out
		}
	}
}

// InsidePredicate is Query.Inside for p: the split column within the
// two smallest keys of the window the WHERE clause bounds on both sides
// (id BETWEEN 141233 AND 279322), where EmptyPredicate's and
// AbovePredicate's ranges are provably empty and the scan probe would
// read the whole window. It reads at most two rows.
func InsidePredicate(cat planner.Catalog, p *planner.Plan) string {
	if EmptyPredicate(cat, p) == "" || p.KeyLo == nil || p.KeyHi == nil || *p.KeyHi-*p.KeyLo < 2 {
		return ""
	}
	return fmt.Sprintf("%s >= %d AND %s < %d", p.SplitColumn, *p.KeyLo, p.SplitColumn, *p.KeyLo+2)
}

// TableName is p's split table as Query.Table wants it.
func TableName(p *planner.Plan) string {
	if p.DB == "" || p.Table == "" {
		return ""
	}
	return sqlparse.QuoteID(p.DB) + "." + sqlparse.QuoteID(p.Table)
}

// EmptyPredicate is a predicate on p's split table that the replica
// answers with one primary-key dive and no rows: the split column below
// the smallest key last read, for an integer key. Rows inserted below it
// since would only add rows to a metadata statement.
func EmptyPredicate(cat planner.Catalog, p *planner.Plan) string {
	if p.Split != planner.SplitInt || p.SplitColumn == "" || cat == nil {
		return ""
	}
	t, ok := cat.Table(p.DB, p.Table)
	if !ok || t.Min == math.MinInt64 || t.Max < t.Min {
		return ""
	}
	return fmt.Sprintf("%s < %d", p.SplitColumn, t.Min)
}

// AbovePredicate is EmptyPredicate's bound above the largest key last
// read. Rows inserted above it since would only add rows to a metadata
// statement (more than a few make it fail, and the next probe is tried).
func AbovePredicate(cat planner.Catalog, p *planner.Plan) string {
	if EmptyPredicate(cat, p) == "" {
		return ""
	}
	t, _ := cat.Table(p.DB, p.Table)
	return fmt.Sprintf("%s > %d", p.SplitColumn, t.Max)
}

// maxProbeRows bounds the rows a metadata statement may return (a scalar
// aggregate over no rows returns one).
const maxProbeRows = 10

// Describe returns the result's column definitions for d on b (see
// above). An error is the replica's own for the statement.
func Describe(b *replica.Conn, d Query) ([]*querypb.Field, error) {
	if d.Text == "" {
		return fetchFields(b, d.Meta)
	}
	c, ok := sqlparse.SelectClauses(d.Text)
	if !ok {
		return fetchFields(b, d.Meta)
	}
	if d.Empty != "" || d.Table != "" {
		if direct := explain(b, d.Text); direct.temp {
			if f, ok := probeTemporary(b, c, d, direct); ok {
				return f, nil
			}
		}
	}
	f, err := fetchFields(b, c.WithLimit0(d.Text))
	if err != nil && !replica.Broken(err) {
		// A syntax error the server also gives for the text as the
		// client wrote it is the statement's own: MySQL syntax MariaDB
		// lacks (JSON's -> and ->>), which the parser read and the
		// rendering spells as functions MariaDB has.
		if se, ok := sqlerr.As(err); ok && se.Number() == sqlerr.ErrParse {
			if _, eerr := b.Fetch("EXPLAIN "+d.Text, 1000); eerr != nil {
				if ee, ok := sqlerr.As(eerr); ok && ee.Number() == sqlerr.ErrParse {
					return nil, eerr
				}
			}
		}
		// The text as spliced is refused where the rendering is not
		// (a construct SelectClauses misread): describe the rendering,
		// whose error, if any, is the statement's own.
		return fetchFields(b, d.Meta)
	}
	return f, err
}

// probeTemporary describes a statement whose plan reads its result
// through a temporary table, read through index key ("" for a full scan),
// by the first probe that keeps that plan over no rows (see above).
func probeTemporary(b *replica.Conn, c sqlparse.Clauses, d Query, direct plan) ([]*querypb.Field, bool) {
	if f, ok := joinedProbe(b, c, d, direct.first); ok {
		return f, true
	}
	key := direct.key
	if f, ok := indexProbe(b, c, d, key); ok {
		return f, true
	}
	if d.Empty == "" {
		// No integer key bound known: the primary key's first column
		// below its smallest value, whatever its type, or, for a small
		// table without one, a predicate no row meets that the optimizer
		// cannot fold.
		if f, ok := indexProbe(b, c, d, "PRIMARY"); ok {
			return f, true
		}
		if f, ok := keyProbe(b, c, d); ok {
			return f, true
		}
		return scanProbe(b, c, d.Text)
	}
	for _, pred := range []string{d.Empty, d.Above, d.Inside} {
		// A derived table merged into the statement (planner/derivedmerge):
		// the predicate goes into the derived table's WHERE.
		if probe, ok := derivedmerge.WithInnerPredicate(d.Text, pred); pred != "" && ok && explain(b, probe).temp {
			if f, err := fetchFields(b, probe); err == nil {
				return f, true
			}
		}
		if probe := c.WithPredicate(d.Text, pred); pred != "" && explain(b, probe).temp {
			if f, err := fetchFields(b, probe); err == nil {
				return f, true
			}
		}
	}
	if f, ok := prefixProbe(b, c, d); ok {
		return f, true
	}
	// The statement's own WHERE bounds the key on both sides (id IN (…),
	// a BETWEEN), so both ranges are provably empty and MariaDB drops the
	// plan. The same bound on an expression of the key is not folded: it
	// reads the rows of the statement's own key range, run only when
	// EXPLAIN says they are few.
	col, bound, ok := strings.Cut(d.Empty, " < ")
	if !ok {
		return nil, false
	}
	probe := c.WithPredicate(d.Text, "("+col+" + 0) < "+bound)
	if p := explain(b, probe); !p.temp || p.rows > maxScanProbeRows {
		return nil, false
	}
	f, err := fetchFields(b, probe)
	return f, err == nil
}

func fetchFields(b *replica.Conn, q string) ([]*querypb.Field, error) {
	r, err := b.Fetch(q, maxProbeRows)
	if err != nil {
		return nil, err
	}
	return r.Fields, nil
}

// maxScanProbeRows bounds the rows a probe whose key bound is not
// folded may read (EXPLAIN's estimate for its temporary-table plan).
const maxScanProbeRows = 10000

// plan is what one EXPLAIN says about the top-level SELECT (select 1).
type plan struct {
	temp  bool   // it reads its result through a temporary table
	rows  int64  // the largest row estimate (math.MaxInt64 when unreadable)
	key   string // the index of its one table ("" for a join, a full scan)
	first string // the table (alias) it reads first
	lines int    // EXPLAIN's rows of every select (derived tables, subqueries)
}

// explain runs EXPLAIN q once; a failed EXPLAIN is the zero plan (no
// temporary table).
func explain(b *replica.Conn, q string) plan {
	r, err := b.Fetch("EXPLAIN "+q, 1000)
	if err != nil {
		return plan{}
	}
	id, extra, rows, key, table := -1, -1, -1, -1, -1
	for i, f := range r.Fields {
		switch strings.ToLower(f.Name) {
		case "id":
			id = i
		case "extra":
			extra = i
		case "rows":
			rows = i
		case "key":
			key = i
		case "table":
			table = i
		}
	}
	if id < 0 || extra < 0 {
		return plan{}
	}
	p := plan{lines: len(r.Rows)}
	tables := 0
	for _, row := range r.Rows {
		if row[id].ToString() != "1" {
			continue
		}
		tables++
		if tables == 1 && table >= 0 && !row[table].IsNull() {
			p.first = row[table].ToString()
		}
		if key >= 0 && !row[key].IsNull() {
			p.key = row[key].ToString()
		}
		if strings.Contains(row[extra].ToString(), "Using temporary") {
			p.temp = true
		}
		if rows < 0 || row[rows].IsNull() {
			continue
		}
		// MariaDB types EXPLAIN's rows as text.
		if v, err := strconv.ParseInt(row[rows].ToString(), 10, 64); err == nil {
			p.rows = max(p.rows, v)
		} else {
			p.rows = math.MaxInt64
		}
	}
	if tables != 1 {
		p.key = ""
	}
	return p
}

// indexProbe describes a temporary-table statement that reads its table
// through a secondary index (GROUP BY an indexed column): MariaDB lays out
// the temporary table by the access path, so a probe through the primary
// key would describe another table (BINARY_FLAG on an AVG, say). The
// probe bounds the index's first column below its smallest value (one
// dive to read it, one to find nothing) and is used only when EXPLAIN
// shows it takes the same index and still a temporary table.
func indexProbe(b *replica.Conn, c sqlparse.Clauses, d Query, key string) ([]*querypb.Field, bool) {
	if d.Table == "" || key == "" || strings.EqualFold(key, "PRIMARY") && d.Empty != "" {
		return nil, false
	}
	col, ok := firstColumn(b, d.Table, key)
	if !ok {
		return nil, false
	}
	qc := sqlparse.QuoteID(col)
	m, err := b.Fetch("SELECT MIN("+qc+") FROM "+d.Table, 1)
	if err != nil || len(m.Rows) != 1 || m.Rows[0][0].IsNull() {
		return nil, false
	}
	var lit strings.Builder
	m.Rows[0][0].EncodeSQLStringBuilder(&lit)
	for _, bound := range []string{qc, "(" + qc + " + 0)"} {
		// The bare bound first (one dive); when the statement's own
		// WHERE bounds the column too, that range is provably empty and
		// MariaDB drops the plan, so the bound on an expression of it,
		// which reads the statement's own range: when it is small.
		probe := c.WithPredicate(d.Text, bound+" < "+lit.String())
		p := explain(b, probe)
		if !p.temp || !strings.EqualFold(p.key, key) || bound != qc && p.rows > maxScanProbeRows {
			continue
		}
		if f, err := fetchFields(b, probe); err == nil {
			return f, true
		}
	}
	return nil, false
}

// joinedProbe describes a temporary-table join that MariaDB reads from
// first, another table than the split one (TPC-H's orders, through its
// o_orderdate index, then lineitem by key; ontime's carriers): a probe on
// the split table's key makes MariaDB read the split table first, and it
// lays out its temporary table otherwise (BINARY_FLAG on group keys, an
// EXTRACT's length, a BIGINT for an INT). The first table's primary key
// below its smallest value, else above its largest, keeps it first; the
// probe is used when EXPLAIN says so and keeps the temporary table.
func joinedProbe(b *replica.Conn, c sqlparse.Clauses, d Query, first string) ([]*querypb.Field, bool) {
	i := slices.IndexFunc(d.Joined, func(j planner.JoinedTable) bool { return j.Alias == first })
	if first == "" || i < 0 {
		return nil, false
	}
	j := d.Joined[i]
	col, bounds, ok := primaryBounds(b, sqlparse.QuoteID(j.DB)+"."+sqlparse.QuoteID(j.Name), sqlparse.QuoteID(j.Alias))
	if !ok {
		return nil, false
	}
	for _, bound := range bounds {
		probe := c.WithPredicate(d.Text, col+bound)
		if p := explain(b, probe); !p.temp || p.first != first {
			continue
		}
		if f, err := fetchFields(b, probe); err == nil {
			return f, true
		}
	}
	// A range that selects nothing on the first table's key makes it
	// cheap to read first, and MariaDB may then read the split table
	// first instead, by an index, sorting without a temporary table (an
	// ORM's join of posts to users WHERE users.is_staff ORDER BY posts.id
	// LIMIT 25: users scanned first through a temporary table; with
	// users.id < 1, posts first by user_id, a filesort only). The same
	// bound on an expression of the key is not a range: the plan stays,
	// and the probe reads the first table's rows, used only when EXPLAIN
	// says they are few. Only for an integer key: text or a temporal
	// value plus 0 would warn and match.
	for _, bound := range bounds {
		if _, err := strconv.ParseInt(bound[3:], 10, 64); err != nil {
			continue
		}
		probe := c.WithPredicate(d.Text, "("+col+" + 0)"+bound)
		if p := explain(b, probe); !p.temp || p.first != first || p.rows > maxScanProbeRows {
			continue
		}
		if f, err := fetchFields(b, probe); err == nil {
			return f, true
		}
	}
	return nil, false
}

// primaryOutside is the two predicates on table's primary key, its
// columns qualified by qual, that select no row: its first column below
// its smallest value and above its largest (two index dives to read).
func primaryOutside(b *replica.Conn, table, qual string) ([]string, bool) {
	col, bounds, ok := primaryBounds(b, table, qual)
	if !ok {
		return nil, false
	}
	return []string{col + bounds[0], col + bounds[1]}, true
}

// primaryBounds is primaryOutside's column, qualified, and its two
// comparisons (" < 1", " > 1200").
func primaryBounds(b *replica.Conn, table, qual string) (string, [2]string, bool) {
	col, ok := firstColumn(b, table, "PRIMARY")
	if !ok {
		return "", [2]string{}, false
	}
	qc := sqlparse.QuoteID(col)
	m, err := b.Fetch("SELECT MIN("+qc+"), MAX("+qc+") FROM "+table, 1)
	if err != nil || len(m.Rows) != 1 || m.Rows[0][0].IsNull() || m.Rows[0][1].IsNull() {
		return "", [2]string{}, false
	}
	var lo, hi strings.Builder
	m.Rows[0][0].EncodeSQLStringBuilder(&lo)
	m.Rows[0][1].EncodeSQLStringBuilder(&hi)
	return qual + "." + qc, [2]string{" < " + lo.String(), " > " + hi.String()}, true
}

// keyProbe describes a temporary-table statement over a table cut
// between sampled keys (d.Key) that indexProbe could not: a join, whose
// EXPLAIN names no one index (TPC-H's lineitem, keyed by (l_orderkey,
// l_linenumber), joined to orders was described by LIMIT 0, its select
// items' flags and lengths where MariaDB sends its temporary table's).
// Like EmptyPredicate and AbovePredicate for an integer key, the key's
// first column, qualified as the statement names it, goes below its
// smallest value, else above its largest, and the probe is used when
// EXPLAIN keeps the temporary table.
func keyProbe(b *replica.Conn, c sqlparse.Clauses, d Query) ([]*querypb.Field, bool) {
	if d.Key == "" || d.Table == "" {
		return nil, false
	}
	preds, ok := primaryOutside(b, d.Table, qualifier(d.Key))
	if !ok {
		return nil, false
	}
	for _, pred := range append(preds, d.Inside) {
		if pred == "" {
			continue
		}
		// A derived table merged into the statement (Metabase's source,
		// planner/derivedmerge): the predicate goes into its WHERE, where
		// the split table's name is known.
		if probe, ok := derivedmerge.WithInnerPredicate(d.Text, pred); ok && explain(b, probe).temp {
			if f, err := fetchFields(b, probe); err == nil {
				return f, true
			}
		}
		probe := c.WithPredicate(d.Text, pred)
		if !explain(b, probe).temp {
			continue
		}
		if f, err := fetchFields(b, probe); err == nil {
			return f, true
		}
	}
	return prefixProbe(b, c, d)
}

// prefixProbe describes a temporary-table statement whose WHERE fixes
// the first column of a composite primary key to a few values by
// prefixOutside's predicate, when EXPLAIN says it keeps the temporary
// table and reads few rows.
func prefixProbe(b *replica.Conn, c sqlparse.Clauses, d Query) ([]*querypb.Field, bool) {
	pred, ok := prefixOutside(b, d)
	if !ok {
		return nil, false
	}
	probe := c.WithPredicate(d.Text, pred)
	if p := explain(b, probe); !p.temp || p.rows > maxScanProbeRows {
		return nil, false
	}
	f, err := fetchFields(b, probe)
	return f, err == nil
}

// prefixOutside is the predicate that selects no row of a statement
// whose WHERE fixes the first column of a composite key to a few values
// (WHERE tenant_id = 7, tenant_id IN (1, 2) over PRIMARY KEY (tenant_id,
// id)): the second column below its smallest value under those
// prefixes, one index dive each to read and to find nothing. Below the
// first column's smallest value, or above its largest, the statement's
// own range is provably empty and MariaDB drops its temporary table (the
// result was described by its select items: a DATE or YEARWEEK key
// without NUM_FLAG, COUNT(*) with BINARY_FLAG).
func prefixOutside(b *replica.Conn, d Query) (string, bool) {
	if d.First == "" || len(d.FirstIn) == 0 || d.Table == "" {
		return "", false
	}
	first, ok := keyColumn(b, d.Table, "PRIMARY", 1)
	if !ok || !strings.EqualFold(first, unqualified(d.First)) {
		return "", false
	}
	second, ok := keyColumn(b, d.Table, "PRIMARY", 2)
	if !ok {
		return "", false
	}
	qs := sqlparse.QuoteID(second)
	dives := make([]string, len(d.FirstIn))
	for i, v := range d.FirstIn {
		dives[i] = "SELECT MIN(" + qs + ") AS m FROM " + d.Table + " WHERE " + sqlparse.QuoteID(first) + " = " + strconv.FormatInt(v, 10)
	}
	m, err := b.Fetch("SELECT MIN(m) FROM ("+strings.Join(dives, " UNION ALL ")+") AS prefixes", 1)
	if err != nil || len(m.Rows) != 1 || m.Rows[0][0].IsNull() {
		return "", false
	}
	var lit strings.Builder
	m.Rows[0][0].EncodeSQLStringBuilder(&lit)
	return qualifier(d.First) + "." + qs + " < " + lit.String(), true
}

// unqualified is the column name of col, quoted as the planner
// qualifies it (`e`.`id`: id).
func unqualified(col string) string {
	q := qualifier(col)
	name := strings.TrimPrefix(col[len(q):], ".")
	if len(name) >= 2 && name[0] == '`' && name[len(name)-1] == '`' {
		name = strings.ReplaceAll(name[1:len(name)-1], "``", "`")
	}
	return name
}

// qualifier is the quoted table name that qualifies col, a column
// quoted as the planner qualifies it (`l`.`l_orderkey`: `l`).
func qualifier(col string) string {
	for i := 1; i < len(col); i++ {
		if col[i] != '`' {
			continue
		}
		if i+1 < len(col) && col[i+1] == '`' {
			i++ // an escaped backquote
			continue
		}
		return col[:i+1]
	}
	return col
}

// firstColumn is the first column of index key of table.
func firstColumn(b *replica.Conn, table, key string) (string, bool) {
	return keyColumn(b, table, key, 1)
}

// keyColumn is the seq'th column (from 1) of index key of table.
func keyColumn(b *replica.Conn, table, key string, seq int) (string, bool) {
	r, err := b.Fetch("SHOW INDEX FROM "+table+" WHERE Key_name = "+sqlparse.QuoteString([]byte(key))+" AND Seq_in_index = "+strconv.Itoa(seq), 10)
	if err != nil || len(r.Rows) != 1 {
		return "", false
	}
	for i, f := range r.Fields {
		if strings.EqualFold(f.Name, "Column_name") {
			col := r.Rows[0][i].ToString()
			return col, col != ""
		}
	}
	return "", false
}

// scanProbe describes a temporary-table statement over a small table
// with no usable key: RAND() < 0 selects no row and is not folded, so the
// plan reads the rows (only when EXPLAIN plans one table read of at most
// maxScanProbeRows rows) into the same temporary table.
func scanProbe(b *replica.Conn, c sqlparse.Clauses, text string) ([]*querypb.Field, bool) {
	probe := c.WithPredicate(text, "RAND() < 0")
	if p := explain(b, probe); !p.temp || p.lines != 1 || p.rows > maxScanProbeRows {
		return nil, false
	}
	f, err := fetchFields(b, probe)
	return f, err == nil
}

// Wait bounds one replica's answer to On.
const Wait = 3 * time.Second

// On runs q on one connection of pool and returns its columns, within Wait. Past it
// the connection is closed, which ends the read; only a connection stuck
// in its pre-use ping outlives the call, and closes itself once the ping
// returns.
func On(ctx context.Context, pool *replica.Pool, q string, maxRows int) ([]*querypb.Field, error) {
	ctx, cancel := context.WithTimeout(ctx, Wait)
	defer cancel()
	type answer struct {
		fields []*querypb.Field
		err    error
	}
	ch := make(chan answer, 1)
	var (
		mu       sync.Mutex
		cur      *replica.Conn // the connection reading, for the timeout to close
		timedOut bool
	)
	go func() {
		b, err := pool.Get(ctx)
		if err != nil {
			ch <- answer{nil, err}
			return
		}
		mu.Lock()
		if timedOut {
			mu.Unlock()
			b.Close()
			ch <- answer{nil, ctx.Err()}
			return
		}
		cur = b
		mu.Unlock()
		r, err := b.Fetch(q, maxRows)
		if ctx.Err() != nil {
			err = ctx.Err() // closed under it: never pool it
		}
		pool.Put(b, err)
		if err != nil {
			ch <- answer{nil, err}
			return
		}
		ch <- answer{r.Fields, nil}
	}()
	select {
	case a := <-ch:
		return a.fields, a.err
	case <-ctx.Done():
		mu.Lock()
		timedOut = true
		reading := cur
		mu.Unlock()
		if reading != nil {
			reading.Close()
			<-ch
		}
		return nil, ctx.Err()
	}
}

// MetadataQuery classifies a statement as a text query would be and
// returns the statement that gives its result columns ("" when there is
// none cheap to run), or the error the statement would get.
func MetadataQuery(text string) (string, error) {
	stmts, perr := sqlparse.Parse(text)
	if perr != nil || len(stmts) != 1 {
		if len(stmts) > 1 { // as the server refuses it: the text reaches no replica
			near, line := sqlparse.Second(text, stmts[0])
			return "", sqlerr.Syntax(near, line)
		}
		switch kind, why := planner.ClassifyUnparsed(text); kind {
		case planner.Refuse:
			return "", sqlerr.ReadOnly(why)
		case planner.Unparsable:
			return "", sqlerr.Syntax(sqlparse.FirstToken(text))
		}
		return "", nil
	}
	kind, why := planner.Classify(stmts[0])
	switch kind {
	case planner.Refuse:
		return "", sqlerr.ReadOnly(why)
	case planner.Named:
		return "", sqlerr.New(sqlerr.ErrUnsupportedPS, "HY000", "This command is not supported in the prepared statement protocol yet")
	}
	// The statement's own text (column names are the client's expressions)
	// with LIMIT 0 appended, or its own top-level LIMIT made LIMIT 0 (a
	// prepare does not run the statement: MariaDB describes it by its
	// select items whatever its LIMIT, as LIMIT 0 does); not with an INTO
	// or locking clause.
	switch s := stmts[0].(type) {
	case *ast.SelectStmt:
		if s.SelectIntoOpt != nil || s.LockInfo != nil && s.LockInfo.LockType != ast.SelectLockNone {
			return "", nil
		}
		if s.Limit != nil {
			c, ok := sqlparse.SelectClauses(text)
			if !ok || c.Limit < 0 {
				return "", nil
			}
			return c.WithLimit0(text), nil
		}
	case *ast.SetOprStmt:
		if s.Limit != nil {
			return "", nil
		}
	default:
		return "", nil
	}
	body := strings.TrimRight(text, " \t\r\n;")
	return body + "\nLIMIT 0", nil
}
