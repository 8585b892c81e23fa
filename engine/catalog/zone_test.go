package catalog

import (
	"testing"
	"time"
)

func TestZone(t *testing.T) {
	// 1988-07-01 12:00 UTC, summer in the north.
	at := time.Date(1988, 7, 1, 12, 0, 0, 0, time.UTC)
	nowOff := func(name string) int {
		loc, err := time.LoadLocation(name)
		if err != nil {
			t.Skipf("no zone data for %s: %v", name, err)
		}
		_, off := time.Now().In(loc).Zone()
		return off
	}
	for _, c := range []struct {
		tz, system string
		offset     int
		want       string // at, in the zone
	}{
		{"+05:00", "UTC", 0, "1988-07-01 17:00"},
		{"-03:30", "UTC", 0, "1988-07-01 08:30"},
		{"SYSTEM", "UTC", 0, "1988-07-01 12:00"},
		{"Europe/Berlin", "UTC", nowOff("Europe/Berlin"), "1988-07-01 14:00"},
		{"SYSTEM", "America/New_York", nowOff("America/New_York"), "1988-07-01 08:00"},
		// A name Go cannot load: the offset read (the process's zone
		// when it is as far from UTC, not here).
		{"SYSTEM", "XYZT", 7200 + 1, "1988-07-01 14:00"},
	} {
		got := at.In(Zone(c.tz, c.system, c.offset)).Format("2006-01-02 15:04")
		if got != c.want {
			t.Errorf("Zone(%q, %q, %d): %s, want %s", c.tz, c.system, c.offset, got, c.want)
		}
	}
}
