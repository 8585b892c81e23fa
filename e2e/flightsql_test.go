package e2e

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/shoaldb/shoal/sqlerr"
)

// The Arrow Flight SQL endpoint, with arrow-go's Flight SQL client: the
// same statements through Flight SQL and on the primary (MySQL protocol)
// must give the same columns and values; accounts are the coordinator's.

// flightSQL starts the coordinator's Flight SQL endpoint for one test and
// returns a client of it. Server and client allocate from one checked
// allocator, which must be empty once both are closed.
func flightSQL(t *testing.T) *flightsql.Client {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	fs, err := env.coord.StartFlightSQL("127.0.0.1:0", mem)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		fs.Close() // waits for every statement
		mem.AssertSize(t, 0)
	})
	cl, err := flightsql.NewClient(fs.Addr().String(), nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	cl.Alloc = mem
	t.Cleanup(func() { cl.Close() })
	return cl
}

// flightLogin authenticates as user and selects database db (the
// "database" header).
func flightLogin(t *testing.T, cl *flightsql.Client, user, password, db string) context.Context {
	t.Helper()
	ctx, err := cl.Client.AuthenticateBasicToken(context.Background(), user, password)
	if err != nil {
		t.Fatalf("login as %s: %v", user, err)
	}
	if db != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, "database", db)
	}
	return ctx
}

// flightResult is a statement's answer through Flight SQL: the schema of
// the FlightInfo (nil when it announced none) and of the stream, and the
// rows as MySQL text.
type flightResult struct {
	infoSchema, schema *arrow.Schema
	cols               []string
	rows               [][]string
}

func flightRun(ctx context.Context, cl *flightsql.Client, q string) (*flightResult, error) {
	info, err := cl.Execute(ctx, q)
	if err != nil {
		return nil, err
	}
	r := &flightResult{}
	if len(info.Schema) > 0 {
		if r.infoSchema, err = flight.DeserializeSchema(info.Schema, cl.Alloc); err != nil {
			return nil, err
		}
	}
	if len(info.Endpoint) != 1 {
		return nil, fmt.Errorf("%d endpoints", len(info.Endpoint))
	}
	rdr, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
	if err != nil {
		return nil, err
	}
	defer rdr.Release()
	r.schema = rdr.Schema()
	for _, f := range r.schema.Fields() {
		r.cols = append(r.cols, f.Name)
	}
	for rdr.Next() {
		rec := rdr.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			row := make([]string, rec.NumCols())
			for j, col := range rec.Columns() {
				row[j] = mysqlText(col, i)
			}
			r.rows = append(r.rows, row)
		}
	}
	return r, rdr.Err()
}

// mysqlText renders an Arrow value as the MySQL text protocol would.
func mysqlText(col arrow.Array, i int) string {
	if col.IsNull(i) {
		return "NULL"
	}
	switch a := col.(type) {
	case *array.Int64:
		return strconv.FormatInt(a.Value(i), 10)
	case *array.Uint64:
		return strconv.FormatUint(a.Value(i), 10)
	case *array.Decimal128:
		return a.Value(i).ToString(a.DataType().(*arrow.Decimal128Type).Scale)
	case *array.Float64:
		return strconv.FormatFloat(a.Value(i), 'g', -1, 64)
	case *array.Date32:
		return a.Value(i).ToTime().Format(time.DateOnly)
	case *array.Timestamp:
		return a.Value(i).ToTime(arrow.Microsecond).Format(time.DateTime)
	case *array.String:
		return a.Value(i)
	case *array.Binary:
		return string(a.Value(i))
	}
	return col.ValueStr(i)
}

// compareFlight compares a Flight SQL answer with the primary's.
func compareFlight(t *testing.T, q string, got *flightResult, ordered bool) {
	t.Helper()
	want, err := queryArgs(env.direct, q)
	if err != nil || want.err != nil {
		t.Fatalf("direct: %s: %v %v", q, err, want.err)
	}
	if !slices.Equal(got.cols, want.cols) {
		t.Errorf("%s: columns\nflight %q\ndirect %q", q, got.cols, want.cols)
	}
	g, w := got.rows, want.rows
	if !ordered {
		g, w = sorted(g), sorted(w)
	}
	if len(g) != len(w) {
		t.Errorf("%s: %d rows through Flight SQL, %d direct", q, len(g), len(w))
	}
	for i := 0; i < len(g) && i < len(w); i++ {
		if !slices.Equal(g[i], w[i]) {
			t.Errorf("%s: row %d\nflight %q\ndirect %q", q, i, g[i], w[i])
			break
		}
	}
}

// flightErrno is the MySQL error number a status carries in its details.
func flightErrno(err error) int {
	if se, ok := sqlerr.As(err); ok {
		return int(se.Num)
	}
	return 0
}

func TestFlightSQL(t *testing.T) {
	cl := flightSQL(t)
	ctx := flightLogin(t, cl, "alice", "s3cret", env.cluster.Database)

	t.Run("statements", func(t *testing.T) {
		before := scrape(t)
		for _, c := range []struct {
			name, q    string
			ordered    bool
			infoSchema bool // the FlightInfo announces the schema
			minRows    int
		}{
			{"distributed aggregate", "select Carrier, count(*), sum(Distance), avg(ArrDelayMinutes), min(FlightDate), max(FlightDate), count(TailNum) from ontime group by Carrier order by Carrier", true, true, 0},
			{"distributed rows over several batches", "select id, Carrier, FlightDate, TailNum, ArrDelayMinutes from ontime where YearD >= 2010", false, true, 8193},
			{"distributed top rows", "select id, Origin, ArrDelayMinutes from ontime where Origin = 'SFO' order by ArrDelayMinutes desc, id limit 10", true, false, 0},
			{"passthrough", "select code, name, country from carriers where rand() < 2 order by code", true, true, 0}, // volatile: passes through
			{"passthrough join", "select c.name, count(*) from ontime o join carriers c on c.code = o.Carrier where o.YearD = 2002 group by c.name", false, true, 0},
			{"passthrough show", "SHOW COLUMNS FROM carriers", true, false, 0},
			{"nulls", "select id, TailNum, ArrDelayMinutes from ontime where TailNum is null or ArrDelayMinutes is null order by id limit 20", true, false, 0},
			{"non-ascii", "select code, name from carriers where name <> convert(name using ascii) order by code", true, true, 0},
		} {
			t.Run(c.name, func(t *testing.T) {
				got, err := flightRun(ctx, cl, c.q)
				if err != nil {
					t.Fatal(err)
				}
				compareFlight(t, c.q, got, c.ordered)
				if len(got.rows) < c.minRows {
					t.Errorf("%d rows, want at least %d (more than a batch)", len(got.rows), c.minRows)
				}
				if c.infoSchema {
					if got.infoSchema == nil {
						t.Error("the FlightInfo has no schema")
					} else if !got.infoSchema.Equal(got.schema) {
						t.Errorf("FlightInfo schema\n%s\nstream schema\n%s", got.infoSchema, got.schema)
					}
				}
			})
		}
		after := scrape(t)
		if d := after.get(`shoal_queries_total{kind="distributed",outcome="ok"}`) - before.get(`shoal_queries_total{kind="distributed",outcome="ok"}`); d < 3 {
			t.Errorf("distributed queries went up by %v, want at least 3: Flight SQL statements did not take the distributed path", d)
		}
		// carriers (CHAR primary key) is distributed since split keys of any
		// type: the volatile query and SHOW pass through.
		if d := after.get(`shoal_queries_total{kind="passthrough",outcome="ok"}`) - before.get(`shoal_queries_total{kind="passthrough",outcome="ok"}`); d < 2 {
			t.Errorf("passthrough queries went up by %v, want at least 2", d)
		}
	})

	t.Run("cancelled mid-stream", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		info, err := cl.Execute(cctx, "select id, Carrier, FlightDate, TailNum from ontime")
		if err != nil {
			t.Fatal(err)
		}
		rdr, err := cl.DoGet(cctx, info.Endpoint[0].Ticket)
		if err != nil {
			t.Fatal(err)
		}
		if !rdr.Next() {
			t.Fatalf("no first batch: %v", rdr.Err())
		}
		cancel()
		for rdr.Next() {
		}
		rdr.Release()
		// The endpoint still serves.
		if _, err := flightRun(ctx, cl, "select count(*) from carriers"); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("column metadata", func(t *testing.T) {
		got, err := flightRun(ctx, cl, "select id, Distance, FlightDate from ontime where id < 100")
		if err != nil {
			t.Fatal(err)
		}
		md := got.schema.Field(0).Metadata
		cm := flightsql.ColumnMetadata{Data: &md}
		if n, _ := cm.TableName(); n != "ontime" {
			t.Errorf("TABLE_NAME %q", n)
		}
		if n, _ := cm.TypeName(); n == "" {
			t.Error("no TYPE_NAME")
		}
		if got.schema.Field(2).Type.ID() != arrow.DATE32 {
			t.Errorf("FlightDate is %s", got.schema.Field(2).Type)
		}
	})

	t.Run("errors", func(t *testing.T) {
		for _, c := range []struct {
			q     string
			code  codes.Code
			errno int
		}{
			{"selec broken from ontime", codes.InvalidArgument, 1064},
			{"select nosuchcolumn from ontime", codes.InvalidArgument, 1054},
			{"delete from carriers", codes.PermissionDenied, 1290},
			{"select 1; select 2", codes.InvalidArgument, 1064}, // as the server answers it
		} {
			_, err := flightRun(ctx, cl, c.q)
			if status.Code(err) != c.code || flightErrno(err) != c.errno {
				t.Errorf("%s: %v (code %v, errno %d), want %v %d", c.q, err, status.Code(err), flightErrno(err), c.code, c.errno)
			}
		}
		// The session is not broken by an error: the next statement works.
		if _, err := flightRun(ctx, cl, "select count(*) from ontime"); err != nil {
			t.Error(err)
		}
		// Without the database header no database is selected.
		noDB := flightLogin(t, cl, "alice", "s3cret", "")
		if _, err := flightRun(noDB, cl, "select count(*) from ontime"); flightErrno(err) != 1046 {
			t.Errorf("without a database: %v, want 1046", err)
		}
		got, err := flightRun(noDB, cl, "select count(*) from ontime.ontime")
		if err != nil || len(got.rows) != 1 || got.rows[0][0] != strconv.FormatInt(env.rows, 10) {
			t.Errorf("qualified name without a database: %v %v", got, err)
		}
	})

	t.Run("authentication", func(t *testing.T) {
		if _, err := cl.Client.AuthenticateBasicToken(context.Background(), "alice", "wrong"); status.Code(err) != codes.Unauthenticated || flightErrno(err) != 1045 {
			t.Errorf("wrong password: %v", err)
		}
		if _, err := cl.Client.AuthenticateBasicToken(context.Background(), "mallory", "s3cret"); status.Code(err) != codes.Unauthenticated {
			t.Errorf("unknown account: %v", err)
		}
		if _, err := cl.Execute(context.Background(), "select 1"); status.Code(err) != codes.Unauthenticated {
			t.Errorf("no credentials: %v", err)
		}
		forged := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer bm90IGEgdG9rZW4")
		if _, err := cl.Execute(forged, "select 1"); status.Code(err) != codes.Unauthenticated {
			t.Errorf("forged token: %v", err)
		}
		// Basic credentials on a call, without a handshake.
		basic := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Basic YWxpY2U6czNjcmV0") // alice:s3cret
		if got, err := flightRun(basic, cl, "select 1 as one"); err != nil || len(got.rows) != 1 || got.rows[0][0] != "1" {
			t.Errorf("basic on a call: %v %v", got, err)
		}
		badBasic := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Basic YWxpY2U6d3Jvbmc") // alice:wrong
		if _, err := cl.Execute(badBasic, "select 1"); status.Code(err) != codes.Unauthenticated {
			t.Errorf("wrong basic on a call: %v", err)
		}
		// root, with its empty password, works too.
		root := flightLogin(t, cl, "root", "", env.cluster.Database)
		if _, err := flightRun(root, cl, "select count(*) from carriers"); err != nil {
			t.Errorf("root: %v", err)
		}
	})

	t.Run("tickets", func(t *testing.T) {
		root := flightLogin(t, cl, "root", "", env.cluster.Database)
		info, err := cl.Execute(root, "select count(*) from carriers")
		if err != nil {
			t.Fatal(err)
		}
		// Another account cannot redeem root's ticket.
		rdr, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
		if err == nil {
			rdr.Release()
		}
		if status.Code(err) != codes.PermissionDenied {
			t.Errorf("alice with root's ticket: %v", err)
		}
		tkt, err := flightsql.CreateStatementQueryTicket([]byte(`{"user":"alice","query":"select 1"}`))
		if err != nil {
			t.Fatal(err)
		}
		rdr, err = cl.DoGet(ctx, &flight.Ticket{Ticket: tkt})
		if err == nil {
			rdr.Release()
		}
		if status.Code(err) != codes.InvalidArgument {
			t.Errorf("forged ticket: %v", err)
		}
	})

	t.Run("catalog", func(t *testing.T) {
		pattern := "onti%"
		info, err := cl.GetDBSchemas(ctx, &flightsql.GetDBSchemasOpts{DbSchemaFilterPattern: &pattern})
		if err != nil {
			t.Fatal(err)
		}
		names := readStrings(t, ctx, cl, info, 1)
		if !slices.Equal(names, []string{env.cluster.Database}) {
			t.Errorf("GetDBSchemas %s: %q", pattern, names)
		}
		db := env.cluster.Database
		info, err = cl.GetTables(ctx, &flightsql.GetTablesOpts{DbSchemaFilterPattern: &db, TableTypes: []string{"TABLE"}, IncludeSchema: true})
		if err != nil {
			t.Fatal(err)
		}
		rdr, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
		if err != nil {
			t.Fatal(err)
		}
		defer rdr.Release()
		var tables []string
		for rdr.Next() {
			rec := rdr.RecordBatch()
			for i := 0; i < int(rec.NumRows()); i++ {
				name := rec.Column(2).(*array.String).Value(i)
				tables = append(tables, name)
				if name != "ontime" {
					continue
				}
				s, err := flight.DeserializeSchema(rec.Column(4).(*array.Binary).Value(i), cl.Alloc)
				if err != nil {
					t.Fatal(err)
				}
				var n int
				if err := env.direct.QueryRow("select count(*) from information_schema.columns where table_schema = ? and table_name = 'ontime'", db).Scan(&n); err != nil {
					t.Fatal(err)
				}
				if s.NumFields() != n || s.Field(0).Name != "id" {
					t.Errorf("ontime's schema has %d fields (want %d): %s", s.NumFields(), n, s)
				}
			}
		}
		if err := rdr.Err(); err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(tables, "ontime") || !slices.Contains(tables, "carriers") {
			t.Errorf("GetTables: %q", tables)
		}
	})
}

// readStrings reads column col of every row of a FlightInfo's one endpoint.
func readStrings(t *testing.T, ctx context.Context, cl *flightsql.Client, info *flight.FlightInfo, col int) []string {
	t.Helper()
	rdr, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Release()
	var out []string
	for rdr.Next() {
		rec := rdr.RecordBatch()
		c := rec.Column(col).(*array.String)
		for i := 0; i < c.Len(); i++ {
			out = append(out, c.Value(i))
		}
	}
	if err := rdr.Err(); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	return out
}
