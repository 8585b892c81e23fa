package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/coordinator"
	"github.com/shoaldb/shoal/frontend/flightwire"
	"github.com/shoaldb/shoal/internal/cli"
)

func runCoordinator(args []string) error {
	fs := flag.NewFlagSet("coordinator", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: shoal coordinator --config coordinator.yaml [flags]\n\nRuns the MySQL endpoint. Flags override the config file.")
		fs.PrintDefaults()
	}
	path := fs.String("config", "", "YAML config file (see docs/operations.md)")
	listen := fs.String("listen", "", "MySQL listen address (default 127.0.0.1:4000)")
	httpListen := fs.String("http", "", `HTTP address for /metrics, /healthz and the status page (default 127.0.0.1:4080; "off" disables)`)
	replicas := fs.String("replicas", "", "comma-separated mysql=worker address pairs, e.g. 127.0.0.1:3307=127.0.0.1:4100")
	flightSQL := fs.String("flight-sql", "", `Arrow Flight SQL address, e.g. 127.0.0.1:4001 (default off; "off" disables one set in the config)`)
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	var cfg config.Coordinator
	if *path != "" {
		if err := config.Load(*path, &cfg); err != nil {
			return err
		}
	}
	if *listen != "" {
		cfg.Listen = *listen
	}
	switch *httpListen {
	case "":
	case "off":
		cfg.HTTPListen = new("")
	default:
		cfg.HTTPListen = new(*httpListen)
	}
	switch *flightSQL {
	case "":
	case "off":
		cfg.FlightSQLListen = ""
	default:
		cfg.FlightSQLListen = *flightSQL
	}
	if *replicas != "" {
		cfg.Replicas = nil
		for _, pair := range strings.Split(*replicas, ",") {
			m, w, ok := strings.Cut(pair, "=")
			if !ok {
				return fmt.Errorf("--replicas: %q is not mysql=worker", pair)
			}
			cfg.Replicas = append(cfg.Replicas, config.Replica{MySQL: m, Worker: w})
		}
	}
	if err := config.CheckEnv(); err != nil {
		return err
	}
	if pw := os.Getenv(config.ReplicaPasswordEnv); pw != "" {
		cfg.ReplicaPassword = pw
	}
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	withDefaults := cfg
	withDefaults.Defaults()
	for _, w := range withDefaults.Warnings() {
		log.Warn(w)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	s, err := coordinator.New(ctx, cfg, log)
	if err != nil {
		return err
	}
	if a := s.HTTPAddr(); a != nil {
		log.Info("coordinator listening", "mysql", s.Addr().String(), "http", a.String())
	} else {
		log.Info("coordinator listening", "mysql", s.Addr().String())
	}
	var flight *flightwire.FlightSQL
	if cfg.FlightSQLListen != "" {
		if flight, err = s.StartFlightSQL(cfg.FlightSQLListen, nil); err != nil {
			s.Close()
			return err
		}
		log.Info("Flight SQL listening", "addr", flight.Addr().String())
	}
	go s.Serve()
	<-ctx.Done()
	log.Info("coordinator stopping")
	if flight != nil {
		flight.Close()
	}
	s.Close()
	return nil
}
