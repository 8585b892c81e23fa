package replica

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"vitess.io/vitess/go/mysql/sqlerror"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/deploy/localcluster"
)

var testAddr string

func TestMain(m *testing.M) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	addr, stop, err := localcluster.TestMySQL(ctx)
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "replica tests need a MariaDB server:", err)
		os.Exit(1)
	}
	testAddr = addr
	code := m.Run()
	if err := stop(); err != nil {
		fmt.Fprintln(os.Stderr, "stopping the test server:", err)
	}
	os.Exit(code)
}

func dialTest(t *testing.T) *Conn {
	t.Helper()
	b, err := Dial(context.Background(), testAddr, "root", "", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}

// streamAll reads a whole streamed result.
func streamAll(b *Conn, q string) (*sqltypes.Result, error) {
	s, err := b.StartStream(q)
	if err != nil {
		return nil, err
	}
	r := &sqltypes.Result{Fields: s.Fields(), RowsAffected: s.RowsAffected()}
	for {
		row, err := s.Next()
		if err != nil {
			return nil, err
		}
		if row == nil {
			return r, nil
		}
		r.Rows = append(r.Rows, row)
	}
}

// TestStreamMatchesVitess: a streamed result — column definitions (every
// attribute vitess' client decodes), values, NULLs, types — is what
// vitess' own client reads for the same statement on the same server,
// including the second time a shape is sent, when the definitions are
// reused instead of decoded.
func TestStreamMatchesVitess(t *testing.T) {
	b := dialTest(t)
	ref := dialTest(t)
	for _, q := range []string{
		"CREATE DATABASE IF NOT EXISTS streamtest",
		"CREATE TABLE IF NOT EXISTS streamtest.t (id INT PRIMARY KEY, s VARCHAR(20) CHARACTER SET latin1, d DECIMAL(10,3), f DOUBLE, dt DATETIME(6), b BLOB, e ENUM('x','y'), j JSON, u BIGINT UNSIGNED)",
		"REPLACE INTO streamtest.t VALUES (1, 'a', 1.5, 2.25, '2024-01-02 03:04:05.123456', x'00ff', 'y', '{\"k\": 1}', 18446744073709551615), (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), (3, '', 0, -0.5, '1999-12-31 00:00:00', '', 'x', '[]', 0)",
	} {
		if _, err := ref.Fetch(q, 0); err != nil {
			t.Fatal(err)
		}
	}
	queries := []string{
		"select * from streamtest.t order by id",
		"select * from streamtest.t order by id", // the same definitions: reused
		"select id, s as renamed, d + 1, concat(s, 'x'), null, 1.5e0 from streamtest.t order by id",
		"select * from streamtest.t where id = 99", // no rows
		"select * from streamtest.t order by id",
		"select repeat('é', 300) as long_text, 18446744073709551615 as big",
		"select 1",
		// Many rows: the row storage grows block by block; every row read
		// earlier must still hold its values at the end.
		"select seq, concat('v', repeat('x', seq % 50), seq), if(seq % 7 = 0, null, seq * 1.5) from mysql.seq_1_to_3000",
	}
	for _, q := range queries {
		got, err := streamAll(b, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		want, err := ref.Fetch(q, 10000)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Fields) != len(want.Fields) {
			t.Fatalf("%s: %d fields, want %d", q, len(got.Fields), len(want.Fields))
		}
		for i := range want.Fields {
			// vitess' client adds NUM_FLAG to numeric columns; the
			// stream keeps the flags as the server sent them.
			w := want.Fields[i].CloneVT()
			w.Flags &^= uint32(querypb.MySqlFlag_NUM_FLAG)
			if !proto.Equal(got.Fields[i], w) {
				t.Errorf("%s: field %d\n got %v\nwant %v", q, i, got.Fields[i], w)
			}
		}
		if fmt.Sprint(got.Rows) != fmt.Sprint(want.Rows) {
			t.Errorf("%s: rows\n got %v\nwant %v", q, got.Rows, want.Rows)
		}
	}
	// Statements without a result set, and the connection after them.
	got, err := streamAll(b, "SET @x = 1")
	if err != nil || got.Fields != nil {
		t.Fatalf("SET: fields %v, err %v", got, err)
	}
	got, err = streamAll(b, "select @x")
	if err != nil || len(got.Rows) != 1 || got.Rows[0][0].ToString() != "1" {
		t.Fatalf("after SET: %v %v", got, err)
	}
}

// TestStreamErrors: the replica's errors come back as its SQLErrors with
// their codes, before the result (a syntax error) and within it (a row
// error after rows were sent), and the connection takes the next
// statement; Close drains a result read part way.
func TestStreamErrors(t *testing.T) {
	b := dialTest(t)
	_, err := b.StartStream("selec 1")
	var se *sqlerror.SQLError
	if !errors.As(err, &se) || se.Num != 1064 || Broken(err) {
		t.Fatalf("syntax error: %v", err)
	}
	// A row error part way: MariaDB sends two rows, then error 1242.
	s, err := b.StartStream("select if(seq < 3, seq, (select 1 union select 2)) from mysql.seq_1_to_5")
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for {
		row, nerr := s.Next()
		if nerr != nil || row == nil {
			err = nerr
			break
		}
		rows++
	}
	if !errors.As(err, &se) || se.Num != 1242 || Broken(err) || rows != 2 {
		t.Fatalf("row error: %d rows, then %v", rows, err)
	}
	// A result closed part way.
	s, err = b.StartStream("select seq from mysql.seq_1_to_1000")
	if err != nil {
		t.Fatal(err)
	}
	if row, err := s.Next(); err != nil || row[0].ToString() != "1" {
		t.Fatalf("first row: %v %v", row, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := streamAll(b, "select 'next'")
	if err != nil || got.Rows[0][0].ToString() != "next" {
		t.Fatalf("statement after a drained result: %v %v", got, err)
	}
}

// TestStreamLargeRow: a row longer than one 16 MiB packet (continued in
// the next) reads whole.
func TestStreamLargeRow(t *testing.T) {
	ref := dialTest(t)
	if _, err := ref.Fetch("SET GLOBAL max_allowed_packet = 64*1024*1024", 0); err != nil {
		t.Fatal(err)
	}
	b := dialTest(t) // a session started after the change
	got, err := streamAll(b, "select repeat('ab', 9000000) as big, 7 as after")
	if err != nil {
		t.Fatal(err)
	}
	if v := got.Rows[0][0].ToString(); len(v) != 18000000 || !strings.HasPrefix(v, "abab") {
		t.Fatalf("big value: %d bytes", len(v))
	}
	if got.Rows[0][1].ToString() != "7" {
		t.Fatalf("value after the big one: %v", got.Rows[0][1])
	}
}

// BenchmarkStreamPoint measures a 20-column one-row result read through
// Stream (definitions reused) against vitess' ExecuteStreamFetch, on the
// same server: allocations per statement are the point.
func BenchmarkStreamPoint(b *testing.B) {
	cols := make([]string, 20)
	for i := range cols {
		cols[i] = fmt.Sprintf("%d as column_number_%d", i, i)
	}
	benchStream(b, "select "+strings.Join(cols, ", "))
}

// BenchmarkStreamRange: 200 rows of three columns (the mix's short
// range), Stream against vitess' ExecuteStreamFetch.
func BenchmarkStreamRange(b *testing.B) {
	benchStream(b, "select seq as id, concat('C', seq % 20) as Carrier, seq * 3 as ArrDelayMinutes from mysql.seq_1_to_200")
}

// benchStream reads q's whole result per iteration through Stream and
// through vitess' client on one connection.
func benchStream(b *testing.B, q string) {
	c, err := Dial(context.Background(), testAddr, "root", "", "")
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	b.Run("stream", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			s, err := c.StartStream(q)
			if err != nil {
				b.Fatal(err)
			}
			for {
				row, err := s.Next()
				if err != nil {
					b.Fatal(err)
				}
				if row == nil {
					break
				}
			}
		}
	})
	b.Run("vitess", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if err := c.MySQL.ExecuteStreamFetch(q); err != nil {
				b.Fatal(err)
			}
			if _, err := c.MySQL.Fields(); err != nil {
				b.Fatal(err)
			}
			for {
				row, err := c.MySQL.FetchNext(nil)
				if err != nil {
					b.Fatal(err)
				}
				if row == nil {
					break
				}
			}
		}
	})
}
