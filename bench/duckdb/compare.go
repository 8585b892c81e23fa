package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/shoaldb/shoal/bench/pinbench"
)

// The DuckDB side of "pinned tables vs DuckDB" (docs/benchmarks.md,
// scripts/bench-duckdb.sh): load the rows `shoal bench pinned --export
// DIR` wrote from a local cluster's primary into an in-memory DuckDB, with
// the column types MySQL reports for them, then time each query of the
// manifest: one warm-up run, then the best of --runs. It writes the times
// and answers as JSON (--out) for `shoal bench pinned --duckdb FILE`,
// which puts them beside Shoal's and checks the answers against MySQL's.
//
// It also reports what the table would take as Arrow (one record batch,
// buffers unpadded) with DuckDB's column types, which are MySQL's widths:
// plain (strings as utf8: int32 offsets and bytes) and with string columns
// of fewer than 32768 distinct values dictionary-encoded (int16 codes plus
// the dictionary), the reference for a pinned table's Memory_bytes.

// manifest is what `shoal bench pinned --export` writes.
type manifest struct {
	Table   string                `json:"table"`
	Rows    int64                 `json:"rows"`
	Data    string                `json:"data"`
	Columns []pinbench.DuckColumn `json:"columns"`
	Check   string                `json:"check"`
	Queries []struct {
		Name string `json:"name"`
		SQL  string `json:"sql"`
	} `json:"queries"`
}

type arrowColumn struct {
	Name  string `json:"name"`
	Type  string `json:"type"`
	Nulls int64  `json:"nulls"`
	Plain int64  `json:"plain"`
	Dict  int64  `json:"dict"`
}

type queryResult struct {
	Name    string     `json:"name"`
	SQL     string     `json:"sql"`
	BestMs  float64    `json:"best_ms"`
	RunsMs  []float64  `json:"runs_ms"`
	Columns []string   `json:"columns"`
	Rows    [][]string `json:"rows"`
}

type report struct {
	Version        string        `json:"duckdb_version"`
	Threads        int           `json:"threads"`
	Table          string        `json:"table"`
	Rows           int64         `json:"rows"`
	LoadMs         float64       `json:"load_ms"`
	ArrowBytes     int64         `json:"arrow_bytes"`
	ArrowDictBytes int64         `json:"arrow_dict_bytes"`
	ArrowColumns   []arrowColumn `json:"arrow_columns"`
	MemoryBytes    int64         `json:"duckdb_memory_bytes"`
	Check          []string      `json:"check"`
	Queries        []queryResult `json:"queries"`
}

// Fixed-width Arrow sizes of DuckDB's types; VARCHAR is computed.
var arrowWidth = map[string]float64{
	"BOOLEAN": 1.0 / 8, "TINYINT": 1, "UTINYINT": 1, "SMALLINT": 2, "USMALLINT": 2, "INTEGER": 4, "UINTEGER": 4,
	"BIGINT": 8, "UBIGINT": 8, "FLOAT": 4, "DOUBLE": 8, "DATE": 4, "TIMESTAMP": 8, "TIME": 8,
}

// maxDict is package pinned's dictionary limit: codes fit an int16.
const maxDict = 1 << 15

var typeArgs = regexp.MustCompile(`\(.*`)

func compare(args []string) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	manifestPath := fs.String("manifest", "", "manifest.json written by shoal bench pinned --export")
	threads := fs.Int("threads", 2, "DuckDB threads")
	runs := fs.Int("runs", 5, "timed runs per query (the best is reported)")
	out := fs.String("out", "", "write the results as JSON to this file")
	quiet := fs.Bool("quiet", false, "do not print the answers")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *manifestPath == "" || *threads < 1 || *runs < 1 {
		return fmt.Errorf("usage: shoal-duckdb compare --manifest DIR/manifest.json [--threads 2] [--runs 5] [--out FILE] [--quiet]")
	}
	b, err := os.ReadFile(*manifestPath)
	if err != nil {
		return err
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("%s: %w", *manifestPath, err)
	}
	ctx := context.Background()
	p, err := openDuck(ctx, *threads)
	if err != nil {
		return err
	}
	defer p.Close()
	t0 := time.Now()
	count, err := p.load(ctx, m.Table, m.Columns, filepath.Join(filepath.Dir(*manifestPath), m.Data))
	if err != nil {
		return err
	}
	rep := report{Version: p.version, Threads: p.threads, Table: m.Table, Rows: count, LoadMs: ms(time.Since(t0))}
	if count != m.Rows {
		return fmt.Errorf("loaded %d rows, the manifest says %d", count, m.Rows)
	}
	if err := arrowSizes(ctx, p, m, count, &rep); err != nil {
		return err
	}
	one := func(q string) ([]string, error) {
		rows, err := p.Query(ctx, q)
		if err != nil || len(rows) == 0 {
			return nil, err
		}
		return rows[0], nil
	}
	if r, err := one("SELECT coalesce(sum(memory_usage_bytes), 0) FROM duckdb_memory()"); err != nil {
		return err
	} else {
		rep.MemoryBytes, _ = strconv.ParseInt(r[0], 10, 64)
	}
	if m.Check != "" {
		if rep.Check, err = one(m.Check); err != nil {
			return fmt.Errorf("check: %w", err)
		}
	}
	for _, q := range m.Queries {
		if _, err := p.Query(ctx, q.SQL); err != nil { // warm-up
			return fmt.Errorf("%s: %w", q.Name, err)
		}
		r := queryResult{Name: q.Name, SQL: q.SQL}
		for i := range *runs {
			t := time.Now()
			rows, err := p.Query(ctx, q.SQL)
			d := ms(time.Since(t))
			if err != nil {
				return fmt.Errorf("%s: %w", q.Name, err)
			}
			r.RunsMs = append(r.RunsMs, d)
			if i == 0 || d < r.BestMs {
				r.BestMs = d
			}
			r.Rows = rows
		}
		if r.Columns, err = columns(ctx, p, q.SQL); err != nil {
			return err
		}
		rep.Queries = append(rep.Queries, r)
	}
	fmt.Printf("DuckDB %s, in memory, threads = %d; %d rows of %s loaded in %.1f s\n", rep.Version, rep.Threads, count, m.Table, rep.LoadMs/1000)
	perRow := func(n int64) float64 { return float64(n) / float64(max(count, 1)) }
	fmt.Printf("Arrow size: %d bytes (%.1f per row) plain, %d bytes (%.1f per row) with dictionary strings; DuckDB holds %d bytes (%.1f per row)\n",
		rep.ArrowBytes, perRow(rep.ArrowBytes), rep.ArrowDictBytes, perRow(rep.ArrowDictBytes), rep.MemoryBytes, perRow(rep.MemoryBytes))
	for _, r := range rep.Queries {
		runs := make([]string, len(r.RunsMs))
		for i, t := range r.RunsMs {
			runs[i] = strconv.FormatFloat(t, 'f', 1, 64)
		}
		fmt.Printf("%s: best %.1f ms of %d (%s)\n", r.Name, r.BestMs, len(r.RunsMs), strings.Join(runs, ", "))
		if !*quiet {
			fmt.Println("  " + strings.Join(r.Columns, "\t"))
			for _, row := range r.Rows {
				fmt.Println("  " + strings.Join(row, "\t"))
			}
		}
	}
	if *out != "" {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(*out, append(b, '\n'), 0o644); err != nil {
			return err
		}
		fmt.Printf("wrote %s\n", *out)
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// columns are q's result column names.
func columns(ctx context.Context, p *duckPeer, q string) ([]string, error) {
	rows, err := p.conn.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return rows.Columns()
}

// arrowSizes fills rep's Arrow sizes of the loaded table.
func arrowSizes(ctx context.Context, p *duckPeer, m manifest, count int64, rep *report) error {
	table := ident(m.Table)
	for _, c := range m.Columns {
		name := ident(c.Name)
		q := "SELECT count(*) - count(" + name + "), 0, 0, 0 FROM " + table
		if c.DuckDBType == "VARCHAR" {
			q = "SELECT count(*) - count(" + name + "), coalesce(sum(strlen(" + name + ")), 0), count(DISTINCT " + name + "), " +
				"(SELECT coalesce(sum(strlen(v)), 0) FROM (SELECT DISTINCT " + name + " AS v FROM " + table + ")) FROM " + table
		}
		rows, err := p.Query(ctx, q)
		if err != nil {
			return fmt.Errorf("sizing %s: %w", c.Name, err)
		}
		var v [4]int64
		for i := range v {
			v[i], _ = strconv.ParseInt(rows[0][i], 10, 64)
		}
		nulls, bytes, distinct, distinctBytes := v[0], v[1], v[2], v[3]
		var validity int64
		if nulls > 0 {
			validity = (count + 7) / 8
		}
		var plain, dict int64
		if c.DuckDBType == "VARCHAR" {
			plain = 4*(count+1) + bytes + validity
			dict = plain
			if distinct <= maxDict {
				dict = 2*count + validity + 4*(distinct+1) + distinctBytes
			}
		} else {
			w, ok := arrowWidth[typeArgs.ReplaceAllString(c.DuckDBType, "")]
			if !ok {
				return fmt.Errorf("no Arrow width for %s %s", c.Name, c.DuckDBType)
			}
			plain = int64(math.Ceil(w*float64(count))) + validity
			dict = plain
		}
		rep.ArrowBytes += plain
		rep.ArrowDictBytes += dict
		rep.ArrowColumns = append(rep.ArrowColumns, arrowColumn{Name: c.Name, Type: c.DuckDBType, Nulls: nulls, Plain: plain, Dict: dict})
	}
	return nil
}
