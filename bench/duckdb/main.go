// Command shoal-duckdb puts in-memory DuckDB beside Shoal on the same rows.
// It is a module of its own (bench/duckdb/go.mod) so that the shoal binary
// does not link DuckDB's C++ library; build or run it from this directory:
//
//	go run . dashboard --vary --dir ../../.local/cluster [shoal bench dashboard flags]
//	go run . compare --manifest DIR/manifest.json [--threads 2] [--runs 5] [--out DIR/duckdb.json]
//
// dashboard is `shoal bench dashboard` with DuckDB as the peer of --vary:
// the slice's rows are read from a replica into DuckDB (one thread, one
// connection) and every chart runs there with the same varying literals
// as through Shoal. compare is the DuckDB side of `shoal bench pinned`
// (scripts/bench-duckdb.sh): it loads the rows `shoal bench pinned
// --export` wrote and times the manifest's queries.
package main

import (
	"fmt"
	"os"

	"github.com/shoaldb/shoal/bench/dashboard"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "shoal-duckdb:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: shoal-duckdb dashboard|compare [flags]")
	}
	switch args[0] {
	case "dashboard":
		return dashboard.Command(args[1:], openPeer)
	case "compare":
		return compare(args[1:])
	}
	return fmt.Errorf("unknown command %q: dashboard or compare", args[0])
}
