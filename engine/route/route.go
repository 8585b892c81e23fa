// Package route decides by cost whether a statement the planner can
// distribute runs on one replica instead (a passthrough): from the plan's
// key window over the catalog's key sample, or the replica optimizer's
// EXPLAIN estimate. It does no I/O of its own — the caller passes the
// EXPLAIN reader (Explain, over one of its metadata connections) — and
// imports engine/catalog, engine/schedule, planner, replica and config.
package route

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/engine/catalog"
	"github.com/shoaldb/shoal/engine/schedule"
	"github.com/shoaldb/shoal/planner"
	"github.com/shoaldb/shoal/replica"
	"vitess.io/vitess/go/sqltypes"
)

// Routing by cost: a statement the planner can distribute still runs on
// one replica (a passthrough, on the session's replica and under its
// freshness floor) when it is small. A one-fragment distributed plan costs
// a worker round trip, an Arrow encoding and a merge (2–4 ms) where the
// replica alone answers a primary-key lookup in 0.3 ms; an index dive the
// replica's optimizer picks beats a distributed scan of the whole table.

// Prefix starts the passthrough reason of a statement routed by
// cost.
const Prefix = "routed by cost: "

// routeEstimate is what the routing decision saw: a row estimate and
// where it came from.
type routeEstimate struct {
	rows   int64  // estimated rows of the split table the statement reads; -1 unknown
	source string // "key list", "key window [a, b]", "replica optimizer: ref on Carrier"
	index  bool   // the replica optimizer reads through an index
	// secondary is the secondary index whose order the replica optimizer
	// reads the rows in ("" for the primary key or a table scan).
	secondary string
}

// Access is one EXPLAIN row of a single-table statement.
type Access struct {
	Type, Key string
	Rows      int64
	// Covering: the access reads the index alone (Extra "Using index",
	// or a loose scan "Using index for group-by").
	Covering bool
	// IndexEnds: the optimizer answers MIN/MAX (and COUNT(*) of MyISAM)
	// from the ends of an index without reading rows (Extra "Select
	// tables optimized away" or "No matching min/max row"): one index
	// dive, which no distributed plan beats. It also follows the index's
	// order, which for an ENUM is the members' order, not the strings'.
	IndexEnds bool
}

// CoveringScan reports whether a is a full scan of a secondary index
// that holds every column the statement needs: narrower than the table,
// which a distributed plan scans on its primary key.
func (a Access) CoveringScan() bool {
	return a.Covering && (a.Type == "index" || a.Type == "range") && a.Key != "" && !strings.EqualFold(a.Key, "PRIMARY")
}

// indexAccess are the EXPLAIN access types that read through an index
// only the rows they need (not a full index scan).
var indexAccess = map[string]bool{
	"system": true, "const": true, "eq_ref": true, "ref": true,
	"ref_or_null": true, "range": true,
}

// ByCost decides whether p runs on one replica: the passthrough
// reason, or "" to distribute, and the EXPLAIN note of the decision.
// explain is the replica optimizer's estimate of query (nil: ask no
// replica). listed is true when the statement passes through for the
// keys it lists on the primary key, which holds for any values in their
// place (shape.go).
func ByCost(ctx context.Context, cfg config.Coordinator, snap *catalog.Snapshot, db, query string, p *planner.Plan, explain func(context.Context, string, string) (Access, bool)) (pass, note string, listed bool) {
	small := cfg.RouteSmallRows
	if small < 0 || p.Partitioned {
		return "", "", false
	}
	t, ok := snap.Tables.Table(p.DB, p.Table)
	if !ok {
		return "", "", false
	}
	est := routeEstimate{rows: -1}
	fullScan := false // the replica optimizer scans the whole table
	if p.Split == planner.SplitInt && (p.KeyLo != nil || p.KeyHi != nil) {
		sample, _ := snap.Sample(p.DB, p.Table, catalog.SplitKey(t))
		rows := schedule.WindowRows(p, t, sample)
		est = routeEstimate{rows: rows, source: "key window " + windowString(p.KeyLo, p.KeyHi) + " over the key sample"}
		switch {
		case p.KeyLo != nil && p.KeyHi != nil && *p.KeyLo > *p.KeyHi:
			est = routeEstimate{rows: 0, source: "the WHERE clause matches no key"}
		case p.KeyPoints >= 0 && t.SplitUnique && p.KeyPoints <= rows:
			est = routeEstimate{rows: p.KeyPoints, source: fmt.Sprintf("%d key(s) of the primary key", p.KeyPoints)}
		}
		listed = p.KeyPoints >= 0 && t.SplitUnique
	} else if explain != nil {
		if a, ok := explain(ctx, db, query); ok {
			if a.IndexEnds {
				return Prefix + "the replica optimizer answers from the ends of an index without reading rows (Select tables optimized away)", "", false
			}
			if a.CoveringScan() && cfg.CoveringScansRouted() {
				return fmt.Sprintf(Prefix+"the replica optimizer reads the covering index %s alone (~%d rows): narrower than the table a distributed plan scans (route_covering_scans)", a.Key, a.Rows), "", false
			}
			fullScan = a.Type == "all"
			est = routeEstimate{rows: a.Rows, source: "replica optimizer: " + a.Type, index: indexAccess[a.Type] && a.Key != ""}
			if a.Key != "" {
				est.source += " on " + a.Key
				if (indexAccess[a.Type] || a.Type == "index") && !strings.EqualFold(a.Key, "PRIMARY") {
					est.secondary = a.Key
				}
			}
		}
	}
	if est.rows < 0 {
		return "", fmt.Sprintf("route: distributed (no row estimate; route_small_rows %d)", small), false
	}
	if est.rows <= small {
		// Listed keys are at most p.KeyPoints rows whatever their values.
		listed = listed && p.KeyPoints <= small
		return fmt.Sprintf(Prefix+"~%d rows (%s) <= route_small_rows %d", est.rows, est.source, small), "", listed
	}
	if p.WhereKeyOnly && !p.Aggregate && p.Limit < 0 && cfg.RowExportsRouted() {
		return fmt.Sprintf(Prefix+"an export: every one of ~%d rows (%s) is returned, and shipping rows through workers costs more than the parallel scan saves (route_row_exports)", est.rows, est.source), "", false
	}
	if est.secondary != "" && !p.Aggregate && len(p.OrderBy) == 0 && p.Limit < 0 && cfg.RowExportsRouted() {
		// Rows without ORDER BY come in the order the server reads them:
		// the replica's through this index, a distributed plan's in key
		// order (schedule.InOrder). On one replica they come in the
		// replica's order, and returning many rows through workers
		// costs more than the parallel scan saves (route_row_exports).
		return fmt.Sprintf(Prefix+"rows without ORDER BY, ~%d read through the secondary index %s (%s), come in that index's order on the replica (route_row_exports)", est.rows, est.secondary, est.source), "", false
	}
	if f := cfg.RouteIndexFraction; est.index && f >= 0 && t.Rows > 0 && float64(est.rows) <= f*float64(t.Rows) {
		return fmt.Sprintf(Prefix+"~%d rows (%s) <= route_index_fraction %g of ~%d rows", est.rows, est.source, f, t.Rows), "", false
	}
	note = fmt.Sprintf("route: distributed, ~%d rows (%s) > route_small_rows %d", est.rows, est.source, small)
	if est.index {
		note += fmt.Sprintf(" and > route_index_fraction %g of ~%d rows", cfg.RouteIndexFraction, t.Rows)
	}
	if fullScan && p.CanKeepPrimary() {
		// The replica reads the table in key order for the statement; a
		// fragment alone may pick a secondary index on a WHERE column
		// and look each row up (planner.Plan.KeepPrimary).
		p.KeepPrimary()
		note += "; fragments read their primary key ranges (FORCE INDEX (PRIMARY)), as the replica optimizer scans the table"
	}
	return "", note, false
}

// Explain asks a replica's optimizer how it would run query, on a
// connection onMeta lends: the access of its one table (ok false for a
// statement over several tables or on an error).
func Explain(ctx context.Context, onMeta func(context.Context, func(*replica.Conn) error) error, db, query string) (Access, bool) {
	var r *sqltypes.Result
	err := onMeta(ctx, func(b *replica.Conn) error {
		if err := b.Use(db); err != nil {
			return err
		}
		var err error
		r, err = b.Fetch("EXPLAIN "+query, 10)
		return err
	})
	if err != nil || len(r.Rows) != 1 {
		return Access{}, false // an EXPLAIN error is not the connection's fault
	}
	var a Access
	a.Rows = -1
	for i, f := range r.Fields {
		v := r.Rows[0][i]
		switch strings.ToLower(f.Name) {
		case "type":
			a.Type = strings.ToLower(v.ToString())
		case "key":
			if !v.IsNull() {
				a.Key = v.ToString()
			}
		case "rows":
			if n, err := strconv.ParseInt(v.ToString(), 10, 64); err == nil && n >= 0 {
				a.Rows = n
			}
		case "extra":
			for _, e := range strings.Split(v.ToString(), "; ") {
				switch {
				case e == "Using index" || strings.HasPrefix(e, "Using index for group-by"):
					a.Covering = true
				case e == "Select tables optimized away" || e == "No matching min/max row":
					a.IndexEnds = true
				}
			}
		}
	}
	if a.IndexEnds {
		a.Rows = 0
		return a, true
	}
	return a, a.Rows >= 0 && a.Type != ""
}

// windowString renders a plan's key bounds, e.g. [10, 20] or [10, +inf).
func windowString(lo, hi *int64) string {
	l, h := "(-inf", "+inf)"
	if lo != nil {
		l = "[" + strconv.FormatInt(*lo, 10)
	}
	if hi != nil {
		h = strconv.FormatInt(*hi, 10) + "]"
	}
	return l + ", " + h
}
