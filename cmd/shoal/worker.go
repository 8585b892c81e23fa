package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/internal/cli"
	"github.com/shoaldb/shoal/worker"
)

func runWorker(args []string) error {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: shoal worker [--config worker.yaml] [flags]\n\n"+
			"Runs the Arrow Flight worker next to one replica. Flags override the config file;\n"+
			"the replica password may also come from SHOAL_REPLICA_PASSWORD (it overrides the file,\n"+
			"--password overrides both).")
		fs.PrintDefaults()
	}
	path := fs.String("config", "", "YAML config file (config.Worker)")
	listen := fs.String("listen", "", "Flight listen address (default 127.0.0.1:4100)")
	httpListen := fs.String("http", "", `HTTP address for /metrics and /healthz (default 127.0.0.1:4180; "off" disables)`)
	mysqlAddr := fs.String("mysql", "", "host:port of the local replica")
	user := fs.String("user", "", "replica account (default root)")
	password := fs.String("password", "", "replica password (prefer SHOAL_REPLICA_PASSWORD: flags show in ps)")
	level := fs.String("log-level", "info", "debug, info, warn or error")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}

	var cfg config.Worker
	if *path != "" {
		if err := config.Load(*path, &cfg); err != nil {
			return err
		}
	}
	if *listen != "" {
		cfg.Listen = *listen
	}
	if *mysqlAddr != "" {
		cfg.MySQL = *mysqlAddr
	}
	switch *httpListen {
	case "":
	case "off":
		cfg.HTTPListen = new("")
	default:
		cfg.HTTPListen = new(*httpListen)
	}
	if *user != "" {
		cfg.User = *user
	}
	if err := config.CheckEnv(); err != nil {
		return err
	}
	if pw := os.Getenv(config.ReplicaPasswordEnv); pw != "" {
		cfg.Password = pw
	}
	if *password != "" {
		cfg.Password = *password
	}
	cfg.Defaults()
	if err := cfg.Validate(); err != nil {
		return err
	}

	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(*level)); err != nil {
		return fmt.Errorf("--log-level: %w", err)
	}
	slog.SetDefault(slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: lvl})))

	srv, err := worker.New(cfg)
	if err != nil {
		return err
	}
	lis, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("worker: listen %s: %w", cfg.Listen, err)
	}

	hlis, err := worker.ListenHTTP(cfg, slog.Default())
	if err != nil {
		lis.Close()
		return fmt.Errorf("worker: http_listen: %w", err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if hlis != nil {
		hctx, stopHTTP := context.WithCancel(context.Background())
		hdone := make(chan struct{})
		go func() {
			defer close(hdone)
			if err := srv.ServeMetrics(hctx, hlis); err != nil {
				slog.Warn("worker HTTP listener stopped", "err", err)
			}
		}()
		defer func() { stopHTTP(); <-hdone }()
		slog.Info("worker HTTP listener", "addr", hlis.Addr().String())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(lis) }()
	select {
	case err := <-errc:
		srv.Stop()
		return err
	case <-ctx.Done():
	}
	slog.Info("worker stopping: finishing running fragments")
	srv.Stop()
	if err := <-errc; err != nil {
		return err
	}
	slog.Info("worker stopped")
	return nil
}
