package engine

import (
	"testing"

	"github.com/shoaldb/shoal/engine/rowformat"
	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// TestRealCharsets: a fragment's character columns take the collation the
// replica reports unconverted; numbers, binary strings and utf8mb4
// columns stay as described, and only non-utf8mb4 text is recoded.
func TestRealCharsets(t *testing.T) {
	conv := []*querypb.Field{
		{Name: "l1", Type: sqltypes.VarChar, Charset: 45, ColumnLength: 80},
		{Name: "u8", Type: sqltypes.VarChar, Charset: 45, ColumnLength: 80},
		{Name: "c", Type: sqltypes.Int64, Charset: 63},
		{Name: "b", Type: sqltypes.VarBinary, Charset: 63},
		{Name: "m3", Type: sqltypes.VarChar, Charset: 45, ColumnLength: 40},
	}
	raw := []*querypb.Field{
		{Name: "l1", Type: sqltypes.VarChar, Charset: 8, ColumnLength: 20},
		{Name: "u8", Type: sqltypes.VarChar, Charset: 46, ColumnLength: 80}, // utf8mb4_bin
		{Name: "c", Type: sqltypes.Int64, Charset: 63},
		{Name: "b", Type: sqltypes.VarBinary, Charset: 63},
		{Name: "m3", Type: sqltypes.VarChar, Charset: 33, ColumnLength: 30},
	}
	got, err := rowformat.RealCharsets(conv, raw)
	if err != nil {
		t.Fatal(err)
	}
	wantColl := []uint32{8, 46, 63, 63, 33}
	wantRecode := []string{"latin1", "", "", "", "utf8mb3"}
	for i, f := range got {
		if f.Charset != wantColl[i] {
			t.Errorf("%s: collation %d, want %d", f.Name, f.Charset, wantColl[i])
		}
		name := ""
		if cs := rowformat.RecodedCharset(f); cs != nil {
			name = cs.Name()
		}
		if name != wantRecode[i] {
			t.Errorf("%s: recoded to %q, want %q", f.Name, name, wantRecode[i])
		}
	}
	if conv[0].Charset != 45 {
		t.Error("rowformat.RealCharsets changed its input")
	}
	if _, err := rowformat.RealCharsets(conv, raw[:2]); err == nil {
		t.Error("column counts that differ were accepted")
	}
	// A latin1 output sent in a utf8mb4 result column is converted from
	// latin1; a utf8mb4 one, a number or a binary column is not.
	res := &querypb.Field{Type: sqltypes.VarChar, Charset: 45}
	if cs := rowformat.OutputCharset(collations.ID(8), res); cs == nil || cs.Name() != "latin1" {
		t.Errorf("latin1 output: %v", cs)
	}
	for _, c := range []collations.ID{45, 46, collations.Unknown} {
		if cs := rowformat.OutputCharset(c, res); cs != nil {
			t.Errorf("output in collation %d converted from %s", c, cs.Name())
		}
	}
	if cs := rowformat.OutputCharset(8, &querypb.Field{Type: sqltypes.VarBinary, Charset: 63}); cs != nil {
		t.Error("binary result column converted")
	}
}
