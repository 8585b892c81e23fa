package e2e

import (
	"reflect"
	"strings"
	"testing"

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
			// Each side one connection (rawSide keeps its idle one), so
			// SET NAMES holds for the queries after it.
			shoal, direct := charsetSide(t, rawShoal, tc.handshake), charsetSide(t, rawDirect, tc.handshake)
			if tc.setNames != "" {
				for _, side := range []*rawSide{shoal, direct} {
					if r, err := side.query(tc.setNames); err != nil || r.err != nil {
						t.Fatalf("%s: %v %v", tc.setNames, err, r)
					}
				}
			}
			for _, q := range queries {
				got, err := shoal.query(q)
				if err != nil {
					t.Fatalf("%s through Shoal: %v", q, err)
				}
				want, err := direct.query(q)
				if err != nil {
					t.Fatalf("%s directly: %v", q, err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s\nShoal:   %+v\nMariaDB: %+v", q, *got, *want)
				}
				if strings.HasPrefix(q, "SELECT @@") {
					continue
				}
				r, err := shoal.query("EXPLAIN " + q)
				if err != nil || r.err != nil || len(r.rows) == 0 {
					t.Fatalf("EXPLAIN %s: %v %v", q, err, r)
				}
				if dist := strings.HasPrefix(r.rows[0][0], "split "); dist != tc.distributed {
					t.Errorf("%s: distributed %v, want %v:\n%s", q, dist, tc.distributed, r.rows[0][0])
				}
			}
		})
	}
}

// charsetSide is side with the handshake charset cs, on connections of
// its own.
func charsetSide(t *testing.T, side *rawSide, cs collations.ID) *rawSide {
	t.Helper()
	s := &rawSide{params: side.params}
	s.params.Charset = cs
	t.Cleanup(s.close)
	return s
}
