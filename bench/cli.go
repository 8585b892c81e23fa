// Package bench is `shoal bench`: it reads the workload name off the
// command line and hands the rest to the workload's package.
//
//	scan, fragments, affinity   bench/scan       Percona's queries, directly and through Shoal
//	pinned                      bench/pinbench   the same queries over a pinned table, beside DuckDB
//	dashboard, mix              bench/dashboard  BI load at rising concurrency (--vary: no cache can answer)
//	live                        bench/live       a live pin under write load
//
// Those packages share bench/measure. This package may import them all;
// none of them imports it. bench/duckdb (a module of its own, DuckDB
// through cgo) imports bench/dashboard and bench/pinbench.
package bench

import (
	"fmt"
	"slices"
	"strings"

	"github.com/shoaldb/shoal/bench/dashboard"
	"github.com/shoaldb/shoal/bench/live"
	"github.com/shoaldb/shoal/bench/pinbench"
	"github.com/shoaldb/shoal/bench/scan"
)

// Command implements `shoal bench [scan|dashboard|pinned|fragments|affinity|mix|live]
// [flags]`; scan is the default, and --workload NAME selects a workload too.
func Command(args []string) error {
	workload, rest, err := splitWorkload(args)
	if err != nil {
		return err
	}
	switch workload {
	case "scan":
		return scan.Command(rest)
	case "dashboard":
		return dashboard.Command(rest, nil)
	case "pinned":
		return pinbench.Command(rest)
	case "fragments":
		return scan.FragmentsCommand(rest)
	case "affinity":
		return scan.AffinityCommand(rest)
	case "mix":
		return dashboard.MixCommand(rest)
	case "live":
		return live.Command(rest)
	}
	return fmt.Errorf("bench: unknown workload %q (scan, dashboard, pinned, fragments, affinity, mix or live)", workload)
}

// splitWorkload takes the workload name off args: a first argument that
// is not a flag, or a --workload flag anywhere; "scan" when neither.
func splitWorkload(args []string) (string, []string, error) {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		return args[0], args[1:], nil
	}
	for i, a := range args {
		if a == "--" {
			break
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "workload" {
			continue
		}
		after := i + 1
		if !hasVal {
			if after >= len(args) {
				return "", nil, fmt.Errorf("bench: flag needs an argument: %s", a)
			}
			val = args[after]
			after++
		}
		return val, append(slices.Clone(args[:i]), args[after:]...), nil
	}
	return "scan", args, nil
}
