package pinbench

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "github.com/go-sql-driver/mysql" // the "mysql" driver of sql.Open

	"github.com/shoaldb/shoal/bench/scan"
	"github.com/shoaldb/shoal/deploy/localcluster"
	"github.com/shoaldb/shoal/sqlparse"
)

// duckManifest is what `--export` writes for shoal-duckdb compare (bench/duckdb).
type duckManifest struct {
	Table   string       `json:"table"`
	Rows    int64        `json:"rows"`
	Data    string       `json:"data"` // relative to the manifest
	Columns []duckColumn `json:"columns"`
	Check   string       `json:"check"`
	Queries []duckQuery  `json:"queries"`
}

type duckColumn struct {
	Name       string `json:"name"`
	MySQLType  string `json:"mysql_type"`
	DuckDBType string `json:"duckdb_type"`
	Nullable   bool   `json:"nullable"`
}

type duckQuery struct {
	Name string `json:"name"`
	SQL  string `json:"sql"`
}

// exportForDuckDB writes the primary's ontime rows as tab-separated text
// (\N for NULL) and the manifest shoal-duckdb compare reads: the columns with
// DuckDB types for MySQL's, and the queries for that row count.
func exportForDuckDB(ctx context.Context, c *localcluster.Cluster, dir string) error {
	db, err := sql.Open("mysql", c.DSN(c.Primary))
	if err != nil {
		return err
	}
	defer db.Close()
	cols, err := duckColumns(ctx, db, pinnedTable)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	start := time.Now()
	const dataFile = pinnedTable + ".tsv"
	n, err := writeTSV(ctx, db, cols, pinnedTable, filepath.Join(dir, dataFile))
	if err != nil {
		return err
	}
	m := duckManifest{Table: pinnedTable, Rows: n, Data: dataFile, Columns: cols, Check: pinnedCheckSQL}
	for _, q := range scan.Core(n) {
		m.Queries = append(m.Queries, duckQuery{Name: q.Name, SQL: q.SQL})
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Printf("exported %d rows of %s from the primary %s to %s in %s\n", n, pinnedTable, c.Primary, filepath.Join(dir, dataFile), time.Since(start).Round(time.Millisecond))
	return nil
}

// duckColumns reads table's columns from information_schema and maps each
// MySQL type to DuckDB's type of the same width.
func duckColumns(ctx context.Context, db *sql.DB, table string) ([]duckColumn, error) {
	rows, err := db.QueryContext(ctx, `select column_name, data_type, column_type, is_nullable, coalesce(numeric_precision, 0), coalesce(numeric_scale, 0)
		from information_schema.columns where table_schema = database() and table_name = ? order by ordinal_position`, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []duckColumn
	for rows.Next() {
		var (
			name, dataType, colType, nullable string
			prec, scale                       int
		)
		if err := rows.Scan(&name, &dataType, &colType, &nullable, &prec, &scale); err != nil {
			return nil, err
		}
		t, err := duckType(dataType, colType, prec, scale)
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", table, name, err)
		}
		out = append(out, duckColumn{Name: name, MySQLType: colType, DuckDBType: t, Nullable: nullable == "YES"})
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("table %s not found on the primary", table)
	}
	return out, nil
}

// duckType is DuckDB's type for a MySQL column (information_schema's
// DATA_TYPE and COLUMN_TYPE).
func duckType(dataType, colType string, prec, scale int) (string, error) {
	unsigned := strings.Contains(strings.ToLower(colType), "unsigned")
	ints := map[string][2]string{
		"tinyint": {"TINYINT", "UTINYINT"}, "smallint": {"SMALLINT", "USMALLINT"},
		"mediumint": {"INTEGER", "UINTEGER"}, "int": {"INTEGER", "UINTEGER"}, "bigint": {"BIGINT", "UBIGINT"},
	}
	dt := strings.ToLower(dataType)
	if t, ok := ints[dt]; ok {
		if unsigned {
			return t[1], nil
		}
		return t[0], nil
	}
	switch dt {
	case "char", "varchar", "tinytext", "text", "mediumtext", "longtext", "enum", "set":
		return "VARCHAR", nil
	case "date":
		return "DATE", nil
	case "datetime", "timestamp":
		return "TIMESTAMP", nil
	case "year":
		return "SMALLINT", nil
	case "float":
		return "FLOAT", nil
	case "double":
		return "DOUBLE", nil
	case "decimal":
		if prec > 38 {
			return "", fmt.Errorf("DECIMAL(%d,%d) is wider than DuckDB's 38 digits", prec, scale)
		}
		return fmt.Sprintf("DECIMAL(%d,%d)", prec, scale), nil
	}
	return "", fmt.Errorf("no DuckDB type for MySQL %s", colType)
}

// DuckColumn is a column of an exported table: its MySQL type and
// DuckDB's type of the same width.
type DuckColumn = duckColumn

// ExportTSV writes the rows of table WHERE cond (every row when cond is
// "") read from db to path as tab-separated text, \N for NULL, and
// returns the columns (with DuckDB types) and the row count: what DuckDB's
// COPY reads as CSV with a tab delimiter, no quoting or escapes, and \N
// for NULL.
func ExportTSV(ctx context.Context, db *sql.DB, table, cond, path string) ([]DuckColumn, int64, error) {
	cols, err := duckColumns(ctx, db, table)
	if err != nil {
		return nil, 0, err
	}
	from := sqlparse.QuoteID(table)
	if strings.TrimSpace(cond) != "" {
		from += " where " + cond
	}
	n, err := writeTSV(ctx, db, cols, from, path)
	return cols, n, err
}

// writeTSV writes every row of the table, one line each, tab-separated,
// \N for NULL. A value holding a tab, newline or backslash is an error
// (the file is read without quoting or escapes).
func writeTSV(ctx context.Context, db *sql.DB, cols []duckColumn, from, path string) (int64, error) {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = sqlparse.QuoteID(c.Name)
	}
	rows, err := db.QueryContext(ctx, "select "+strings.Join(names, ", ")+" from "+from)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	// NOT NULL columns scan as RawBytes (no copy); nullable ones as any,
	// which tells NULL (nil) from the empty string ([]byte{}).
	raw := make([]sql.RawBytes, len(cols))
	anys := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i, c := range cols {
		if c.Nullable {
			ptrs[i] = &anys[i]
		} else {
			ptrs[i] = &raw[i]
		}
	}
	var n int64
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return 0, err
		}
		for i, c := range cols {
			if i > 0 {
				w.WriteByte('\t')
			}
			v := []byte(raw[i])
			if c.Nullable {
				if anys[i] == nil {
					w.WriteString(`\N`)
					continue
				}
				switch x := anys[i].(type) {
				case []byte:
					v = x
				default:
					v = fmt.Append(nil, x)
				}
			}
			if bytes.ContainsAny(v, "\t\n\r\\") {
				return 0, fmt.Errorf("row %d, column %s: value %q holds a tab, newline or backslash", n+1, c.Name, v)
			}
			w.Write(v)
		}
		w.WriteByte('\n')
		n++
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	if err := w.Flush(); err != nil {
		return 0, err
	}
	return n, f.Close()
}
