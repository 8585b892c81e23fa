package main

import (
	"context"
	"database/sql"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/shoaldb/shoal/bench/dashboard"
	"github.com/shoaldb/shoal/bench/pinbench"
)

// duckPeer is an in-memory DuckDB database on one connection.
type duckPeer struct {
	db      *sql.DB
	conn    *sql.Conn
	version string
	threads int
}

// openDuck opens an in-memory DuckDB with threads threads and one
// connection.
func openDuck(ctx context.Context, threads int) (*duckPeer, error) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, err
	}
	p := &duckPeer{db: db, conn: conn}
	if _, err := conn.ExecContext(ctx, "SET threads = "+strconv.Itoa(threads)); err != nil {
		p.Close()
		return nil, err
	}
	if err := conn.QueryRowContext(ctx, "SELECT version(), current_setting('threads')").Scan(&p.version, &p.threads); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

func (p *duckPeer) Close() {
	p.conn.Close()
	p.db.Close()
}

func (p *duckPeer) Name() string { return "duckdb" }

// Query runs q and returns its rows as text.
func (p *duckPeer) Query(ctx context.Context, q string) ([][]string, error) {
	rows, err := p.conn.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var out [][]string
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make([]string, len(vals))
		for i, v := range vals {
			row[i] = cell(v)
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

// cell writes a DuckDB value as MySQL's text protocol would: NULL, the
// number, the date.
func cell(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case []byte:
		return string(x)
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case float32:
		return strconv.FormatFloat(float64(x), 'f', -1, 32)
	case *big.Int:
		return x.String()
	case duckdb.Decimal:
		return x.String()
	case time.Time:
		if x.Hour() == 0 && x.Minute() == 0 && x.Second() == 0 && x.Nanosecond() == 0 {
			return x.Format(time.DateOnly)
		}
		return x.Format(time.DateTime)
	}
	return fmt.Sprint(v)
}

// load creates table with cols and copies the tab-separated file path
// into it.
func (p *duckPeer) load(ctx context.Context, table string, cols []pinbench.DuckColumn, path string) (int64, error) {
	defs := make([]string, len(cols))
	for i, c := range cols {
		defs[i] = ident(c.Name) + " " + c.DuckDBType
		if !c.Nullable {
			defs[i] += " NOT NULL"
		}
	}
	if _, err := p.conn.ExecContext(ctx, "CREATE TABLE "+ident(table)+" ("+strings.Join(defs, ", ")+")"); err != nil {
		return 0, err
	}
	if _, err := p.conn.ExecContext(ctx, "COPY "+ident(table)+" FROM "+lit(path)+
		` (FORMAT csv, DELIMITER '\t', HEADER false, QUOTE '', ESCAPE '', NULLSTR '\N')`); err != nil {
		return 0, err
	}
	var n int64
	err := p.conn.QueryRowContext(ctx, "SELECT count(*) FROM "+ident(table)).Scan(&n)
	return n, err
}

func ident(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
func lit(s string) string   { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// openPeer is the dashboard's dashboard.PeerOpener: the rows of table WHERE
// cond, read from src into DuckDB's table recent (one thread, one
// connection), through a temporary tab-separated file.
func openPeer(ctx context.Context, src *sql.DB, table, cond string) (dashboard.Peer, dashboard.Slice, func(), error) {
	dir, err := os.MkdirTemp("", "shoal-duckdb-")
	if err != nil {
		return nil, dashboard.Slice{}, nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "rows.tsv")
	cols, n, err := pinbench.ExportTSV(ctx, src, table, cond, path)
	if err != nil {
		return nil, dashboard.Slice{}, nil, err
	}
	p, err := openDuck(ctx, 1)
	if err != nil {
		return nil, dashboard.Slice{}, nil, err
	}
	got, err := p.load(ctx, "recent", cols, path)
	if err != nil {
		p.Close()
		return nil, dashboard.Slice{}, nil, err
	}
	if got != n {
		p.Close()
		return nil, dashboard.Slice{}, nil, fmt.Errorf("DuckDB loaded %d rows, the replica sent %d", got, n)
	}
	fmt.Fprintf(os.Stderr, "DuckDB %s, threads = %d: %d rows of %s WHERE %s\n", p.version, p.threads, n, table, cond)
	return p, dashboard.Slice{Table: "recent", Where: cond}, p.Close, nil
}
