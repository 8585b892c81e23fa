package mysqlwire

import (
	"bytes"
	"encoding/binary"
	"slices"
	"testing"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// packet frames payload as one client packet with sequence seq.
func packet(seq byte, payload []byte) []byte {
	n := len(payload)
	return append([]byte{byte(n), byte(n >> 8), byte(n >> 16), seq}, payload...)
}

func executePayload(stmt uint32, types ...byte) []byte {
	p := []byte{0x17}
	p = binary.LittleEndian.AppendUint32(p, stmt)
	p = append(p, 0, 1, 0, 0, 0) // no cursor, one iteration
	p = append(p, 0, 1)          // NULL bitmap (up to 8 parameters), types sent
	p = append(p, types...)
	return append(p, bytes.Repeat([]byte{0xff}, 8)...) // a value
}

// TestExecTap: the tap keeps the last COM_STMT_EXECUTE's payload however
// the reads cut the stream, and nothing of other commands or of packets
// that do not start a command.
func TestExecTap(t *testing.T) {
	exec := executePayload(7, 8, 0x80)
	stream := append(packet(0, []byte{0x03, 's', 'e', 'l'}), packet(0, exec)...)
	for cut := 1; cut <= len(stream); cut++ {
		var tap execTap
		for rest := stream; len(rest) > 0; {
			k := min(cut, len(rest))
			tap.feed(rest[:k])
			rest = rest[k:]
		}
		if !bytes.Equal(tap.buf, exec) {
			t.Fatalf("reads of %d bytes: kept %x, want %x", cut, tap.buf, exec)
		}
	}
	var tap execTap
	tap.feed(packet(0, exec))
	tap.feed(packet(0, []byte{0x03, 'x'}))
	tap.feed(packet(1, []byte{0x17, 1, 2})) // not a command's first packet
	// A COM_QUERY is kept (multinear.go), as long as no packet follows it.
	if !bytes.Equal(tap.buf, []byte{0x03, 'x'}) || !tap.cut {
		t.Errorf("kept %x (cut %v) after a COM_QUERY and another packet", tap.buf, tap.cut)
	}
	tap.feed(packet(0, []byte{0x01}))
	if tap.keep || len(tap.buf) != 0 {
		t.Errorf("kept %x after a COM_QUIT", tap.buf)
	}
}

// TestApplyUnsigned: integers flagged unsigned (0x80) take the unsigned
// value of their width, as MariaDB reads them, and the statement keeps
// the unsigned types for executions that do not send them again; other
// parameters, NULLs and another statement's packet are left alone.
func TestApplyUnsigned(t *testing.T) {
	prep := func() *mysql.PrepareData {
		return &mysql.PrepareData{StatementID: 7, ParamsCount: 5,
			ParamsType: []int32{int32(sqltypes.Int64), int32(sqltypes.Int8), int32(sqltypes.Int32), int32(sqltypes.Int64), int32(sqltypes.Int64)},
			BindVars: map[string]*querypb.BindVariable{
				"v1": sqltypes.Int64BindVariable(-1), "v2": sqltypes.Int64BindVariable(-56),
				"v3": sqltypes.Int64BindVariable(-2), "v4": sqltypes.Int64BindVariable(-3), "v5": sqltypes.NullBindVariable,
			}}
	}
	// LONGLONG, TINY, LONG unsigned; LONGLONG signed; LONGLONG unsigned NULL.
	b := executePayload(7, 8, 0x80, 1, 0x80, 3, 0x80, 8, 0, 8, 0x80)
	p := prep()
	applyUnsigned(b, p)
	want := map[string]string{"v1": "18446744073709551615", "v2": "200", "v3": "4294967294", "v4": "-3", "v5": ""}
	for k, w := range want {
		if got := string(p.BindVars[k].Value); got != w {
			t.Errorf("%s = %s, want %s", k, got, w)
		}
	}
	if wantT := []int32{int32(sqltypes.Uint64), int32(sqltypes.Uint8), int32(sqltypes.Uint32), int32(sqltypes.Int64), int32(sqltypes.Uint64)}; !slices.Equal(p.ParamsType, wantT) {
		t.Errorf("types %v, want %v", p.ParamsType, wantT)
	}
	p = prep()
	applyUnsigned(executePayload(8, 8, 0x80, 1, 0x80, 3, 0x80, 8, 0, 8, 0x80), p) // another statement's
	if got := string(p.BindVars["v1"].Value); got != "-1" {
		t.Errorf("another statement's flags applied: v1 = %s", got)
	}
}
