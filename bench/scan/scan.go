// Package scan owns Percona's query sets (Core, Breadth, Rows) and the
// workloads that time them one at a time on the local cluster:
//
//   - scan (`shoal bench [scan]`, Run): each query directly on one replica
//     and through the coordinator; the report gives both times, their
//     ratio, whether the answers are equal, what the distributed run
//     shipped from workers and how long its fragments took (from EXPLAIN
//     ANALYZE), and what a row-shipping engine would have fetched instead.
//   - fragments and affinity (affinity.go, Profile): how evenly fragments
//     take and where they run, over many EXPLAIN ANALYZE runs.
//
// It may import bench/measure, deploy/localcluster, internal/cli and, for
// the affinity workload's in-process coordinators, config and
// coordinator; no other bench package. bench/pinbench imports its query
// sets.
package scan

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/shoaldb/shoal/bench/measure"
)

// Query is one benchmark query.
type Query struct {
	Name string
	SQL  string
	// RowShipSQL, run directly on a replica, returns (bytes, rows): what a
	// row-shipping engine (Spark's JDBC source) would fetch to answer SQL.
	// It pushes the WHERE down and fetches the other columns the query
	// needs of every matching row; written by hand per query, counting
	// integer columns as 8 bytes and strings as LENGTH(col). Empty: not
	// estimated.
	RowShipSQL string
}

// Percona's queries from "How Apache Spark makes your slow MySQL queries
// 10x faster", with query 1's HAVING threshold scaled by the row count.
func Core(rows int64) []Query {
	threshold := max(rows/100, 1)
	const q1Where = `DayOfWeek not in (6,7) and OriginState not in ('AK', 'HI', 'PR', 'VI') and DestState not in ('AK', 'HI', 'PR', 'VI')`
	return []Query{
		{
			Name: "q1",
			SQL:  fmt.Sprintf(`select min(YearD), max(YearD) as max_year, Carrier, count(*) as cnt, sum(if(ArrDelayMinutes>30, 1, 0)) as flights_delayed, round(sum(if(ArrDelayMinutes>30, 1, 0))/count(*),2) as rate FROM ontime WHERE %s GROUP by Carrier HAVING cnt > %d and max_year > '1990' ORDER by rate DESC, cnt desc LIMIT 10`, q1Where, threshold),
			// YearD, Carrier, ArrDelayMinutes of the rows the WHERE keeps.
			RowShipSQL: "select sum(8 + length(Carrier) + 8), count(*) from ontime where " + q1Where,
		},
		{
			Name:       "q2",
			SQL:        "select DayOfWeek, count(*) from ontime group by DayOfWeek",
			RowShipSQL: "select sum(8), count(*) from ontime", // DayOfWeek of every row
		},
	}
}

// Breadth are the SQL-breadth benchmark queries: the fact table joined to
// both dimension tables with GROUP BY on a dimension column, and a
// COUNT(DISTINCT).
func Breadth() []Query {
	return []Query{
		{
			Name: "join",
			SQL:  "select c.name, a.state, count(*) as flights, sum(o.Cancelled) as cancelled from ontime o join carriers c on c.code = o.Carrier join airports a on a.code = o.Origin where o.DayOfWeek < 6 group by c.name, a.state order by flights desc, c.name, a.state limit 20",
			// Carrier, Origin, Cancelled of weekday flights, and both
			// dimension tables whole (the join runs in the engine).
			RowShipSQL: "select sum(b), sum(n) from (" +
				"select sum(length(Carrier) + length(Origin) + 8) as b, count(*) as n from ontime where DayOfWeek < 6 " +
				"union all select sum(length(code) + length(name)), count(*) from carriers " +
				"union all select sum(length(code) + length(state)), count(*) from airports) t",
		},
		{
			Name:       "distinct",
			SQL:        "select Carrier, count(distinct Dest) as destinations from ontime group by Carrier order by destinations desc, Carrier",
			RowShipSQL: "select sum(length(Carrier) + length(Dest)), count(*) from ontime", // every row's pair
		},
	}
}

// Rows are the row-returning benchmark queries: a selective query a
// secondary index answers (a week of flights, in order), and an export of
// about a tenth of the table (three years of ontime, ~1M rows of 10M)
// ordered by the key, which Shoal answers by a k-way merge of the
// fragments' sorted streams. Both ship their rows, so the interesting
// figures are the ratio and the fragment times, not bytes saved.
func Rows() []Query {
	const cols = "id, FlightDate, Carrier, Origin, Dest, DepDelayMinutes, ArrDelayMinutes"
	const bytes = "sum(8 + 4 + length(Carrier) + length(Origin) + length(Dest) + 8 + 8), count(*)"
	const week = "FlightDate between '2010-01-01' and '2010-01-07'"
	const years = "YearD between 2008 and 2010"
	return []Query{
		{
			Name:       "selective",
			SQL:        "select " + cols + " from ontime where " + week + " order by FlightDate, id",
			RowShipSQL: "select " + bytes + " from ontime where " + week,
		},
		{
			Name:       "export",
			SQL:        "select " + cols + " from ontime where " + years + " order by id",
			RowShipSQL: "select " + bytes + " from ontime where " + years,
		},
	}
}

// querySetHelp describes --queries (querySet).
const querySetHelp = "query set: core (Percona q1, q2), breadth (join, count distinct), rows (selective, export) or all"

// querySet is the --queries set of `shoal bench` and `shoal bench
// fragments`/`affinity`: rows sizes query 1's HAVING threshold.
func querySet(set string, rows int64) ([]Query, error) {
	switch set {
	case "core":
		return Core(rows), nil
	case "breadth":
		return Breadth(), nil
	case "rows":
		return Rows(), nil
	case "all":
		return slices.Concat(Core(rows), Breadth(), Rows()), nil
	}
	return nil, fmt.Errorf("--queries: unknown set %q (core, breadth, rows or all)", set)
}

// Result is one query's measurement.
type Result struct {
	Query         Query
	Direct, Shoal time.Duration
	Equal         bool
	DirectRows    [][]string
	ShoalRows     [][]string
	// Analysis is one more run through Shoal, with EXPLAIN ANALYZE.
	Analysis measure.Analysis
	// RowShipBytes and RowShipRows are Query.RowShipSQL's answer; -1 when
	// the query has none.
	RowShipBytes, RowShipRows int64
}

// Ratio is direct time over Shoal time (>1: Shoal is faster).
func (r Result) Ratio() float64 { return r.Direct.Seconds() / r.Shoal.Seconds() }

// Run measures each query: best of runs on each side, alternating; then
// one EXPLAIN ANALYZE through Shoal and the row-shipping estimate on the
// direct side, both untimed.
func Run(ctx context.Context, direct, shoal *sql.DB, qs []Query, runs int) ([]Result, error) {
	var out []Result
	for _, q := range qs {
		r := Result{Query: q, RowShipBytes: -1, RowShipRows: -1}
		for i := 0; i < runs; i++ {
			d, rows, err := measure.Timed(ctx, direct, q.SQL)
			if err != nil {
				return nil, fmt.Errorf("%s direct: %w", q.Name, err)
			}
			if i == 0 || d < r.Direct {
				r.Direct, r.DirectRows = d, rows
			}
			s, srows, err := measure.Timed(ctx, shoal, q.SQL)
			if err != nil {
				return nil, fmt.Errorf("%s through shoal: %w", q.Name, err)
			}
			if i == 0 || s < r.Shoal {
				r.Shoal, r.ShoalRows = s, srows
			}
		}
		r.Equal = equalRows(r.DirectRows, r.ShoalRows)
		a, err := measure.Explain(ctx, shoal, q.SQL)
		if err != nil {
			return nil, fmt.Errorf("%s: EXPLAIN ANALYZE: %w", q.Name, err)
		}
		r.Analysis = a
		if q.RowShipSQL != "" {
			var b, n sql.NullInt64
			if err := direct.QueryRowContext(ctx, q.RowShipSQL).Scan(&b, &n); err != nil {
				return nil, fmt.Errorf("%s: row-shipping estimate: %w", q.Name, err)
			}
			r.RowShipBytes, r.RowShipRows = b.Int64, n.Int64
		}
		out = append(out, r)
	}
	return out, nil
}

func equalRows(a, b [][]string) bool {
	return slices.EqualFunc(a, b, func(x, y []string) bool { return slices.Equal(x, y) })
}

// Print writes the results as a table, with the result rows when verbose.
func Print(w io.Writer, rs []Result, verbose bool) {
	if verbose {
		for _, r := range rs {
			fmt.Fprintf(w, "== %s\n%s\n-- direct (%s):\n", r.Query.Name, r.Query.SQL, r.Direct.Round(time.Millisecond))
			printRows(w, r.DirectRows)
			fmt.Fprintf(w, "-- through shoal (%s):\n", r.Shoal.Round(time.Millisecond))
			printRows(w, r.ShoalRows)
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "query\tdirect\tshoal\tratio\tequal\tfragments\tfrag p50\tfrag p95\tfrag max\trows shipped\tbytes shipped\trow-ship bytes\trow-ship/shoal\t")
	for _, r := range rs {
		a := r.Analysis
		ft := a.FragmentTimes()
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.2fx\t%v\t%d\t%s\t%s\t%s\t%d\t%d\t%s\t%s\t\n", r.Query.Name,
			r.Direct.Round(time.Millisecond), r.Shoal.Round(time.Millisecond), r.Ratio(), r.Equal,
			len(a.Fragments), measure.FmtDur(ft.P50), measure.FmtDur(ft.P95), measure.FmtDur(ft.Max),
			a.RowsShipped, a.BytesShipped, rowShipBytes(r), shipRatio(r))
	}
	tw.Flush()
	for _, r := range rs {
		if r.Analysis.Passthrough != "" {
			fmt.Fprintf(w, "%s passed through to one replica: %s\n", r.Query.Name, r.Analysis.Passthrough)
		}
	}
}

func rowShipBytes(r Result) string {
	if r.RowShipBytes < 0 {
		return "-"
	}
	return strconv.FormatInt(r.RowShipBytes, 10)
}

// shipRatio is how many times more bytes a row-shipping engine would move
// than Shoal shipped.
func shipRatio(r Result) string {
	if r.RowShipBytes < 0 || r.Analysis.BytesShipped <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.0fx", float64(r.RowShipBytes)/float64(r.Analysis.BytesShipped))
}

func printRows(w io.Writer, rows [][]string) {
	for _, r := range rows {
		fmt.Fprintln(w, "  "+strings.Join(r, "\t"))
	}
}
