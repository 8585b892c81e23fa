// Package schema embeds the DDL of the ontime sample data.
//
// The SQL lives in a plain file, ontime-schema.sql, rather than in Go
// strings so that every consumer (the gen loader, the local cluster, a
// container's init scripts) runs the very same statements and cannot drift.
package schema

import (
	_ "embed"
	"strings"
)

// SQL is the content of ontime-schema.sql.
//
//go:embed ontime-schema.sql
var SQL string

// Tables are the table names the schema creates, in creation order.
var Tables = []string{"carriers", "airports", "ontime"}

// Statements returns the statements of SQL without comments, in file
// order. The file keeps one statement per ";" at the end of a line.
func Statements() []string {
	var out []string
	var cur strings.Builder
	for _, line := range strings.Split(SQL, "\n") {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "--") {
			continue
		}
		cur.WriteString(line)
		cur.WriteByte('\n')
		if strings.HasSuffix(t, ";") {
			s := strings.TrimSuffix(strings.TrimSpace(cur.String()), ";")
			out = append(out, s)
			cur.Reset()
		}
	}
	if s := strings.TrimSpace(cur.String()); s != "" {
		out = append(out, s)
	}
	return out
}
