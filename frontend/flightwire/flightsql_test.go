package flightwire

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/observe"
	"github.com/shoaldb/shoal/router"
	"github.com/shoaldb/shoal/sqlerr"
)

func TestStatementTicket(t *testing.T) {
	in := statementTicket{User: "alice", DB: "ontime", Query: "select '<a>' & 1, 'ü' from t where x = \"\\n\""}
	b, err := in.encode()
	if err != nil {
		t.Fatal(err)
	}
	out, err := decodeStatementTicket(b)
	if err != nil || out != in {
		t.Fatalf("round trip: %+v %v, want %+v", out, err, in)
	}
	for _, c := range []struct {
		name   string
		ticket string
	}{
		{"empty", ""},
		{"no magic", `{"user":"a","query":"select 1"}`},
		{"other version", "shoal-flightsql-v2\n" + `{"user":"a","query":"select 1"}`},
		{"no account", flightTicketMagic + `{"query":"select 1"}`},
		{"no statement", flightTicketMagic + `{"user":"a"}`},
		{"unknown field", flightTicketMagic + `{"user":"a","query":"select 1","password":"x"}`},
		{"trailing data", flightTicketMagic + `{"user":"a","query":"select 1"} {}`},
		{"not json", flightTicketMagic + `select 1`},
		{"long database", flightTicketMagic + `{"user":"a","db":"` + strings.Repeat("d", 65) + `","query":"select 1"}`},
		{"nul in database", flightTicketMagic + `{"user":"a","db":"a\u0000b","query":"select 1"}`},
		{"huge", flightTicketMagic + `{"user":"a","query":"` + strings.Repeat("x", maxFlightStatement+1) + `"}`},
	} {
		if got, err := decodeStatementTicket([]byte(c.ticket)); err == nil {
			t.Errorf("%s: accepted as %+v", c.name, got)
		}
	}
}

func TestResultBatches(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	fields := []*querypb.Field{
		{Name: "id", Type: sqltypes.Int64, Database: "ontime", OrgTable: "ontime", Flags: uint32(querypb.MySqlFlag_AUTO_INCREMENT_FLAG)},
		{Name: "d", Type: sqltypes.Decimal, ColumnLength: 10, Decimals: 2},
		{Name: "day", Type: sqltypes.Date},
		{Name: "s", Type: sqltypes.VarChar, Charset: 45},
		{Name: "u", Type: sqltypes.Uint32},
	}
	rows := [][]sqltypes.Value{
		{sqltypes.NewInt64(1), sqltypes.MakeTrusted(sqltypes.Decimal, []byte("12.50")), sqltypes.MakeTrusted(sqltypes.Date, []byte("2001-02-03")), sqltypes.NewVarChar("héllo"), sqltypes.NewUint32(7)},
		{sqltypes.NewInt64(2), sqltypes.NULL, sqltypes.MakeTrusted(sqltypes.Date, []byte("0000-00-00")), sqltypes.NULL, sqltypes.NewUint32(0)},
		{sqltypes.NewInt64(-3), sqltypes.MakeTrusted(sqltypes.Decimal, []byte("-0.01")), sqltypes.NULL, sqltypes.NewVarChar(""), sqltypes.NULL},
	}
	var got []arrow.RecordBatch
	defer func() {
		for _, b := range got {
			b.Release()
		}
	}()
	emit := func(b arrow.RecordBatch) error { got = append(got, b); return nil }
	rb := newResultBatches(mem, 2)
	defer rb.Release()
	if err := rb.add(&sqltypes.Result{Fields: fields}, emit); err != nil {
		t.Fatal(err)
	}
	if err := rb.add(&sqltypes.Result{Rows: rows}, emit); err != nil {
		t.Fatal(err)
	}
	if err := rb.flush(emit); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].NumRows() != 2 || got[1].NumRows() != 1 {
		t.Fatalf("batches: %d", len(got))
	}
	if !bytesEqual(rows[1][2].Raw(), "0000-00-00") {
		t.Error("the caller's row was modified")
	}
	b0, b1 := got[0], got[1]
	if v := b0.Column(1).(*array.Decimal128).Value(0); v.ToString(2) != "12.50" {
		t.Errorf("decimal %s", v.ToString(2))
	}
	if !b0.Column(2).IsNull(1) {
		t.Error("zero date is not NULL")
	}
	if d := b0.Column(2).(*array.Date32).Value(0).ToTime().Format(time.DateOnly); d != "2001-02-03" {
		t.Errorf("date %s", d)
	}
	if s := b0.Column(3).(*array.String).Value(0); s != "héllo" {
		t.Errorf("string %q", s)
	}
	if v := b1.Column(0).(*array.Int64).Value(0); v != -3 {
		t.Errorf("int %d", v)
	}
	if !b1.Column(4).IsNull(0) || b1.Column(4).DataType().ID() != arrow.UINT64 {
		t.Error("unsigned NULL")
	}
	colMeta := func(i int) *flightsql.ColumnMetadata {
		md := b0.Schema().Field(i).Metadata
		return &flightsql.ColumnMetadata{Data: &md}
	}
	cm := colMeta(0)
	if n, _ := cm.TypeName(); n != "BIGINT" {
		t.Errorf("type name %q", n)
	}
	if n, _ := cm.TableName(); n != "ontime" {
		t.Errorf("table name %q", n)
	}
	if ai, _ := cm.IsAutoIncrement(); !ai {
		t.Error("auto increment lost")
	}
	dm := colMeta(1)
	if p, _ := dm.Precision(); p != 8 {
		t.Errorf("decimal precision %d", p)
	}
	if n, _ := colMeta(4).TypeName(); n != "INT UNSIGNED" {
		t.Errorf("unsigned type name %q", n)
	}
}

func bytesEqual(b []byte, s string) bool { return string(b) == s }

func TestResultBatchesNoColumns(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rb := newResultBatches(mem, 10)
	defer rb.Release()
	emit := func(b arrow.RecordBatch) error {
		b.Release()
		t.Error("a batch for a statement without rows")
		return nil
	}
	if err := rb.add(&sqltypes.Result{}, emit); err != nil {
		t.Fatal(err)
	}
	if err := rb.flush(emit); err != nil {
		t.Fatal(err)
	}
	if rb.schema.NumFields() != 0 {
		t.Errorf("schema %s", rb.schema)
	}
}

func TestFlightAuth(t *testing.T) {
	a := newFlightAuth([]config.User{{Name: "root"}, {Name: "alice", Password: "s3cret", Plugin: config.PluginCachingSHA2}})
	now := time.Unix(1000, 0)
	a.now = func() time.Time { return now }
	if err := a.password("alice", "s3cret"); err != nil {
		t.Fatal(err)
	}
	if err := a.password("root", ""); err != nil {
		t.Fatal(err)
	}
	for _, c := range [][2]string{{"alice", "wrong"}, {"alice", ""}, {"bob", "s3cret"}, {"root", "x"}} {
		err := a.password(c[0], c[1])
		if status.Code(err) != codes.Unauthenticated {
			t.Errorf("%v: %v", c, err)
		}
		if se, ok := sqlerr.As(err); !ok || se.Num != sqlerr.ErrAccessDenied {
			t.Errorf("%v: no errno 1045 in %v", c, err)
		}
	}
	tok, err := a.issue("alice")
	if err != nil {
		t.Fatal(err)
	}
	if u, err := a.bearer(tok); err != nil || u != "alice" {
		t.Fatalf("bearer: %q %v", u, err)
	}
	if _, err := a.bearer(tok + "x"); status.Code(err) != codes.Unauthenticated {
		t.Errorf("forged token: %v", err)
	}
	now = now.Add(flightTokenIdle - time.Minute)
	if _, err := a.bearer(tok); err != nil {
		t.Errorf("token used within its idle time: %v", err)
	}
	now = now.Add(flightTokenIdle + time.Minute)
	if _, err := a.bearer(tok); status.Code(err) != codes.Unauthenticated {
		t.Errorf("idle token: %v", err)
	}
	if len(a.tokens) != 0 {
		t.Errorf("%d tokens kept", len(a.tokens))
	}
	if u, err := a.basic("YWxpY2U6czNjcmV0"); err != nil || u != "alice" { // alice:s3cret
		t.Errorf("basic: %q %v", u, err)
	}
	if _, err := a.basic("!!"); status.Code(err) != codes.Unauthenticated {
		t.Errorf("bad base64: %v", err)
	}
}

func TestFlightError(t *testing.T) {
	for _, c := range []struct {
		err  error
		code codes.Code
		num  int
	}{
		{sqlerr.ReadOnly("DELETE"), codes.PermissionDenied, sqlerr.ErrReadOnly},
		{sqlerr.Parse("bad"), codes.InvalidArgument, sqlerr.ErrParse},
		{sqlerr.New(1146, "42S02", "Table 'x.y' doesn't exist"), codes.InvalidArgument, 1146},
		{sqlerr.Interrupted(), codes.Canceled, sqlerr.ErrQueryInterrupted},
		{sqlerr.New(2013, "HY000", "Lost connection"), codes.Unavailable, 2013},
		{sqlerr.New(sqlerr.ErrQueryTimeout, "HY000", "timeout"), codes.DeadlineExceeded, sqlerr.ErrQueryTimeout},
	} {
		err := flightError(c.err)
		if status.Code(err) != c.code {
			t.Errorf("%v: code %v, want %v", c.err, status.Code(err), c.code)
		}
		if se, ok := sqlerr.As(err); !ok || int(se.Num) != c.num {
			t.Errorf("%v: errno lost: %v", c.err, err)
		}
	}
}

// failingDoGetStream is a DoGet stream whose Sends fail after ok of them
// succeeded, as gRPC's do once the client has gone away.
type failingDoGetStream struct {
	grpc.ServerStream // nil: flightsql's DoGet uses Context and Send only
	ctx               context.Context
	ok, sent          int
}

func (s *failingDoGetStream) Context() context.Context { return s.ctx }

func (s *failingDoGetStream) Send(*flight.FlightData) error {
	if s.sent >= s.ok {
		return status.Error(codes.Canceled, "context canceled")
	}
	s.sent++
	return nil
}

// flightsql's DoGet does not Release a batch it fails to write: the
// Flight service must, so that a client going away mid-stream (a
// cancelled context, a LIMIT reached client-side) leaks nothing.
func TestFlightDoGetFailedWrite(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	log := slog.New(slog.DiscardHandler)
	r := router.New(t.Context(), config.Coordinator{QueryTimeout: config.Duration(time.Minute)}, log, nil, observe.NewMetrics(nil), nil, &observe.QueryIDs{})
	srv := &flightSQLServer{r: r, log: log, mem: mem}
	srv.Alloc = mem
	svc := newFlightService(srv, mem)
	handle, err := statementTicket{User: "alice", Query: "select connection_id()"}.encode()
	if err != nil {
		t.Fatal(err)
	}
	stmt, err := flightsql.CreateStatementQueryTicket(handle)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.registerSQLInfo(""); err != nil {
		t.Fatal(err)
	}
	// A protobuf Any of an empty command: field 1, its type URL.
	command := func(name string) []byte {
		url := "type.googleapis.com/arrow.flight.protocol.sql." + name
		return append([]byte{0x0a, byte(len(url))}, url...)
	}
	for _, c := range []struct {
		name   string
		ticket []byte
	}{{"statement", stmt}, {"table types", command("CommandGetTableTypes")}, {"sql info", command("CommandGetSqlInfo")}} {
		// 0: the schema's Send fails; 1: the batch's; 3: none (the schema,
		// the batch, end of stream).
		for _, ok := range []int{0, 1, 3} {
			for _, cancelled := range []bool{false, true} {
				ctx, cancel := context.WithCancel(context.WithValue(context.Background(), flightUserKey{}, "alice"))
				if cancelled {
					cancel() // flightsql's DoGet then picks the chunk or ctx.Done at random
				}
				st := &failingDoGetStream{ctx: ctx, ok: ok}
				err := svc.DoGet(&flight.Ticket{Ticket: c.ticket}, st)
				cancel()
				srv.wg.Wait()
				if !cancelled && (err == nil) != (ok == 3) {
					t.Errorf("%s, %d Sends succeed: %v", c.name, ok, err)
				}
				if n := mem.CurrentAlloc(); n != 0 {
					t.Fatalf("%s, %d Sends succeed, cancelled %v: %d bytes not released", c.name, ok, cancelled, n)
				}
			}
		}
	}
}
