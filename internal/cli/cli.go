// Package cli holds what the shoal subcommands share in parsing their
// flags (the subcommands live in cmd/shoal and, for the benchmarks, in
// bench).
package cli

import (
	"flag"
	"fmt"
)

// ParseFlags parses args into fs and refuses positional arguments, so a
// mistyped flag value is an error rather than silently ignored.
func ParseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%s: unexpected arguments %q", fs.Name(), fs.Args())
	}
	return nil
}
