package catalog

import (
	"strconv"
	"strings"
	"time"
)

// Zone is the time zone a fresh connection to the replica computes in:
// its @@global.time_zone (an offset such as '+05:00', a named zone, or
// SYSTEM: then @@system_time_zone, the host's), with offset the seconds
// its NOW() is ahead of UTC_TIMESTAMP() when read. The coordinator's
// final stage and in-memory engine evaluate FROM_UNIXTIME,
// UNIX_TIMESTAMP and the like in it, as the replica would, not in the
// coordinator process's own zone. A name Go cannot load (a host's
// abbreviation, such as CEST) falls back to the process's zone when that
// is as far from UTC now, else to the fixed offset.
func Zone(tz, system string, offset int) *time.Location {
	if strings.EqualFold(tz, "SYSTEM") {
		tz = system
	}
	if loc, ok := fixedZone(tz); ok {
		return loc
	}
	now := time.Now()
	if loc, err := time.LoadLocation(tz); err == nil && tz != "" && !strings.EqualFold(tz, "Local") {
		if _, off := now.In(loc).Zone(); off == offset {
			return loc
		}
	}
	if _, off := now.In(time.Local).Zone(); off == offset {
		return time.Local
	}
	return time.FixedZone(tz, offset)
}

// fixedZone reads MySQL's '+hh:mm' / '-hh:mm' time zone spelling.
func fixedZone(tz string) (*time.Location, bool) {
	if len(tz) < 2 || tz[0] != '+' && tz[0] != '-' {
		return nil, false
	}
	h, m, ok := strings.Cut(tz[1:], ":")
	if !ok {
		return nil, false
	}
	hh, err1 := strconv.Atoi(h)
	mm, err2 := strconv.Atoi(m)
	if err1 != nil || err2 != nil || mm < 0 || mm > 59 || hh < 0 {
		return nil, false
	}
	off := hh*3600 + mm*60
	if tz[0] == '-' {
		off = -off
	}
	return time.FixedZone(tz, off), true
}
