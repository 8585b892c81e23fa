package mysqlwire

import (
	"reflect"
	"testing"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// TestParamColumns: the select items that are a bare parameter, lined up
// with the parameters' indexes.
func TestParamColumns(t *testing.T) {
	for _, c := range []struct {
		q    string
		want map[int]int
	}{
		{"SELECT id, ? FROM t WHERE id < ?", map[int]int{1: 0}},
		{"SELECT ?, COUNT(*) FROM t WHERE a = ?", map[int]int{0: 0}},
		{"SELECT COUNT(IF(a = ?, 1, NULL)), (?) AS one FROM t", map[int]int{1: 1}},
		{"SELECT ? + 1 FROM t", nil},
		{"SELECT *, ? FROM t", nil},
		{"SELECT id FROM t WHERE id = ?", nil},
	} {
		var marks []int
		for i := 0; i < len(c.q); i++ {
			if c.q[i] == '?' {
				marks = append(marks, i)
			}
		}
		if got := paramColumns(c.q, marks); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, want %v", c.q, got, c.want)
		}
	}
}

// TestParamTyped: a bare LONGLONG parameter is a BIGINT of length 21
// (its values 8 bytes), a DOUBLE one has length 23, a STRING one is
// CHAR, as MariaDB 10.11 describes them; a DECIMAL one is left.
func TestParamTyped(t *testing.T) {
	fields := []*querypb.Field{
		{Name: "i", Type: sqltypes.Int32, ColumnLength: 1, Charset: 63, Flags: 0x81},
		{Name: "d", Type: sqltypes.Float64, ColumnLength: 7, Decimals: 31, Charset: 63, Flags: 0x81},
		{Name: "s", Type: sqltypes.VarChar, ColumnLength: 4, Decimals: 39, Charset: 45, Flags: 1},
		{Name: "n", Type: sqltypes.Decimal, ColumnLength: 5, Decimals: 2, Charset: 63, Flags: 0x81},
	}
	prep := &mysql.PrepareData{ParamsType: []int32{int32(sqltypes.Int64), int32(sqltypes.Float64), int32(sqltypes.Char), int32(sqltypes.Decimal)}}
	got, ints := paramTyped(fields, map[int]int{0: 0, 1: 1, 2: 2, 3: 3}, prep)
	if got[0].Type != sqltypes.Int64 || got[0].ColumnLength != 21 || got[1].ColumnLength != 23 || got[2].Type != sqltypes.Char || got[3] != fields[3] {
		t.Errorf("fields %v", got)
	}
	if fields[0].Type != sqltypes.Int32 {
		t.Error("the fields given were changed")
	}
	rows := bigintValues([][]sqltypes.Value{{sqltypes.NewInt32(7), sqltypes.NewFloat64(1.5), sqltypes.NewVarChar("x"), sqltypes.NewDecimal("1.50")}}, ints)
	if v := rows[0][0]; v.Type() != sqltypes.Int64 || v.ToString() != "7" {
		t.Errorf("value %v", v)
	}
}
