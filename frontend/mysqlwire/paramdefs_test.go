package mysqlwire

import (
	"bytes"
	"testing"
)

func TestPatchParamDefs(t *testing.T) {
	def := func(seq byte) []byte { return append([]byte{23, 0, 0, seq}, vitessParamDef...) }
	ok := []byte{7, 0, 0, 1, 0, 1, 0, 0, 0, 2, 0}
	var b []byte
	b = append(b, ok...)
	b = append(b, def(2)...)
	b = append(b, def(3)...)
	b = append(b, def(4)...)
	orig := bytes.Clone(b)
	left := 2
	out := patchParamDefs(b, &left)
	if left != 0 {
		t.Fatalf("%d left", left)
	}
	if !bytes.Equal(b, orig) {
		t.Fatal("the caller's bytes changed")
	}
	types := []byte{}
	for i := 0; i < 3; i++ {
		types = append(types, out[len(ok)+i*27+4+paramDefType])
	}
	if !bytes.Equal(types, []byte{mysqlTypeNull, mysqlTypeNull, 0xfd}) {
		t.Errorf("types %x: want the first two retyped, the third (past the count) not", types)
	}
	// Not a definition's packet (no 23-byte header before it): kept.
	row := append([]byte{40, 0, 0, 5}, vitessParamDef...)
	left = 1
	if out := patchParamDefs(row, &left); left != 1 || &out[0] != &row[0] {
		t.Error("bytes that are not a parameter definition packet were rewritten")
	}
}
