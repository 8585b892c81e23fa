package arrowexec

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// A DATETIME(n) value prints with exactly n fractional digits, truncated,
// as MySQL prints the column: "…00.000" for a whole second at n = 3.
func TestAppendDatetimeDigits(t *testing.T) {
	const noon = int64(1465560000) * 1e6 // 2016-06-10 12:00:00
	for _, tc := range []struct {
		us     int64
		digits int
		want   string
	}{
		{noon, 3, "2016-06-10 12:00:00.000"},
		{noon + 1000, 3, "2016-06-10 12:00:00.001"},
		{noon + 1999, 3, "2016-06-10 12:00:00.001"},
		{noon + 5, 6, "2016-06-10 12:00:00.000005"},
		{noon + 500000, 0, "2016-06-10 12:00:00"},
		{noon + 120000, 2, "2016-06-10 12:00:00.12"},
		{noon + 120000, -1, "2016-06-10 12:00:00.120000"},
		{noon, -1, "2016-06-10 12:00:00"},
		{-1, 3, "1969-12-31 23:59:59.999"},
	} {
		if got := string(AppendDatetime(nil, tc.us, arrow.Microsecond, tc.digits)); got != tc.want {
			t.Errorf("AppendDatetime(%d, %d) = %q, want %q", tc.us, tc.digits, got, tc.want)
		}
	}
	if got := string(AppendDatetime(nil, noon/1000+7, arrow.Millisecond, 3)); got != "2016-06-10 12:00:00.007" {
		t.Errorf("milliseconds: %q", got)
	}
}
