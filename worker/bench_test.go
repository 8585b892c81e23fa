package worker

import (
	"context"
	"database/sql"
	"sync"
	"testing"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/internal/certs"
	"github.com/shoaldb/shoal/ticket"
)

const benchRows = 200_000

var benchOnce sync.Once

func benchTable(b *testing.B) {
	benchOnce.Do(func() {
		for _, s := range []string{
			"CREATE TABLE bench (id BIGINT PRIMARY KEY, a INT NOT NULL, d DECIMAL(12,2), s VARCHAR(20), dt DATETIME)",
			"INSERT INTO bench SELECT seq, seq % 1000, seq / 7, CONCAT('row-', seq), '2024-01-01' + INTERVAL seq SECOND FROM seq_1_to_200000",
		} {
			if _, err := admin.Exec(s); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkFragment scans a 200k-row table through the whole Flight path
// (validate, read-only transaction, convert to Arrow, IPC over loopback
// gRPC, decode in the client) and, for reference, with a bare database/sql
// scan into RawBytes on the same machine.
func BenchmarkFragment(b *testing.B) {
	benchTable(b)
	const query = "SELECT id, a, d, s, dt FROM " + testDB + ".bench"
	for _, codec := range []string{"none", "lz4", "zstd"} {
		b.Run("flight-"+codec, func(b *testing.B) { benchFlight(b, query, codec, false) })
	}
	b.Run("flight-none-tls", func(b *testing.B) { benchFlight(b, query, "none", true) })
	b.Run("database-sql", func(b *testing.B) {
		for b.Loop() {
			rows, err := admin.Query(query)
			if err != nil {
				b.Fatal(err)
			}
			raw := make([]sql.RawBytes, 5)
			dest := []any{&raw[0], &raw[1], &raw[2], &raw[3], &raw[4]}
			n := 0
			for rows.Next() {
				if err := rows.Scan(dest...); err != nil {
					b.Fatal(err)
				}
				n++
			}
			if err := rows.Err(); err != nil || n != benchRows {
				b.Fatalf("rows=%d err=%v", n, err)
			}
			rows.Close()
		}
		b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
}

// benchFlight reads query through a worker whose ipc_compression is codec,
// over TLS (a certificate from a CA made for the run) when tlsOn.
func benchFlight(b *testing.B, query, codec string, tlsOn bool) {
	var cert, key, caFile string
	if tlsOn {
		dir := b.TempDir()
		ca, err := certs.NewCA(dir, "bench CA")
		if err != nil {
			b.Fatal(err)
		}
		if cert, key, err = ca.Issue(dir, "worker", []string{"127.0.0.1"}); err != nil {
			b.Fatal(err)
		}
		caFile = ca.CertFile
	}
	ts := startServer(b, func(c *config.Worker) { c.IPCCompression, c.TLSCert, c.TLSKey = codec, cert, key })
	client := ts.client
	if tlsOn {
		tc, err := config.Coordinator{WorkerTLSCA: caFile}.WorkerTLS(ts.client.Addr())
		if err != nil {
			b.Fatal(err)
		}
		if client, err = Dial(context.Background(), ts.client.Addr(), WithTLS(tc)); err != nil {
			b.Fatal(err)
		}
		defer client.Close()
	}
	for b.Loop() {
		s, err := client.Fragment(context.Background(), ticket.Ticket{SQL: query}, ts.mem)
		if err != nil {
			b.Fatal(err)
		}
		var n int64
		for s.Next() {
			n += s.RecordBatch().NumRows()
		}
		err = s.Err()
		s.Release()
		if err != nil || n != benchRows {
			b.Fatalf("rows=%d err=%v", n, err)
		}
	}
	b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkSmallFragment runs a 100-row aggregate fragment through the
// whole Flight path: the fixed cost of a fragment (connection, read-only
// transaction, the statement, its warning count, the stream), which a
// selective statement's few fragments pay.
func BenchmarkSmallFragment(b *testing.B) {
	benchTable(b)
	ts := startServer(b, nil)
	q := ticket.Ticket{SQL: "SELECT COUNT(*), SUM(a) FROM " + testDB + ".bench WHERE id >= 1000 AND id < 1100"}
	for b.Loop() {
		s, err := ts.client.Fragment(context.Background(), q, ts.mem)
		if err != nil {
			b.Fatal(err)
		}
		for s.Next() {
		}
		if err := s.Err(); err != nil {
			b.Fatal(err)
		}
		s.Release()
	}
}
