package e2e

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"vitess.io/vitess/go/mysql"
)

// rawConn is a minimal MySQL protocol client for the commands no driver
// the suite uses ever sends: COM_RESET_CONNECTION (what libmysqlclient's
// mysql_reset_connection(), Connector/J's resetServerState and
// connection poolers send) and COM_FIELD_LIST (the old CLI's table-name
// completion). It logs in with mysql_native_password, speaks the text
// protocol with EOF packets (no CLIENT_DEPRECATE_EOF) and reads results
// whole. Not safe for concurrent use.
type rawConn struct {
	t   *testing.T
	c   net.Conn
	r   *bufio.Reader
	seq byte
}

// rawErr is an ERR packet.
type rawErr struct {
	Code  uint16
	State string
	Msg   string
}

func (e *rawErr) Error() string { return fmt.Sprintf("ERROR %d (%s): %s", e.Code, e.State, e.Msg) }

// Capability flags of the handshake response.
const (
	capLongPassword   = 0x1
	capConnectWithDB  = 0x8
	capProtocol41     = 0x200
	capTransactions   = 0x2000
	capSecureConn     = 0x8000
	capPluginAuth     = 0x80000
	nativePasswordPlg = "mysql_native_password"
)

// rawDial connects and logs in to addr as user with db selected.
func rawDial(t *testing.T, addr, user, pass, db string) *rawConn {
	t.Helper()
	rc := rawLogin(t, addr, user, pass, db)
	t.Cleanup(func() { rc.c.Close() })
	return rc
}

// rawLogin is rawDial without closing the connection when t ends: for a
// connection that outlives one subtest (its t is set per use). The
// caller closes it.
func rawLogin(t *testing.T, addr, user, pass, db string) *rawConn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	rc := &rawConn{t: t, c: c, r: bufio.NewReader(c)}
	c.SetDeadline(time.Now().Add(30 * time.Second))
	hs := rc.read()
	if len(hs) == 0 || hs[0] == 0xff {
		c.Close()
		t.Fatalf("%s: no handshake: %q", addr, hs)
	}
	// protocol version, server version\0, thread id, salt part 1 (8),
	// filler, capabilities (low), charset, status, capabilities (high),
	// salt length, 10 reserved bytes, salt part 2, plugin name\0.
	p := bytes.IndexByte(hs[1:], 0) + 2
	p += 4
	salt := append([]byte(nil), hs[p:p+8]...)
	p += 8 + 1 + 2 + 1 + 2 + 2
	saltLen := int(hs[p])
	p += 1 + 10
	n := max(13, saltLen-8)
	salt = append(salt, hs[p:p+n-1]...) // without its trailing NUL
	caps := uint32(capLongPassword | capProtocol41 | capTransactions | capSecureConn | capPluginAuth)
	if db != "" {
		caps |= capConnectWithDB
	}
	auth := mysql.ScrambleMysqlNativePassword(salt, []byte(pass))
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, caps)
	binary.Write(&b, binary.LittleEndian, uint32(1<<24))
	b.WriteByte(45) // utf8mb4_general_ci
	b.Write(make([]byte, 23))
	b.WriteString(user + "\x00")
	b.WriteByte(byte(len(auth)))
	b.Write(auth)
	if db != "" {
		b.WriteString(db + "\x00")
	}
	b.WriteString(nativePasswordPlg + "\x00")
	rc.write(b.Bytes())
	for {
		resp := rc.read()
		switch {
		case len(resp) == 0:
			t.Fatalf("%s: empty reply to the handshake", addr)
		case resp[0] == 0x00:
			c.SetDeadline(time.Time{})
			return rc
		case resp[0] == 0xff:
			t.Fatalf("%s: login: %v", addr, parseErr(resp))
		case resp[0] == 0xfe: // auth switch: plugin\0 salt\0
			plugin, data, _ := bytes.Cut(resp[1:], []byte{0})
			if string(plugin) != nativePasswordPlg {
				t.Fatalf("%s: server asks for auth plugin %q", addr, plugin)
			}
			rc.write(mysql.ScrambleMysqlNativePassword(bytes.TrimRight(data, "\x00"), []byte(pass)))
		case resp[0] == 0x01: // more auth data (fast auth success)
		default:
			t.Fatalf("%s: unexpected reply to the handshake %q", addr, resp)
		}
	}
}

// read reads one packet (payloads under 16 MiB only).
func (rc *rawConn) read() []byte {
	rc.t.Helper()
	var hdr [4]byte
	if _, err := io.ReadFull(rc.r, hdr[:]); err != nil {
		rc.t.Fatalf("reading a packet header: %v", err)
	}
	n := int(hdr[0]) | int(hdr[1])<<8 | int(hdr[2])<<16
	rc.seq = hdr[3] + 1
	body := make([]byte, n)
	if _, err := io.ReadFull(rc.r, body); err != nil {
		rc.t.Fatalf("reading a packet: %v", err)
	}
	return body
}

func (rc *rawConn) write(payload []byte) {
	rc.t.Helper()
	hdr := []byte{byte(len(payload)), byte(len(payload) >> 8), byte(len(payload) >> 16), rc.seq}
	rc.seq++
	if _, err := rc.c.Write(append(hdr, payload...)); err != nil {
		rc.t.Fatalf("writing a packet: %v", err)
	}
}

// command starts a command: sequence number 0.
func (rc *rawConn) command(cmd byte, arg []byte) {
	rc.t.Helper()
	rc.seq = 0
	rc.c.SetDeadline(time.Now().Add(60 * time.Second))
	rc.write(append([]byte{cmd}, arg...))
}

func parseErr(p []byte) *rawErr {
	e := &rawErr{Code: binary.LittleEndian.Uint16(p[1:3])}
	rest := p[3:]
	if len(rest) > 0 && rest[0] == '#' {
		e.State, rest = string(rest[1:6]), rest[6:]
	}
	e.Msg = string(rest)
	return e
}

func isEOF(p []byte) bool { return len(p) > 0 && len(p) < 9 && p[0] == 0xfe }

// lenenc reads a length-encoded integer at p[0:].
func lenenc(p []byte) (uint64, int) {
	switch p[0] {
	case 0xfc:
		return uint64(binary.LittleEndian.Uint16(p[1:])), 3
	case 0xfd:
		return uint64(p[1]) | uint64(p[2])<<8 | uint64(p[3])<<16, 4
	case 0xfe:
		return binary.LittleEndian.Uint64(p[1:]), 9
	}
	return uint64(p[0]), 1
}

// skipUntilEOF reads packets up to and including an EOF packet.
func (rc *rawConn) skipUntilEOF() {
	rc.t.Helper()
	for !isEOF(rc.read()) {
	}
}

// resultRows reads a result set's rows after its column count: text rows
// as strings ("NULL" for NULL), binary rows as their raw packets' count
// only (nil values).
func (rc *rawConn) resultRows(binaryRows bool) ([][]string, *rawErr) {
	rc.t.Helper()
	rc.skipUntilEOF() // column definitions
	var rows [][]string
	for {
		p := rc.read()
		switch {
		case isEOF(p):
			return rows, nil
		case p[0] == 0xff:
			return rows, parseErr(p)
		case binaryRows:
			rows = append(rows, nil)
			continue
		}
		var row []string
		for i := 0; i < len(p); {
			if p[i] == 0xfb {
				row = append(row, "NULL")
				i++
				continue
			}
			n, k := lenenc(p[i:])
			row = append(row, string(p[i+k:i+k+int(n)]))
			i += k + int(n)
		}
		rows = append(rows, row)
	}
}

// query runs q with COM_QUERY.
func (rc *rawConn) query(q string) ([][]string, *rawErr) {
	rc.t.Helper()
	rc.command(0x03, []byte(q))
	p := rc.read()
	switch p[0] {
	case 0x00:
		return nil, nil
	case 0xff:
		return nil, parseErr(p)
	}
	return rc.resultRows(false)
}

// resetConnection sends COM_RESET_CONNECTION.
func (rc *rawConn) resetConnection() *rawErr {
	rc.t.Helper()
	rc.command(0x1f, nil)
	p := rc.read()
	if p[0] == 0xff {
		return parseErr(p)
	}
	if p[0] != 0x00 {
		rc.t.Fatalf("COM_RESET_CONNECTION: unexpected reply %q", p)
	}
	return nil
}

// fieldList sends COM_FIELD_LIST for table and returns how many column
// definitions came back.
func (rc *rawConn) fieldList(table string) (int, *rawErr) {
	rc.t.Helper()
	rc.command(0x04, []byte(table+"\x00"))
	n := 0
	for {
		p := rc.read()
		switch {
		case p[0] == 0xff:
			return n, parseErr(p)
		case isEOF(p):
			return n, nil
		}
		n++
	}
}

// ping sends COM_PING.
func (rc *rawConn) ping() *rawErr {
	rc.t.Helper()
	rc.command(0x0e, nil)
	if p := rc.read(); p[0] == 0xff {
		return parseErr(p)
	}
	return nil
}

// prepare sends COM_STMT_PREPARE and returns the statement id.
func (rc *rawConn) prepare(q string) (uint32, *rawErr) {
	rc.t.Helper()
	rc.command(0x16, []byte(q))
	p := rc.read()
	if p[0] == 0xff {
		return 0, parseErr(p)
	}
	id := binary.LittleEndian.Uint32(p[1:5])
	cols, params := binary.LittleEndian.Uint16(p[5:7]), binary.LittleEndian.Uint16(p[7:9])
	if params > 0 {
		rc.skipUntilEOF()
	}
	if cols > 0 {
		rc.skipUntilEOF()
	}
	return id, nil
}

// execute sends COM_STMT_EXECUTE for a statement without parameters and
// returns how many rows it returned.
func (rc *rawConn) execute(id uint32) (int, *rawErr) {
	rc.t.Helper()
	arg := binary.LittleEndian.AppendUint32(nil, id)
	arg = append(arg, 0)                           // no cursor
	arg = binary.LittleEndian.AppendUint32(arg, 1) // iteration count
	rc.command(0x17, arg)
	p := rc.read()
	switch p[0] {
	case 0x00:
		return 0, nil
	case 0xff:
		return 0, parseErr(p)
	}
	rows, err := rc.resultRows(true)
	return len(rows), err
}
