package catalog

import (
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/planner"
	"github.com/shoaldb/shoal/replica"
	"github.com/shoaldb/shoal/sqlparse"
)

// Boundary keys of a primary key that is not one integer, DATE or
// DATETIME column (a VARCHAR, a composite key): pushdown.SplitKeys cuts the
// table between real keys read from the index, in index order.
//
// The integer sampler (sample.go) cannot serve such keys: it probes evenly
// spaced points of the key space, and a string key space has no points to
// space evenly in the column's collation (byte order is not collation
// order, so cuts computed in Go could decrease and read rows twice). Keys
// read back from the index are strictly increasing in the index's own
// order, which is the order the fragments' row comparisons use.
//
// The keys are every k-th key of the index, numbered by ROW_NUMBER() in
// one statement on the replica: a scan of the key (the table, for an
// InnoDB primary key) at catalog refresh, in the background, never per
// query, reused for up to maxSampleAge while the table's size holds
// (tableSample.reusable). Tables above maxKeyScanRows are not scanned and
// run as one fragment; their rows are then read by one replica, as before.

// maxKeyScanRows bounds the rows of a table whose key is scanned for
// boundaries (the planner passes row queries over larger ones through).
const maxKeyScanRows = planner.MaxKeySampleRows

// splitKey names what a table is cut on, so a sample taken for another
// split is not reused.
func SplitKey(t *planner.Table) string {
	if t.Split() == planner.SplitKey {
		return "key(" + strings.Join(t.KeyColumns, ",") + ")"
	}
	return t.SplitColumn
}

// sampleKeys reads up to about 4 boundary keys per fragment of t's key.
func sampleKeys(b *replica.Conn, t *planner.Table, fragments int) (*tableSample, error) {
	start := time.Now()
	want := min(max(4*fragments, 64), 4096)
	r, err := b.Fetch(keySampleSQL(t, want), want+1)
	if err != nil {
		return nil, err
	}
	keys, err := keyLiterals(r, len(t.KeyColumns))
	if err != nil {
		return nil, err
	}
	return &tableSample{keys: keys, splitCol: SplitKey(t), rows: t.Rows, took: time.Since(start), probes: len(keys)}, nil
}

// keySampleSQL selects every k-th key of t in index order, k being the
// table's rows over want, never the last key (the last range is open).
func keySampleSQL(t *planner.Table, want int) string {
	cols := make([]string, len(t.KeyColumns))
	for i, c := range t.KeyColumns {
		cols[i] = sqlparse.QuoteID(c)
	}
	list := strings.Join(cols, ", ")
	return fmt.Sprintf("SELECT %s FROM (SELECT %s, ROW_NUMBER() OVER (ORDER BY %s) AS `__rn`, COUNT(*) OVER () AS `__n` "+
		"FROM %s.%s FORCE INDEX (PRIMARY)) AS `__k` WHERE `__rn` MOD GREATEST(1, `__n` DIV %d) = 0 AND `__rn` < `__n` "+
		"ORDER BY %s LIMIT %d", list, list, list, sqlparse.QuoteID(t.Schema), sqlparse.QuoteID(t.Name), want+1, list, want)
}

// keyLiterals renders each row of r (n key columns) as SQL literals:
// strings quoted and escaped, binary strings in hex (their bytes need not
// be valid in any character set), numbers and dates as MariaDB sent them.
func keyLiterals(r *sqltypes.Result, n int) ([][]string, error) {
	if len(r.Fields) != n {
		return nil, fmt.Errorf("key sample has %d columns, the key %d", len(r.Fields), n)
	}
	out := make([][]string, 0, len(r.Rows))
	for _, row := range r.Rows {
		key := make([]string, n)
		for i, v := range row {
			if v.IsNull() {
				return nil, fmt.Errorf("key sample holds a NULL key column")
			}
			key[i] = keyLiteral(r.Fields[i], v)
		}
		out = append(out, key)
	}
	return out, nil
}

func keyLiteral(f *querypb.Field, v sqltypes.Value) string {
	switch {
	case v.IsIntegral() || v.IsFloat() || v.Type() == sqltypes.Decimal:
		return v.ToString()
	case f.Charset == 63 && (v.IsText() || v.IsBinary()):
		return "X'" + hex.EncodeToString(v.Raw()) + "'"
	}
	var sb strings.Builder
	v.EncodeSQLStringBuilder(&sb)
	return sb.String()
}
