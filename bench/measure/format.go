package measure

import (
	"fmt"
	"strconv"
	"time"
)

// FmtDur prints a duration with three significant figures or so: 1.23ms,
// 45.6ms, 1.234s; "-" for zero (nothing measured).
func FmtDur(d time.Duration) string {
	switch {
	case d == 0:
		return "-"
	case d < time.Millisecond:
		return d.Round(time.Microsecond).String()
	case d < 100*time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	case d < 10*time.Second:
		return d.Round(time.Millisecond).String()
	}
	return d.Round(10 * time.Millisecond).String()
}

// FmtRatio prints a ratio with two decimals, or two significant digits
// when smaller than 0.1 (a pinned copy can answer 1000x faster).
func FmtRatio(v float64) string {
	if v < 0.1 {
		return strconv.FormatFloat(v, 'g', 2, 64) + "x"
	}
	return strconv.FormatFloat(v, 'f', 2, 64) + "x"
}

// FmtBytes prints a byte count in MiB with one decimal; "-" for zero.
func FmtBytes(n int64) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
