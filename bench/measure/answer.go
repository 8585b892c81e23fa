package measure

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Timed runs q and reads its answer as text ("NULL" for NULL), timed
// from sending it to the last row.
func Timed(ctx context.Context, db *sql.DB, q string) (time.Duration, [][]string, error) {
	start := time.Now()
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return 0, nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return 0, nil, err
	}
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var out [][]string
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return 0, nil, err
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = "NULL"
			if v.Valid {
				row[i] = v.String
			}
		}
		out = append(out, row)
	}
	return time.Since(start), out, rows.Err()
}

// Drain runs q on c and reads every row without converting it.
func Drain(ctx context.Context, c *sql.Conn, q string) error {
	rows, err := c.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	for rows.Next() {
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return err
	}
	return rows.Close()
}

// QueryRows runs q on c and returns its rows as text ("NULL" for NULL).
func QueryRows(ctx context.Context, c *sql.Conn, q string) ([][]string, error) {
	rows, err := c.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out [][]string
	raw := make([]sql.RawBytes, len(cols))
	ptrs := make([]any, len(cols))
	for i := range raw {
		ptrs[i] = &raw[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make([]string, len(raw))
		for i, b := range raw {
			if b == nil {
				row[i] = "NULL"
			} else {
				row[i] = string(b)
			}
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

// CompareSorted compares two answers as multisets of rows; when they
// differ it describes the first difference in sorted order.
func CompareSorted(shoal, direct [][]string) (bool, string) {
	s, d := SortedRows(shoal), SortedRows(direct)
	for i := range min(len(s), len(d)) {
		if s[i] != d[i] {
			return false, fmt.Sprintf("first difference: shoal %s, direct %s", ShowRow(s[i]), ShowRow(d[i]))
		}
	}
	if len(s) != len(d) {
		return false, fmt.Sprintf("%d rows through shoal, %d direct", len(s), len(d))
	}
	return true, ""
}

const rowSep = "\x1f"

// JoinRow is a row as one string (its cells joined by a separator no
// cell holds), the form SortedRows returns and ShowRow prints.
func JoinRow(r []string) string { return strings.Join(r, rowSep) }

// SortedRows returns the rows joined (JoinRow) and sorted.
func SortedRows(rows [][]string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = JoinRow(r)
	}
	slices.Sort(out)
	return out
}

// ShowRow prints a joined row (JoinRow) as "(a, b, c)".
func ShowRow(r string) string { return "(" + strings.ReplaceAll(r, rowSep, ", ") + ")" }
