package dashboard

import (
	"encoding/csv"
	"io"
	"strconv"
	"time"
)

// csvHeader names the columns WriteCSV writes: times in milliseconds,
// success in percent.
var csvHeader = []string{
	"side", "users", "step_s", "elapsed_s", "queries", "errors", "success_pct",
	"qps", "mean_ms", "p50_ms", "p95_ms", "p99_ms", "max_ms",
}

// WriteCSV writes one row per side and step, after a header row.
func WriteCSV(w io.Writer, rs []StepResult) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(csvHeader); err != nil {
		return err
	}
	f := func(v float64, prec int) string { return strconv.FormatFloat(v, 'f', prec, 64) }
	msf := func(d time.Duration) string { return f(ms(d), 3) }
	for _, r := range rs {
		l := r.Latency
		rec := []string{
			r.Side, strconv.Itoa(r.Users), f(r.Duration.Seconds(), 3), f(r.Elapsed.Seconds(), 3),
			strconv.Itoa(r.OK), strconv.Itoa(r.Errors), f(100*r.Success(), 2),
			f(r.QPS(), 2), msf(l.Mean), msf(l.P50), msf(l.P95), msf(l.P99), msf(l.Max),
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
