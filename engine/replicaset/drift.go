package replicaset

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/shoaldb/shoal/replica"
)

// Settings the fragments and the in-memory engine assume.
//
// Fragments run on the workers' own connections and the final stage and
// the in-memory engine evaluate with a fresh connection's settings: a
// session that changed one of those that change a read's answer gets
// wrong rows from them (TIMESTAMP values in another time zone, `||` read
// as OR under PIPES_AS_CONCAT, "x" as a string under ANSI_QUOTES, English
// month names under lc_time_names = 'de_DE'). Such a session's reads run
// on its replica connection, which has its settings; the router asks for
// the Drift after each SET that names one of them.

// Drift says how a session's settings differ from a fresh connection's in
// ways that change what a read returns.
type Drift struct {
	// All: time_zone (another zone than the server's: '+00:00' on a
	// UTC host is the same one, zoneKey), timestamp (a session's fixed clock, which the
	// fragments' NOW() must read: planner.Plan.Clock), sql_select_limit, an sql_mode that changes
	// parsing or evaluation, or sql_big_selects = 0 (which SET
	// max_join_size implies: MariaDB refuses, with 1104, a read its plan
	// estimates above the limit): every read runs on the replica.
	All bool
	// TimeNames: lc_time_names (month and day names, DATE_FORMAT).
	TimeNames bool
	// WeekFormat: default_week_format (WEEK without a mode).
	WeekFormat bool
	// DivPrecision: div_precision_increment (the digits of a quotient,
	// AVG, STDDEV and VARIANCE).
	DivPrecision bool
	// ConcatLen: group_concat_max_len (where GROUP_CONCAT and
	// JSON_ARRAYAGG are cut, and their result's type).
	ConcatLen bool
	// StatementTime is the session's max_statement_time when it set one
	// (0: none): the router ends the statement there with MariaDB's 1969
	// whichever path it takes.
	StatementTime time.Duration
	// NetWriteTimeout is the session's net_write_timeout when it set one
	// other than the server's (0: none): how long the MySQL front end
	// lets a write to the client block (MySQL Connector/J sets 600 for a
	// streamed result).
	NetWriteTimeout time.Duration
}

// driftVars are the variables a SET must name for Drift to be read again.
var driftVars = []string{"sql_mode", "time_zone", "timestamp", "sql_select_limit", "lc_time_names", "default_week_format", "max_statement_time",
	"net_write_timeout", "sql_big_selects", "max_join_size", "div_precision_increment", "group_concat_max_len"}

// NamesDriftVar reports whether a SET statement names one of the settings
// Drift covers.
func NamesDriftVar(stmt string) bool {
	lower := strings.ToLower(stmt)
	for _, v := range driftVars {
		if strings.Contains(lower, v) {
			return true
		}
	}
	return false
}

// readModes are the sql_mode flags that change what a SELECT parses to or
// returns (the combination modes are listed with their parts by
// @@sql_mode, and are here too for a server that lists them alone).
var readModes = map[string]bool{
	"REAL_AS_FLOAT": true, "PIPES_AS_CONCAT": true, "ANSI_QUOTES": true, "IGNORE_SPACE": true,
	"ONLY_FULL_GROUP_BY": true, "NO_UNSIGNED_SUBTRACTION": true, "NO_BACKSLASH_ESCAPES": true,
	"HIGH_NOT_PRECEDENCE": true, "PAD_CHAR_TO_FULL_LENGTH": true, "EMPTY_STRING_IS_NULL": true,
	"TIME_ROUND_FRACTIONAL": true, "ANSI": true, "ORACLE": true, "MSSQL": true, "DB2": true,
	"POSTGRESQL": true, "MAXDB": true, "MYSQL323": true, "MYSQL40": true,
}

// readModesDiffer reports whether two @@sql_mode values differ in a flag
// of readModes.
func readModesDiffer(a, b string) bool {
	set := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, f := range strings.Split(strings.ToUpper(s), ",") {
			if f = strings.TrimSpace(f); f != "" {
				m[f] = true
			}
		}
		return m
	}
	x, y := set(a), set(b)
	for f := range readModes {
		if x[f] != y[f] {
			return true
		}
	}
	return false
}

// Drift is the session's drift as last read (ReadDrift).
func (ss *Session) Drift() Drift { return ss.drift }

// ReadDrift reads the session's settings on its replica connection against
// the server's globals (a fresh connection's), after a SET naming one of
// them, and keeps the result for Drift.
func (s *Set) ReadDrift(ctx context.Context, ss *Session) error {
	b, err := s.SessionBackend(ctx, ss)
	if err != nil {
		return err
	}
	r, err := b.Fetch(`SELECT @@session.sql_mode, @@global.sql_mode,
		@@session.sql_select_limit <> @@global.sql_select_limit
			OR @@session.sql_big_selects <> @@global.sql_big_selects
			OR ABS(@@session.timestamp - UNIX_TIMESTAMP(SYSDATE(6))) > 1,
		@@session.lc_time_names <> @@global.lc_time_names,
		@@session.default_week_format <> @@global.default_week_format,
		IF(@@session.max_statement_time <> @@global.max_statement_time, @@session.max_statement_time, 0),
		@@session.div_precision_increment <> @@global.div_precision_increment,
		@@session.group_concat_max_len <> @@global.group_concat_max_len,
		@@session.time_zone, @@global.time_zone, @@system_time_zone,
		IF(@@session.net_write_timeout <> @@global.net_write_timeout, @@session.net_write_timeout, 0)`, 1)
	if err != nil {
		if replica.Broken(err) {
			ss.CloseBackend()
		}
		return err
	}
	if len(r.Rows) != 1 || len(r.Rows[0]) != 12 {
		return nil
	}
	row := r.Rows[0]
	system := row[10].ToString()
	ss.drift = Drift{
		All: row[2].ToString() == "1" || readModesDiffer(row[0].ToString(), row[1].ToString()) ||
			zoneKey(row[8].ToString(), system) != zoneKey(row[9].ToString(), system),
		TimeNames:    row[3].ToString() == "1",
		WeekFormat:   row[4].ToString() == "1",
		DivPrecision: row[6].ToString() == "1",
		ConcatLen:    row[7].ToString() == "1",
	}
	if sec, err := strconv.ParseFloat(row[5].ToString(), 64); err == nil && sec > 0 {
		ss.drift.StatementTime = time.Duration(sec * float64(time.Second))
	}
	if sec, err := strconv.ParseInt(row[11].ToString(), 10, 64); err == nil && sec > 0 {
		ss.drift.NetWriteTimeout = time.Duration(sec) * time.Second
	}
	return nil
}

// utcNames are the zone names that are UTC at every instant (no DST, no
// leap seconds): MariaDB's named zones from the time zone tables, and
// the host's zone as @@system_time_zone names it.
var utcNames = map[string]bool{"utc": true, "etc/utc": true, "gmt": true, "etc/gmt": true, "universal": true, "zulu": true}

// zoneKey is the zone a @@time_zone value computes in, so that two
// spellings of one zone compare equal: SYSTEM is the host's zone
// (system, @@system_time_zone), '+0:00', '-00:00' and UTC are one zone
// (BI tools and drivers set time_zone = '+00:00' on a UTC server: the
// session still reads what the fragments read). Any other name is only
// equal to itself: SYSTEM on a host in a zone with DST is not the zone
// of any fixed offset.
func zoneKey(tz, system string) string {
	if strings.EqualFold(tz, "SYSTEM") {
		tz = system
	}
	if utcNames[strings.ToLower(tz)] {
		return "+00:00"
	}
	if len(tz) > 1 && (tz[0] == '+' || tz[0] == '-') {
		if h, m, ok := strings.Cut(tz[1:], ":"); ok {
			hh, err1 := strconv.Atoi(h)
			mm, err2 := strconv.Atoi(m)
			if err1 == nil && err2 == nil && hh >= 0 && mm >= 0 && mm < 60 {
				off := hh*60 + mm
				if tz[0] == '-' && off != 0 {
					return fmt.Sprintf("-%02d:%02d", hh, mm)
				}
				return fmt.Sprintf("+%02d:%02d", off/60, off%60)
			}
		}
	}
	return "name " + strings.ToLower(tz)
}
