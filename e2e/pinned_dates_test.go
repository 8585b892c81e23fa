package e2e

import (
	"strings"
	"testing"
)

// dateTexts are text and numbers in the forms MariaDB reads as dates
// when they meet a DATE: a time of one or two parts, trailing space or
// garbage, leading space, other punctuation, digits only, impossible days
// (compared as they are), and text that is no date (the zero date).
var dateTexts = []string{
	"'2016-12-30 10:00'", "'2016-12-30 '", "'2016-12-30x'", "'2016.12.30'", "161230",
	"'2016-12-30 00:00:00 '", "' 2016-12-31'", "'2016-02-31'", "'2016-12-00'", "20161231000000",
	"'2016-12-31 10'", "'20161231'", "'garbage'", "20161231.5", "'2016-12-31T00:00'",
}

// TestDateTextAfterMerge compares, through Shoal and directly, statements
// comparing a DATE with those forms and passing them to DATEDIFF and
// INTERVAL arithmetic: distributed (HAVING and the select list run after
// the merge), then over a pinned query result and a whole-table pin (in
// memory). vitess' evalengine read '2016-12-30 10:00', '2016-12-30x',
// 161230 and the like as no date: HAVING max(FlightDate) > '2016-12-30
// 10:00' kept 21 carriers of 13, a pinned query result's WHERE
// FlightDate > '2016-12-30 10:00' counted every row, DATEDIFF('2016-12-31
// 23:00', …) was NULL and '2016-12-30 10:00' + INTERVAL 1 DAY NULL.
func TestDateTextAfterMerge(t *testing.T) {
	var merged, overPin []string
	for _, s := range dateTexts {
		merged = append(merged,
			"SELECT Carrier, MAX(FlightDate) m FROM ontime WHERE YearD = 2016 GROUP BY Carrier HAVING m > "+s+" ORDER BY Carrier",
			"SELECT Carrier, MAX(FlightDate) > "+s+", MIN(FlightDate) = "+s+", IF(MAX(FlightDate) >= "+s+", 'y', 'n'), "+
				"MAX(FlightDate) BETWEEN "+s+" AND '2017-01-01', MAX(FlightDate) IN ("+s+", '1999-01-01'), "+
				"DATEDIFF("+s+", MAX(FlightDate)), COUNT(*) FROM ontime GROUP BY Carrier ORDER BY Carrier")
		if s == "20161231.5" {
			// MariaDB's own WHERE over an indexed DATE column reads the
			// number's fraction (FlightDate = 20161231.5 is false there),
			// its expressions drop it (MAX(FlightDate) = 20161231.5 is
			// true, as here): compared after the merge only.
			continue
		}
		overPin = append(overPin,
			"SELECT COUNT(*) FROM %s WHERE FlightDate > "+s,
			"SELECT COUNT(*) FROM %s WHERE FlightDate = "+s+" OR FlightDate < "+s,
			"SELECT FlightDate >= "+s+" x, COUNT(*) FROM %s GROUP BY x ORDER BY x")
	}
	merged = append(merged,
		"SELECT Carrier, MAX(FlightDate) m FROM ontime WHERE YearD = 2016 GROUP BY Carrier HAVING m >= 20161231000000 ORDER BY Carrier",
		"SELECT Carrier, DATEDIFF('2016-12-31 23:00', MAX(FlightDate)), '2016-12-30 10:00' + INTERVAL 1 DAY, "+
			"DATE_ADD('2016-12-30 10:00:00.5', INTERVAL 1 DAY), '2016-02-31' + INTERVAL 1 DAY, "+
			"DATE_SUB('2016.12.30', INTERVAL 1 HOUR), COUNT(*) FROM ontime GROUP BY Carrier ORDER BY Carrier")

	t.Run("distributed", func(t *testing.T) {
		for _, q := range merged {
			if ex := explain(t, q); !strings.HasPrefix(ex, "split ") {
				t.Errorf("%s: not distributed:\n%s", q, ex)
			}
			diff(t, q, true)
		}
	})

	t.Run("pinned", func(t *testing.T) {
		const def = "SELECT FlightDate, Carrier, COUNT(*) c FROM ontime.ontime GROUP BY FlightDate, Carrier"
		shoalExec(t, "CACHE TABLE ontime.daily_dates AS "+def)
		defer env.shoal.Exec("UNCACHE TABLE IF EXISTS ontime.daily_dates")
		shoalExec(t, "CACHE TABLE ontime.ontime")
		defer env.shoal.Exec("UNCACHE TABLE IF EXISTS ontime.ontime")
		for _, f := range overPin {
			for _, pin := range []string{"ontime.daily_dates", "ontime.ontime"} {
				q := strings.ReplaceAll(f, "%s", pin)
				// Text MariaDB warns about reading as a date (trailing
				// text, no date) leaves the pin: the replicas run it,
				// with their warnings (evalexpr/convwarn).
				warns := strings.Contains(q, "2016-12-30x") || strings.Contains(q, "garbage")
				if ex := explain(t, q); strings.Contains(ex, "in memory") == warns {
					t.Errorf("%s: in memory %v, want %v:\n%s", q, !warns, warns, ex)
				}
				direct := q
				if pin == "ontime.daily_dates" {
					direct = strings.ReplaceAll(f, "%s", "("+def+") daily_dates")
				}
				diffPinned(t, q, direct)
			}
		}
		for _, q := range merged {
			diff(t, q, true)
		}
	})
}
