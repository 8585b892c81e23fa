package e2e

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/shoaldb/shoal/config"
)

// TestSoak holds SHOAL_SOAK_CONNS connections (default 100) open on a
// coordinator of its own for SHOAL_SOAK_DURATION (default 40s; 15s under
// the race detector, whose run of it is for races, not growth), each
// running a mix of statements — distributed aggregate, top-N, passthrough,
// a pinned table, a prepared statement, and failing ones (unknown column,
// unknown table, a syntax error, a write) — and checking every answer and
// every error code against the primary's (a write must get 1290). Every few seconds it samples the process's RSS
// (/proc/self/status VmRSS: coordinator and workers run in this process)
// and goroutine count. It fails on any wrong or failed answer, on
// goroutines that keep growing under a steady load, and on RSS that grows
// past a bound after the warm-up (the first third), and on a statement of
// the mix that never ran. Checked to fail (20 connections, 20s) with a
// goroutine or 1 MiB (RSS, without -race) leaked per statement in the
// coordinator's query path, and with writes passed through instead of
// refused (1792 from the replica, not 1290). The long run:
//
//	SHOAL_SOAK_DURATION=10m SHOAL_SOAK_CONNS=300 go test ./e2e -run TestSoak -count=1 -timeout 30m
func TestSoak(t *testing.T) {
	checkLeaks(t)
	conns := envInt(t, "SHOAL_SOAK_CONNS", 100)
	dur := 40 * time.Second
	if raceEnabled {
		dur = 15 * time.Second
	}
	dur = envDuration(t, "SHOAL_SOAK_DURATION", dur)
	sample := min(5*time.Second, max(dur/20, time.Second))

	fs := startFaultShoal(t, func(c *config.Coordinator) {
		c.MaxConnections = conns + 50
	})
	if _, err := fs.db.Exec("CACHE TABLE ontime.carriers"); err != nil {
		t.Fatal(err)
	}
	if ex := explainOn(t, fs.db, soakPinned); !strings.Contains(ex, "in memory") {
		t.Fatalf("%s does not run over the pinned table:\n%s", soakPinned, ex)
	}
	mix := soakMix(t)

	fs.db.SetMaxOpenConns(conns)
	fs.db.SetMaxIdleConns(conns)
	ctx, cancel := context.WithTimeout(context.Background(), dur)
	defer cancel()
	var queries, failures atomic.Int64
	ran := make([]atomic.Int64, len(mix)) // runs of each statement of the mix
	fail := func(format string, args ...any) {
		if failures.Add(1) <= 5 {
			t.Errorf(format, args...)
		}
	}

	start := time.Now()
	goStart := runtime.NumGoroutine()
	var samples []soakSample
	samples = append(samples, soakSample{0, rss(t), goStart})
	var wg sync.WaitGroup
	for i := range conns {
		wg.Go(func() {
			c, err := fs.db.Conn(context.Background())
			if err != nil {
				fail("connection %d: %v", i, err)
				return
			}
			defer c.Close()
			st, err := c.PrepareContext(context.Background(), soakPrepared)
			if err != nil {
				fail("connection %d: prepare: %v", i, err)
				return
			}
			defer st.Close()
			// Connections start spread over the mix, so a short or slow
			// run still runs each statement (the failing ones are last).
			for k := i * len(mix) / conns; ctx.Err() == nil; k++ {
				q := mix[k%len(mix)]
				ran[k%len(mix)].Add(1)
				var got string
				var err error
				if q.prepared {
					got, err = rowsString(st.QueryContext(context.Background(), q.args...))
				} else {
					got, err = rowsString(c.QueryContext(context.Background(), q.sql))
				}
				queries.Add(1)
				var me *mysql.MySQLError
				switch {
				case q.errno != 0:
					// A failing statement of the mix: its error, and the
					// connection goes on with the next statement.
					if !errors.As(err, &me) || me.Number != q.errno {
						fail("connection %d: %s: got %v, want error %d", i, q.sql, err, q.errno)
					}
				case err != nil:
					fail("connection %d: %s %v: %v", i, q.sql, q.args, err)
				case got != q.want:
					fail("connection %d: %s %v:\nshoal  %s\ndirect %s", i, q.sql, q.args, got, q.want)
				}
			}
		})
	}
	tick := time.NewTicker(sample)
	for ctx.Err() == nil {
		select {
		case <-ctx.Done():
		case <-tick.C:
			samples = append(samples, soakSample{time.Since(start), rss(t), runtime.NumGoroutine()})
		}
	}
	tick.Stop()
	wg.Wait()
	elapsed := time.Since(start)
	fs.db.SetMaxIdleConns(0) // close the idle connections
	time.Sleep(time.Second)  // let the coordinator notice them gone
	goEnd := runtime.NumGoroutine()

	minRSS, maxRSS := samples[0].rss, samples[0].rss
	for _, s := range samples {
		minRSS, maxRSS = min(minRSS, s.rss), max(maxRSS, s.rss)
	}
	t.Logf("soak: %d connections, %s: %d queries, %d failures, %.0f QPS, RSS min %d MiB max %d MiB, goroutines start %d end %d",
		conns, elapsed.Round(time.Second), queries.Load(), failures.Load(), float64(queries.Load())/elapsed.Seconds(),
		minRSS>>20, maxRSS>>20, goStart, goEnd)
	for _, s := range samples {
		t.Logf("  %6s  RSS %4d MiB  goroutines %d", s.at.Round(time.Second), s.rss>>20, s.goroutines)
	}
	if queries.Load() < int64(conns) {
		t.Errorf("only %d queries ran", queries.Load())
	}
	for i := range mix {
		if ran[i].Load() == 0 {
			t.Errorf("%s never ran in %s: a longer SHOAL_SOAK_DURATION or more SHOAL_SOAK_CONNS", mix[i].sql, elapsed.Round(time.Second))
		}
	}
	if err := soakGrowth(samples, dur/3, !raceEnabled); err != nil {
		t.Error(err)
	}
	if goEnd > goStart+20 {
		t.Errorf("goroutines: %d before the soak, %d after every connection closed", goStart, goEnd)
	}
}

// soakSample is one reading of the process.
type soakSample struct {
	at         time.Duration
	rss        int64
	goroutines int
}

// soakGrowth checks the samples after warm-up against the warm-up's
// highest: RSS may grow by a quarter plus 64 MiB (GC pacing, pools
// filling), goroutines by a tenth plus 20 (connections' goroutines come
// and go with the statements).
//
// Under the race detector (checkRSS false) only goroutines are bounded:
// its shadow memory grows with the run, so scripts/test.sh runs the soak
// once more without it.
func soakGrowth(samples []soakSample, warm time.Duration, checkRSS bool) error {
	var baseRSS int64
	var baseGo int
	after := 0
	for _, s := range samples {
		if s.at <= warm {
			baseRSS, baseGo = max(baseRSS, s.rss), max(baseGo, s.goroutines)
			continue
		}
		after++
		if bound := baseRSS + baseRSS/4 + 64<<20; checkRSS && s.rss > bound {
			return fmt.Errorf("RSS %d MiB at %s, past %d MiB (warm-up peak %d MiB + 25%% + 64 MiB)", s.rss>>20, s.at.Round(time.Second), bound>>20, baseRSS>>20)
		}
		if bound := baseGo + baseGo/10 + 20; s.goroutines > bound {
			return fmt.Errorf("%d goroutines at %s, past %d (warm-up peak %d + 10%% + 20)", s.goroutines, s.at.Round(time.Second), bound, baseGo)
		}
	}
	if after == 0 {
		return fmt.Errorf("no sample after the warm-up (%s)", warm)
	}
	return nil
}

// rss is this process's resident set in bytes.
func rss(t *testing.T) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatalf("VmRSS %q: %v", v, err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmRSS in /proc/self/status")
	return 0
}

// soakQuery is one statement of the mix and its expected answer.
type soakQuery struct {
	sql      string
	args     []any
	prepared bool
	want     string
	errno    uint16 // a failing statement: the MySQL error it must get
}

const (
	soakPinned   = "SELECT country, COUNT(*) FROM carriers GROUP BY country ORDER BY country"
	soakPrepared = "SELECT COUNT(*), SUM(Distance) FROM ontime WHERE DayOfWeek = ? AND Carrier = ?"
)

// soakMix builds the statements, with the primary's answers.
func soakMix(t *testing.T) []soakQuery {
	t.Helper()
	var mix []soakQuery
	for d := 1; d <= 7; d++ {
		mix = append(mix,
			soakQuery{sql: fmt.Sprintf("SELECT Carrier, COUNT(*), SUM(Distance), MAX(ArrDelayMinutes) FROM ontime WHERE DayOfWeek = %d GROUP BY Carrier ORDER BY Carrier", d)},
			soakQuery{sql: fmt.Sprintf("SELECT id, Distance FROM ontime WHERE DayOfWeek = %d ORDER BY Distance DESC, id LIMIT 10", d)},
			soakQuery{sql: fmt.Sprintf("SELECT code, name FROM carriers WHERE code > '%c' ORDER BY code LIMIT 3", 'A'+d)},
			soakQuery{sql: fmt.Sprintf("SELECT city, state FROM airports ORDER BY code LIMIT %d", d)},
			soakQuery{sql: soakPinned},
			soakQuery{sql: soakPrepared, args: []any{d, []string{"AA", "DL", "WN", "UA"}[d%4]}, prepared: true},
		)
	}
	// Failing statements: the replica's errors as MariaDB gives them, and
	// Shoal's refusal of a write (never sent to the primary here).
	for _, q := range []string{
		"SELECT Carrier, COUNT(*) FROM ontime GROUP BY Carrier HAVING nosuch > 0", // 1054, distributed plan
		"SELECT nosuch FROM carriers",    // 1054, passthrough
		"SELECT COUNT(*) FROM nosuchtab", // 1146
		"SELEC 1",                        // 1064
	} {
		_, err := rowsString(env.direct.Query(q))
		var me *mysql.MySQLError
		if !errors.As(err, &me) {
			t.Fatalf("direct: %s: want a MySQL error, got %v", q, err)
		}
		mix = append(mix, soakQuery{sql: q, errno: me.Number})
	}
	mix = append(mix, soakQuery{sql: "DELETE FROM carriers WHERE code = 'ZZ'", errno: 1290})
	for i := range mix {
		q := &mix[i]
		if q.errno != 0 {
			continue
		}
		var err error
		if q.prepared {
			q.want, err = rowsString(env.direct.Query(q.sql, q.args...))
		} else {
			q.want, err = rowsString(env.direct.Query(q.sql))
		}
		if err != nil {
			t.Fatalf("direct: %s: %v", q.sql, err)
		}
	}
	return mix
}

// rowsString reads rows into one comparable string and closes them.
func rowsString(rows *sql.Rows, err error) (string, error) { return rowsText(rows, err, false) }

// rowsText is rowsString; slow reads like a client that takes its time
// (300 ms before the first row, 5 ms every 500 rows) and puts the column
// names first.
func rowsText(rows *sql.Rows, err error, slow bool) (string, error) {
	if err != nil {
		return "", err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return "", err
	}
	vals := make([]sql.RawBytes, len(cols))
	ptrs := make([]any, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var b strings.Builder
	if slow {
		time.Sleep(300 * time.Millisecond)
		b.WriteString(strings.Join(cols, "|") + "\n")
	}
	for n := 0; rows.Next(); n++ {
		if slow && n%500 == 499 {
			time.Sleep(5 * time.Millisecond)
		}
		if err := rows.Scan(ptrs...); err != nil {
			return "", err
		}
		for _, v := range vals {
			if v == nil {
				b.WriteString("NULL")
			} else {
				b.Write(v)
			}
			b.WriteByte('|')
		}
		b.WriteByte('\n')
	}
	return b.String(), rows.Err()
}

// explainOn returns db's EXPLAIN of q (a pool or one connection).
func explainOn(t *testing.T, db queryer, q string) string {
	t.Helper()
	r, err := queryArgs(db, "EXPLAIN "+q)
	if err != nil || r.err != nil {
		t.Fatalf("EXPLAIN %s: %v %v", q, err, r.err)
	}
	var lines []string
	for _, row := range r.rows {
		lines = append(lines, row[0])
	}
	return strings.Join(lines, "\n")
}

// envDuration is the duration environment variable name holds, or def.
func envDuration(t *testing.T, name string, def time.Duration) time.Duration {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		t.Fatalf("%s=%q: want a duration such as 60s", name, s)
	}
	return d
}
