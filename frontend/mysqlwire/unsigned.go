package mysqlwire

import (
	"encoding/binary"
	"strconv"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// Unsigned parameters of COM_STMT_EXECUTE.
//
// A client declares each parameter's type as two bytes: the column type
// and a flag byte whose high bit (0x80) says the integer is unsigned
// (go-sql-driver sends every uint64 so; a C client sets is_unsigned).
// vitess' go/mysql reads that byte as column-definition flags, where
// UNSIGNED is 0x20, so it decodes 18446744073709551615 sent as an
// unsigned LONGLONG as -1 and 200 sent as an unsigned TINY as -56: the
// statement ran with the wrong value (`WHERE u > ?` matched every row).
// vitess has read the packet and recycled its buffer by the time the
// handler runs, so the connection's transport keeps the start of the last
// COM_STMT_EXECUTE it carried (execTap), and ComStmtExecute reads the
// flags from it: each unsigned integer's value is taken as the unsigned
// number of its width, and the statement's parameter type becomes the
// unsigned one, which is what vitess decodes later executions by when the
// client does not send the types again. Over TLS the transport carries
// ciphertext and nothing is kept (docs/sql.md).

// execTapMax bounds what execTap keeps of one COM_STMT_EXECUTE: the
// header, NULL bitmap and types of 65,535 parameters fit.
const execTapMax = 10 + 8192 + 1 + 2*65535

// execTap follows the packets a client sends and keeps the start of the
// payload of the last command that is a COM_STMT_EXECUTE or a COM_QUERY
// (multinear.go). Only the connection's goroutine reads, so it needs no
// lock.
type execTap struct {
	hdr   [4]byte
	nhdr  int
	left  int  // payload bytes of the current packet not yet seen
	first bool // the current packet has sequence 0: a command starts
	off   int  // payload bytes of the current packet seen
	keep  bool // the current command is a COM_STMT_EXECUTE or a COM_QUERY
	buf   []byte
	cut   bool // buf lacks the end of the command
	// piece is how far the statements of a multi-statement COM_QUERY
	// have been found in buf (multinear.go).
	piece int
}

// feed follows bytes read from the client.
func (t *execTap) feed(p []byte) {
	for len(p) > 0 {
		if t.left == 0 {
			k := copy(t.hdr[t.nhdr:], p)
			t.nhdr += k
			p = p[k:]
			if t.nhdr < 4 {
				return
			}
			t.nhdr = 0
			t.left = int(t.hdr[0]) | int(t.hdr[1])<<8 | int(t.hdr[2])<<16
			t.first, t.off = t.hdr[3] == 0, 0
			if !t.first && len(t.buf) > 0 && t.buf[0] == mysql.ComQuery {
				t.cut, t.keep = true, false // a packet after the query's (LOAD DATA's file): not its text
			}
			continue
		}
		k := min(len(p), t.left)
		if t.first && t.off == 0 {
			t.keep = p[0] == mysql.ComStmtExecute || p[0] == mysql.ComQuery
			t.buf, t.cut, t.piece = t.buf[:0], false, 0
		}
		if t.keep {
			kept := min(k, max(0, execTapMax-len(t.buf)))
			t.buf = append(t.buf, p[:kept]...)
			t.cut = t.cut || kept < k
		}
		t.off += k
		t.left -= k
		p = p[k:]
	}
}

// unsignedParams applies the unsigned flags of the COM_STMT_EXECUTE that
// vitess just parsed for prepare (see above).
func unsignedParams(c *mysql.Conn, prepare *mysql.PrepareData) {
	if pc, ok := c.GetRawConn().(*packetConn); ok {
		applyUnsigned(pc.tap.buf, prepare)
	}
}

// applyUnsigned applies the flags of b, the start of a COM_STMT_EXECUTE
// payload, to prepare's parameters as vitess decoded them from it.
func applyUnsigned(b []byte, prepare *mysql.PrepareData) {
	n := int(prepare.ParamsCount)
	nb := (n + 7) / 8
	types := 10 + nb + 1
	if n == 0 || len(b) < types+2*n || b[0] != mysql.ComStmtExecute || binary.LittleEndian.Uint32(b[1:5]) != prepare.StatementID || b[types-1] != 1 {
		return // not this statement's packet, or the types were not sent
	}
	for i := 0; i < n && i < len(prepare.ParamsType); i++ {
		if b[types+2*i+1]&0x80 == 0 {
			continue
		}
		t := unsignedOf(querypb.Type(prepare.ParamsType[i]))
		if t == 0 {
			continue
		}
		prepare.ParamsType[i] = int32(t)
		name := "v" + strconv.Itoa(i+1)
		bv := prepare.BindVars[name]
		if bv == nil || bv.Type != sqltypes.Int64 {
			continue // NULL
		}
		v, err := strconv.ParseInt(string(bv.Value), 10, 64)
		if err != nil {
			continue
		}
		var u uint64
		switch t {
		case sqltypes.Uint8:
			u = uint64(uint8(v))
		case sqltypes.Uint16:
			u = uint64(uint16(v))
		case sqltypes.Uint24, sqltypes.Uint32:
			u = uint64(uint32(v))
		default:
			u = uint64(v)
		}
		prepare.BindVars[name] = sqltypes.Uint64BindVariable(u)
	}
}

// unsignedOf is the unsigned type of a signed integer parameter type, 0
// for other types.
func unsignedOf(t querypb.Type) querypb.Type {
	switch t {
	case sqltypes.Int8:
		return sqltypes.Uint8
	case sqltypes.Int16:
		return sqltypes.Uint16
	case sqltypes.Int24:
		return sqltypes.Uint24
	case sqltypes.Int32:
		return sqltypes.Uint32
	case sqltypes.Int64:
		return sqltypes.Uint64
	}
	return 0
}
