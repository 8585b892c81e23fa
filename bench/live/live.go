// Package live is `shoal bench live`: a live pin (CACHE TABLE … OPTIONS
// ('refresh' = 'live')) under a steady write load on the primary, read by
// dashboard clients, beside a static pin of the same rows read by the same
// clients in the same run.
//
//	writer     one transaction every 20 ms on the primary: inserts at the
//	           top of a sliding id window, updates inside it, deletes at
//	           its bottom (the table keeps its size), Rate row changes/s
//	prober     every Probe: UPDATE the marker row (id 0) on the primary;
//	           pin staleness = commit sent → the pin's position (SHOW
//	           CACHED TABLES) covers the marker's GTID, of which
//	           replication's share = commit sent → a replica applied it;
//	           reader staleness = commit sent → a point read of the live
//	           pin through Shoal shows it (includes waiting for a run slot)
//	clients    Clients connections, each alternating a chart over the
//	           live pin and the same chart over the static pin, literals
//	           varied so no result cache answers
//	sampler    every Sample: SHOW CACHED TABLES (the pin's bytes, rows,
//	           events applied, lag) and the coordinator's /metrics (RSS,
//	           Go heap in use)
//
// At the end the writes stop, the pin is waited for until it shows the
// primary's GTID position, and its full contents and every chart are
// compared with the primary's: any difference is a wrong answer.
//
// It may import bench/measure, deploy/localcluster and internal/cli; no
// other bench package imports it.
package live

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"
	"vitess.io/vitess/go/mysql/replication"

	"github.com/shoaldb/shoal/bench/measure"
)

// Live workload tables (database liveDB, created on the primary).
const (
	liveDB       = "shoal_live"
	liveSource   = liveDB + ".events"
	livePin      = liveDB + ".live_events"
	liveStatic   = liveDB + ".static_events"
	liveTxPeriod = 20 * time.Millisecond
)

// LiveOptions configure RunLive.
type LiveOptions struct {
	// Shoal is the coordinator (it must allow Clients+4 connections),
	// Primary the replication primary the writes go to.
	Shoal, Primary *sql.DB
	// Replicas are waited for after the load, before the pins are made.
	Replicas []*sql.DB
	// MetricsURL is the coordinator's /metrics ("" to skip RSS and heap).
	MetricsURL string
	Rows       int           // rows loaded before the run
	Rate       int           // row changes per second on the primary
	Clients    int           // dashboard connections
	Duration   time.Duration // of the timed run
	Probe      time.Duration // between two marker updates
	Sample     time.Duration // between two memory samples
	Seed       uint64
	Keep       bool // keep the pins and the table afterwards
	// Follow is the live pin's 'follow' option: "primary" or "replica";
	// "" leaves it out (the coordinator's live_follow).
	Follow string
	// Warmup delays the staleness probes this long into the run (the
	// writes and the dashboards start at once), so that they measure the
	// steady state rather than 50 connections opening and planning
	// their first statements together.
	Warmup   time.Duration
	Progress io.Writer
	// Kill, when positive, is when (after the timed run starts) the
	// replica the live pin follows is killed, through Crash (its MySQL
	// address); the replica is started again RestartAfter later, if the
	// run lasts that long, else when it ends.
	Kill, RestartAfter time.Duration
	Crash              func(addr string) (restart func(context.Context) error, err error)
}

// LiveSide is the dashboard's outcome over one pin.
type LiveSide struct {
	Name    string
	OK      int
	Errors  int
	Latency measure.Latency
	Elapsed time.Duration
	// FirstErrors are up to three distinct error messages.
	FirstErrors []string
}

// QPS is the side's answered queries per second.
func (s LiveSide) QPS() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.OK) / s.Elapsed.Seconds()
}

// SlowProbe is one staleness probe: sent At into the run, seen Took later.
type SlowProbe struct{ At, Took time.Duration }

// MemSample is one sample of the pin and the coordinator.
type MemSample struct {
	At            time.Duration // since the run started
	PinRows       int64
	PinBytes      int64
	Applied       int64 // events applied since the pin's last full load
	LagMs         int64
	RSS, HeapUsed int64 // coordinator process; 0 when unknown
}

// LiveReport is the outcome of RunLive.
type LiveReport struct {
	Opts LiveOptions
	// Changes are the row changes the primary reported (rows affected),
	// Txs the transactions committed, over Elapsed.
	Changes, Txs int64
	WriteErrors  int
	Elapsed      time.Duration
	// Staleness of the live pin per probe, as a reader through Shoal
	// sees it; Unseen counts probes whose value had not shown after 30 s.
	Staleness measure.Latency
	Unseen    int
	// PinStaleness is, per probe, commit sent → the pin's visible
	// version covers the marker's GTID (SHOW CACHED TABLES): the pin's
	// own staleness, without a reader's wait for a run slot.
	PinStaleness measure.Latency
	// SlowestPin are the probes of the largest PinStaleness, slowest
	// first, with when they were sent: a tail at the run's start (50
	// connections planning their first statements) is told apart from
	// one spread over it.
	SlowestPin []SlowProbe
	// ReplicaStaleness is, per probe, commit sent → a replica's
	// @@gtid_current_pos covers it: replication's share of PinStaleness.
	ReplicaStaleness measure.Latency
	// Poll is the latency of the probe's poll statement itself (a point
	// read of the live pin through Shoal): staleness includes one.
	Poll measure.Latency
	// Applied is the growth of the pin's applied-events counter over the
	// run; Reloads says whether it reloaded (then Applied undercounts).
	Applied int64
	Reloads string
	Live    LiveSide
	Static  LiveSide
	Memory  []MemSample
	// CatchUp is how long the pin took to show the primary's position
	// once the writes stopped; Position is that position.
	CatchUp  time.Duration
	Position string
	// Followed is the server the pin followed at the end (Live_replica).
	Followed string
	// Failover is the replica kill (Opts.Kill), when one was asked for.
	Failover *Failover
	// Compared rows of the full contents; WrongRows differ (either
	// side's rows missing from the other), WrongCharts charts whose
	// answers differ. Problems describes the first few.
	Compared, WrongRows, WrongCharts int
	Problems                         []string
}

// Failover is what happened when the followed replica was killed.
type Failover struct {
	Victim, Next string        // the killed replica and the one followed next
	At           time.Duration // kill time since the run started
	// Moved is kill → the pin reports following another replica and its
	// position has advanced past the one it had at the kill.
	Moved time.Duration
	// Restarted is kill → the victim replicates again ("" error).
	Restarted  time.Duration
	RestartErr string
	Err        string // the failover did not happen, and why
}

// liveChart is a dashboard query over table %[1]s; lit draws its literal.
type liveChart struct {
	name string
	sql  string // fmt: %[1]s the table, %[2]d the literal
	lit  func(r *rand.Rand) int
}

var liveCharts = []liveChart{
	{"by group", "SELECT grp, COUNT(*), SUM(amount), AVG(amount) FROM %[1]s WHERE kind <> %[2]d GROUP BY grp ORDER BY grp", func(r *rand.Rand) int { return r.IntN(10) }},
	{"recent days", "SELECT day, COUNT(*), SUM(amount) FROM %[1]s WHERE grp = CONCAT('g', %[2]d) GROUP BY day ORDER BY day DESC LIMIT 10", func(r *rand.Rand) int { return r.IntN(8) }},
	{"amount range by kind", "SELECT kind, COUNT(*), MIN(amount), MAX(amount) FROM %[1]s WHERE amount > %[2]d GROUP BY kind ORDER BY kind", func(r *rand.Rand) int { return r.IntN(900) }},
	{"since day", "SELECT COUNT(*), SUM(amount), COUNT(note) FROM %[1]s WHERE day >= DATE '2024-01-01' + INTERVAL %[2]d DAY", func(r *rand.Rand) int { return r.IntN(365) }},
	{"top amounts", "SELECT id, grp, amount FROM %[1]s WHERE amount > %[2]d ORDER BY amount DESC, id LIMIT 20", func(r *rand.Rand) int { return r.IntN(990) }},
}

// liveRow is the row of id: deterministic in id and a version v.
func liveRow(id int64, v int) string {
	return fmt.Sprintf("(%d,'g%d',%d,%d.%02d,DATE '2024-01-01' + INTERVAL %d DAY,%s)",
		id, id%8, (id+int64(v))%10, (id*7+int64(v)*13)%1000, id%100, id%365, liveNote(id, v))
}

func liveNote(id int64, v int) string {
	if (id+int64(v))%5 == 0 {
		return "NULL"
	}
	return fmt.Sprintf("'n%d-%d'", id%1000, v)
}

// liveMix splits a transaction's n row changes: 30% inserts, 40%
// updates, 30% deletes, every kind at least one when n >= 3; below that
// updates only. Inserts and deletes are always as many: the table keeps
// its size, whatever the sizes of the transactions.
func liveMix(n int) (ins, upd, del int) {
	if n < 3 {
		return 0, n, 0
	}
	ins = max(1, n*3/10)
	del = ins
	upd = n - ins - del
	return ins, upd, del
}

// RunLive runs the live workload (see the package comment).
func RunLive(ctx context.Context, o LiveOptions) (*LiveReport, error) {
	progress := o.Progress
	if progress == nil {
		progress = io.Discard
	}
	if o.Rows < 100 || o.Rate <= 0 || o.Clients <= 0 || o.Duration <= 0 || o.Probe <= 0 || o.Sample <= 0 {
		return nil, fmt.Errorf("bench live: rows >= 100 and a positive rate, clients, duration, probe and sample are needed")
	}
	if o.Warmup < 0 || o.Warmup >= o.Duration {
		return nil, fmt.Errorf("bench live: the warm-up (%s) must be shorter than the run (%s)", o.Warmup, o.Duration)
	}
	rep := &LiveReport{Opts: o}
	fmt.Fprintf(progress, "loading %d rows into %s on the primary\n", o.Rows, liveSource)
	if err := liveLoad(ctx, o.Primary, o.Rows); err != nil {
		return nil, err
	}
	if err := waitPrimaryOnReplicas(ctx, o.Primary, o.Replicas); err != nil {
		return nil, err
	}
	opts := "'refresh' = 'live'"
	if o.Follow != "" {
		opts += ", 'follow' = '" + o.Follow + "'"
	}
	for _, s := range []string{
		"CACHE TABLE " + livePin + " OPTIONS (" + opts + ") AS SELECT * FROM " + liveSource,
		"CACHE TABLE " + liveStatic + " AS SELECT * FROM " + liveSource,
	} {
		fmt.Fprintf(progress, "through shoal: %s\n", s)
		if _, err := o.Shoal.ExecContext(ctx, s); err != nil {
			return nil, fmt.Errorf("%s: %w", s, err)
		}
	}
	if !o.Keep {
		defer func() {
			tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
			defer cancel()
			o.Shoal.ExecContext(tctx, "UNCACHE TABLE IF EXISTS "+livePin)
			o.Shoal.ExecContext(tctx, "UNCACHE TABLE IF EXISTS "+liveStatic)
			o.Primary.ExecContext(tctx, "DROP DATABASE IF EXISTS "+liveDB)
		}()
	}
	st0, err := liveStatus(ctx, o.Shoal)
	if err != nil {
		return nil, err
	}

	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	start := time.Now()
	deadline := start.Add(o.Duration)
	var (
		wg        sync.WaitGroup
		writerErr error
		stale     []time.Duration
		pinStale  []time.Duration
		pinSent   []time.Time // when each pinStale probe was sent
		replStale []time.Duration
		polls     []time.Duration
		unseen    int
		probeErr  error
		mu        sync.Mutex // memory samples
	)
	var changes, txs atomic.Int64
	wg.Go(func() { writerErr = liveWriter(runCtx, o, deadline, &changes, &txs, &rep.WriteErrors) })
	wg.Go(func() {
		select {
		case <-runCtx.Done():
		case <-time.After(o.Warmup):
		}
		stale, pinStale, pinSent, replStale, polls, unseen, probeErr = liveProber(runCtx, o, deadline)
	})
	wg.Go(func() {
		tick := time.NewTicker(o.Sample)
		defer tick.Stop()
		for {
			if s, err := liveSample(runCtx, o, start); err == nil {
				mu.Lock()
				rep.Memory = append(rep.Memory, s)
				mu.Unlock()
				fmt.Fprintf(progress, "  %4.0fs  pin %d rows %s, applied %d, lag %d ms, coordinator rss %s heap %s, writes %d changes\n",
					s.At.Seconds(), s.PinRows, measure.FmtBytes(s.PinBytes), s.Applied, s.LagMs, measure.FmtBytes(s.RSS), measure.FmtBytes(s.HeapUsed), changes.Load())
			}
			select {
			case <-runCtx.Done():
				return
			case <-time.After(time.Until(deadline)):
				return // the run's length need not be a multiple of the sample time
			case <-tick.C:
			}
		}
	})
	if o.Kill > 0 && o.Crash != nil {
		wg.Go(func() { rep.Failover = liveFailover(runCtx, o, start, deadline, progress) })
	}
	rep.Live, rep.Static = liveClients(runCtx, o, deadline)
	wg.Wait()
	rep.Elapsed = time.Since(start)
	rep.Changes, rep.Txs = changes.Load(), txs.Load()
	rep.Staleness, rep.Unseen, rep.Poll = measure.Summarize(stale), unseen, measure.Summarize(polls)
	rep.SlowestPin = slowest(pinStale, pinSent, start, 5) // before Summarize sorts pinStale
	rep.PinStaleness, rep.ReplicaStaleness = measure.Summarize(pinStale), measure.Summarize(replStale)
	if err := ctx.Err(); err != nil {
		return rep, err
	}
	if writerErr != nil {
		return rep, writerErr
	}
	if probeErr != nil {
		return rep, probeErr
	}
	if s, err := liveSample(ctx, o, start); err == nil {
		rep.Memory = append(rep.Memory, s)
	}

	// Writes stopped: wait for the pin to show the primary's position,
	// then compare.
	var pos string
	if err := o.Primary.QueryRowContext(ctx, "SELECT @@gtid_binlog_pos").Scan(&pos); err != nil {
		return rep, err
	}
	rep.Position = pos
	want, err := replication.ParseMariadbGTIDSet(pos)
	if err != nil {
		return rep, err
	}
	catch := time.Now()
	for {
		st, err := liveStatus(ctx, o.Shoal)
		if err != nil {
			return rep, err
		}
		if got, err := replication.ParseMariadbGTIDSet(st.position); err == nil && got.Contains(want) {
			rep.CatchUp = time.Since(catch)
			rep.Followed = st.replica
			rep.Applied = st.applied - st0.applied
			if st.loads != st0.loads {
				rep.Reloads = st.state
				rep.Applied = st.applied
			}
			break
		}
		if time.Since(catch) > time.Minute {
			return rep, fmt.Errorf("the live pin did not reach the primary's position %s within a minute of the writes stopping: it is at %s (%s)", pos, st.position, st.state)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := liveCompare(ctx, o, rep); err != nil {
		return rep, err
	}
	return rep, nil
}

// liveFailover kills the replica the live pin follows at start+o.Kill,
// measures how long the pin takes to follow another one, and starts the
// killed replica again o.RestartAfter later (or at the deadline).
func liveFailover(ctx context.Context, o LiveOptions, start, deadline time.Time, progress io.Writer) *Failover {
	select {
	case <-ctx.Done():
		return nil
	case <-time.After(time.Until(start.Add(o.Kill))):
	}
	f := &Failover{At: time.Since(start)}
	st, err := liveStatus(ctx, o.Shoal)
	if err != nil {
		f.Err = err.Error()
		return f
	}
	if st.replica == "" {
		f.Err = "SHOW CACHED TABLES names no followed replica (" + st.state + ")"
		return f
	}
	f.Victim = st.replica
	before, _ := replication.ParseMariadbGTIDSet(st.position)
	fmt.Fprintf(progress, "  %4.0fs  killing %s, the replica the live pin follows (at %s)\n", f.At.Seconds(), f.Victim, st.position)
	killed := time.Now()
	restart, err := o.Crash(f.Victim)
	if err != nil {
		f.Err = err.Error()
		return f
	}
	defer func() {
		// Started again whatever happens, with its own deadline: the
		// run's context may be over by now.
		wait := min(time.Until(killed.Add(o.RestartAfter)), time.Until(deadline))
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
		defer cancel()
		if err := restart(rctx); err != nil {
			f.RestartErr = err.Error()
		} else {
			f.Restarted = time.Since(killed)
			fmt.Fprintf(progress, "  %4.0fs  %s replicates again\n", time.Since(start).Seconds(), f.Victim)
		}
	}()
	for ctx.Err() == nil {
		st, err := liveStatus(ctx, o.Shoal)
		if err == nil && st.replica != "" && st.replica != f.Victim {
			if got, err := replication.ParseMariadbGTIDSet(st.position); err == nil && (before == nil || (got.Contains(before) && !before.Contains(got))) {
				f.Moved, f.Next = time.Since(killed), st.replica
				fmt.Fprintf(progress, "  %4.0fs  the live pin follows %s, %s after the kill (%s)\n", time.Since(start).Seconds(), f.Next, measure.FmtDur(f.Moved), st.state)
				return f
			}
		}
		if time.Now().After(deadline) {
			f.Err = fmt.Sprintf("the pin did not move to another replica before the run ended (%s, %s)", st.replica, st.state)
			return f
		}
		time.Sleep(20 * time.Millisecond)
	}
	return f
}

// liveLoad (re)creates the source table with rows 1..n and the marker row 0.
func liveLoad(ctx context.Context, db *sql.DB, n int) error {
	for _, q := range []string{
		"CREATE DATABASE IF NOT EXISTS " + liveDB,
		"DROP TABLE IF EXISTS " + liveSource,
		"CREATE TABLE " + liveSource + " (id BIGINT NOT NULL PRIMARY KEY, grp VARCHAR(8) NOT NULL, kind INT NOT NULL, " +
			"amount DECIMAL(12,2) NOT NULL, day DATE NOT NULL, note VARCHAR(40) NULL)",
		"INSERT INTO " + liveSource + " VALUES (0, 'marker', 0, 0, DATE '2024-01-01', 'marker')",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	for lo := 1; lo <= n; lo += 2000 {
		var vals []string
		for id := lo; id < lo+2000 && id <= n; id++ {
			vals = append(vals, liveRow(int64(id), 0))
		}
		if _, err := db.ExecContext(ctx, "INSERT INTO "+liveSource+" VALUES "+strings.Join(vals, ",")); err != nil {
			return err
		}
	}
	return nil
}

// waitPrimaryOnReplicas waits until every replica has applied the
// primary's position, so the pins load what was written.
func waitPrimaryOnReplicas(ctx context.Context, primary *sql.DB, replicas []*sql.DB) error {
	var pos string
	if err := primary.QueryRowContext(ctx, "SELECT @@gtid_binlog_pos").Scan(&pos); err != nil {
		return err
	}
	for i, r := range replicas {
		var res sql.NullInt64
		if err := r.QueryRowContext(ctx, "SELECT MASTER_GTID_WAIT(?, 120)", pos).Scan(&res); err != nil {
			return fmt.Errorf("waiting for replica %d to apply %s: %w", i+1, pos, err)
		}
		if !res.Valid || res.Int64 != 0 {
			return fmt.Errorf("replica %d did not apply the primary's %s within 120s", i+1, pos)
		}
	}
	return nil
}

// liveWriter commits a transaction every liveTxPeriod holding the row
// changes due by then, until deadline.
func liveWriter(ctx context.Context, o LiveOptions, deadline time.Time, changes, txs *atomic.Int64, errs *int) error {
	low, next := int64(1), int64(o.Rows)+1 // live ids: [low, next)
	r := rand.New(rand.NewPCG(o.Seed, 1))
	start := time.Now()
	version := 1
	var planned int64
	for ctx.Err() == nil && time.Now().Before(deadline) {
		due := int64(time.Since(start).Seconds()*float64(o.Rate)) - planned
		if due <= 0 {
			select {
			case <-ctx.Done():
			case <-time.After(liveTxPeriod):
			}
			continue
		}
		n := int(min(due, int64(o.Rate)/5+3)) // at most 200 ms of changes at once
		planned += int64(n)
		ins, upd, del := liveMix(n)
		version++
		var stmts []string
		if ins > 0 {
			var vals []string
			for range ins {
				vals = append(vals, liveRow(next, version))
				next++
			}
			stmts = append(stmts, "INSERT INTO "+liveSource+" VALUES "+strings.Join(vals, ","))
		}
		if upd > 0 {
			ids := make([]string, upd)
			for i := range ids {
				ids[i] = strconv.FormatInt(low+r.Int64N(next-low), 10)
			}
			stmts = append(stmts, fmt.Sprintf("UPDATE %s SET amount = amount + 1, kind = (kind + 1) %% 10, note = %s WHERE id IN (%s)",
				liveSource, liveNote(int64(version), version), strings.Join(ids, ",")))
		}
		if del > 0 {
			stmts = append(stmts, fmt.Sprintf("DELETE FROM %s WHERE id >= %d AND id < %d", liveSource, low, low+int64(del)))
			low += int64(del)
		}
		n64, err := liveTx(ctx, o.Primary, stmts)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			*errs++
			if *errs > 10 {
				return fmt.Errorf("writes on the primary keep failing: %w", err)
			}
			continue
		}
		changes.Add(n64)
		txs.Add(1)
	}
	return nil
}

// liveTx runs stmts in one transaction and returns the rows they changed.
func liveTx(ctx context.Context, db *sql.DB, stmts []string) (int64, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, s := range stmts {
		res, err := tx.ExecContext(ctx, s)
		if err != nil {
			tx.Rollback()
			return 0, fmt.Errorf("%.80s: %w", s, err)
		}
		a, _ := res.RowsAffected()
		n += a
	}
	return n, tx.Commit()
}

// marker is one update of the marker row: its value, its GTID on the
// primary and when its commit was sent.
type marker struct {
	seq     int
	gtid    string
	t0      time.Time
	replica bool // a replica has applied it (its time is recorded)
}

// liveProber updates the marker row every o.Probe and measures, from the
// moment each commit is sent, two things: how long until the live pin's
// visible version covers the marker's GTID (pinStale: the pin's own
// staleness, every marker, read from SHOW CACHED TABLES, which takes no
// in-memory run slot), and how long until a point read of the live pin
// through Shoal returns the new value (stale: what a reader sees,
// including the reads' wait for a run slot behind the dashboards; one
// marker at a time, the newest when the last one was seen).
func liveProber(ctx context.Context, o LiveOptions, deadline time.Time) (stale, pinStale []time.Duration, pinSent []time.Time, replStale, polls []time.Duration, unseen int, err error) {
	pconn, err := o.Primary.Conn(ctx)
	if err != nil {
		return nil, nil, nil, nil, nil, 0, err
	}
	defer pconn.Close()
	var (
		mu      sync.Mutex
		pending []marker // not yet covered by the pin's position
		latest  marker
		wg      sync.WaitGroup
		done    = make(chan struct{})
		readErr error
	)
	wg.Go(func() { pinStale, pinSent, replStale = livePinTracker(ctx, o, &mu, &pending, done) })
	wg.Go(func() { stale, polls, unseen, readErr = liveReader(ctx, o.Shoal, &mu, &latest, done) })
	for seq := 1; ctx.Err() == nil && time.Now().Before(deadline); seq++ {
		next := time.Now().Add(o.Probe)
		t0 := time.Now() // before the commit is sent: an upper bound
		if _, err = pconn.ExecContext(ctx, "UPDATE "+liveSource+" SET kind = ? WHERE id = 0", seq); err != nil {
			err = fmt.Errorf("marker update: %w", err)
			break
		}
		var g string
		if err = pconn.QueryRowContext(ctx, "SELECT @@last_gtid").Scan(&g); err != nil {
			err = fmt.Errorf("marker GTID: %w", err)
			break
		}
		mu.Lock()
		pending = append(pending, marker{seq: seq, gtid: g, t0: t0})
		latest = marker{seq: seq, gtid: g, t0: t0}
		mu.Unlock()
		select {
		case <-ctx.Done():
		case <-time.After(time.Until(next)):
		}
	}
	close(done)
	wg.Wait()
	if ctx.Err() != nil {
		err = nil
	}
	if err == nil {
		err = readErr
	}
	return stale, pinStale, pinSent, replStale, polls, unseen, err
}

// slowest returns the n largest of took, each with when its probe was
// sent (sent[i], relative to start), slowest first.
func slowest(took []time.Duration, sent []time.Time, start time.Time, n int) []SlowProbe {
	out := make([]SlowProbe, 0, len(took))
	for i, d := range took {
		out = append(out, SlowProbe{At: sent[i].Sub(start), Took: d})
	}
	slices.SortFunc(out, func(a, b SlowProbe) int { return cmp.Compare(b.Took, a.Took) })
	return out[:min(n, len(out))]
}

// livePinTracker polls SHOW CACHED TABLES and the replicas'
// @@gtid_current_pos every 5 ms and records, for each pending marker, the
// time from its commit to the first poll that shows the pin's position
// covering its GTID (pin) and to the first that shows a replica having
// applied it (repl: the part of the pin's staleness that is replication's
// own), until done (then it waits at most 30 s more for the markers
// still pending).
func livePinTracker(ctx context.Context, o LiveOptions, mu *sync.Mutex, pending *[]marker, done <-chan struct{}) (pin []time.Duration, sent []time.Time, repl []time.Duration) {
	var doneAt time.Time
	for ctx.Err() == nil {
		select {
		case <-done:
			if doneAt.IsZero() {
				doneAt = time.Now()
			}
		default:
		}
		mu.Lock()
		n := len(*pending)
		mu.Unlock()
		if !doneAt.IsZero() && (n == 0 || time.Since(doneAt) > 30*time.Second) {
			return pin, sent, repl
		}
		if n > 0 {
			var applied []replication.GTIDSet
			for _, r := range o.Replicas {
				var p string
				if r.QueryRowContext(ctx, "SELECT @@gtid_current_pos").Scan(&p) == nil {
					if g, err := replication.ParseMariadbGTIDSet(p); err == nil {
						applied = append(applied, g)
					}
				}
			}
			now := time.Now()
			mu.Lock()
			for i, m := range *pending {
				want, err := replication.ParseMariadbGTIDSet(m.gtid)
				if err != nil || m.replica {
					continue
				}
				for _, g := range applied {
					if g.Contains(want) {
						(*pending)[i].replica = true
						repl = append(repl, now.Sub(m.t0))
						break
					}
				}
			}
			mu.Unlock()
			if st, err := liveStatus(ctx, o.Shoal); err == nil {
				if got, err := replication.ParseMariadbGTIDSet(st.position); err == nil {
					now := time.Now()
					mu.Lock()
					kept := (*pending)[:0]
					for _, m := range *pending {
						if want, err := replication.ParseMariadbGTIDSet(m.gtid); err == nil && got.Contains(want) {
							pin = append(pin, now.Sub(m.t0))
							sent = append(sent, m.t0)
						} else {
							kept = append(kept, m)
						}
					}
					*pending = kept
					mu.Unlock()
				}
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	return pin, sent, repl
}

// refused reports a 1040 (too busy: no in-memory run slot in time).
func refused(err error) bool {
	var me *mysqldrv.MySQLError
	return errors.As(err, &me) && me.Number == 1040
}

// liveReader polls the marker through the live pin: for the newest
// marker, until the point read returns its value (or a newer one).
func liveReader(ctx context.Context, shoal *sql.DB, mu *sync.Mutex, latest *marker, done <-chan struct{}) (stale, polls []time.Duration, unseen int, err error) {
	conn, err := shoal.Conn(ctx)
	if err != nil {
		return nil, nil, 0, err
	}
	defer conn.Close()
	poll := "SELECT kind FROM " + livePin + " WHERE id = 0"
	seen := 0
	for ctx.Err() == nil {
		mu.Lock()
		m := *latest
		mu.Unlock()
		if m.seq <= seen {
			select {
			case <-done:
				return stale, polls, unseen, nil
			case <-ctx.Done():
				return stale, polls, unseen, nil
			case <-time.After(2 * time.Millisecond):
			}
			continue
		}
		for {
			var got int
			p0 := time.Now()
			if err := conn.QueryRowContext(ctx, poll).Scan(&got); err != nil {
				if ctx.Err() != nil {
					return stale, polls, unseen, nil
				}
				// A refused poll (1040: the in-memory slots are all busy)
				// is retried; the probe's staleness includes the wait.
				// Refused for 30 s, the marker counts as unseen.
				if time.Since(m.t0) > 30*time.Second {
					if !refused(err) {
						return stale, polls, unseen, fmt.Errorf("%s: %w", poll, err)
					}
					unseen++
					seen = m.seq
					break
				}
				time.Sleep(10 * time.Millisecond)
				continue
			}
			polls = append(polls, time.Since(p0))
			if got >= m.seq {
				stale = append(stale, time.Since(m.t0))
				seen = got
				break
			}
			if time.Since(m.t0) > 30*time.Second {
				unseen++
				seen = m.seq
				break
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
	return stale, polls, unseen, nil
}

// liveClients runs o.Clients connections until deadline, each
// alternating a chart over the live pin and one over the static pin.
func liveClients(ctx context.Context, o LiveOptions, deadline time.Time) (live, static LiveSide) {
	type result struct {
		lat  [2][]time.Duration
		errs [2]int
		msgs []string
	}
	results := make([]result, o.Clients)
	tables := [2]string{livePin, liveStatic}
	start := time.Now()
	var wg sync.WaitGroup
	for i := range o.Clients {
		wg.Go(func() {
			res := &results[i]
			r := rand.New(rand.NewPCG(o.Seed, uint64(i)+100))
			conn, err := o.Shoal.Conn(ctx)
			if err != nil {
				res.errs[0]++
				res.msgs = append(res.msgs, err.Error())
				return
			}
			defer conn.Close()
			for k := 0; ctx.Err() == nil && time.Now().Before(deadline); k++ {
				side := k % 2
				c := liveCharts[r.IntN(len(liveCharts))]
				q := fmt.Sprintf(c.sql, tables[side], c.lit(r))
				t := time.Now()
				err := measure.Drain(ctx, conn, q)
				if err != nil {
					if ctx.Err() != nil {
						return
					}
					res.errs[side]++
					if len(res.msgs) < 3 {
						res.msgs = append(res.msgs, err.Error())
					}
					continue
				}
				res.lat[side] = append(res.lat[side], time.Since(t))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	sides := [2]*LiveSide{&live, &static}
	for s, p := range sides {
		var all []time.Duration
		p.Name, p.Elapsed = [2]string{"live pin", "static pin"}[s], elapsed
		for _, res := range results {
			all = append(all, res.lat[s]...)
			p.Errors += res.errs[s]
			for _, m := range res.msgs {
				if len(p.FirstErrors) < 3 && !slices.Contains(p.FirstErrors, m) {
					p.FirstErrors = append(p.FirstErrors, m)
				}
			}
		}
		p.OK = len(all)
		p.Latency = measure.Summarize(all)
	}
	return live, static
}

// livePinStatus is the live pin's SHOW CACHED TABLES row.
type livePinStatus struct {
	rows, bytes, applied, lag int64
	position, state           string
	replica                   string // Live_replica: the MySQL address followed
	loads                     string // the state's "N loads" part, if any
}

func liveStatus(ctx context.Context, shoal *sql.DB) (livePinStatus, error) {
	rows, err := shoal.QueryContext(ctx, "SHOW CACHED TABLES")
	if err != nil {
		return livePinStatus{}, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return livePinStatus{}, err
	}
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return livePinStatus{}, err
		}
		m := map[string]string{}
		for i, c := range cols {
			m[c] = vals[i].String
		}
		if m["Database"]+"."+m["Table"] != livePin {
			continue
		}
		num := func(k string) int64 { n, _ := strconv.ParseInt(m[k], 10, 64); return n }
		st := livePinStatus{rows: num("Rows"), bytes: num("Memory_bytes"), applied: num("Events_applied"), lag: num("Lag_ms"),
			position: m["Gtid_position"], state: m["Live_state"], replica: m["Live_replica"]}
		if _, after, ok := strings.Cut(st.state, "; "); ok {
			st.loads, _, _ = strings.Cut(after, ",")
		}
		return st, rows.Err()
	}
	if err := rows.Err(); err != nil {
		return livePinStatus{}, err
	}
	return livePinStatus{}, fmt.Errorf("SHOW CACHED TABLES has no %s: the live pin is gone", livePin)
}

// liveSample samples the pin and the coordinator.
func liveSample(ctx context.Context, o LiveOptions, start time.Time) (MemSample, error) {
	st, err := liveStatus(ctx, o.Shoal)
	if err != nil {
		return MemSample{}, err
	}
	s := MemSample{At: time.Since(start), PinRows: st.rows, PinBytes: st.bytes, Applied: st.applied, LagMs: st.lag}
	if o.MetricsURL != "" {
		m, err := measure.ScrapeMetrics(ctx, o.MetricsURL, "process_resident_memory_bytes", "go_memstats_heap_inuse_bytes")
		if err == nil {
			s.RSS, s.HeapUsed = int64(m["process_resident_memory_bytes"]), int64(m["go_memstats_heap_inuse_bytes"])
		}
	}
	return s, nil
}

// liveCompare compares the pin's full contents and every chart (at a
// fixed literal) with the primary's.
func liveCompare(ctx context.Context, o LiveOptions, rep *LiveReport) error {
	full := "SELECT id, grp, kind, amount, day, note FROM %s ORDER BY id"
	_, s, err := measure.Timed(ctx, o.Shoal, fmt.Sprintf(full, livePin))
	if err != nil {
		return fmt.Errorf("reading the live pin: %w", err)
	}
	_, d, err := measure.Timed(ctx, o.Primary, fmt.Sprintf(full, liveSource))
	if err != nil {
		return fmt.Errorf("reading the primary: %w", err)
	}
	rep.Compared = len(d)
	missing, extra := diffRows(s, d)
	rep.WrongRows = len(missing) + len(extra)
	for _, m := range missing[:min(3, len(missing))] {
		rep.Problems = append(rep.Problems, "on the primary, not in the pin: "+measure.ShowRow(m))
	}
	for _, m := range extra[:min(3, len(extra))] {
		rep.Problems = append(rep.Problems, "in the pin, not on the primary: "+measure.ShowRow(m))
	}
	r := rand.New(rand.NewPCG(o.Seed, 7))
	for _, c := range liveCharts {
		for range 3 {
			lit := c.lit(r)
			ch, err := measure.Verify(ctx, o.Shoal, o.Primary, c.name, fmt.Sprintf(c.sql, livePin, lit), fmt.Sprintf(c.sql, liveSource, lit))
			if err != nil {
				return err
			}
			if !ch.Equal {
				rep.WrongCharts++
				rep.Problems = append(rep.Problems, fmt.Sprintf("chart %s (literal %d): %s", c.name, lit, ch.Problem))
			}
		}
	}
	return nil
}

// diffRows returns the rows of want missing from got and the rows of got
// not in want, as multisets.
func diffRows(got, want [][]string) (missing, extra []string) {
	g, w := measure.SortedRows(got), measure.SortedRows(want)
	i, j := 0, 0
	for i < len(g) || j < len(w) {
		switch {
		case i == len(g):
			missing = append(missing, w[j])
			j++
		case j == len(w):
			extra = append(extra, g[i])
			i++
		case g[i] == w[j]:
			i++
			j++
		case g[i] < w[j]:
			extra = append(extra, g[i])
			i++
		default:
			missing = append(missing, w[j])
			j++
		}
	}
	return missing, extra
}

// MemoryTrend compares the mean of the last quarter of samples with the
// first quarter's (after the first sample): 1.0 is flat.
func MemoryTrend(ms []MemSample, get func(MemSample) int64) float64 {
	if len(ms) < 5 {
		return 0
	}
	ms = ms[1:]
	q := max(1, len(ms)/4)
	mean := func(xs []MemSample) float64 {
		var s float64
		for _, x := range xs {
			s += float64(get(x))
		}
		return s / float64(len(xs))
	}
	first := mean(ms[:q])
	if first == 0 {
		return 0
	}
	return mean(ms[len(ms)-q:]) / first
}

// PrintLive writes the report.
func PrintLive(w io.Writer, r *LiveReport) {
	o := r.Opts
	fmt.Fprintf(w, "\nlive pin %s (%d rows at start) under %d row changes/s asked, %d dashboard clients, %s\n", livePin, o.Rows, o.Rate, o.Clients, r.Elapsed.Round(time.Second))
	secs := r.Elapsed.Seconds()
	fmt.Fprintf(w, "writes on the primary:  %d row changes in %d transactions: %.0f changes/s (%d errors)\n", r.Changes, r.Txs, float64(r.Changes)/secs, r.WriteErrors)
	fmt.Fprintf(w, "applied by the pin:     %d events: %.0f events/s, following %s", r.Applied, float64(r.Applied)/secs, r.Followed)
	if r.Reloads != "" {
		fmt.Fprintf(w, " (the pin RELOADED: %s)", r.Reloads)
	}
	fmt.Fprintln(w)
	if o.Warmup > 0 {
		fmt.Fprintf(w, "staleness probes from %s into the run (--warmup)\n", o.Warmup)
	}
	s := r.Staleness
	fmt.Fprintf(w, "staleness (marker commit sent -> visible through shoal), %d probes: p50 %s  p95 %s  p99 %s  max %s  unseen after 30s %d\n",
		s.N, measure.FmtDur(s.P50), measure.FmtDur(s.P95), measure.FmtDur(s.P99), measure.FmtDur(s.Max), r.Unseen)
	fmt.Fprintf(w, "  of which the last poll (a point read of the pin through shoal, %d polls): p50 %s  p99 %s\n", r.Poll.N, measure.FmtDur(r.Poll.P50), measure.FmtDur(r.Poll.P99))
	s = r.PinStaleness
	fmt.Fprintf(w, "pin staleness (marker commit sent -> the pin's version covers its GTID), %d probes: p50 %s  p95 %s  p99 %s  max %s\n",
		s.N, measure.FmtDur(s.P50), measure.FmtDur(s.P95), measure.FmtDur(s.P99), measure.FmtDur(s.Max))
	if len(r.SlowestPin) > 0 {
		fmt.Fprintf(w, "  slowest (sent at -> took):")
		for _, p := range r.SlowestPin {
			fmt.Fprintf(w, "  %s -> %s", measure.FmtDur(p.At), measure.FmtDur(p.Took))
		}
		fmt.Fprintln(w)
	}
	s = r.ReplicaStaleness
	fmt.Fprintf(w, "  of which replication (commit sent -> applied on a replica), %d probes: p50 %s  p95 %s  p99 %s  max %s\n",
		s.N, measure.FmtDur(s.P50), measure.FmtDur(s.P95), measure.FmtDur(s.P99), measure.FmtDur(s.Max))
	fmt.Fprintf(w, "\n%-11s %9s %7s %9s %9s %9s %9s %9s\n", "dashboard", "queries", "errors", "qps", "p50", "p95", "p99", "max")
	for _, side := range []LiveSide{r.Live, r.Static} {
		l := side.Latency
		fmt.Fprintf(w, "%-11s %9d %7d %9.1f %9s %9s %9s %9s\n", side.Name, side.OK, side.Errors, side.QPS(), measure.FmtDur(l.P50), measure.FmtDur(l.P95), measure.FmtDur(l.P99), measure.FmtDur(l.Max))
	}
	if r.Static.Latency.P99 > 0 {
		fmt.Fprintf(w, "live/static: p99 %s, p50 %s, qps %s\n", measure.FmtRatio(r.Live.Latency.P99.Seconds()/r.Static.Latency.P99.Seconds()),
			measure.FmtRatio(r.Live.Latency.P50.Seconds()/r.Static.Latency.P50.Seconds()), measure.FmtRatio(r.Live.QPS()/max(r.Static.QPS(), 1e-9)))
	}
	for _, side := range []LiveSide{r.Live, r.Static} {
		for _, e := range side.FirstErrors {
			fmt.Fprintf(w, "error (%s): %s\n", side.Name, e)
		}
	}
	fmt.Fprintf(w, "\nmemory over time\n%8s %9s %11s %11s %11s %9s\n", "t", "pin rows", "pin bytes", "coord rss", "go heap", "lag ms")
	for _, m := range r.Memory {
		fmt.Fprintf(w, "%7.0fs %9d %11s %11s %11s %9d\n", m.At.Seconds(), m.PinRows, measure.FmtBytes(m.PinBytes), measure.FmtBytes(m.RSS), measure.FmtBytes(m.HeapUsed), m.LagMs)
	}
	fmt.Fprintf(w, "last quarter / first quarter: pin bytes %.2fx, coordinator rss %.2fx, go heap %.2fx\n",
		MemoryTrend(r.Memory, func(m MemSample) int64 { return m.PinBytes }),
		MemoryTrend(r.Memory, func(m MemSample) int64 { return m.RSS }),
		MemoryTrend(r.Memory, func(m MemSample) int64 { return m.HeapUsed }))
	if f := r.Failover; f != nil {
		fmt.Fprintf(w, "\nreplica killed at %.0fs: %s", f.At.Seconds(), f.Victim)
		if f.Next != "" {
			fmt.Fprintf(w, "; the pin followed %s %s later", f.Next, measure.FmtDur(f.Moved))
		}
		if f.Restarted > 0 {
			fmt.Fprintf(w, "; the killed replica replicated again %s after the kill", measure.FmtDur(f.Restarted))
		}
		fmt.Fprintln(w)
		for _, e := range []string{f.Err, f.RestartErr} {
			if e != "" {
				fmt.Fprintf(w, "FAILOVER PROBLEM: %s\n", e)
			}
		}
	}
	fmt.Fprintf(w, "\nafter the writes stopped the pin reached the primary's %s in %s\n", r.Position, measure.FmtDur(r.CatchUp))
	fmt.Fprintf(w, "compared with the primary: %d rows (%d wrong), %d charts (%d wrong)\n", r.Compared, r.WrongRows, 3*len(liveCharts), r.WrongCharts)
	for _, p := range r.Problems {
		fmt.Fprintf(w, "WRONG %s\n", p)
	}
}
