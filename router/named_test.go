package router

import (
	"testing"

	"vitess.io/vitess/go/sqltypes"

	"github.com/shoaldb/shoal/sqlerr"
	"github.com/shoaldb/shoal/sqlparse"
)

func TestNamedLiteral(t *testing.T) {
	for _, c := range []struct {
		v    sqltypes.Value
		want string
	}{
		{sqltypes.NULL, "NULL"},
		{sqltypes.NewInt64(-5), "-5"},
		{sqltypes.NewUint64(18446744073709551615), "18446744073709551615"},
		{sqltypes.MakeTrusted(sqltypes.Decimal, []byte("12.50")), "12.50"},
		{sqltypes.NewFloat64(10), "1e+01"},
		{sqltypes.MakeTrusted(sqltypes.Float64, []byte("0.1")), "1e-01"},
		{sqltypes.NewVarChar("it's \\ ?"), `'it\'s \\ ?'`},
		{sqltypes.MakeTrusted(sqltypes.Text, []byte("WN")), "'WN'"},
		{sqltypes.MakeTrusted(sqltypes.VarBinary, []byte("ab")), "X'6162'"},
		{sqltypes.MakeTrusted(sqltypes.VarChar, []byte{0xff, 'a'}), "X'ff61'"},
		{sqltypes.MakeTrusted(sqltypes.VarBinary, nil), "''"},
	} {
		if got := literal(c.v); got != c.want {
			t.Errorf("literal(%v) = %s, want %s", c.v, got, c.want)
		}
	}
}

func TestNamedBind(t *testing.T) {
	for _, c := range []struct {
		text  string
		marks []int
		lits  []string
		want  string
	}{
		{"select ?", []int{7}, []string{"5"}, "select 5"},
		{"select '?', ? + ?", []int{12, 16}, []string{"'a'", "NULL"}, "select '?', 'a' + NULL"},
		{"select 1", nil, nil, "select 1"},
	} {
		if got := sqlparse.Bind(c.text, c.marks, c.lits).Text; got != c.want {
			t.Errorf("bind(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestNamedColumnNames(t *testing.T) {
	b := sqlparse.Bind("select ?, ? + 1, concat(?, 'x'), ? from t", []int{7, 10, 24, 33}, []string{"5", "12.5", "'WN'", "NULL"})
	if b.Text != "select 5, 12.5 + 1, concat('WN', 'x'), NULL from t" {
		t.Fatalf("bound %q", b.Text)
	}
	at := 0
	for _, c := range [][2]string{{"WN", "?"}, {"12.5 + 1", "? + 1"}, {"concat('WN', 'x')", "concat(?, 'x')"}} {
		if got, ok := sqlparse.Bind("select ?, ? + 1, concat(?, 'x')", []int{7, 10, 24}, []string{"'WN'", "12.5", "'WN'"}).OriginalName(c[0], &at); !ok || got != c[1] {
			t.Errorf("OriginalName(%q) = %q %v, want %q", c[0], got, ok, c[1])
		}
	}
	at = 0
	for _, c := range [][2]string{{"5", "?"}, {"12.5 + 1", "? + 1"}, {"concat('WN', 'x')", "concat(?, 'x')"}, {"NULL", "?"}} {
		if got, ok := b.OriginalName(c[0], &at); !ok || got != c[1] {
			t.Errorf("OriginalName(%q) = %q %v, want %q", c[0], got, ok, c[1])
		}
	}
}

func TestCheckNamed(t *testing.T) {
	for q, want := range map[string]int{
		"select Carrier, count(*) from ontime where DayOfWeek = ? group by Carrier": 0,
		"show tables":                     0,
		"SELECT 1 FROM DUAL WHERE ? = 1":  0,
		"delete from ontime where id = ?": sqlerr.ErrReadOnly,
		"prepare x from 'select 1'":       sqlerr.ErrUnsupportedPS,
		"execute x":                       sqlerr.ErrUnsupportedPS,
		"select 1; select 2":              sqlerr.ErrParse,
		"selec 1":                         sqlerr.ErrParse,
	} {
		err := checkNamed(q)
		got := 0
		if err != nil {
			se, ok := sqlerr.As(err)
			if !ok {
				t.Errorf("checkNamed(%q): %v, not a MySQL error", q, err)
				continue
			}
			got = int(se.Num)
		}
		if got != want {
			t.Errorf("checkNamed(%q) = %v, want %d", q, err, want)
		}
	}
}

func TestIsNamed(t *testing.T) {
	for q, want := range map[string]bool{
		"EXECUTE s USING 5": true, "execute immediate 'select 1'": true, " /* c */ PREPARE s FROM concat('a')": true,
		"deallocate s": true, "select 1": false, "EXECUTED": false,
	} {
		if isNamed(q) != want {
			t.Errorf("isNamed(%q) != %v", q, want)
		}
	}
}
