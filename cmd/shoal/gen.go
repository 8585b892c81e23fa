package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/shoaldb/shoal/gen"
	"github.com/shoaldb/shoal/internal/cli"
)

// runGen implements `shoal gen`: create the ontime sample database on a
// MySQL/MariaDB server and load generated rows into it.
func runGen(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	rows := fs.Int64("rows", 1_000_000, "number of ontime rows to load")
	seed := fs.Uint64("seed", 1, "random seed; the same rows and seed load the same data")
	host := fs.String("host", "127.0.0.1", "server host")
	port := fs.Int("port", 3306, "server port")
	user := fs.String("user", "root", "user; needs CREATE, DROP and INSERT on the database")
	password := fs.String("password", "", "password")
	database := fs.String("database", "ontime", "database to create; its tables carriers, airports and ontime are dropped and recreated")
	chunk := fs.Int64("chunk-rows", 200_000, "rows per LOAD DATA statement (one transaction each)")
	progress := fs.String("progress", "auto", "progress on stderr: auto (in place on a terminal, else every 10%), tty, lines or off")
	tsv := fs.Bool("tsv", false, "write the rows as TSV to stdout instead of loading them (no server needed)")
	ifMissing := fs.Bool("if-missing", false, "load nothing when the database's ontime table already holds --rows rows (a one-shot loader that runs again, as docker-compose.yml's)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: shoal gen [flags]

Generate the ontime sample data (airline on-time flights modelled on the
public BTS data set, with carriers and airports dimension tables) and load
it with LOAD DATA LOCAL INFILE. The server must allow local_infile.

Example:
  shoal gen --rows 10000000 --host 127.0.0.1 --port 3306 --user root --database ontime

flags:
`)
		fs.PrintDefaults()
	}
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if *tsv {
		return gen.WriteTSV(os.Stdout, *rows, *seed)
	}
	o := gen.Options{Rows: *rows, Seed: *seed, Database: *database, ChunkRows: *chunk}
	switch *progress {
	case "auto":
		o.Progress, o.ProgressTTY = os.Stderr, gen.IsTerminal(os.Stderr)
	case "tty":
		o.Progress, o.ProgressTTY = os.Stderr, true
	case "lines":
		o.Progress = os.Stderr
	case "off":
	default:
		return fmt.Errorf("gen: --progress must be auto, tty, lines or off, not %q", *progress)
	}
	cfg := mysql.NewConfig()
	cfg.Net, cfg.Addr = "tcp", fmt.Sprintf("%s:%d", *host, *port)
	cfg.User, cfg.Passwd = *user, *password
	o.DSN = cfg.FormatDSN()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	start := time.Now()
	if *ifMissing {
		if n, err := ontimeRows(ctx, o.DSN, *database); err == nil && n == *rows {
			fmt.Fprintf(os.Stderr, "database %s on %s already holds %d ontime rows: nothing to load (--if-missing)\n", *database, cfg.Addr, n)
			return nil
		}
	}
	if err := gen.Load(ctx, o); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "database %s on %s ready in %s\n", *database, cfg.Addr, time.Since(start).Round(time.Millisecond))
	return nil
}

// ontimeRows counts the rows of database's ontime table (an error when
// there is none).
func ontimeRows(ctx context.Context, dsn, database string) (int64, error) {
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	var n int64
	err = db.QueryRowContext(ctx, "SELECT COUNT(*) FROM `"+strings.ReplaceAll(database, "`", "``")+"`.ontime").Scan(&n)
	return n, err
}
