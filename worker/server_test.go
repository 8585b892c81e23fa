package worker

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/sqlerr"
	"github.com/shoaldb/shoal/ticket"
)

func tk(sql string) ticket.Ticket {
	return ticket.Ticket{QueryID: "test", SQL: sql}
}

// fetch runs a fragment and returns its schema and batches (retained; the
// caller releases them with releaseAll).
func fetch(ctx context.Context, ts *testServer, t ticket.Ticket) (*arrow.Schema, []arrow.RecordBatch, error) {
	s, err := ts.client.Fragment(ctx, t, ts.mem)
	if err != nil {
		return nil, nil, err
	}
	defer s.Release()
	var recs []arrow.RecordBatch
	for s.Next() {
		rec := s.RecordBatch()
		rec.Retain()
		recs = append(recs, rec)
	}
	return s.Schema(), recs, s.Err()
}

func releaseAll(recs []arrow.RecordBatch) {
	for _, r := range recs {
		r.Release()
	}
}

// format renders value i of a as MySQL text, as database/sql returns it, using
// the field's mysql.* metadata.
func format(f arrow.Field, a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "NULL"
	}
	typ, _ := f.Metadata.GetValue(MetaType)
	scale := 0
	if s, ok := f.Metadata.GetValue(MetaScale); ok {
		scale, _ = strconv.Atoi(s)
	}
	switch a := a.(type) {
	case *array.Int64:
		return strconv.FormatInt(a.Value(i), 10)
	case *array.Uint64:
		return strconv.FormatUint(a.Value(i), 10)
	case *array.Float64:
		if typ == "FLOAT" {
			return strconv.FormatFloat(a.Value(i), 'g', -1, 32)
		}
		return strconv.FormatFloat(a.Value(i), 'g', -1, 64)
	case *array.Decimal128:
		return a.Value(i).ToString(int32(scale))
	case *array.Decimal256:
		return a.Value(i).ToString(int32(scale))
	case *array.Date32:
		return a.Value(i).FormattedString()
	case *array.Timestamp:
		tm := a.Value(i).ToTime(arrow.Microsecond).UTC()
		s := tm.Format("2006-01-02 15:04:05")
		if scale > 0 {
			s += "." + fmt.Sprintf("%06d", tm.Nanosecond()/1000)[:scale]
		}
		return s
	case *array.String:
		return a.Value(i)
	case *array.Binary:
		return string(a.Value(i))
	}
	return fmt.Sprintf("unhandled %T", a)
}

// direct runs query on the replica with database/sql, values as text.
func direct(t *testing.T, query string) [][]string {
	t.Helper()
	rows, err := admin.Query(query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	raw := make([]sql.RawBytes, len(cols))
	dest := make([]any, len(cols))
	for i := range raw {
		dest[i] = &raw[i]
	}
	var out [][]string
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			t.Fatal(err)
		}
		row := make([]string, len(cols))
		for i, b := range raw {
			if b == nil {
				row[i] = "NULL"
			} else {
				row[i] = string(b)
			}
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestTypesRoundTrip(t *testing.T) {
	ts := startServer(t, nil)
	const query = "SELECT * FROM " + testDB + ".types ORDER BY id"
	schema, recs, err := fetch(context.Background(), ts, tk(query))
	if err != nil {
		t.Fatal(err)
	}
	defer releaseAll(recs)

	wantTypes := []struct {
		col, arrow, mysql string
	}{
		{"id", "int64", "INT"},
		{"ti", "int64", "TINYINT"},
		{"si", "int64", "SMALLINT"},
		{"mi", "int64", "MEDIUMINT"},
		{"i", "int64", "INT"},
		{"bi", "int64", "BIGINT"},
		{"tu", "uint64", "UNSIGNED TINYINT"},
		{"iu", "uint64", "UNSIGNED INT"},
		{"bu", "uint64", "UNSIGNED BIGINT"},
		{"d1", "decimal(10, 2)", "DECIMAL"},
		{"d2", "decimal256(65, 30)", "DECIMAL"},
		{"d3", "decimal(38, 0)", "DECIMAL"},
		{"f", "float64", "FLOAT"},
		{"dbl", "float64", "DOUBLE"},
		{"dt", "date32", "DATE"},
		{"dtm", "timestamp[us]", "DATETIME"},
		{"dt0", "timestamp[us]", "DATETIME"},
		{"ts", "timestamp[us]", "TIMESTAMP"},
		{"yr", "int64", "YEAR"},
		{"tm", "utf8", "TIME"},
		{"c", "utf8", "CHAR"},
		{"vc", "utf8", "VARCHAR"},
		{"tx", "utf8", "TEXT"},
		{"en", "utf8", "ENUM"},
		{"st", "utf8", "SET"},
		{"js", "utf8", "TEXT"}, // MariaDB's JSON is LONGTEXT with a check
		{"bn", "binary", "BINARY"},
		{"vb", "binary", "VARBINARY"},
		{"bl", "binary", "BLOB"},
		{"bt", "binary", "BIT"},
	}
	if len(schema.Fields()) != len(wantTypes) {
		t.Fatalf("schema has %d fields, want %d: %v", len(schema.Fields()), len(wantTypes), schema)
	}
	for i, w := range wantTypes {
		f := schema.Field(i)
		mt, _ := f.Metadata.GetValue(MetaType)
		if f.Name != w.col || f.Type.String() != w.arrow || !f.Nullable {
			t.Errorf("field %d = %s %s nullable=%v, want %s %s", i, f.Name, f.Type, f.Nullable, w.col, w.arrow)
		}
		if mt != w.mysql {
			t.Errorf("field %s: mysql.type %q, want %q", f.Name, mt, w.mysql)
		}
	}
	if p, _ := schema.Field(10).Metadata.GetValue(MetaPrecision); p != "65" {
		t.Errorf("d2 mysql.precision = %q, want 65", p)
	}
	if s, _ := schema.Field(15).Metadata.GetValue(MetaScale); s != "6" {
		t.Errorf("dtm mysql.scale = %q, want 6", s)
	}

	compareDirect(t, query, schema, recs)

	// A few exact checks that do not go through text.
	rec := recs[0]
	col := func(name string) arrow.Array { return rec.Column(schema.FieldIndices(name)[0]) }
	if v := col("bu").(*array.Uint64).Value(0); v != math.MaxUint64 {
		t.Errorf("bu = %d, want max uint64", v)
	}
	if v := col("f").(*array.Float64).Value(0); v != 3.14159 {
		t.Errorf("FLOAT 3.14159 arrived as %v", v)
	}
	if v := col("vb").(*array.Binary).Value(0); string(v) != "\x00\xff\x00A" {
		t.Errorf("vb = %x", v)
	}
	if v := col("vc").(*array.String).Value(0); v != "héllo wörld ✓ 日本" {
		t.Errorf("vc = %q", v)
	}
	if v := col("d1").(*array.Decimal128).Value(0).ToString(2); v != "-12345678.90" {
		t.Errorf("d1 = %s", v)
	}
	if v := col("dt").(*array.Date32).Value(2); v != -1 {
		t.Errorf("1969-12-31 = day %d, want -1", v)
	}
	for c := 1; c < int(rec.NumCols()); c++ {
		if !rec.Column(c).IsNull(1) {
			t.Errorf("row 2 column %s is not NULL", schema.Field(c).Name)
		}
	}
}

// compareDirect checks that every value, formatted back, equals what
// database/sql reads directly from the replica.
func compareDirect(t *testing.T, query string, schema *arrow.Schema, recs []arrow.RecordBatch) {
	t.Helper()
	want := direct(t, query)
	var got [][]string
	for _, rec := range recs {
		for r := 0; r < int(rec.NumRows()); r++ {
			row := make([]string, rec.NumCols())
			for c := range row {
				row[c] = format(schema.Field(c), rec.Column(c), r)
			}
			got = append(got, row)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("got %d rows, want %d", len(got), len(want))
	}
	for r := range want {
		for c := range want[r] {
			if got[r][c] != want[r][c] {
				t.Errorf("row %d column %s: got %q, want %q", r, schema.Field(c).Name, got[r][c], want[r][c])
			}
		}
	}
}

// Expressions carry types the driver reports differently from columns.
func TestExpressionsRoundTrip(t *testing.T) {
	ts := startServer(t, nil)
	for _, q := range []string{
		"SELECT NULL AS n, 1.5 AS d, -0.001 AS d3, CAST(18446744073709551615 AS UNSIGNED) AS u, 2 * 3 AS i, 1e3 AS e",
		"SELECT SUM(d1) AS s, AVG(d1) AS a, COUNT(*) AS c, MIN(dt) AS mn, MAX(dtm) AS mx, SUM(d2) AS s2, AVG(i) AS ai FROM " + testDB + ".types",
		"SELECT CONCAT(vc, '!') AS c, HEX(vb) AS h, DATE(dtm) AS d, CAST(dtm AS DATETIME(3)) AS t3, TIME(dtm) AS t, CAST(d1 AS DECIMAL(40,5)) AS big FROM " + testDB + ".types ORDER BY id",
		"SELECT id, v FROM " + testDB + ".victim UNION ALL SELECT id, v * 2 FROM " + testDB + ".victim ORDER BY 1, 2",
		"WITH c AS (SELECT id FROM " + testDB + ".victim) SELECT COUNT(*) AS n FROM c",
	} {
		t.Run(q, func(t *testing.T) {
			schema, recs, err := fetch(context.Background(), ts, ticket.Ticket{SQL: q})
			if err != nil {
				t.Fatal(err)
			}
			defer releaseAll(recs)
			compareDirect(t, q, schema, recs)
		})
	}
}

func TestEmptyResultHasSchema(t *testing.T) {
	ts := startServer(t, nil)
	schema, recs, err := fetch(context.Background(), ts, tk("SELECT id, d1, vc FROM "+testDB+".types WHERE 1 = 0"))
	if err != nil {
		t.Fatal(err)
	}
	defer releaseAll(recs)
	if len(recs) != 0 {
		t.Errorf("got %d batches, want 0", len(recs))
	}
	if got := schema.String(); !strings.Contains(got, "d1: type=decimal(10, 2)") || schema.NumFields() != 3 {
		t.Errorf("schema = %s", got)
	}
}

// TestZeroDatesFail: a zero date ('0000-00-00', '2024-00-10') has no
// Arrow value; the fragment fails with ErrZeroDate naming the column
// (the coordinator then runs the statement on a replica) rather than
// sending NULL, a wrong answer. Valid dates still convert.
func TestZeroDatesFail(t *testing.T) {
	ts := startServer(t, nil)
	for _, q := range []string{"SELECT d FROM " + testDB + ".zd ORDER BY id", "SELECT t FROM " + testDB + ".zd WHERE id = 2"} {
		_, recs, err := fetch(context.Background(), ts, tk(q))
		releaseAll(recs)
		if !sqlerr.IsZeroDate(err) {
			t.Errorf("%s: %v, want the zero-date error", q, err)
		}
	}
	_, recs, err := fetch(context.Background(), ts, tk("SELECT d, t FROM "+testDB+".zd WHERE id = 3"))
	if err != nil {
		t.Fatal(err)
	}
	defer releaseAll(recs)
	if rec := recs[0]; rec.Column(0).IsNull(0) || rec.Column(1).IsNull(0) {
		t.Errorf("a valid date became NULL")
	}
}

func TestRefusesWrites(t *testing.T) {
	ts := startServer(t, nil)
	v := testDB + ".victim"
	for _, q := range []string{
		"INSERT INTO " + v + " VALUES (3, 30)",
		"REPLACE INTO " + v + " VALUES (1, 0)",
		"UPDATE " + v + " SET v = 0",
		"DELETE FROM " + v,
		"DROP TABLE " + v,
		"TRUNCATE TABLE " + v,
		"CREATE TABLE " + testDB + ".x (a INT)",
		"SET @@global.read_only = 1",
		"SELECT * FROM " + v + " INTO OUTFILE '/tmp/shoal_worker_test_out'",
		"SELECT v FROM " + v + " WHERE id = 1 INTO @x",
		"SELECT * FROM " + v + " FOR UPDATE",
		"SELECT * FROM " + v + " LOCK IN SHARE MODE",
		"SELECT * FROM " + v + " WHERE id IN (SELECT id FROM " + v + " FOR UPDATE)",
		"(SELECT 1) UNION (SELECT id FROM " + v + " FOR UPDATE)",
		"SELECT 1; DROP TABLE " + v,
		"SELECT @a := v FROM " + v,
		"SELECT GET_LOCK('shoal', 1)",
		"SELECT NEXT VALUE FOR " + testDB + ".s",
		"this is not sql",
	} {
		t.Run(q, func(t *testing.T) {
			_, recs, err := fetch(context.Background(), ts, ticket.Ticket{SQL: q})
			releaseAll(recs)
			se, ok := sqlerr.As(err)
			if !ok || se.Num != sqlerr.ErrReadOnly {
				t.Fatalf("err = %v, want errno 1290", err)
			}
			if c := status.Code(err); c != codes.PermissionDenied {
				t.Errorf("code = %v, want PermissionDenied", c)
			}
		})
	}
	got := direct(t, "SELECT id, v FROM "+v+" ORDER BY id")
	if fmt.Sprint(got) != "[[1 10] [2 20]]" {
		t.Errorf("victim changed: %v", got)
	}
}

// MariaDB runs the body of /*M! ... */ comments that the TiDB parser skips;
// the worker runs the re-rendered SQL, so such a comment cannot smuggle in
// INTO OUTFILE.
func TestExecutableCommentIsDropped(t *testing.T) {
	ts := startServer(t, nil)
	_, recs, err := fetch(context.Background(), ts, ticket.Ticket{SQL: "SELECT 1 AS one /*M! INTO OUTFILE '/tmp/shoal_worker_test_m' */"})
	if err != nil {
		t.Fatal(err)
	}
	defer releaseAll(recs)
	if len(recs) != 1 || recs[0].NumRows() != 1 {
		t.Fatalf("got %d batches, want one row", len(recs))
	}
}

func TestBadTicket(t *testing.T) {
	ts := startServer(t, nil)
	good, _ := ticket.Encode(ticket.Ticket{SQL: "SELECT 1"})
	for name, b := range map[string][]byte{
		"garbage":     []byte("\x00not json"),
		"empty":       nil,
		"old version": []byte(`{"v":99,"sql":"SELECT 1"}`),
		"no sql":      []byte(`{"v":1}`),
		"truncated":   good[:len(good)-3],
	} {
		t.Run(name, func(t *testing.T) {
			st, err := ts.client.fc.DoGet(context.Background(), &flight.Ticket{Ticket: b})
			if err == nil {
				_, err = st.Recv()
			}
			if c := status.Code(err); c != codes.InvalidArgument {
				t.Fatalf("err = %v, want InvalidArgument", err)
			}
		})
	}
}

func TestReplicaErrors(t *testing.T) {
	ts := startServer(t, nil)
	for _, c := range []struct {
		sql   string
		errno uint16
		state string
	}{
		{"SELECT * FROM " + testDB + ".no_such_table", 1146, "42S02"},
		{"SELECT no_such_column FROM " + testDB + ".victim", 1054, "42S22"},
		{"SELECT * FROM victim", 1046, "3D000"}, // no default database
	} {
		t.Run(c.sql, func(t *testing.T) {
			_, recs, err := fetch(context.Background(), ts, ticket.Ticket{SQL: c.sql})
			releaseAll(recs)
			se, ok := sqlerr.As(err)
			if !ok || uint16(se.Num) != c.errno || se.State != c.state {
				t.Fatalf("err = %v (%+v), want errno %d SQLSTATE %s", err, se, c.errno, c.state)
			}
		})
	}
}

func TestLargeFragmentBatches(t *testing.T) {
	ts := startServer(t, nil)
	for _, batch := range []int{0, 1000} {
		t.Run(fmt.Sprint("batch=", batch), func(t *testing.T) {
			tkt := ticket.Ticket{SQL: "SELECT id, v FROM " + testDB + ".big", BatchRows: batch}
			_, recs, err := fetch(context.Background(), ts, tkt)
			if err != nil {
				t.Fatal(err)
			}
			defer releaseAll(recs)
			var rows, sum int64
			for _, rec := range recs {
				rows += rec.NumRows()
				for _, v := range rec.Column(1).(*array.Int64).Int64Values() {
					sum += v
				}
			}
			wantBatches := 4 // 25000 rows / 8192
			if batch > 0 {
				wantBatches = 25
			}
			if rows != 25000 || sum != 25000*25001 || len(recs) != wantBatches {
				t.Errorf("rows=%d sum=%d batches=%d; want 25000, %d, %d", rows, sum, len(recs), 25000*25001, wantBatches)
			}
		})
	}
}

func TestStatus(t *testing.T) {
	ts := startServer(t, func(c *config.Worker) { c.Slots = 3 })
	_, recs, err := fetch(context.Background(), ts, ticket.Ticket{SQL: "SELECT 1"})
	releaseAll(recs)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st, err := ts.client.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("status: %+v", st)
	if st.CPUs <= 0 || st.Slots != 3 || st.Running != 0 || st.Served != 1 || !st.Healthy || st.Error != "" {
		t.Errorf("status = %+v", st)
	}
	if !strings.Contains(st.Version, "MariaDB") || st.ReplicaLagSeconds != nil || st.IORunning || st.SQLRunning {
		t.Errorf("status of a non-replica MariaDB = %+v", st)
	}

	// An unknown action is refused; ListActions lists status.
	as, err := ts.client.fc.DoAction(ctx, &flight.Action{Type: "nope"})
	if err == nil {
		_, err = as.Recv()
	}
	if status.Code(err) != codes.Unimplemented {
		t.Errorf("unknown action: %v", err)
	}
	la, err := ts.client.fc.ListActions(ctx, &flight.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := la.Recv()
	if err != nil || a.Type != ActionStatus {
		t.Errorf("ListActions = %v, %v", a, err)
	}
}

func TestUnreachableReplica(t *testing.T) {
	ts := startServer(t, func(c *config.Worker) { c.MySQL = "127.0.0.1:1" })
	_, _, err := fetch(context.Background(), ts, ticket.Ticket{SQL: "SELECT 1"})
	se, ok := sqlerr.As(err)
	if status.Code(err) != codes.Unavailable || !ok || se.Num != 2013 {
		t.Errorf("fragment on a dead replica: %v, want Unavailable with errno 2013", err)
	}
	st, err := ts.client.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Healthy || st.Error == "" || st.CPUs <= 0 {
		t.Errorf("status = %+v; want unhealthy with an error", st)
	}
}

// Fragments run in db.BeginTx(ReadOnly: true) on the worker's pool: check
// that this issues START TRANSACTION READ ONLY on the replica, which then
// refuses writes with ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION.
func TestReadOnlyTransaction(t *testing.T) {
	ts := startServer(t, nil)
	ctx := context.Background()
	conn, err := ts.srv.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	_, err = tx.ExecContext(ctx, "INSERT INTO "+testDB+".victim VALUES (99, 99)")
	se, ok := sqlerr.As(err)
	if !ok || se.Num != 1792 {
		t.Fatalf("write in the fragment transaction: %v, want errno 1792", err)
	}
}

// TestFragmentWarnings: a fragment's stream says how many warnings its
// statement raised on the replica (the coordinator then lets a replica
// answer the statement, with MariaDB's warnings), and none when it raised
// none — also on a connection whose previous fragment warned.
func TestFragmentWarnings(t *testing.T) {
	ts := startServer(t, nil)
	for _, c := range []struct {
		q    string
		want uint64
	}{
		{"SELECT COUNT(*) FROM " + testDB + ".types WHERE vc = 5", 0}, // set below from the replica
		{"SELECT id FROM " + testDB + ".types WHERE 1 = 0", 0},
		{"SELECT CAST('12abc' AS SIGNED), CAST('x' AS DOUBLE)", 2},
		{"SELECT 1", 0},
	} {
		s, err := ts.client.Fragment(context.Background(), tk(c.q), ts.mem)
		if err != nil {
			t.Fatal(err)
		}
		for s.Next() {
		}
		if err := s.Err(); err != nil {
			s.Release()
			t.Fatal(err)
		}
		want := c.want
		if strings.Contains(c.q, "vc = 5") {
			var n uint64
			conn, err := admin.Conn(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := conn.ExecContext(context.Background(), c.q); err != nil {
				t.Fatal(err)
			}
			if err := conn.QueryRowContext(context.Background(), "SELECT @@warning_count").Scan(&n); err != nil {
				t.Fatal(err)
			}
			conn.Close()
			if n == 0 {
				t.Fatalf("%s raises no warnings on the replica: the case checks nothing", c.q)
			}
			want = n
		}
		if got := s.Warnings(); got != want {
			t.Errorf("%s: Warnings() = %d, want %d", c.q, got, want)
		}
		s.Release()
	}
}
