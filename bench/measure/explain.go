package measure

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Analysis is what one EXPLAIN [ANALYZE] through the coordinator reports.
type Analysis struct {
	// Lines are the plan lines as received.
	Lines []string
	// Passthrough is the reason the statement is not distributed, or "".
	Passthrough string
	// Planned is the fragment count of the plan ("fragments: N over ...").
	Planned int
	// InMemory describes the pinned copy the plan reads ("in memory: ..."),
	// or is "".
	InMemory string
	// RowsShipped, BytesShipped and Fragments come from ANALYZE only.
	RowsShipped  int64
	BytesShipped int64
	Fragments    []FragmentStat
}

// FragmentStat is one "fragment N ..." line of EXPLAIN ANALYZE.
type FragmentStat struct {
	ID      int
	Range   string
	Worker  string
	Rows    int64
	Bytes   int64
	Elapsed time.Duration
	Tries   int
}

// FragmentTimes summarises the elapsed times of the fragments.
func (a Analysis) FragmentTimes() Latency {
	ds := make([]time.Duration, len(a.Fragments))
	for i, f := range a.Fragments {
		ds[i] = f.Elapsed
	}
	return Summarize(ds)
}

// Explain runs EXPLAIN ANALYZE of query through the coordinator: the
// query runs once more.
func Explain(ctx context.Context, shoal *sql.DB, query string) (Analysis, error) {
	return explain(ctx, shoal, "EXPLAIN ANALYZE "+query)
}

// Plan runs EXPLAIN of query through the coordinator: the plan without
// running it.
func Plan(ctx context.Context, shoal *sql.DB, query string) (Analysis, error) {
	return explain(ctx, shoal, "EXPLAIN "+query)
}

func explain(ctx context.Context, shoal *sql.DB, stmt string) (Analysis, error) {
	rows, err := shoal.QueryContext(ctx, stmt)
	if err != nil {
		return Analysis{}, err
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return Analysis{}, err
		}
		lines = append(lines, line)
	}
	if err := rows.Err(); err != nil {
		return Analysis{}, err
	}
	return ParseAnalysis(lines)
}

var (
	shippedRe = regexp.MustCompile(`(\d+) rows, (\d+) bytes shipped`)
	plannedRe = regexp.MustCompile(`^fragments: (\d+) over`)
)

const (
	passthroughPrefix = "passthrough to one replica: "
	inMemoryPrefix    = "in memory: "
)

// ParseAnalysis reads the lines of EXPLAIN ANALYZE (one plan line per row,
// as engine/plan.go (Explain) writes them). Lines it does not know are
// skipped; a "fragment " line it cannot read is an error, so a change of
// format is noticed rather than measured as zero.
func ParseAnalysis(lines []string) (Analysis, error) {
	a := Analysis{Lines: lines}
	for _, line := range lines {
		switch {
		case plannedRe.MatchString(line):
			a.Planned, _ = strconv.Atoi(plannedRe.FindStringSubmatch(line)[1])
		case strings.HasPrefix(line, inMemoryPrefix):
			a.InMemory = strings.TrimPrefix(line, inMemoryPrefix)
		case strings.HasPrefix(line, passthroughPrefix):
			a.Passthrough = strings.TrimPrefix(line, passthroughPrefix)
		case strings.HasPrefix(line, "fragment "):
			f, err := parseFragment(line)
			if err != nil {
				return Analysis{}, err
			}
			a.Fragments = append(a.Fragments, f)
		case strings.HasPrefix(line, "analyze: "):
			if m := shippedRe.FindStringSubmatch(line); m != nil {
				a.RowsShipped, _ = strconv.ParseInt(m[1], 10, 64)
				a.BytesShipped, _ = strconv.ParseInt(m[2], 10, 64)
			}
		}
	}
	return a, nil
}

// parseFragment reads
//
//	fragment 3 [100, 200): worker replica1, 12 rows, 192 bytes, 1.234ms, tries 1
//
// The range may hold ", ", so it is cut at ": worker " and the counters
// are read from the right.
func parseFragment(line string) (FragmentStat, error) {
	bad := func(what string, err error) (FragmentStat, error) {
		if err != nil {
			return FragmentStat{}, fmt.Errorf("EXPLAIN ANALYZE line %q: %s: %w", line, what, err)
		}
		return FragmentStat{}, fmt.Errorf("EXPLAIN ANALYZE line %q: %s", line, what)
	}
	var f FragmentStat
	head, tail, ok := strings.Cut(strings.TrimPrefix(line, "fragment "), ": worker ")
	if !ok {
		return bad("no \": worker \"", nil)
	}
	id, rng, _ := strings.Cut(head, " ")
	var err error
	if f.ID, err = strconv.Atoi(id); err != nil {
		return bad("fragment number", err)
	}
	f.Range = rng
	parts := strings.Split(tail, ", ")
	if len(parts) < 5 {
		return bad("expected worker, rows, bytes, time, tries", nil)
	}
	n := len(parts)
	f.Worker = strings.Join(parts[:n-4], ", ")
	if f.Rows, err = counter(parts[n-4], " rows"); err != nil {
		return bad("rows", err)
	}
	if f.Bytes, err = counter(parts[n-3], " bytes"); err != nil {
		return bad("bytes", err)
	}
	if f.Elapsed, err = time.ParseDuration(parts[n-2]); err != nil {
		return bad("elapsed", err)
	}
	tries, ok := strings.CutPrefix(parts[n-1], "tries ")
	if !ok {
		return bad("no tries", nil)
	}
	if f.Tries, err = strconv.Atoi(tries); err != nil {
		return bad("tries", err)
	}
	return f, nil
}

func counter(s, unit string) (int64, error) {
	v, ok := strings.CutSuffix(s, unit)
	if !ok {
		return 0, fmt.Errorf("%q does not end in %q", s, unit)
	}
	return strconv.ParseInt(v, 10, 64)
}
