package dashboard

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/shoaldb/shoal/bench/measure"
)

// Parameter-varying dashboards. A real dashboard changes its filters —
// a date picker, a carrier drop-down, per-user rows — so its statements
// repeat only in shape: a result cache keyed by text never answers them.
// A Varier turns the dashboard's charts into such statements: every query
// of every virtual user gets a condition of its own,
//
//	<slice> AND Distance <> K [AND FlightDate BETWEEN d1 AND d2 | AND Carrier IN (...)]
//
// with K unique to the (user, sequence) pair, so no two connections ever
// send the same text and no text repeats; the date range and the carrier
// list rotate through the slice's dates and carriers.

// Varier makes the varying conditions over one slice.
type Varier struct {
	// Carriers are the slice's carriers (the IN lists' values), sorted.
	Carriers []string
	// First and Last are the slice's FlightDate range.
	First, Last time.Time
}

// LoadVarier reads the carriers and the date range of the rows of table
// that satisfy cond.
func LoadVarier(ctx context.Context, db *sql.DB, table, cond string) (Varier, error) {
	var v Varier
	rows, err := db.QueryContext(ctx, "SELECT DISTINCT Carrier FROM "+table+" WHERE "+cond+" ORDER BY Carrier")
	if err != nil {
		return v, fmt.Errorf("reading the slice's carriers: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return v, err
		}
		v.Carriers = append(v.Carriers, c)
	}
	if err := rows.Err(); err != nil {
		return v, err
	}
	var first, last sql.NullString
	if err := db.QueryRowContext(ctx, "SELECT MIN(FlightDate), MAX(FlightDate) FROM "+table+" WHERE "+cond).Scan(&first, &last); err != nil {
		return v, fmt.Errorf("reading the slice's dates: %w", err)
	}
	if len(v.Carriers) == 0 || !first.Valid || !last.Valid {
		return v, fmt.Errorf("the slice %s WHERE %s is empty", table, cond)
	}
	if v.First, err = time.Parse(time.DateOnly, first.String[:min(10, len(first.String))]); err != nil {
		return v, err
	}
	if v.Last, err = time.Parse(time.DateOnly, last.String[:min(10, len(last.String))]); err != nil {
		return v, err
	}
	return v, nil
}

// Cond is the slice condition of user's seq-th query (cond AND the
// varying part). Different (user, seq) pairs give different texts.
func (v Varier) Cond(cond string, user, seq int) string {
	k := 100_000 + user*1_000_000_000 + seq // no distance is that long
	var b strings.Builder
	b.WriteString("(" + cond + ") AND Distance <> " + strconv.Itoa(k))
	// Rotate the extra filter with the sequence; the mix over the
	// dashboard's 15 charts puts each chart under each filter.
	r := user*7 + seq
	switch seq % 3 {
	case 1:
		days := int(v.Last.Sub(v.First).Hours() / 24)
		span := max(days/2, 1)
		from := v.First.AddDate(0, 0, (r*37)%span)
		to := from.AddDate(0, 0, max(days/2, 30))
		fmt.Fprintf(&b, " AND FlightDate BETWEEN '%s' AND '%s'", from.Format(time.DateOnly), to.Format(time.DateOnly))
	case 2:
		n := len(v.Carriers)
		pick := 2 + r%max(n-1, 1) // 2 .. n carriers
		b.WriteString(" AND Carrier IN (")
		for i := range min(pick, n) {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("'" + strings.ReplaceAll(v.Carriers[(r+i)%n], "'", "''") + "'")
		}
		b.WriteString(")")
	}
	return b.String()
}

// Queries returns the generator of user's queries: the charts in turn,
// each over s with the varying condition of its sequence number.
func (v Varier) Queries(charts []Chart, s Slice) func(user, seq int) string {
	return func(user, seq int) string {
		c := charts[seq%len(charts)]
		return c.Render(Slice{Table: s.Table, Where: v.Cond(s.Where, user, seq)})
	}
}

// fixedQueries cycles through qs whatever the user: the cached figure.
func fixedQueries(qs []string) func(user, seq int) string {
	return func(user, seq int) string { return qs[(user+seq)%len(qs)] }
}

// Peer is an engine compared with Shoal on the same rows (DuckDB, from
// the module bench/duckdb). Query runs one statement on its one
// connection and returns the rows as text (NULL as "NULL").
type Peer interface {
	Name() string
	Query(ctx context.Context, q string) ([][]string, error)
}

// ChartTiming is one chart's mean latency at one connection, with
// varying literals, through Shoal and on the peer.
type ChartTiming struct {
	Chart       string
	Runs        int
	Shoal, Peer time.Duration // means; Peer 0 without a peer
	// Differs counts the runs whose answers differed (numbers within
	// 1e-4: DuckDB's AVG is a DOUBLE, MySQL's a DECIMAL with 4 more
	// digits than its argument; see sameNumbers).
	Differs int
	Problem string
}

// RunChartLatency runs rounds rounds of the charts at one connection with
// varying literals (user 0: the same texts on both sides), alternating
// Shoal and the peer query by query, and returns each chart's means.
// Errors of single queries are reported in the timings' Problem.
func RunChartLatency(ctx context.Context, shoal *sql.DB, shoalSlice Slice, peer Peer, peerSlice Slice, charts []Chart, v Varier, rounds int) ([]ChartTiming, error) {
	conn, err := shoal.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	sq, pq := v.Queries(charts, shoalSlice), v.Queries(charts, peerSlice)
	out := make([]ChartTiming, len(charts))
	for i, c := range charts {
		out[i].Chart = c.Name
	}
	// Warm both sides with one query per chart of a sequence not timed.
	for seq := range charts {
		q := sq(1, seq)
		if err := measure.Drain(ctx, conn, q); err != nil {
			return nil, fmt.Errorf("%s through shoal: %w", charts[seq].Name, err)
		}
		if peer != nil {
			if _, err := peer.Query(ctx, pq(1, seq)); err != nil {
				return nil, fmt.Errorf("%s on %s: %w", charts[seq].Name, peer.Name(), err)
			}
		}
	}
	for seq := range rounds * len(charts) {
		ct := &out[seq%len(charts)]
		t := time.Now()
		srows, err := measure.QueryRows(ctx, conn, sq(0, seq))
		d := time.Since(t)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			ct.Problem = "through shoal: " + err.Error()
			continue
		}
		ct.Shoal += d
		ct.Runs++
		if peer == nil {
			continue
		}
		t = time.Now()
		prows, err := peer.Query(ctx, pq(0, seq))
		ct.Peer += time.Since(t)
		if err != nil {
			ct.Problem = peer.Name() + ": " + err.Error()
			continue
		}
		if ok, why := sameNumbers(srows, prows); !ok {
			ct.Differs++
			if ct.Problem == "" {
				ct.Problem = fmt.Sprintf("%s (%s)", why, sq(0, seq))
			}
		}
	}
	for i := range out {
		if n := out[i].Runs; n > 0 {
			out[i].Shoal /= time.Duration(n)
			out[i].Peer /= time.Duration(n)
		}
	}
	return out, nil
}

// sameNumbers compares two answers as multisets of rows, numbers within
// 1e-4 (MySQL rounds AVG to 4 more decimals than its argument; DuckDB's
// is a DOUBLE) and other text exactly. Rows are matched in the order of
// their text with numbers to 3 significant digits.
func sameNumbers(a, b [][]string) (bool, string) {
	if len(a) != len(b) {
		return false, fmt.Sprintf("%d rows through shoal, %d on the peer", len(a), len(b))
	}
	key := func(r []string) string {
		k := make([]string, len(r))
		for i, c := range r {
			k[i] = c
			if f, err := strconv.ParseFloat(c, 64); err == nil {
				k[i] = strconv.FormatFloat(f, 'g', 3, 64)
			}
		}
		return measure.JoinRow(k)
	}
	sorted := func(rs [][]string) [][]string {
		out := slices.Clone(rs)
		slices.SortStableFunc(out, func(x, y []string) int { return strings.Compare(key(x), key(y)) })
		return out
	}
	sa, sb := sorted(a), sorted(b)
	for i := range sa {
		if !sameNumberRow(sa[i], sb[i]) {
			return false, fmt.Sprintf("first difference: shoal %s, peer %s", measure.ShowRow(measure.JoinRow(sa[i])), measure.ShowRow(measure.JoinRow(sb[i])))
		}
	}
	return true, ""
}

func sameNumberRow(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] == b[i] {
			continue
		}
		x, err1 := strconv.ParseFloat(a[i], 64)
		y, err2 := strconv.ParseFloat(b[i], 64)
		if err1 != nil || err2 != nil || math.Abs(x-y) > 1e-4+1e-9*math.Abs(x) {
			return false
		}
	}
	return true
}

// PrintChartLatency writes the per-chart means and the overall mean
// (over every query), with the ratio Shoal/peer.
func PrintChartLatency(w io.Writer, peerName string, ts []ChartTiming) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	if peerName == "" {
		fmt.Fprintln(tw, "chart\truns\tshoal mean\t")
	} else {
		fmt.Fprintf(tw, "chart\truns\tshoal mean\t%s mean\tshoal/%s\tanswers differ\t\n", peerName, peerName)
	}
	var s, p time.Duration
	var runs int
	for _, t := range ts {
		s += t.Shoal * time.Duration(t.Runs)
		p += t.Peer * time.Duration(t.Runs)
		runs += t.Runs
		if peerName == "" {
			fmt.Fprintf(tw, "%s\t%d\t%s\t\n", t.Chart, t.Runs, measure.FmtDur(t.Shoal))
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%d\t\n", t.Chart, t.Runs, measure.FmtDur(t.Shoal), measure.FmtDur(t.Peer), ratioOf(t.Shoal, t.Peer), t.Differs)
	}
	if runs > 0 {
		s /= time.Duration(runs)
		p /= time.Duration(runs)
		if peerName == "" {
			fmt.Fprintf(tw, "all\t%d\t%s\t\n", runs, measure.FmtDur(s))
		} else {
			fmt.Fprintf(tw, "all\t%d\t%s\t%s\t%s\t\t\n", runs, measure.FmtDur(s), measure.FmtDur(p), ratioOf(s, p))
		}
	}
	tw.Flush()
	for _, t := range ts {
		if t.Problem != "" {
			fmt.Fprintf(w, "PROBLEM %s: %s\n", t.Chart, t.Problem)
		}
	}
}

func ratioOf(a, b time.Duration) string {
	if b <= 0 {
		return "-"
	}
	return measure.FmtRatio(a.Seconds() / b.Seconds())
}

// chartLatencyFailed reports whether any chart had errors or differing
// answers.
func chartLatencyFailed(ts []ChartTiming) bool {
	return slices.ContainsFunc(ts, func(t ChartTiming) bool { return t.Problem != "" })
}
