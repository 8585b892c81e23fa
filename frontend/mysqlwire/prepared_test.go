package mysqlwire

import (
	"testing"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
	"vitess.io/vitess/go/vt/vtenv"
)

func testHandler(t *testing.T) *handler {
	t.Helper()
	return &handler{vt: vtenv.NewTestEnv()}
}

func TestParamMarkers(t *testing.T) {
	h := testHandler(t)
	cases := []struct {
		q    string
		want int
	}{
		{"select ?", 1},
		{"select * from t where a = ? and b = '?' and c = \"?\" and `?` = ?", 2},
		{"select 'it''s ?', 'a\\'?' , ? /* ? */ -- ?\n, ? # ?\n", 2},
		{"select /*!50000 ? */ 1", 1},
		{"select x'3f', _utf8mb4'?', ?", 1},
	}
	for _, c := range cases {
		marks, err := h.paramMarkers(c.q)
		if err != nil || len(marks) != c.want {
			t.Errorf("%q: %v markers (%v), want %d", c.q, marks, err, c.want)
		}
		for _, p := range marks {
			if c.q[p] != '?' {
				t.Errorf("%q: marker at %d is %q", c.q, p, c.q[p])
			}
		}
	}
	if _, err := h.paramMarkers("select 'unterminated ?"); err == nil {
		t.Error("unterminated string: want a syntax error")
	}
}

func TestBindAndNames(t *testing.T) {
	h := testHandler(t)
	p := &mysql.PrepareData{
		PrepareStmt: "select ? + 1, concat('?', ?), a from t where b = ? and c <=> ?",
		ParamsCount: 4,
		BindVars: map[string]*querypb.BindVariable{
			"v1": sqltypes.Int64BindVariable(41),
			"v2": sqltypes.StringBindVariable("it's \\ é"),
			"v3": sqltypes.Float64BindVariable(1.5),
			"v4": sqltypes.NullBindVariable,
		},
	}
	b, err := h.bind(p)
	if err != nil {
		t.Fatal(err)
	}
	want := `select 41 + 1, concat('?', 'it\'s \\ é'), a from t where b = 1.5e+00 and c <=> NULL`
	if b.Text != want {
		t.Fatalf("bound:\n got %s\nwant %s", b.Text, want)
	}
	at := 0
	for _, c := range []struct{ name, orig string }{
		{"41 + 1", "? + 1"},
		{`concat('?', 'it\'s \\ é')`, "concat('?', ?)"},
		{"a", ""},
	} {
		got, ok := b.OriginalName(c.name, &at)
		if ok != (c.orig != "") || got != c.orig {
			t.Errorf("OriginalName(%q) = %q %v, want %q", c.name, got, ok, c.orig)
		}
	}
	delete(p.BindVars, "v4")
	if _, err := h.bind(p); err == nil {
		t.Error("missing value: want an error")
	}
}

func TestLiteral(t *testing.T) {
	cases := []struct {
		bv   *querypb.BindVariable
		want string
	}{
		{sqltypes.Int64BindVariable(-7), "-7"},
		{sqltypes.Uint64BindVariable(18446744073709551615), "18446744073709551615"},
		{sqltypes.Float64BindVariable(0.1), "1e-01"},
		{sqltypes.ValueBindVariable(sqltypes.MakeTrusted(sqltypes.Decimal, []byte("-12.50"))), "-12.50"},
		{sqltypes.ValueBindVariable(sqltypes.MakeTrusted(sqltypes.Decimal, []byte("1; drop"))), "'1; drop'"},
		{sqltypes.StringBindVariable("a'b\\c\x00\n\x1a"), `'a\'b\\c\0\n\Z'`},
		{sqltypes.BytesBindVariable([]byte{0xff, 0x00}), "X'ff00'"},
		{sqltypes.BytesBindVariable([]byte("plain")), "'plain'"},
		// Temporal parameters as vitess decodes them: literals of their
		// type, zero-padded (a quoted '2020-1-5' was a string).
		{sqltypes.ValueBindVariable(sqltypes.MakeTrusted(sqltypes.Date, []byte("2020-1-5"))), "DATE'2020-01-05'"},
		{sqltypes.ValueBindVariable(sqltypes.MakeTrusted(sqltypes.Date, []byte("0000-00-00"))), "DATE'0000-00-00'"},
		{sqltypes.ValueBindVariable(sqltypes.MakeTrusted(sqltypes.Datetime, []byte("2020-1-5 1:2:3.000100"))), "TIMESTAMP'2020-01-05 01:02:03.000100'"},
		{sqltypes.ValueBindVariable(sqltypes.MakeTrusted(sqltypes.Datetime, []byte("2020-1-5 0:0:0.000000"))), "TIMESTAMP'2020-01-05 00:00:00'"},
		{sqltypes.ValueBindVariable(sqltypes.MakeTrusted(sqltypes.Timestamp, []byte("2020-12-31 23:59:59"))), "TIMESTAMP'2020-12-31 23:59:59'"},
		{sqltypes.ValueBindVariable(sqltypes.MakeTrusted(sqltypes.Time, []byte("-26:0:5.000000"))), "TIME'-26:00:05'"},
		{sqltypes.ValueBindVariable(sqltypes.MakeTrusted(sqltypes.Time, []byte("838:59:59.500000"))), "TIME'838:59:59.500000'"},
		{sqltypes.ValueBindVariable(sqltypes.MakeTrusted(sqltypes.Date, []byte("2020-01"))), "'2020-01'"},
		// What a temporal literal refuses (1525) and MariaDB's parameter
		// takes: the quoted padded text, as the text literal would be.
		{sqltypes.ValueBindVariable(sqltypes.MakeTrusted(sqltypes.Date, []byte("1987-4-31"))), "'1987-04-31'"},
		{sqltypes.ValueBindVariable(sqltypes.MakeTrusted(sqltypes.Date, []byte("2000-2-29"))), "DATE'2000-02-29'"},
		{sqltypes.ValueBindVariable(sqltypes.MakeTrusted(sqltypes.Date, []byte("1900-2-29"))), "'1900-02-29'"},
		{sqltypes.ValueBindVariable(sqltypes.MakeTrusted(sqltypes.Date, []byte("2004-0-0"))), "DATE'2004-00-00'"},
		{sqltypes.ValueBindVariable(sqltypes.MakeTrusted(sqltypes.Datetime, []byte("2004-1-5 24:0:0"))), "'2004-01-05 24:00:00'"},
		{sqltypes.ValueBindVariable(sqltypes.MakeTrusted(sqltypes.Time, []byte("839:0:0.000000"))), "'839:00:00'"},
		{sqltypes.NullBindVariable, "NULL"},
	}
	for _, c := range cases {
		got, err := literal(c.bv)
		if err != nil || got != c.want {
			t.Errorf("%v: got %s (%v), want %s", c.bv, got, err, c.want)
		}
	}
}
