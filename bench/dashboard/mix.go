package dashboard

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/shoaldb/shoal/bench/measure"
	"github.com/shoaldb/shoal/deploy/localcluster"
	"github.com/shoaldb/shoal/internal/cli"
)

// mixClass is one class of statements of the BI-like mix: gen returns a
// statement with new literals each call.
type mixClass struct {
	name string
	gen  func(r *rand.Rand, lo, hi int64) string
	// budget bounds the class's statements per side and step (large
	// scans run a few times only).
	budget int
}

func mixClasses() []mixClass {
	key := func(r *rand.Rand, lo, hi int64) int64 { return lo + r.Int64N(max(hi-lo, 1)) }
	return []mixClass{
		{"select-1", func(*rand.Rand, int64, int64) string { return "select 1" }, 0},
		{"point", func(r *rand.Rand, lo, hi int64) string {
			return fmt.Sprintf("select * from ontime where id = %d", key(r, lo, hi))
		}, 0},
		{"point-same", func(_ *rand.Rand, lo, hi int64) string {
			// The same text every time: what the text plan cache answers.
			return fmt.Sprintf("select * from ontime where id = %d", lo+(hi-lo)/2)
		}, 0},
		{"point-expr", func(r *rand.Rand, lo, hi int64) string {
			return fmt.Sprintf("select * from ontime where id = %d + 0*%d", key(r, lo, hi), r.IntN(1000))
		}, 0},
		{"short-range", func(r *rand.Rand, lo, hi int64) string {
			k := key(r, lo, hi-200)
			return fmt.Sprintf("select id, Carrier, ArrDelayMinutes from ontime where id between %d and %d", k, k+199)
		}, 0},
		{"selective-count", func(r *rand.Rand, _, _ int64) string {
			return fmt.Sprintf("select count(*) from ontime where Carrier = 'AA' and YearD = %d", 2000+r.IntN(10))
		}, 40},
		{"aggregate", func(r *rand.Rand, _, _ int64) string {
			return "select DayOfWeek, count(*), avg(ArrDelayMinutes) from ontime group by DayOfWeek"
		}, 6},
		{"export", func(r *rand.Rand, lo, hi int64) string {
			return fmt.Sprintf("select id, Carrier, Origin, Dest, Distance from ontime where id >= %d", lo+r.Int64N(10))
		}, 3},
	}
}

// MixCommand implements `shoal bench mix`.
func MixCommand(args []string) error {
	fs := flag.NewFlagSet("bench mix", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: shoal bench mix [--dir D] [--conns 1,8] [--time 5s] [--classes a,b]

A BI-like mix — select 1, point lookups by primary key with a new literal
each time (point) and with the same text repeated (point-same), the same through a constant expression (point-expr), 200-key
ranges (short-range), a selective indexed count, a full-table aggregate and
an export — run class by class at each connection count, directly on the
first replica of the local cluster in D and through its coordinator, in
the same run. Prints per class and side p50/p99/p999, the ratio
Shoal/direct of p50 and p99, and how Shoal routes the class (its EXPLAIN's first line).
Large classes run a bounded number of statements per side.

flags:
`)
		fs.PrintDefaults()
	}
	dir := fs.String("dir", localcluster.DefaultDir, "local cluster directory")
	connsFlag := fs.String("conns", "1,8", "connection counts, comma separated")
	per := fs.Duration("time", 5*time.Second, "time per class, side and connection count")
	only := fs.String("classes", "", "run only these classes, comma separated")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	steps, err := parseSteps(*connsFlag)
	if err != nil {
		return err
	}
	maxConns := 1
	for _, n := range steps {
		maxConns = max(maxConns, n)
	}
	_, direct, shoal, err := measure.OpenCluster(*dir, maxConns)
	if err != nil {
		return err
	}
	defer direct.Close()
	defer shoal.Close()
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var lo, hi int64
	if err := direct.QueryRowContext(ctx, "select min(id), max(id) from ontime").Scan(&lo, &hi); err != nil {
		return err
	}
	var classes []mixClass
	for _, c := range mixClasses() {
		if *only == "" || strings.Contains(","+*only+",", ","+c.name+",") {
			classes = append(classes, c)
		}
	}
	return runMix(ctx, os.Stdout, direct, shoal, classes, steps, *per, lo, hi)
}

func runMix(ctx context.Context, w io.Writer, direct, shoal *sql.DB, classes []mixClass, steps []int, per time.Duration, lo, hi int64) error {
	fmt.Fprintf(w, "%-16s %5s %10s %10s %10s %10s %10s %10s %7s %7s %7s %6s %6s  %s\n",
		"class", "conns", "direct p50", "direct p99", "dir p999", "shoal p50", "shoal p99", "sh p999", "p50 x", "p99 x", "p999 x", "n dir", "n sh", "Shoal's route")
	for _, c := range classes {
		route := mixRoute(ctx, shoal, c.gen(rand.New(rand.NewPCG(1, 2)), lo, hi))
		for _, conns := range steps {
			d, err := mixSide(ctx, direct, c, conns, per, lo, hi)
			if err != nil {
				return fmt.Errorf("%s direct: %w", c.name, err)
			}
			s, err := mixSide(ctx, shoal, c, conns, per, lo, hi)
			if err != nil {
				return fmt.Errorf("%s through Shoal: %w", c.name, err)
			}
			fmt.Fprintf(w, "%-16s %5d %10s %10s %10s %10s %10s %10s %7.2f %7.2f %7.2f %6d %6d  %s\n",
				c.name, conns, mixMS(d.P50), mixMS(d.P99), mixMS(d.P999), mixMS(s.P50), mixMS(s.P99), mixMS(s.P999),
				float64(s.P50)/float64(max(d.P50, 1)), float64(s.P99)/float64(max(d.P99, 1)), float64(s.P999)/float64(max(d.P999, 1)), d.N, s.N, route)
		}
	}
	fmt.Fprintln(w, "p50 x, p99 x, p999 x: Shoal's latency over direct (below 1: Shoal faster); p999 is nearest-rank, the slowest statement when n < 1000")
	return nil
}

func mixMS(d time.Duration) string { return fmt.Sprintf("%.3fms", float64(d)/1e6) }

// mixRoute is the first line of Shoal's EXPLAIN of q.
func mixRoute(ctx context.Context, db *sql.DB, q string) string {
	var line string
	if err := db.QueryRowContext(ctx, "EXPLAIN "+q).Scan(&line); err != nil {
		return "EXPLAIN: " + err.Error()
	}
	return line
}

// mixSide runs class c on db with conns connections for per (or c.budget
// statements), each statement with new literals, and summarises the
// latencies.
func mixSide(ctx context.Context, db *sql.DB, c mixClass, conns int, per time.Duration, lo, hi int64) (measure.Latency, error) {
	var (
		mu    sync.Mutex
		all   []time.Duration
		first error
		wg    sync.WaitGroup
		count int
	)
	deadline := time.Now().Add(per)
	for i := 0; i < conns; i++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, 7))
			conn, err := db.Conn(ctx)
			if err != nil {
				mu.Lock()
				first = err
				mu.Unlock()
				return
			}
			defer conn.Close()
			var mine []time.Duration
			for time.Now().Before(deadline) && ctx.Err() == nil {
				mu.Lock()
				stop := c.budget > 0 && count >= c.budget
				count++
				mu.Unlock()
				if stop {
					break
				}
				q := c.gen(r, lo, hi)
				start := time.Now()
				rows, err := conn.QueryContext(ctx, q)
				if err == nil {
					for rows.Next() {
					}
					err = rows.Err()
					rows.Close()
				}
				if err != nil {
					mu.Lock()
					first = fmt.Errorf("%s: %w", q, err)
					mu.Unlock()
					return
				}
				mine = append(mine, time.Since(start))
			}
			mu.Lock()
			all = append(all, mine...)
			mu.Unlock()
		}(uint64(i) + 1)
	}
	wg.Wait()
	if first != nil {
		return measure.Latency{}, first
	}
	return measure.Summarize(all), nil
}
