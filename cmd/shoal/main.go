// Command shoal is the single Shoal binary. Each subcommand lives in its own
// file of this package; this file only dispatches.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"sort"

	"github.com/shoaldb/shoal/bench"
	"github.com/shoaldb/shoal/internal/cli"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

type command struct {
	summary string
	run     func(args []string) error
}

func commands() map[string]command {
	return map[string]command{
		"coordinator": {"run the coordinator (MySQL endpoint)", runCoordinator},
		"worker":      {"run a worker next to one replica (Arrow Flight)", runWorker},
		"local":       {"start or stop a local cluster: shoal local up|down", runLocal},
		"gen":         {"generate and load the ontime sample data", runGen},
		"bench":       {"measure queries directly vs through Shoal on a local cluster", bench.Command},
		"certs":       {"make a CA and certificates for coordinator-worker TLS", runCerts},
		"netshape":    {"relay TCP over a shaped link (rate, delay) for benchmarks", runNetshape},
		"version":     {"print the version", runVersion},
	}
}

// runVersion implements `shoal version`.
func runVersion(args []string) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: shoal version\n\nPrints the version the binary was built as (-ldflags \"-X main.version=...\"; dev otherwise).\n")
	}
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	fmt.Println("shoal", version)
	return nil
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: shoal <command> [flags]\n\ncommands:")
	cmds := commands()
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(os.Stderr, "  %-12s %s\n", n, cmds[n].summary)
	}
	fmt.Fprintln(os.Stderr, "\nrun 'shoal <command> --help' for a command's flags")
}

func main() {
	if len(os.Args) < 2 || os.Args[1] == "-h" || os.Args[1] == "--help" || os.Args[1] == "help" {
		usage()
		os.Exit(2)
	}
	cmd, ok := commands()[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "shoal: unknown command %q\n\n", os.Args[1])
		usage()
		os.Exit(2)
	}
	if err := cmd.run(os.Args[2:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return // --help printed the usage
		}
		fmt.Fprintln(os.Stderr, "shoal:", err)
		os.Exit(1)
	}
}
