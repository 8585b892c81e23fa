package mysqlwire

import (
	"testing"

	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// TestParamNullable: a column the prepare's answer says nullable is sent
// nullable at execution, except a bare parameter (NULL type at prepare);
// columns that do not line up are left alone.
func TestParamNullable(t *testing.T) {
	const nn = uint32(querypb.MySqlFlag_NOT_NULL_FLAG)
	exec := []*querypb.Field{
		{Name: "cast(? as signed)", Type: sqltypes.Int64, Flags: nn},
		{Name: "?", Type: sqltypes.VarChar, Flags: nn},
		{Name: "count(*)", Type: sqltypes.Int64, Flags: nn},
	}
	prep := []*querypb.Field{
		{Name: "cast(? as signed)", Type: sqltypes.Int64},
		{Name: "?", Type: sqltypes.Null},
		{Name: "count(*)", Type: sqltypes.Int64, Flags: nn},
	}
	got := paramNullable(exec, prep)
	if got[0].Flags&nn != 0 || got[1].Flags&nn == 0 || got[2].Flags&nn == 0 {
		t.Errorf("flags %#x %#x %#x", got[0].Flags, got[1].Flags, got[2].Flags)
	}
	if exec[0].Flags&nn == 0 {
		t.Error("the execution's field was changed in place")
	}
	if got := paramNullable(exec, prep[:2]); got[0].Flags&nn == 0 {
		t.Error("columns that do not line up were changed")
	}
	prep[0].Name = "other"
	if got := paramNullable(exec, prep); got[0].Flags&nn == 0 {
		t.Error("a column of another name was changed")
	}
}
