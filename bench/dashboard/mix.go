package dashboard

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
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
		{"carrier-top", func(*rand.Rand, int64, int64) string {
			// MariaDB answers it from the covering Carrier index alone.
			return "select Carrier, count(*) from ontime group by Carrier order by 2 desc limit 5"
		}, 6},
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
                       [--rounds N] [--addr HOST:PORT] [--baseline HOST:PORT]

A BI-like mix — select 1, point lookups by primary key with a new literal
each time (point) and with the same text repeated (point-same), the same
through a constant expression (point-expr), 200-key ranges (short-range),
a selective indexed count, the top carriers (carrier-top, which MariaDB
answers from a covering index), a full-table aggregate and an export —
run class by class at each connection count, directly on the first
replica of the local cluster in D and through its coordinator, in the
same run. Prints per class and side p50/p99/p999, the ratio Shoal/direct
of each, and how Shoal routes the class (its EXPLAIN's first line).
Large classes run a bounded number of statements per side.

--rounds N repeats every class and connection count N times, the sides in
alternating order, and prints the median of each figure over the rounds.
--baseline measures a second coordinator over the same replicas (another
binary, started with a copy of coordinator.yaml on other ports) in the
same rounds, on a row of its own: before and after in one sitting.

flags:
`)
		fs.PrintDefaults()
	}
	dir := fs.String("dir", localcluster.DefaultDir, "local cluster directory")
	connsFlag := fs.String("conns", "1,8", "connection counts, comma separated")
	per := fs.Duration("time", 5*time.Second, "time per class, side and connection count")
	only := fs.String("classes", "", "run only these classes, comma separated")
	rounds := fs.Int("rounds", 1, "rounds; figures are medians over them")
	addr := fs.String("addr", "", "the coordinator to measure (default: the cluster's)")
	baseline := fs.String("baseline", "", "a second coordinator measured in the same rounds (e.g. the previous binary)")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	steps, err := parseSteps(*connsFlag)
	if err != nil {
		return err
	}
	if *rounds < 1 {
		return fmt.Errorf("--rounds must be at least 1")
	}
	maxConns := 1
	for _, n := range steps {
		maxConns = max(maxConns, n)
	}
	c, err := measure.LoadCluster(*dir)
	if err != nil {
		return err
	}
	if *addr == "" {
		*addr = c.Coordinator.MySQL
	}
	direct, shoal, err := measure.OpenSides(c, *addr, maxConns)
	if err != nil {
		return err
	}
	defer direct.Close()
	defer shoal.Close()
	sides := []mixTarget{{"shoal", shoal}}
	if *baseline != "" {
		unused, base, err := measure.OpenSides(c, *baseline, maxConns)
		if err != nil {
			return err
		}
		unused.Close()
		defer base.Close()
		sides = append(sides, mixTarget{"baseline", base})
	}
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
	return runMix(ctx, os.Stdout, direct, sides, classes, steps, *per, *rounds, lo, hi)
}

// mixTarget is one coordinator measured against the direct side.
type mixTarget struct {
	name string
	db   *sql.DB
}

func runMix(ctx context.Context, w io.Writer, direct *sql.DB, sides []mixTarget, classes []mixClass, steps []int, per time.Duration, rounds int, lo, hi int64) error {
	fmt.Fprintf(w, "%-16s %5s %-8s %10s %10s %10s %10s %10s %10s %7s %7s %7s %6s %6s  %s\n",
		"class", "conns", "side", "direct p50", "direct p99", "dir p999", "side p50", "side p99", "side p999", "p50 x", "p99 x", "p999 x", "n dir", "n side", "route")
	for _, c := range classes {
		for _, conns := range steps {
			// got[0] is direct, got[1+i] sides[i]; one Latency per round.
			got := make([][]measure.Latency, 1+len(sides))
			for r := 0; r < rounds; r++ {
				order := make([]int, 1+len(sides))
				for i := range order {
					order[i] = i
				}
				if r%2 == 1 {
					slices.Reverse(order)
				}
				for _, i := range order {
					db, name := direct, "direct"
					if i > 0 {
						db, name = sides[i-1].db, sides[i-1].name
					}
					l, err := mixSide(ctx, db, c, conns, per, lo, hi)
					if err != nil {
						return fmt.Errorf("%s %s: %w", c.name, name, err)
					}
					got[i] = append(got[i], l)
				}
			}
			d := medianLatency(got[0])
			for i, side := range sides {
				s := medianLatency(got[1+i])
				route := mixRoute(ctx, side.db, c.gen(rand.New(rand.NewPCG(1, 2)), lo, hi))
				fmt.Fprintf(w, "%-16s %5d %-8s %10s %10s %10s %10s %10s %10s %7.2f %7.2f %7.2f %6d %6d  %s\n",
					c.name, conns, side.name, mixMS(d.P50), mixMS(d.P99), mixMS(d.P999), mixMS(s.P50), mixMS(s.P99), mixMS(s.P999),
					ratio(s.P50, d.P50), ratio(s.P99, d.P99), ratio(s.P999, d.P999), d.N, s.N, route)
			}
		}
	}
	fmt.Fprintln(w, "p50 x, p99 x, p999 x: the side's latency over direct (below 1: faster than the replica); p999 is nearest-rank, the slowest statement when n < 1000")
	if rounds > 1 {
		fmt.Fprintf(w, "each figure is the median over %d rounds (sides in alternating order); n is the total\n", rounds)
	}
	return nil
}

func ratio(a, b time.Duration) float64 { return float64(a) / float64(max(b, 1)) }

// medianLatency is, figure by figure, the median of ls over rounds (the
// lower middle one for an even count); N is their total.
func medianLatency(ls []measure.Latency) measure.Latency {
	pick := func(f func(measure.Latency) time.Duration) time.Duration {
		ds := make([]time.Duration, len(ls))
		for i, l := range ls {
			ds[i] = f(l)
		}
		slices.Sort(ds)
		return ds[(len(ds)-1)/2]
	}
	out := measure.Latency{
		P50:  pick(func(l measure.Latency) time.Duration { return l.P50 }),
		P95:  pick(func(l measure.Latency) time.Duration { return l.P95 }),
		P99:  pick(func(l measure.Latency) time.Duration { return l.P99 }),
		P999: pick(func(l measure.Latency) time.Duration { return l.P999 }),
		Mean: pick(func(l measure.Latency) time.Duration { return l.Mean }),
		Max:  pick(func(l measure.Latency) time.Duration { return l.Max }),
	}
	for _, l := range ls {
		out.N += l.N
	}
	return out
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
