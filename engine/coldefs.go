package engine

import (
	"fmt"
	"math"
	"strings"

	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/planner"
	"github.com/shoaldb/shoal/replica"
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
//     and its definitions are the statement's.
//
// Without the client's text (a statement over a pinned query result,
// which no replica holds, is described over the pin's definition) or when
// the text cannot be spliced (sqlparse.SelectClauses), the re-rendered
// statement with LIMIT 0 describes it, as before.

// describeQuery is how a replica describes one statement's result.
type describeQuery struct {
	// text is the client's statement, "" when a replica cannot run it.
	text string
	// meta is the rendered statement with LIMIT 0, the fallback.
	meta string
	// empty is a predicate that selects no row of the split table through
	// its primary key, "" when there is none (see emptyPredicate).
	empty string
}

// emptyPredicate is a predicate on p's split table that the replica
// answers with one primary-key dive and no rows: the split column below
// the smallest key last read, for an integer key. Rows inserted below it
// since would only add rows to a metadata statement.
func emptyPredicate(cat planner.Catalog, p *planner.Plan) string {
	if p.Split != planner.SplitInt || p.SplitColumn == "" || cat == nil {
		return ""
	}
	t, ok := cat.Table(p.DB, p.Table)
	if !ok || t.Min == math.MinInt64 || t.Max < t.Min {
		return ""
	}
	return fmt.Sprintf("%s < %d", p.SplitColumn, t.Min)
}

// maxProbeRows bounds the rows a metadata statement may return (a scalar
// aggregate over no rows returns one).
const maxProbeRows = 10

// describeResult returns the result's column definitions for d on b (see
// above). An error is the replica's own for the statement.
func describeResult(b *replica.Conn, d describeQuery) ([]*querypb.Field, error) {
	if d.text == "" {
		return fetchFields(b, d.meta)
	}
	c, ok := sqlparse.SelectClauses(d.text)
	if !ok {
		return fetchFields(b, d.meta)
	}
	if d.empty != "" && usesTemporary(b, d.text) {
		probe := c.WithPredicate(d.text, d.empty)
		if usesTemporary(b, probe) {
			if f, err := fetchFields(b, probe); err == nil {
				return f, nil
			}
		}
	}
	f, err := fetchFields(b, c.WithLimit0(d.text))
	if err != nil && !replica.Broken(err) {
		// The text as spliced is refused where the rendering is not
		// (a construct SelectClauses misread): describe the rendering,
		// whose error, if any, is the statement's own.
		return fetchFields(b, d.meta)
	}
	return f, err
}

func fetchFields(b *replica.Conn, q string) ([]*querypb.Field, error) {
	r, err := b.Fetch(q, maxProbeRows)
	if err != nil {
		return nil, err
	}
	return r.Fields, nil
}

// usesTemporary reports whether the replica's plan of q reads the
// top-level SELECT's result through a temporary table (EXPLAIN: "Using
// temporary" on a row of select 1). An EXPLAIN that fails says no.
func usesTemporary(b *replica.Conn, q string) bool {
	r, err := b.Fetch("EXPLAIN "+q, 1000)
	if err != nil {
		return false
	}
	id, extra := -1, -1
	for i, f := range r.Fields {
		switch strings.ToLower(f.Name) {
		case "id":
			id = i
		case "extra":
			extra = i
		}
	}
	if id < 0 || extra < 0 {
		return false
	}
	for _, row := range r.Rows {
		if row[id].ToString() == "1" && strings.Contains(row[extra].ToString(), "Using temporary") {
			return true
		}
	}
	return false
}
