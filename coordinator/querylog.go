package coordinator

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/sqlerr"
)

// The slow query log: every statement that ran at least long_query_time is
// appended to the file slow_query_log names as one JSON object per line
// (slowEntry), and kept among the recent ones the status page shows.
//
// Only slow statements take the log's mutex; every other statement pays
// one comparison. Entries are written with a single write on a file
// opened for appending, so lines from concurrent statements never
// interleave and a `logrotate copytruncate` loses nothing but the line
// being written.

// defaultLongQueryTime is long_query_time when the configuration does not
// set it (MySQL's default).
const defaultLongQueryTime = 10 * time.Second

// maxLoggedStatement bounds the statement text of one entry.
const maxLoggedStatement = 64 << 10

// recentSlow is how many slow statements the status page shows.
const recentSlow = 20

// slowEntry is one line of the slow query log.
type slowEntry struct {
	// Time is when the statement started (UTC).
	Time    time.Time `json:"time"`
	Session uint32    `json:"session"`
	User    string    `json:"user"`
	DB      string    `json:"db"`
	// Statement is the text as the client sent it (prepared statements:
	// with their values bound), cut at maxLoggedStatement bytes.
	Statement string `json:"statement"`
	// Duration is from receipt to the last row sent, in seconds.
	Duration float64 `json:"duration_seconds"`
	RowsSent int64   `json:"rows_sent"`
	// Path is the statement's path (a kind: distributed, passthrough,
	// local, refused, error).
	Path string `json:"path"`
	// Fragments is how many fragments a distributed statement was cut
	// into; RowsShipped and BytesShipped what their merged attempts
	// shipped from the workers.
	Fragments    int64 `json:"fragments"`
	RowsShipped  int64 `json:"rows_shipped"`
	BytesShipped int64 `json:"bytes_shipped"`
	// Error is the error the client got, with its MySQL error number.
	Error string `json:"error,omitempty"`
	Errno int    `json:"errno,omitempty"`
}

// slowLog is the slow query log and the recent slow statements. Its
// methods are safe for concurrent use.
type slowLog struct {
	threshold time.Duration
	path      string
	log       *slog.Logger
	onSlow    func() // counts a slow statement (metrics)

	mu     sync.Mutex
	f      *os.File    // nil without slow_query_log
	recent []slowEntry // oldest first, at most recentSlow
	broken bool        // the last write failed (logged once)
}

// newSlowLog opens the configured slow query log for appending.
func newSlowLog(cfg config.Coordinator, log *slog.Logger, onSlow func()) (*slowLog, error) {
	l := &slowLog{threshold: defaultLongQueryTime, path: cfg.SlowQueryLog, log: log, onSlow: onSlow}
	if cfg.LongQueryTime != nil {
		if l.threshold = cfg.LongQueryTime.D(); l.threshold < 0 {
			return nil, fmt.Errorf("config: long_query_time must not be negative")
		}
	}
	if cfg.SlowQueryLog != "" {
		f, err := os.OpenFile(cfg.SlowQueryLog, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o640)
		if err != nil {
			return nil, fmt.Errorf("slow_query_log: %w", err)
		}
		l.f = f
	}
	return l, nil
}

// observe records the statement act of ss if it took at least the
// threshold. It runs on the session's goroutine (it reads ss).
func (l *slowLog) observe(ss *session, act *activity, d time.Duration, err error) {
	if l == nil || d < l.threshold {
		return
	}
	kind, _ := classify(ss.kind, err)
	e := slowEntry{
		Time: act.start.UTC(), Session: ss.id, User: ss.user, DB: ss.db,
		Statement: act.query, Duration: d.Seconds(), RowsSent: act.sent.Load(), Path: kind,
		Fragments: act.total.Load(), RowsShipped: act.rows.Load(), BytesShipped: act.bytes.Load(),
	}
	if len(e.Statement) > maxLoggedStatement {
		cut := maxLoggedStatement
		for cut > 0 && !utf8.RuneStart(e.Statement[cut]) {
			cut--
		}
		e.Statement = e.Statement[:cut]
	}
	if err != nil {
		e.Error = err.Error()
		if se, ok := sqlerr.As(err); ok {
			e.Error, e.Errno = se.Message, int(se.Num)
		}
	}
	if l.onSlow != nil {
		l.onSlow()
	}
	line, jerr := json.Marshal(e)
	if jerr != nil { // cannot happen with these field types
		l.log.Warn("slow query log: encoding an entry", "err", jerr)
		return
	}
	line = append(line, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.recent) == recentSlow {
		copy(l.recent, l.recent[1:])
		l.recent = l.recent[:recentSlow-1]
	}
	l.recent = append(l.recent, e)
	if l.f == nil {
		return
	}
	if _, werr := l.f.Write(line); werr != nil {
		if !l.broken {
			l.log.Warn("slow query log: write failed; entries are lost until a write succeeds", "path", l.path, "err", werr)
		}
		l.broken = true
		return
	}
	l.broken = false
}

// recentEntries returns the recent slow statements, newest first.
func (l *slowLog) recentEntries() []slowEntry {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]slowEntry, len(l.recent))
	for i, e := range l.recent {
		out[len(out)-1-i] = e
	}
	return out
}

// close closes the log file.
func (l *slowLog) close() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil {
		l.f.Close()
		l.f = nil
	}
}
