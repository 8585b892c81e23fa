package e2e

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"

	"github.com/go-sql-driver/mysql"
)

// The binary protocol through the raw client (rawproto_test.go): what a
// client of server-side prepared statements sees — COM_STMT_PREPARE's
// parameter and column definitions, COM_STMT_EXECUTE with typed
// parameters, and its rows as the bytes sent (DOUBLE as 8 bytes of IEEE,
// DECIMAL as text, DATE/DATETIME/TIME as length-prefixed structures,
// integers by width).

// colDef is one column definition packet, decoded.
type colDef struct {
	schema, table, orgTable, name, orgName string
	charset                                uint16
	length                                 uint32
	typ                                    byte
	flags                                  uint16
	decimals                               byte
}

// String renders what a client learns from the definition.
func (d colDef) String() string {
	return fmt.Sprintf("%q type=%d len=%d dec=%d charset=%d flags=%#x", d.name, d.typ, d.length, d.decimals, d.charset, d.flags)
}

// parseColDef decodes a protocol-41 column definition.
func parseColDef(p []byte) (colDef, error) {
	var d colDef
	var strs [6]string
	i := 0
	for k := range strs {
		if i >= len(p) {
			return d, fmt.Errorf("column definition cut short: %q", p)
		}
		n, w := lenenc(p[i:])
		if i+w+int(n) > len(p) {
			return d, fmt.Errorf("column definition cut short: %q", p)
		}
		strs[k] = string(p[i+w : i+w+int(n)])
		i += w + int(n)
	}
	// catalog, schema, table, org_table, name, org_name; then 0x0c and
	// the fixed fields.
	d.schema, d.table, d.orgTable, d.name, d.orgName = strs[1], strs[2], strs[3], strs[4], strs[5]
	if i+13 > len(p) || p[i] != 0x0c {
		return d, fmt.Errorf("column definition's fixed fields: %q", p)
	}
	i++
	d.charset = binary.LittleEndian.Uint16(p[i:])
	d.length = binary.LittleEndian.Uint32(p[i+2:])
	d.typ = p[i+6]
	d.flags = binary.LittleEndian.Uint16(p[i+7:])
	d.decimals = p[i+9]
	return d, nil
}

// prepared is COM_STMT_PREPARE's answer.
type prepared struct {
	id     uint32
	params []colDef
	cols   []colDef
	err    *rawErr
}

// readDefs reads n column definitions and the EOF packet after them.
func (rc *rawConn) readDefs(n int) ([]colDef, error) {
	defs := make([]colDef, 0, n)
	for range n {
		d, err := parseColDef(rc.read())
		if err != nil {
			return nil, err
		}
		defs = append(defs, d)
	}
	if n > 0 {
		if p := rc.read(); !isEOF(p) {
			return nil, fmt.Errorf("no EOF after %d column definitions: %q", n, p)
		}
	}
	return defs, nil
}

// prepareDefs sends COM_STMT_PREPARE and returns the whole answer.
func (rc *rawConn) prepareDefs(q string) (*prepared, error) {
	rc.t.Helper()
	rc.command(0x16, []byte(q))
	p := rc.read()
	if p[0] == 0xff {
		return &prepared{err: parseErr(p)}, nil
	}
	if p[0] != 0x00 || len(p) < 12 {
		return nil, fmt.Errorf("COM_STMT_PREPARE: unexpected answer %q", p)
	}
	st := &prepared{id: binary.LittleEndian.Uint32(p[1:5])}
	cols, params := binary.LittleEndian.Uint16(p[5:7]), binary.LittleEndian.Uint16(p[7:9])
	var err error
	if st.params, err = rc.readDefs(int(params)); err != nil {
		return nil, err
	}
	if st.cols, err = rc.readDefs(int(cols)); err != nil {
		return nil, err
	}
	return st, nil
}

// closeStmt sends COM_STMT_CLOSE (no answer).
func (rc *rawConn) closeStmt(id uint32) {
	rc.t.Helper()
	rc.command(0x19, binary.LittleEndian.AppendUint32(nil, id))
}

// Parameter types as clients declare them in COM_STMT_EXECUTE.
const (
	ptDouble    = 0x05
	ptNull      = 0x06
	ptLongLong  = 0x08
	ptDate      = 0x0a
	ptDatetime  = 0x0c
	ptDecimal   = 0xf6
	ptBlob      = 0xfc
	ptVarString = 0xfd
	ptString    = 0xfe
)

// bindValue is one typed parameter value of COM_STMT_EXECUTE.
type bindValue struct {
	typ      byte
	unsigned bool
	null     bool
	i        int64
	f        float64
	s        string // the text of a string or DECIMAL parameter
}

func (b bindValue) String() string {
	switch {
	case b.null:
		return "NULL"
	case b.typ == ptLongLong && b.unsigned:
		return strconv.FormatUint(uint64(b.i), 10) + " (uint64)"
	case b.typ == ptLongLong:
		return strconv.FormatInt(b.i, 10) + " (int64)"
	case b.typ == ptDouble:
		return strconv.FormatFloat(b.f, 'g', -1, 64) + " (float64)"
	case b.typ == ptDecimal:
		return b.s + " (decimal)"
	case b.typ == ptVarString:
		return strconv.Quote(b.s) + " (var_string)"
	case b.typ == ptBlob:
		return strconv.Quote(b.s) + " (blob)"
	case b.typ == ptDate:
		return b.s + " (date)"
	case b.typ == ptDatetime:
		return b.s + " (datetime)"
	}
	return strconv.Quote(b.s) + " (string)"
}

// executeArgs sends COM_STMT_EXECUTE with args (their types sent) and
// reads the answer: column definitions, and each row decoded from the
// binary protocol into its values' exact bytes (binaryValue).
func (rc *rawConn) executeArgs(id uint32, args []bindValue) (*result, error) {
	rc.t.Helper()
	arg := binary.LittleEndian.AppendUint32(nil, id)
	arg = append(arg, 0)                           // no cursor
	arg = binary.LittleEndian.AppendUint32(arg, 1) // iteration count
	if len(args) > 0 {
		nulls := make([]byte, (len(args)+7)/8)
		for i, a := range args {
			if a.null {
				nulls[i/8] |= 1 << (i % 8)
			}
		}
		arg = append(arg, nulls...)
		arg = append(arg, 1) // new parameters bound: types follow
		for _, a := range args {
			typ, flag := a.typ, byte(0)
			if a.null {
				typ = ptNull
			}
			if a.unsigned {
				flag = 0x80
			}
			arg = append(arg, typ, flag)
		}
		for _, a := range args {
			switch {
			case a.null:
			case a.typ == ptLongLong:
				arg = binary.LittleEndian.AppendUint64(arg, uint64(a.i))
			case a.typ == ptDouble:
				arg = binary.LittleEndian.AppendUint64(arg, math.Float64bits(a.f))
			case a.typ == ptDate || a.typ == ptDatetime:
				arg = appendTemporal(arg, a.s)
			default:
				arg = appendLenenc(arg, uint64(len(a.s)))
				arg = append(arg, a.s...)
			}
		}
	}
	rc.command(0x17, arg)
	p := rc.read()
	switch p[0] {
	case 0x00:
		return &result{defs: []string{}}, nil
	case 0xff:
		e := parseErr(p)
		return &result{err: &mysql.MySQLError{Number: e.Code, Message: e.Msg}}, nil
	}
	n, _ := lenenc(p)
	defs, err := rc.readDefs(int(n))
	if err != nil {
		return nil, err
	}
	r := &result{defs: []string{}}
	for _, d := range defs {
		r.cols = append(r.cols, d.name)
		r.types = append(r.types, strconv.Itoa(int(d.typ)))
		r.defs = append(r.defs, d.String())
	}
	for {
		p := rc.read()
		switch {
		case isEOF(p):
			return r, nil
		case p[0] == 0xff:
			e := parseErr(p)
			return &result{err: &mysql.MySQLError{Number: e.Code, Message: e.Msg}}, nil
		}
		row, err := binaryRow(p, defs)
		if err != nil {
			return nil, err
		}
		r.rows = append(r.rows, row)
	}
}

// appendTemporal appends "YYYY-MM-DD[ hh:mm:ss[.ffffff]]" as the binary
// protocol's date structure, as Connector/J sends a DATE or TIMESTAMP
// parameter: 4 bytes for a date, 7 with a time of day, 11 with
// microseconds.
func appendTemporal(b []byte, s string) []byte {
	n := func(from, to int) int {
		v, _ := strconv.Atoi(s[from:to])
		return v
	}
	year, month, day := n(0, 4), n(5, 7), n(8, 10)
	if len(s) == 10 {
		return append(binary.LittleEndian.AppendUint16(append(b, 4), uint16(year)), byte(month), byte(day))
	}
	hour, minute, second := n(11, 13), n(14, 16), n(17, 19)
	micro := 0
	if len(s) > 20 {
		frac := (s[20:] + "000000")[:6]
		micro, _ = strconv.Atoi(frac)
	}
	size := byte(7)
	if micro != 0 {
		size = 11
	}
	b = append(binary.LittleEndian.AppendUint16(append(b, size), uint16(year)), byte(month), byte(day), byte(hour), byte(minute), byte(second))
	if micro != 0 {
		b = binary.LittleEndian.AppendUint32(b, uint32(micro))
	}
	return b
}

func appendLenenc(b []byte, n uint64) []byte {
	switch {
	case n < 251:
		return append(b, byte(n))
	case n < 1<<16:
		return binary.LittleEndian.AppendUint16(append(b, 0xfc), uint16(n))
	case n < 1<<24:
		return append(b, 0xfd, byte(n), byte(n>>8), byte(n>>16))
	}
	return binary.LittleEndian.AppendUint64(append(b, 0xfe), n)
}

// binaryRow decodes a binary-protocol row packet into one string per
// column: "NULL" for a NULL (its bit in the bitmap), a string or DECIMAL's
// bytes as sent, and a fixed-width or temporal value as its bytes in hex
// with what they mean ("f64 4059000000000000 =100"). The whole packet
// must be read: two rows render equal exactly when their packets are.
func binaryRow(p []byte, defs []colDef) ([]string, error) {
	nb := (len(defs) + 7 + 2) / 8
	if len(p) < 1+nb || p[0] != 0x00 {
		return nil, fmt.Errorf("binary row: bad header %q", p)
	}
	bitmap, i := p[1:1+nb], 1+nb
	out := make([]string, len(defs))
	fixed := func(n int) ([]byte, error) {
		if i+n > len(p) {
			return nil, fmt.Errorf("binary row cut short: %q", p)
		}
		b := p[i : i+n]
		i += n
		return b, nil
	}
	for c, d := range defs {
		if bitmap[(c+2)/8]&(1<<((c+2)%8)) != 0 {
			out[c] = "NULL"
			continue
		}
		var b []byte
		var err error
		switch d.typ {
		case 0x01: // TINY
			if b, err = fixed(1); err == nil {
				out[c] = fmt.Sprintf("i8 %x =%d", b, int8(b[0]))
			}
		case 0x02, 0x0d: // SHORT, YEAR
			if b, err = fixed(2); err == nil {
				out[c] = fmt.Sprintf("i16 %x =%d", b, int16(binary.LittleEndian.Uint16(b)))
			}
		case 0x03, 0x09: // LONG, INT24
			if b, err = fixed(4); err == nil {
				out[c] = fmt.Sprintf("i32 %x =%d", b, int32(binary.LittleEndian.Uint32(b)))
			}
		case 0x08: // LONGLONG
			if b, err = fixed(8); err == nil {
				out[c] = fmt.Sprintf("i64 %x =%d", b, int64(binary.LittleEndian.Uint64(b)))
			}
		case 0x04: // FLOAT
			if b, err = fixed(4); err == nil {
				out[c] = fmt.Sprintf("f32 %x =%v", b, math.Float32frombits(binary.LittleEndian.Uint32(b)))
			}
		case 0x05: // DOUBLE
			if b, err = fixed(8); err == nil {
				out[c] = fmt.Sprintf("f64 %x =%v", b, math.Float64frombits(binary.LittleEndian.Uint64(b)))
			}
		case 0x07, 0x0a, 0x0c, 0x0b: // TIMESTAMP, DATE, DATETIME, TIME
			if b, err = fixed(1); err == nil {
				n := int(b[0])
				if b, err = fixed(n); err == nil {
					out[c] = fmt.Sprintf("t%d %s", n, hex.EncodeToString(b))
				}
			}
		default: // strings, DECIMAL, BIT, ENUM, SET, JSON, GEOMETRY
			if i >= len(p) {
				return nil, fmt.Errorf("binary row cut short: %q", p)
			}
			n, w := lenenc(p[i:])
			i += w
			if b, err = fixed(int(n)); err == nil {
				out[c] = string(b)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	if i != len(p) {
		return nil, fmt.Errorf("binary row: %d bytes past its %d columns: %q", len(p)-i, len(defs), p)
	}
	return out, nil
}
