package dashboard

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/shoaldb/shoal/bench/measure"
)

// Sides of a dashboard run.
const (
	SideShoal  = "shoal"
	SideDirect = "direct"
)

// DashboardOptions configure RunDashboard.
type DashboardOptions struct {
	// Shoal is the coordinator; Direct is one replica holding the source
	// table. Each must allow max(Steps) open connections.
	Shoal, Direct *sql.DB
	// ShoalSlice is what the charts read through Shoal (a pinned copy,
	// say); DirectSlice what they read directly (the source table, with
	// the same condition).
	ShoalSlice, DirectSlice Slice
	Charts                  []Chart
	// Steps are the virtual-user counts, run in order; each runs StepTime
	// through Shoal, then (with RunDirect) StepTime directly.
	Steps     []int
	StepTime  time.Duration
	RunDirect bool
	// Verify compares each chart's answer through Shoal and directly once,
	// before the steps.
	Verify bool
	// Setup statements run once through Shoal before anything else (CACHE
	// TABLE ...); Teardown statements after the steps, even when a step
	// failed (UNCACHE TABLE ...).
	Setup, Teardown []string
	// Progress receives a line per phase and step; nil discards them.
	Progress io.Writer
}

// DashboardReport is the outcome of RunDashboard.
type DashboardReport struct {
	Checks []measure.ChartCheck
	// Steps holds, per step, the Shoal result and then the direct one.
	Steps []StepResult
}

// Mismatches counts the charts whose answers differed or failed.
func (r *DashboardReport) Mismatches() int {
	n := 0
	for _, c := range r.Checks {
		if !c.Equal {
			n++
		}
	}
	return n
}

// RunDashboard runs the dashboard workload: Setup, the verification, the
// steps, Teardown. An error from Setup, the verification queries' plans or
// a cancelled ctx stops it; mismatches and query errors are reported in
// the DashboardReport instead.
func RunDashboard(ctx context.Context, o DashboardOptions) (rep *DashboardReport, err error) {
	progress := o.Progress
	if progress == nil {
		progress = io.Discard
	}
	if len(o.Charts) == 0 || len(o.Steps) == 0 {
		return nil, fmt.Errorf("dashboard: no charts or no steps")
	}
	for _, s := range o.Setup {
		fmt.Fprintf(progress, "setup through shoal: %s\n", s)
		t := time.Now()
		if _, err := o.Shoal.ExecContext(ctx, s); err != nil {
			return nil, fmt.Errorf("setup %q: %w", s, err)
		}
		fmt.Fprintf(progress, "  done in %s\n", measure.FmtDur(time.Since(t)))
	}
	defer func() {
		// Teardown runs whatever happened, on a context of its own so a
		// cancelled run still unpins what it pinned.
		tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		for _, s := range o.Teardown {
			fmt.Fprintf(progress, "teardown through shoal: %s\n", s)
			if _, terr := o.Shoal.ExecContext(tctx, s); terr != nil && err == nil {
				err = fmt.Errorf("teardown %q: %w", s, terr)
			}
		}
	}()

	rep = &DashboardReport{}
	shoalQs := render(o.Charts, o.ShoalSlice)
	directQs := render(o.Charts, o.DirectSlice)
	if o.Verify {
		fmt.Fprintf(progress, "verifying %d charts: shoal (%s) vs direct (%s)\n", len(o.Charts), o.ShoalSlice.Table, o.DirectSlice.Table)
		for i, c := range o.Charts {
			ch, err := measure.Verify(ctx, o.Shoal, o.Direct, c.Name, shoalQs[i], directQs[i])
			if err != nil {
				return rep, err
			}
			rep.Checks = append(rep.Checks, ch)
		}
	}
	for _, users := range o.Steps {
		sides := []struct {
			name string
			db   *sql.DB
			qs   []string
		}{{SideShoal, o.Shoal, shoalQs}}
		if o.RunDirect {
			sides = append(sides, sides[0])
			sides[1].name, sides[1].db, sides[1].qs = SideDirect, o.Direct, directQs
		}
		for _, s := range sides {
			fmt.Fprintf(progress, "step %d users, %s, %s ...", users, s.name, o.StepTime)
			r, err := RunStep(ctx, s.db, s.name, s.qs, users, o.StepTime)
			if err != nil {
				fmt.Fprintln(progress)
				return rep, err
			}
			fmt.Fprintf(progress, " %d queries, %.1f qps, p99 %s, %d errors\n", r.OK, r.QPS(), measure.FmtDur(r.Latency.P99), r.Errors)
			rep.Steps = append(rep.Steps, r)
		}
	}
	return rep, nil
}

func render(cs []Chart, s Slice) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Render(s)
	}
	return out
}

// PrintChecks writes the verification as a table, then the problems.
func PrintChecks(w io.Writer, cs []measure.ChartCheck) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "chart\trows\tequal\tshoal\tdirect\tplan through shoal")
	for _, c := range cs {
		fmt.Fprintf(tw, "%s\t%d\t%v\t%s\t%s\t%s\n", c.Chart, c.Rows, c.Equal, measure.FmtDur(c.Shoal), measure.FmtDur(c.Direct), c.Plan)
	}
	tw.Flush()
	for _, c := range cs {
		if c.Problem != "" {
			fmt.Fprintf(w, "MISMATCH %s: %s\n", c.Chart, c.Problem)
		}
	}
}

// PrintSteps writes one row per side and step; Shoal rows carry the ratio
// to the direct row of the same step (QPS: >1 Shoal serves more; p99: <1
// Shoal answers faster). The first errors of each step follow the table.
func PrintSteps(w io.Writer, rs []StepResult) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "users\tside\tqueries\terrors\tsuccess\tqps\tmean\tp50\tp95\tp99\tmax\tqps vs direct\tp99 vs direct\t")
	for _, r := range rs {
		qpsRatio, p99Ratio := "", ""
		if d, ok := directOf(rs, r); ok {
			if d.QPS() > 0 {
				qpsRatio = measure.FmtRatio(r.QPS() / d.QPS())
			}
			if d.Latency.P99 > 0 {
				p99Ratio = measure.FmtRatio(r.Latency.P99.Seconds() / d.Latency.P99.Seconds())
			}
		}
		l := r.Latency
		fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%.2f%%\t%.1f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.Users, r.Side, r.OK, r.Errors,
			100*r.Success(), r.QPS(), measure.FmtDur(l.Mean), measure.FmtDur(l.P50), measure.FmtDur(l.P95), measure.FmtDur(l.P99), measure.FmtDur(l.Max), qpsRatio, p99Ratio)
	}
	tw.Flush()
	for _, r := range rs {
		for _, e := range r.FirstErrors {
			fmt.Fprintf(w, "error at %d users, %s: %s\n", r.Users, r.Side, e)
		}
	}
}

// directOf finds the direct result of r's step when r is a Shoal result.
func directOf(rs []StepResult, r StepResult) (StepResult, bool) {
	if r.Side != SideShoal {
		return StepResult{}, false
	}
	for _, d := range rs {
		if d.Side == SideDirect && d.Users == r.Users {
			return d, true
		}
	}
	return StepResult{}, false
}
