// Package livepin keeps a pinned table current from the binary log of the
// replica it was read from: CACHE TABLE … OPTIONS ('refresh' = 'live').
//
// A live pin is a whole table or a projection of one table filtered by a
// WHERE. It is loaded on one replica inside a consistent-snapshot
// transaction whose binary log position MariaDB reports with the snapshot
// (binlog_snapshot_file/position, turned into a GTID position by
// BINLOG_GTID_POS), so the load and the position are the same instant. It
// then follows that replica's binary log from that position (package
// replstream) and applies each transaction's row changes by primary key:
// an insert puts the row when it passes the WHERE, a delete removes it, an
// update removes the old key and puts the new row when it passes. Changes
// are applied in log order, and a new immutable pinned.Table version is
// built and handed to Publish (the registry's copy-on-write swap) at most
// every MinInterval, so a burst of events costs one version. A version
// shares the previous one's batches for the chunks of rows a burst did
// not touch and splices the others: their unchanged rows' encoded values
// copied from the previous batch, their changed rows alone encoded
// (version.go): its cost follows the changes, not the table.
//
// What the pin cannot follow makes it reload, never drift: a DDL naming
// the table, DML logged as a statement, a TABLE_MAP that no longer
// matches the loaded columns, a position the server cannot serve. The
// replica dying makes the stream resume from the pin's position on the
// next replica (GTIDs are the same on all of them).
//
// A pin may follow the primary instead (Config.Primary): it still loads
// on a replica, at that replica's GTID position, and streams from the
// same position on the primary, whose binary log holds the same GTIDs.
// Its changes then arrive when the primary commits them rather than when
// a replica has applied them, which takes replication's own lag (and its
// tail) out of the pin's staleness. A reload waits until the replica it
// reads has applied everything the pin had read from the primary, so a
// load never goes back past a DDL the pin reloaded for.
package livepin

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/evalexpr"
	"github.com/shoaldb/shoal/gtid"
	"github.com/shoaldb/shoal/pinned"
	"github.com/shoaldb/shoal/replstream"
	"github.com/shoaldb/shoal/sqlparse"
)

// Spec is what a live pin holds: Columns of SrcDB.SrcTable (all of them,
// in the table's order, when nil) named Names, for the rows passing Where.
type Spec struct {
	DB, Name        string // the pin's name
	SrcDB, SrcTable string
	Whole           bool   // CACHE TABLE db.t
	Source          string // the SELECT the pin shows as its definition
	Columns, Names  []string
	Where           string // SQL text over the table's column names; "" for none
	// Agg makes the pin the groups of an aggregation of those rows
	// (agg.go); Columns and Names are then unused.
	Agg *AggSpec
	// FollowPrimary makes the pin follow the primary's binary log
	// (Config.Primary) rather than a replica's.
	FollowPrimary bool
}

// Config is how a pin reaches its replicas and the engine.
type Config struct {
	// Addrs are the replicas' host:port; the pin loads and follows the
	// first that works and moves on when it fails.
	Addrs []string
	// Primary, when set, is the primary's host:port: the pin follows its
	// binary log (loading still reads a replica) and moves to the
	// replicas when the primary fails.
	Primary    string
	User, Pass string
	Env        *evalexpr.Env
	// Publish swaps a new version in; an error stops the pin.
	Publish func(*pinned.Table) error
	// MinInterval is the least time between two versions (default 100ms).
	MinInterval time.Duration
	// ChunkRows is how many row slots make one chunk, one record batch
	// of a version (default 256): a version rebuilds the chunks a burst
	// of changes touched and shares the others with the previous one.
	ChunkRows int
	// Describe returns the column definitions a static pin of the
	// pin's query has: an aggregated pin's columns (unused otherwise).
	Describe func(context.Context) ([]*querypb.Field, error)
	// Heartbeat is the replica's heartbeat period while idle (default 1s).
	Heartbeat time.Duration
	Log       *slog.Logger
	// Admit, when set, is called before each version is built and the
	// function it returns after: the engine's in-memory run queue, which
	// lets the build go ahead of the statements waiting there, so the
	// pin's readers do not make it staler by taking every core.
	Admit func(context.Context) (release func())
	// OnVersion, when set, is told of every version published after the
	// load: wait is the time since the first transaction it holds was
	// received, build the time its build took.
	OnVersion func(wait, build time.Duration)
}

// Status is a pin's state for SHOW CACHED TABLES.
type Status struct {
	State string // "following", "loading", "reloading: why", "stopped: why"
	// Position is the GTID position of the visible version; Replica the
	// address it is followed from.
	Position, Replica string
	// Lag is how long the oldest transaction received but not yet
	// visible has waited (0: everything received is visible).
	Lag time.Duration
	// Applied counts row changes applied, Txs transactions read, Versions
	// versions published since the last full load.
	Applied, Txs, Versions int64
	Loads                  int
	LastLoad               time.Time
	LastReload             string // why the pin last reloaded
}

// Pin is one running live pin.
type Pin struct {
	spec   Spec
	cfg    Config
	cancel context.CancelFunc
	done   chan struct{}

	mu      sync.Mutex
	st      *state
	status  Status
	pending time.Time // receive time of the oldest unpublished transaction
	// advanced is closed (and replaced) whenever status.Position moves:
	// WaitFor's readers wake on it.
	advanced chan struct{}
	dirty    chan struct{}
	err      error // why the pin stopped
	// reloadedFor: see state.reloadedFor; only run's goroutine writes it,
	// before the load that reads it.
	reloadedFor map[string]bool
	// floor is what a reload's replica must have applied before it is
	// read, when the pin follows the primary: the pin's stream position
	// and the GTID of the DDL it reloads for. Only run's goroutine uses it.
	floor []string
}

// ErrNotLive says why a table or query cannot be pinned live.
type ErrNotLive struct{ Reason string }

func (e *ErrNotLive) Error() string { return "cannot be live: " + e.Reason }

// Start loads the pin, publishes its first version, and follows the
// replica until ctx ends or Stop. The first load's error is returned.
func Start(ctx context.Context, spec Spec, cfg Config) (*Pin, *pinned.Table, error) {
	if cfg.MinInterval <= 0 {
		cfg.MinInterval = 100 * time.Millisecond
	}
	if cfg.ChunkRows <= 0 {
		cfg.ChunkRows = 256
	}
	if cfg.Heartbeat <= 0 {
		cfg.Heartbeat = time.Second
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	p := &Pin{spec: spec, cfg: cfg, done: make(chan struct{}), dirty: make(chan struct{}, 1), reloadedFor: map[string]bool{},
		advanced: make(chan struct{})}
	p.status.State = "loading"
	if cfg.Primary != "" {
		if err := p.checkPrimary(ctx); err != nil {
			return nil, nil, err
		}
	}
	st, t, err := p.load(ctx)
	if err != nil {
		return nil, nil, err
	}
	if err := cfg.Publish(t); err != nil {
		return nil, nil, err
	}
	p.mu.Lock()
	p.st = st
	p.loaded(st)
	p.mu.Unlock()
	ctx, p.cancel = context.WithCancel(ctx)
	go p.run(ctx, st)
	return p, t, nil
}

// Done is closed when the pin has stopped.
func (p *Pin) Done() <-chan struct{} { return p.done }

// Spec is what the pin holds.
func (p *Pin) Spec() Spec { return p.spec }

// Stop ends the pin and waits for it.
func (p *Pin) Stop() {
	p.cancel()
	<-p.done
}

// Status returns the pin's state.
func (p *Pin) Status() Status {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.status
	if !p.pending.IsZero() {
		s.Lag = time.Since(p.pending)
	}
	return s
}

func (p *Pin) loaded(st *state) {
	p.status.State = "following"
	p.status.Replica = st.addr
	p.setPosition(st.pos)
	p.status.Applied, p.status.Txs, p.status.Versions = 0, 0, 1
	p.status.Loads++
	p.status.LastLoad = time.Now()
	p.pending = time.Time{}
}

// run follows, and reloads when following fails, until ctx ends.
func (p *Pin) run(ctx context.Context, st *state) {
	defer close(p.done)
	pubDone := make(chan struct{})
	pctx, pcancel := context.WithCancel(ctx)
	go func() { defer close(pubDone); p.publisher(pctx) }()
	defer func() {
		// A pin that stops by itself ends its publisher too: Done
		// closes only then.
		pcancel()
		<-pubDone
	}()
	wait := time.Second
	for {
		err := p.follow(ctx, st)
		if ctx.Err() != nil {
			p.setState("stopped")
			return
		}
		if errors.Is(err, errPublish) {
			p.setState("stopped: " + err.Error())
			return
		}
		why := err.Error()
		var re *ReloadError
		if errors.As(err, &re) && re.DDL != "" {
			p.reloadedFor[re.DDL] = true
		}
		p.floor = nil
		if p.cfg.Primary != "" {
			p.mu.Lock()
			p.floor = append(p.floor, st.pos)
			p.mu.Unlock()
			if re != nil && re.DDL != "" {
				p.floor = append(p.floor, re.DDL)
			}
		}
		p.cfg.Log.Warn("live pin reloads", "table", p.spec.DB+"."+p.spec.Name, "why", why)
		for {
			p.mu.Lock()
			p.status.State, p.status.LastReload = "reloading: "+why, why
			p.mu.Unlock()
			var t *pinned.Table
			st, t, err = p.load(ctx)
			if err == nil {
				p.mu.Lock()
				p.st = st // the publisher builds from the new state from now on
				err = p.cfg.Publish(t)
				p.loaded(st)
				p.mu.Unlock()
				if err != nil {
					p.setState("stopped: " + err.Error())
					return
				}
				wait = time.Second
				break
			}
			var nl *ErrNotLive
			if errors.As(err, &nl) {
				// The table changed into one a live pin cannot follow
				// (a latin1 column added, …): stop rather than keep
				// answering with the rows before.
				p.setState("stopped: " + err.Error())
				return
			}
			why = "reload failed: " + err.Error()
			select {
			case <-ctx.Done():
				p.setState("stopped")
				return
			case <-time.After(wait):
			}
			wait = min(2*wait, 30*time.Second)
		}
	}
}

// setPosition makes pos the visible version's position and wakes
// WaitFor's readers. The caller holds p.mu.
func (p *Pin) setPosition(pos string) {
	if pos == p.status.Position {
		return
	}
	p.status.Position = pos
	close(p.advanced)
	p.advanced = make(chan struct{})
}

// ErrStopped is WaitFor's answer when the pin stops while it waits.
var ErrStopped = errors.New("the live pin stopped")

// WaitFor waits until the visible version reflects every transaction of
// floor, a GTID position of the replication topology (the primary's
// position when a statement started, under consistency: primary): the
// version in the registry then holds every change committed up to it.
// It returns nil at once when the pin is there already; ctx's error when
// ctx ends first (the caller's deadline is the wait's bound); ErrStopped
// when the pin stops.
func (p *Pin) WaitFor(ctx context.Context, floor string) error {
	for {
		p.mu.Lock()
		pos, advanced := p.status.Position, p.advanced
		p.mu.Unlock()
		ok, err := gtid.Covers(true, pos, floor) // live pins follow MariaDB only (loadFrom)
		if err != nil {
			return fmt.Errorf("comparing the live pin's position %q with %q: %w", pos, floor, err)
		}
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-p.done:
			return ErrStopped
		case <-advanced:
		}
	}
}

func (p *Pin) setState(s string) {
	p.mu.Lock()
	p.status.State = s
	p.mu.Unlock()
}

var errPublish = errors.New("publishing a version failed")

// follow streams from st's position into st.
func (p *Pin) follow(ctx context.Context, st *state) error {
	addrs := append([]string{st.addr}, without(p.cfg.Addrs, st.addr)...)
	if p.cfg.Primary != "" {
		addrs = append([]string{p.cfg.Primary}, without(addrs, p.cfg.Primary)...)
	}
	return replstream.Follow(ctx, replstream.Config{
		Addrs: addrs, User: p.cfg.User, Pass: p.cfg.Pass, Start: st.pos,
		Tables: []*replstream.Table{st.table}, Heartbeat: p.cfg.Heartbeat, Log: p.cfg.Log,
		OnConnect: func(addr string) {
			p.mu.Lock()
			p.status.Replica = addr
			p.mu.Unlock()
		},
	}, func(_ context.Context, b replstream.Batch) error {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.err != nil {
			return p.err
		}
		for i := range b.Txs {
			n, err := st.apply(&b.Txs[i])
			if err != nil {
				return err
			}
			p.status.Applied += int64(n)
			p.status.Txs++
		}
		if len(b.Txs) > 0 {
			if p.pending.IsZero() {
				p.pending = time.Now()
			}
			select {
			case p.dirty <- struct{}{}:
			default:
			}
		}
		return nil
	})
}

func without(addrs []string, a string) []string {
	var out []string
	for _, x := range addrs {
		if x != a {
			out = append(out, x)
		}
	}
	return out
}

// publisher builds and publishes a version when transactions were
// applied, at most every MinInterval.
func (p *Pin) publisher(ctx context.Context) {
	last := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.dirty:
		}
		if d := p.cfg.MinInterval - time.Since(last); d > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(d):
			}
		}
		last = time.Now()
		p.mu.Lock()
		st := p.st
		if p.pending.IsZero() {
			p.mu.Unlock()
			continue
		}
		d, changed := st.snapshot()
		received := p.pending
		p.pending = time.Time{}
		p.mu.Unlock()
		if !changed {
			p.mu.Lock()
			if p.st == st {
				p.setPosition(d.pos)
			}
			p.mu.Unlock()
			continue
		}
		release := func() {}
		if p.cfg.Admit != nil {
			release = p.cfg.Admit(ctx)
		}
		building := time.Now()
		t, err := st.next(memory.NewGoAllocator(), p.spec, d)
		built := time.Since(building)
		release()
		p.mu.Lock()
		var rebuild *pinned.RebuildError
		if errors.As(err, &rebuild) {
			// The chunks cannot be composed: the next version is built
			// from scratch, of every row.
			p.cfg.Log.Info("live pin builds its next version from scratch", "table", p.spec.DB+"."+p.spec.Name, "why", rebuild.Reason)
			st.rebuildNext()
			err = nil
			if p.pending.IsZero() {
				p.pending = received
			}
			select {
			case p.dirty <- struct{}{}:
			default:
			}
		} else if err != nil {
			err = errors.New(unpinnable(err))
		} else if p.st == st { // a reload may have replaced st meanwhile
			t.LoadTook = time.Since(last)
			t.Position = d.pos
			if err = p.cfg.Publish(t); err == nil {
				p.setPosition(d.pos)
				p.status.Versions++
				if p.cfg.OnVersion != nil {
					p.cfg.OnVersion(time.Since(received), built)
				}
			}
		}
		if err != nil && p.err == nil {
			p.err = fmt.Errorf("%w: %v", errPublish, err)
		}
		p.mu.Unlock()
	}
}

// unpinnable says why a version could not be built, naming a zero date
// as such.
func unpinnable(err error) string {
	msg := err.Error()
	if strings.Contains(msg, "parsing time") && (strings.Contains(msg, "out of range") || strings.Contains(msg, `"0000-`)) {
		msg += " (a zero or partial date such as 0000-00-00 or 2024-00-00 has no value in a pin)"
	}
	return msg
}

// load reads the pin at a known position on the first replica that can.
func (p *Pin) load(ctx context.Context) (*state, *pinned.Table, error) {
	var errs []error
	var out []*querypb.Field
	if p.spec.Agg != nil {
		if p.cfg.Describe == nil {
			return nil, nil, errors.New("livepin: an aggregated pin needs Config.Describe")
		}
		var err error
		if out, err = p.cfg.Describe(ctx); err != nil {
			return nil, nil, err
		}
	}
	for _, addr := range p.cfg.Addrs {
		start := time.Now()
		st, err := p.loadFrom(ctx, addr, out)
		if err == nil {
			st.changed, st.relaid = true, true
			d, _ := st.snapshot()
			t, err := st.next(memory.NewGoAllocator(), p.spec, d)
			if err != nil {
				// A value a pin has no representation for (a zero
				// date): the table cannot be pinned as it is.
				return nil, nil, &ErrNotLive{"its rows cannot be pinned: " + unpinnable(err)}
			}
			t.LoadTook, t.Position = time.Since(start), st.pos
			return st, t, nil
		}
		var nl *ErrNotLive
		if errors.As(err, &nl) || ctx.Err() != nil {
			return nil, nil, err
		}
		errs = append(errs, fmt.Errorf("%s: %w", addr, err))
	}
	return nil, nil, errors.Join(errs...)
}

// loadFrom loads the pin from the replica at addr; out are an aggregated
// pin's columns (Config.Describe).
func (p *Pin) loadFrom(ctx context.Context, addr string, out []*querypb.Field) (*state, error) {
	host, ps, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	port, err := strconv.Atoi(ps)
	if err != nil {
		return nil, err
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	conn, err := mysql.Connect(cctx, &mysql.ConnParams{Host: host, Port: port, Uname: p.cfg.User, Pass: p.cfg.Pass})
	cancel()
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	defer context.AfterFunc(ctx, conn.Close)()
	one := func(q string) ([]sqltypes.Value, error) {
		r, err := conn.ExecuteFetch(q, 1, false)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", q, err)
		}
		if len(r.Rows) != 1 {
			return nil, fmt.Errorf("%s: %d rows", q, len(r.Rows))
		}
		return r.Rows[0], nil
	}
	if !conn.IsMariaDB() {
		return nil, &ErrNotLive{"live pins read their snapshot position with MariaDB's BINLOG_GTID_POS; this replica is MySQL"}
	}
	v, err := checkLog(conn, addr, one)
	if err != nil {
		return nil, err
	}
	for _, g := range p.floor {
		// Following the primary: this replica must have applied what
		// the pin read before it reloads (see the package comment).
		const wait = 30
		w, err := one(fmt.Sprintf("SELECT MASTER_GTID_WAIT(%s, %d)", sqlparse.QuoteString([]byte(g)), wait))
		if err != nil {
			return nil, err
		}
		if w[0].ToString() != "0" {
			return nil, fmt.Errorf("%s has not applied %s (read from the primary) within %ds", addr, g, wait)
		}
	}
	loc, locErr := location(v[5].ToString(), v[6].ToString())
	src := sqlparse.QuoteID(p.spec.SrcDB) + "." + sqlparse.QuoteID(p.spec.SrcTable)
	st := &state{addr: addr, index: map[string]int{}, reloadedFor: p.reloadedFor, chunk: p.cfg.ChunkRows}
	for _, q := range []string{"SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ", "START TRANSACTION WITH CONSISTENT SNAPSHOT"} {
		if _, err := conn.ExecuteFetch(q, 0, false); err != nil {
			return nil, fmt.Errorf("%s: %w", q, err)
		}
	}
	r, err := conn.ExecuteFetch("SHOW STATUS LIKE 'binlog_snapshot_%'", 10, false)
	if err != nil {
		return nil, err
	}
	var file, pos string
	for _, row := range r.Rows {
		switch strings.ToLower(row[0].ToString()) {
		case "binlog_snapshot_file":
			file = row[1].ToString()
		case "binlog_snapshot_position":
			pos = row[1].ToString()
		}
	}
	if file == "" || pos == "" {
		return nil, &ErrNotLive{addr + " reports no binlog_snapshot_file/position"}
	}
	g, err := one("SELECT BINLOG_GTID_POS(" + sqlparse.QuoteString([]byte(file)) + ", " + pos + ")")
	if err != nil {
		return nil, err
	}
	if g[0].IsNull() {
		return nil, fmt.Errorf("BINLOG_GTID_POS(%s, %s) is NULL", file, pos)
	}
	st.pos = g[0].ToString()
	// The columns are read after the snapshot began: a DDL before this
	// read but after the snapshot's position is in the stream (and makes
	// the pin reload); reading a table changed since the snapshot fails.
	spec := p.spec
	if spec.Agg != nil {
		spec.Columns, spec.Names = spec.Agg.columns(), nil
	}
	if err := st.prepare(conn, spec, p.cfg.Env, loc, locErr); err != nil {
		return nil, err
	}
	q := "SELECT " + strings.Join(quoteAll(st.selectCols), ", ") + " FROM " + src
	if p.spec.Where != "" {
		q += " WHERE " + p.spec.Where
	}
	if err := conn.ExecuteStreamFetch(q); err != nil {
		return nil, fmt.Errorf("%s: %w", q, err)
	}
	fields, err := conn.Fields()
	if err != nil {
		conn.CloseResult()
		return nil, err
	}
	nk := len(st.keyIdx)
	st.fields = fields[nk:]
	names := st.selectCols[nk:] // the table's own names
	if p.spec.Names != nil {
		names = p.spec.Names
	}
	for i, f := range st.fields {
		if c, ok := st.collations[strings.ToLower(st.selectCols[nk+i])]; ok && f.Charset != 63 {
			f.Charset = c
		}
		f.Name = names[i]
	}
	if spec.Agg != nil {
		if st.agg, err = newAggState(spec.Agg, spec.Columns, st.fields, fields[:nk], out, p.cfg.Env.Collations()); err != nil {
			conn.CloseResult()
			return nil, err
		}
		st.fields = out
	}
	for {
		row, err := conn.FetchNext(nil)
		if err != nil {
			conn.CloseResult()
			return nil, err
		}
		if row == nil {
			break
		}
		stored := make([]sqltypes.Value, 0, len(row))
		stored = append(append(stored, row[nk:]...), row[:nk]...) // see pinRow
		if st.agg != nil {
			if err := st.agg.put(keyOf(row[:nk]), stored); err != nil {
				conn.CloseResult()
				return nil, err
			}
			continue
		}
		st.put(keyOf(row[:nk]), stored)
	}
	conn.CloseResult()
	if _, err := conn.ExecuteFetch("COMMIT", 0, false); err != nil {
		return nil, err
	}
	return st, nil
}

func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = sqlparse.QuoteID(n)
	}
	return out
}

// location is the time zone a session of the server shows TIMESTAMP
// values in.
func location(tz, system string) (*time.Location, error) {
	if strings.EqualFold(tz, "SYSTEM") {
		tz = system
	}
	switch {
	case tz == "UTC" || tz == "+00:00" || tz == "GMT" || tz == "":
		return time.UTC, nil
	case len(tz) == 6 && (tz[0] == '+' || tz[0] == '-') && tz[3] == ':':
		h, err1 := strconv.Atoi(tz[1:3])
		m, err2 := strconv.Atoi(tz[4:])
		if err1 == nil && err2 == nil {
			off := h*3600 + m*60
			if tz[0] == '-' {
				off = -off
			}
			return time.FixedZone(tz, off), nil
		}
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return nil, &ErrNotLive{fmt.Sprintf("the server's time zone %q is unknown here, so TIMESTAMP values could not be shown as it shows them", tz)}
	}
	return loc, nil
}

// checkLog makes sure the server at addr logs what a live pin needs: a
// binary log of full row images, uncompressed, and on a replica what it
// replicates. It returns the server's settings (see the query).
func checkLog(conn *mysql.Conn, addr string, one func(string) ([]sqltypes.Value, error)) ([]sqltypes.Value, error) {
	v, err := one("SELECT @@log_bin, @@binlog_format, @@binlog_row_image, @@log_slave_updates, @@log_bin_compress, @@time_zone, @@system_time_zone")
	if err != nil {
		return nil, err
	}
	switch {
	case v[0].ToString() != "1":
		return nil, &ErrNotLive{addr + " has no binary log (log_bin=OFF)"}
	case !strings.EqualFold(v[1].ToString(), "ROW"):
		return nil, &ErrNotLive{addr + " logs binlog_format=" + v[1].ToString() + "; live pins need ROW"}
	case !strings.EqualFold(v[2].ToString(), "FULL"):
		return nil, &ErrNotLive{addr + " logs binlog_row_image=" + v[2].ToString() + "; live pins need FULL"}
	case v[4].ToString() == "1":
		return nil, &ErrNotLive{addr + " compresses its binary log (log_bin_compress=ON), which cannot be followed"}
	}
	if r, err := conn.ExecuteFetch("SHOW SLAVE STATUS", 1, false); err == nil && len(r.Rows) > 0 && v[3].ToString() != "1" {
		return nil, &ErrNotLive{addr + " is a replica that does not log what it replicates (log_slave_updates=OFF)"}
	}
	return v, nil
}

// checkPrimary makes sure the primary a pin is to follow can be: MariaDB
// with a binary log checkLog accepts.
func (p *Pin) checkPrimary(ctx context.Context) error {
	addr := p.cfg.Primary
	host, ps, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("primary %q: %w", addr, err)
	}
	port, err := strconv.Atoi(ps)
	if err != nil {
		return fmt.Errorf("primary %q: %w", addr, err)
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, err := mysql.Connect(cctx, &mysql.ConnParams{Host: host, Port: port, Uname: p.cfg.User, Pass: p.cfg.Pass})
	if err != nil {
		return fmt.Errorf("primary %s: %w", addr, err)
	}
	defer conn.Close()
	defer context.AfterFunc(cctx, conn.Close)()
	if !conn.IsMariaDB() {
		return &ErrNotLive{"live pins follow MariaDB's GTIDs; the primary " + addr + " is MySQL"}
	}
	_, err = checkLog(conn, "the primary "+addr, func(q string) ([]sqltypes.Value, error) {
		r, err := conn.ExecuteFetch(q, 1, false)
		if err != nil {
			return nil, fmt.Errorf("primary %s: %s: %w", addr, q, err)
		}
		if len(r.Rows) != 1 {
			return nil, fmt.Errorf("primary %s: %s: %d rows", addr, q, len(r.Rows))
		}
		return r.Rows[0], nil
	})
	return err
}
