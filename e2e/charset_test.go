package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	vtmysql "vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/collations"
)

// TestClientCharsets: a client whose connection character set is not
// utf8mb4 — chosen at the handshake (the mariadb CLI on Debian asks for
// utf8mb3) or with SET NAMES — gets what MariaDB sends it: values in its
// charset ('?' for what it cannot hold), column definitions with its
// charset number and lengths in its bytes per character. Shoal sent
// utf8mb4 bytes and definitions whatever the client asked for. utf8mb3
// statements still distribute; other charsets run on the replica.
func TestClientCharsets(t *testing.T) {
	queries := []string{
		"SELECT Carrier, COUNT(*), MIN(Origin) FROM ontime GROUP BY Carrier ORDER BY 1",
		"SELECT u8, LOWER(u8), COUNT(*) FROM " + mixedTable + " GROUP BY u8 ORDER BY 1",
		"SELECT u8, MAX(l1), SUM(n) FROM " + mixedTable + " GROUP BY u8 ORDER BY 1",
		"SELECT c.name, COUNT(*) FROM ontime o JOIN carriers c ON c.code = o.Carrier GROUP BY c.name ORDER BY 1",
		"SELECT @@character_set_client, @@character_set_results, @@collation_connection",
	}
	for _, tc := range []struct {
		name        string
		handshake   collations.ID // the client's charset at the handshake
		setNames    string        // or SET NAMES on a utf8mb4 connection
		distributed bool
	}{
		{"utf8mb3 handshake", 33, "", true},
		{"latin1 handshake", 8, "", false},
		{"SET NAMES utf8mb3", 45, "SET NAMES utf8mb3", true},
		{"SET NAMES latin1", 45, "SET NAMES latin1", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			shoal, direct := charsetConn(t, rawShoal, tc.handshake), charsetConn(t, rawDirect, tc.handshake)
			if tc.setNames != "" {
				for _, c := range []*vtmysql.Conn{shoal, direct} {
					if _, err := c.ExecuteFetch(tc.setNames, 1, false); err != nil {
						t.Fatalf("%s: %v", tc.setNames, err)
					}
				}
			}
			for _, q := range queries {
				want, got := fetchText(t, direct, q), fetchText(t, shoal, q)
				if got != want {
					t.Errorf("%s\nShoal:\n%s\nMariaDB:\n%s", q, got, want)
				}
				if strings.HasPrefix(q, "SELECT @@") {
					continue
				}
				r, err := shoal.ExecuteFetch("EXPLAIN "+q, 100, false)
				if err != nil {
					t.Fatalf("EXPLAIN %s: %v", q, err)
				}
				plan := r.Rows[0][0].ToString()
				if dist := strings.HasPrefix(plan, "split "); dist != tc.distributed {
					t.Errorf("%s: distributed %v, want %v:\n%s", q, dist, tc.distributed, plan)
				}
			}
		})
	}
}

// charsetConn connects to side with the handshake charset cs.
func charsetConn(t *testing.T, side *rawSide, cs collations.ID) *vtmysql.Conn {
	t.Helper()
	p := side.params
	p.Charset = cs
	c, err := vtmysql.Connect(context.Background(), &p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// fetchText renders q's answer on c as a client receives it: column
// definitions and the bytes of each value.
func fetchText(t *testing.T, c *vtmysql.Conn, q string) string {
	t.Helper()
	r, err := c.ExecuteFetch(q, 10000, true)
	if err != nil {
		return "error: " + err.Error()
	}
	var b strings.Builder
	for _, f := range r.Fields {
		fmt.Fprintf(&b, "%s: %s\n", f.Name, fieldDef(f))
	}
	for _, row := range r.Rows {
		for i, v := range row {
			if i > 0 {
				b.WriteByte('\t')
			}
			if v.IsNull() {
				b.WriteString("NULL")
			} else {
				fmt.Fprintf(&b, "%q", v.Raw())
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}
