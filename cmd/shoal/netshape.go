package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/shoaldb/shoal/internal/cli"
	"github.com/shoaldb/shoal/netshape"
)

// runNetshape implements `shoal netshape`: one shaped TCP relay (package
// netshape), used by `shoal local up --shape` to put the workers behind
// links like a real network's where tc netem is not available.
func runNetshape(args []string) error {
	fs := flag.NewFlagSet("netshape", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: shoal netshape --listen ADDR --to ADDR --link delay=500us,rate=1Gbit

Relays every TCP connection made to --listen on to --to over a link of the
given one-way delay and bit rate (each direction one link shared by all
connections), until SIGINT or SIGTERM. For benchmarks: see the limits in
the doc of package netshape.

flags:
`)
		fs.PrintDefaults()
	}
	listen := fs.String("listen", "", "address to accept connections on, e.g. 127.0.0.1:4111")
	to := fs.String("to", "", "address to relay each connection to, e.g. 127.0.0.1:4101")
	linkSpec := fs.String("link", "", "the link: delay=DURATION,rate=N{bit,kbit,mbit,gbit} (either part may be left out)")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if *listen == "" {
		return errors.New("netshape: --listen is required: the address to accept connections on, e.g. --listen 127.0.0.1:4111")
	}
	if *to == "" {
		return errors.New("netshape: --to is required: the address to relay to, e.g. --to 127.0.0.1:4101")
	}
	link, err := netshape.ParseLink(*linkSpec)
	if err != nil {
		return fmt.Errorf("--link: %w", err)
	}
	p, err := netshape.Listen(*listen, *to, link)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	log.Info("netshape relaying", "listen", p.Addr(), "to", *to, "link", link.String())
	return p.Serve(ctx)
}
