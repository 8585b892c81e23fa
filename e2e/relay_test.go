package e2e

import (
	"strings"
	"testing"
)

// TestPassthroughRelay: a statement passed through unchanged relays the
// replica's text-protocol row packets to the client as they are
// (engine/passthrough.go relayRows, rowformat.RawRows) rather than
// decoding each row and writing it again, which made a 3M-row export
// 1.9x slower than asking the replica. What the client reads must be the
// replica's answer byte for byte: NULLs, empty strings, bytes 0x00, 0xFB
// (the NULL marker) and 0xFF, multibyte text, a 17 MiB value (a row
// split over two protocol packets), an empty result; the binary protocol
// (prepared statements) still decodes and converts. The coordinator's
// counter of relayed rows proves the path was taken.
func TestPassthroughRelay(t *testing.T) {
	directExec(t, "DROP TABLE IF EXISTS relay_t",
		// No primary key: every statement over it passes through (the e2e
		// coordinator routes none by cost).
		"CREATE TABLE relay_t (id INT NOT NULL, t VARCHAR(100), b VARBINARY(40), n INT NULL, lb LONGBLOB, KEY (id)) CHARSET utf8mb4",
		"INSERT INTO relay_t SELECT id, CONCAT('ünï', Carrier, REPEAT('€', id % 7)), UNHEX(CONCAT('00FBFF', HEX(id))), IF(id % 5 = 0, NULL, id), NULL FROM ontime WHERE id < 3000",
		"INSERT INTO relay_t SELECT 10000 + seq, CONCAT('s', seq), UNHEX(HEX(seq)), IF(seq % 3 = 0, NULL, seq), NULL FROM seq_1_to_3000",
		"INSERT INTO relay_t VALUES (-1, 'big', NULL, NULL, REPEAT('z', 17 << 20)), (-2, '', '', 0, ''), (-3, NULL, UNHEX('FB'), NULL, UNHEX('00FF'))")
	t.Cleanup(func() { env.direct.Exec("DROP TABLE IF EXISTS relay_t") })
	replicasAndCatalog(t)

	const relayed = "shoal_passthrough_rows_relayed_total"
	before := scrape(t).get(relayed)
	want := 0
	for _, c := range []struct {
		q    string
		rows int
	}{
		{"SELECT * FROM relay_t WHERE id < 0 ORDER BY id", 3},
		{"SELECT id, t, b, n FROM relay_t WHERE id BETWEEN -3 AND 40 ORDER BY id", -1},
		{"SELECT t, b FROM relay_t WHERE id = -3", 1},
		{"SELECT * FROM relay_t WHERE id = 1000000000", 0},
		{"SELECT LENGTH(lb), MD5(lb) FROM relay_t WHERE id = -1", 1},
		// The front end writes row packets 256 at a time, numbered past
		// vitess' count (frontend/mysqlwire/relay.go): results around
		// that size, a large one, and the 17 MiB row between gathered
		// rows.
		{"SELECT id, n FROM relay_t WHERE id BETWEEN 10001 AND 10255 ORDER BY id", 255},
		{"SELECT id, n FROM relay_t WHERE id BETWEEN 10001 AND 10256 ORDER BY id", 256},
		{"SELECT id, n FROM relay_t WHERE id BETWEEN 10001 AND 10257 ORDER BY id", 257},
		{"SELECT id, n FROM relay_t WHERE id BETWEEN 10001 AND 10512 ORDER BY id", 512},
		{"SELECT id, t, b, n FROM relay_t WHERE id > 10000 ORDER BY id", 3000},
		{"SELECT id, LENGTH(lb), IF(id = -1, lb, t) FROM relay_t WHERE id < 0 OR id > 10000 ORDER BY id DESC", 3003},
	} {
		if plan := explain(t, c.q); !strings.HasPrefix(plan, "passthrough") {
			t.Fatalf("%s is not passed through (pick another statement):\n%s", c.q, plan)
		}
		r := diff(t, c.q, true)
		if r == nil {
			t.Fatalf("%s: no answer", c.q)
		}
		if c.rows >= 0 && len(r.rows) != c.rows {
			t.Errorf("%s: %d rows, want %d", c.q, len(r.rows), c.rows)
		}
		want += len(r.rows)
	}
	if d := int(scrape(t).get(relayed) - before); d < want {
		t.Errorf("%s grew by %d over statements that sent %d rows: the rows were not relayed", relayed, d, want)
	}

	// The binary protocol decodes: the same statement prepared.
	diffArgs(t, "SELECT id, t, b, n FROM relay_t WHERE id BETWEEN ? AND ? ORDER BY id", true, -3, 40)
}
