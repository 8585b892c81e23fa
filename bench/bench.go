// Package bench measures Shoal against MySQL in the same run: each query
// runs directly on one replica and through the coordinator, and the report
// gives both times, their ratio, whether the answers are equal, and what
// the distributed run shipped from workers (from EXPLAIN ANALYZE).
package bench

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// Query is one benchmark query.
type Query struct {
	Name string
	SQL  string
}

// Percona's queries from "How Apache Spark makes your slow MySQL queries
// 10x faster", with query 1's HAVING threshold scaled by the row count.
func Core(rows int64) []Query {
	threshold := max(rows/100, 1)
	return []Query{
		{"q1", fmt.Sprintf(`select min(YearD), max(YearD) as max_year, Carrier, count(*) as cnt, sum(if(ArrDelayMinutes>30, 1, 0)) as flights_delayed, round(sum(if(ArrDelayMinutes>30, 1, 0))/count(*),2) as rate FROM ontime WHERE DayOfWeek not in (6,7) and OriginState not in ('AK', 'HI', 'PR', 'VI') and DestState not in ('AK', 'HI', 'PR', 'VI') GROUP by Carrier HAVING cnt > %d and max_year > '1990' ORDER by rate DESC, cnt desc LIMIT 10`, threshold)},
		{"q2", "select DayOfWeek, count(*) from ontime group by DayOfWeek"},
	}
}

// Breadth are the SQL-breadth benchmark queries: the fact table joined to
// both dimension tables with GROUP BY on a dimension column, and a
// COUNT(DISTINCT).
func Breadth() []Query {
	return []Query{
		{"join", "select c.name, a.state, count(*) as flights, sum(o.Cancelled) as cancelled from ontime o join carriers c on c.code = o.Carrier join airports a on a.code = o.Origin where o.DayOfWeek < 6 group by c.name, a.state order by flights desc, c.name, a.state limit 20"},
		{"distinct", "select Carrier, count(distinct Dest) as destinations from ontime group by Carrier order by destinations desc, Carrier"},
	}
}

// Result is one query's measurement.
type Result struct {
	Query         Query
	Direct, Shoal time.Duration
	Equal         bool
	DirectRows    [][]string
	ShoalRows     [][]string
	Fragments     int
	RowsShipped   int64
	BytesShipped  int64
}

// Ratio is direct time over Shoal time (>1: Shoal is faster).
func (r Result) Ratio() float64 { return r.Direct.Seconds() / r.Shoal.Seconds() }

// Run measures each query: best of runs on each side, alternating.
func Run(ctx context.Context, direct, shoal *sql.DB, qs []Query, runs int) ([]Result, error) {
	var out []Result
	for _, q := range qs {
		r := Result{Query: q}
		for i := 0; i < runs; i++ {
			d, rows, err := timed(ctx, direct, q.SQL)
			if err != nil {
				return nil, fmt.Errorf("%s direct: %w", q.Name, err)
			}
			if i == 0 || d < r.Direct {
				r.Direct, r.DirectRows = d, rows
			}
			s, srows, err := timed(ctx, shoal, q.SQL)
			if err != nil {
				return nil, fmt.Errorf("%s through shoal: %w", q.Name, err)
			}
			if i == 0 || s < r.Shoal {
				r.Shoal, r.ShoalRows = s, srows
			}
		}
		r.Equal = equalRows(r.DirectRows, r.ShoalRows)
		if err := analyze(ctx, shoal, &r); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

func timed(ctx context.Context, db *sql.DB, q string) (time.Duration, [][]string, error) {
	start := time.Now()
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return 0, nil, err
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var out [][]string
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return 0, nil, err
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = "NULL"
			if v.Valid {
				row[i] = v.String
			}
		}
		out = append(out, row)
	}
	return time.Since(start), out, rows.Err()
}

func equalRows(a, b [][]string) bool {
	return slices.EqualFunc(a, b, func(x, y []string) bool { return slices.Equal(x, y) })
}

var shippedRe = regexp.MustCompile(`(\d+) rows, (\d+) bytes shipped`)

// analyze reads fragments and bytes shipped from EXPLAIN ANALYZE.
func analyze(ctx context.Context, shoal *sql.DB, r *Result) error {
	rows, err := shoal.QueryContext(ctx, "EXPLAIN ANALYZE "+r.Query.SQL)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return err
		}
		if strings.HasPrefix(line, "fragment ") {
			r.Fragments++
		}
		if m := shippedRe.FindStringSubmatch(line); m != nil {
			fmt.Sscan(m[1], &r.RowsShipped)
			fmt.Sscan(m[2], &r.BytesShipped)
		}
	}
	return rows.Err()
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
	fmt.Fprintln(tw, "query\tdirect\tshoal\tratio\tequal\tfragments\trows shipped\tbytes shipped\t")
	for _, r := range rs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.2fx\t%v\t%d\t%d\t%d\t\n", r.Query.Name, r.Direct.Round(time.Millisecond),
			r.Shoal.Round(time.Millisecond), r.Ratio(), r.Equal, r.Fragments, r.RowsShipped, r.BytesShipped)
	}
	tw.Flush()
}

func printRows(w io.Writer, rows [][]string) {
	for _, r := range rows {
		fmt.Fprintln(w, "  "+strings.Join(r, "\t"))
	}
}
