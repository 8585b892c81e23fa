package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/shoaldb/shoal/internal/certs"
)

// runCerts implements `shoal certs`: a CA for the cluster and a
// certificate per service for the coordinator ↔ worker TLS (package
// certs). The compose cluster runs it as a one-shot job into a volume.
func runCerts(args []string) error {
	fs := flag.NewFlagSet("certs", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: shoal certs --dir DIR NAME[=HOST,HOST...] ...

Makes DIR/ca.pem (with its key ca-key.pem) unless DIR holds one already,
and for each NAME without DIR/NAME.pem a certificate signed by it,
NAME.pem and NAME-key.pem, valid for the HOSTs (IP addresses or DNS
names; default NAME) as server and as client. Keys are written 0600.
Point the workers' tls_cert/tls_key/tls_client_ca and the coordinator's
worker_tls_ca/worker_tls_cert/worker_tls_key at them.

flags:
`)
		fs.PrintDefaults()
	}
	dir := fs.String("dir", "", "directory of the CA and the certificates (required)")
	// Positional NAMEs follow the flags (cli.ParseFlags refuses them).
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" || fs.NArg() == 0 {
		fs.Usage()
		return fmt.Errorf("certs: --dir and at least one NAME are required")
	}
	ca, err := certs.OpenCA(*dir, "shoal cluster CA")
	if err != nil {
		return err
	}
	for _, arg := range fs.Args() {
		name, hostList, _ := strings.Cut(arg, "=")
		if name == "" || strings.ContainsAny(name, `/\`) {
			return fmt.Errorf("certs: %q: NAME must be a plain file name", arg)
		}
		hosts := []string{name}
		if hostList != "" {
			hosts = strings.Split(hostList, ",")
		}
		if _, err := os.Stat(filepath.Join(*dir, name+".pem")); err == nil {
			fmt.Printf("%s: kept %s\n", name, filepath.Join(*dir, name+".pem"))
			continue
		} else if !errors.Is(err, os.ErrNotExist) {
			return err
		}
		cert, _, err := ca.Issue(*dir, name, hosts)
		if err != nil {
			return err
		}
		fmt.Printf("%s: wrote %s for %s\n", name, cert, strings.Join(hosts, ", "))
	}
	return nil
}
