// Package gen generates and loads Shoal's sample data: an airline on-time
// table modelled on the public BTS "ontime" data set (the one Percona used
// to show Spark speeding up slow MySQL queries), plus carriers and airports
// dimension tables.
//
// The data is synthetic but shaped like the real thing where a distributed
// engine cares: ids with uneven density (dense runs, skips, big holes) so
// primary-key range splitting meets skew; a Zipf-like carrier and airport
// mix so GROUP BY results are lopsided; heavy-tailed delays with NULLs;
// small shares of AK, HI, PR, VI; non-ASCII and quoted names. It is fully
// deterministic for a (rows, seed) pair, so tests can compare results
// across runs and machines.
//
// Loading streams TSV generated on the fly through LOAD DATA LOCAL INFILE
// (go-sql-driver's Reader:: handlers), one statement per chunk of rows, so
// nothing is written to disk and memory stays flat for any row count. The
// server must allow local_infile.
package gen

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/shoaldb/shoal/deploy/schema"
	"github.com/shoaldb/shoal/sqlparse"
)

// Options configures Load.
type Options struct {
	// Rows is how many ontime rows to load (1 .. MaxRows).
	Rows int64
	// Seed selects the data; the same (Rows, Seed) always loads the same rows.
	Seed uint64
	// DSN is a go-sql-driver DSN without a database, e.g. "root:@tcp(127.0.0.1:3306)/".
	DSN string
	// Database is created if missing (default "ontime"); its three tables
	// are dropped and recreated.
	Database string
	// ChunkRows is rows per LOAD DATA statement, i.e. per transaction
	// (default 200000).
	ChunkRows int64
	// Progress, if set, receives progress reports.
	Progress io.Writer
	// ProgressTTY rewrites one line in place with \r (for terminals);
	// otherwise a line is written at every 10%.
	ProgressTTY bool
}

// Schema returns the DDL statements, from deploy/schema/ontime-schema.sql.
func Schema() []string { return schema.Statements() }

var handlerSeq atomic.Int64

// Load creates the database and tables and loads the data.
func Load(ctx context.Context, o Options) error {
	if o.Rows <= 0 || o.Rows > MaxRows {
		return fmt.Errorf("gen: rows must be between 1 and %d, got %d", int64(MaxRows), o.Rows)
	}
	if o.Database == "" {
		o.Database = "ontime"
	}
	if o.ChunkRows <= 0 {
		o.ChunkRows = 200_000
	}
	cfg, err := mysql.ParseDSN(o.DSN)
	if err != nil {
		return fmt.Errorf("gen: dsn: %w", err)
	}
	if cfg.DBName != "" && cfg.DBName != o.Database {
		return fmt.Errorf("gen: the DSN names database %q but Database is %q; leave the DSN without one", cfg.DBName, o.Database)
	}
	cfg.DBName = ""
	cfg.MultiStatements = false
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return fmt.Errorf("gen: %w", err)
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	c, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("gen: connect %s: %w", cfg.Addr, err)
	}
	defer c.Close()

	q := sqlparse.QuoteID(o.Database)
	stmts := []string{
		"CREATE DATABASE IF NOT EXISTS " + q + " DEFAULT CHARACTER SET utf8mb4",
		"USE " + q,
	}
	for i := len(schema.Tables) - 1; i >= 0; i-- {
		stmts = append(stmts, "DROP TABLE IF EXISTS `"+schema.Tables[i]+"`")
	}
	stmts = append(stmts, Schema()...)
	for _, s := range stmts {
		if _, err := c.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("gen: %s: %w", firstLine(s), err)
		}
	}
	if err := loadDims(ctx, c); err != nil {
		return err
	}

	p := newProgress(o.Progress, o.ProgressTTY, o.Rows)
	g := newGenerator(o.Rows, o.Seed)
	cols := strings.Join(Columns, ", ")
	for done := int64(0); done < o.Rows; {
		n := min(o.ChunkRows, o.Rows-done)
		name := fmt.Sprintf("shoal-gen-%d", handlerSeq.Add(1))
		r := &chunkReader{g: g, left: n, onRows: p.add}
		mysql.RegisterReaderHandler(name, func() io.Reader { return r })
		_, err := c.ExecContext(ctx, "LOAD DATA LOCAL INFILE 'Reader::"+name+"' INTO TABLE ontime"+
			" CHARACTER SET utf8mb4 FIELDS TERMINATED BY '\\t' LINES TERMINATED BY '\\n' ("+cols+")")
		mysql.DeregisterReaderHandler(name)
		if err != nil {
			var me *mysql.MySQLError
			if errors.As(err, &me) && (me.Number == 1148 || me.Number == 3948) {
				return fmt.Errorf("gen: the server refuses LOAD DATA LOCAL: start it with local_infile=1 (SET GLOBAL local_infile=1): %w", err)
			}
			return fmt.Errorf("gen: load rows %d..%d: %w", done+1, done+n, err)
		}
		done += n
	}
	if _, err := c.ExecContext(ctx, "ANALYZE TABLE ontime, carriers, airports"); err != nil {
		return fmt.Errorf("gen: analyze: %w", err)
	}
	p.finish()
	return nil
}

func loadDims(ctx context.Context, c *sql.Conn) error {
	var b strings.Builder
	var args []any
	b.WriteString("INSERT INTO carriers (code, name, country) VALUES ")
	for i, cr := range carriers {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(?, ?, ?)")
		args = append(args, cr.Code, cr.Name, cr.Country)
	}
	if _, err := c.ExecContext(ctx, b.String(), args...); err != nil {
		return fmt.Errorf("gen: carriers: %w", err)
	}
	b.Reset()
	args = args[:0]
	b.WriteString("INSERT INTO airports (code, city, state, name) VALUES ")
	for i, a := range airports {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(?, ?, ?, ?)")
		args = append(args, a.Code, a.City, a.State, a.Name)
	}
	if _, err := c.ExecContext(ctx, b.String(), args...); err != nil {
		return fmt.Errorf("gen: airports: %w", err)
	}
	return nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// progress reports rows generated (and so sent) against the total. add is
// called from the driver's read loop only, but keep it safe anyway.
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	tty     bool
	total   int64
	done    int64
	start   time.Time
	last    time.Time
	lastPct int64
}

func newProgress(w io.Writer, tty bool, total int64) *progress {
	now := time.Now()
	return &progress{w: w, tty: tty, total: total, start: now, last: now}
}

func (p *progress) rate() float64 {
	s := time.Since(p.start).Seconds()
	if s <= 0 {
		return 0
	}
	return float64(p.done) / s
}

func (p *progress) add(n int64) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += n
	pct := p.done * 100 / p.total
	if p.tty {
		if time.Since(p.last) >= 200*time.Millisecond {
			p.last = time.Now()
			fmt.Fprintf(p.w, "\rloading ontime: %3d%%  %d/%d rows  %.0f rows/s ", pct, p.done, p.total, p.rate())
		}
		return
	}
	if pct/10 > p.lastPct/10 && pct < 100 {
		p.lastPct = pct
		fmt.Fprintf(p.w, "loading ontime: %d%% (%d rows, %.0f rows/s)\n", pct/10*10, p.done, p.rate())
	}
}

func (p *progress) finish() {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	prefix := ""
	if p.tty {
		prefix = "\r\033[K"
	}
	fmt.Fprintf(p.w, "%sloaded %d ontime rows in %s (%.0f rows/s)\n", prefix,
		p.total, time.Since(p.start).Round(time.Millisecond), float64(p.total)/time.Since(p.start).Seconds())
}

// IsTerminal reports whether f is a character device, i.e. whether
// progress can be redrawn in place on it.
func IsTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
