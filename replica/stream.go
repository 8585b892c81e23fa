package replica

import (
	"bytes"
	"encoding/binary"
	"io"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/sqlerror"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// Streaming passthrough results.
//
// vitess' ExecuteStreamFetch decodes every column definition of every
// result into new querypb.Fields (six strings each): for `SELECT *` of a
// 20-column table that is 140 allocations and ~5 KB per statement, most
// of a point lookup's garbage and a sixth of the coordinator's CPU under
// point lookups. A session sends the same statement shapes again and
// again, and the replica describes them with the same bytes, so Stream
// reads the definition packets raw into a buffer it reuses and decodes
// them only when they differ from the connection's last result's. The
// Fields it returns are then shared between statements: callers must not
// change them (those that rename or retype a column copy first).

// Stream is the pending result of a statement started with StartStream.
// Call Fields, then Next until it returns no row, or Close to drain.
type Stream struct {
	b *Conn
	// fields is nil for a statement with no result set; done is set once
	// the result's end (or an error) has been read.
	fields []*querypb.Field
	done   bool
	// affected is the OK packet's affected rows, for a statement with no
	// result set.
	affected uint64
	// insertID is the OK packet's last insert id.
	insertID uint64
	// status is the server status flags of the result's last packet (OK
	// or EOF): in a transaction, autocommit, NO_BACKSLASH_ESCAPES, ….
	status     uint16
	statusRead bool
	// warnings is the count the result's last packet (OK or EOF) gives.
	warnings uint16
	// arena and slab hold the rows Next returned: their bytes and
	// values, a few allocations per result instead of two per row. They
	// belong to this statement's rows (never reused by the next).
	arena []byte
	slab  []sqltypes.Value
}

// Growth bounds of a result's row storage: the first block fits the
// first row exactly (most passthrough results are one row), each next one
// doubles, up to these.
const (
	maxArena   = 64 << 10
	maxSlabRow = 256
)

// streamState is what a Conn keeps between streamed statements.
type streamState struct {
	hdr  [mysql.PacketHeaderSize]byte
	buf  []byte // the packet being read, reused
	defs []byte // the raw column definitions of the result being read
	// lastDefs and lastFields are the last decoded definitions.
	lastDefs   []byte
	lastFields []*querypb.Field
	stream     Stream
}

// maxPacketPayload is the payload of a packet continued by the next one.
const maxPacketPayload = 1<<24 - 1

// readPacket reads one (logical) packet into the connection's buffer;
// the bytes are valid until the next read.
func (b *Conn) readPacket() ([]byte, error) {
	st := &b.st
	st.buf = st.buf[:0]
	for {
		n, err := b.MySQL.ReadHeaderInto(st.hdr[:])
		if err != nil {
			return nil, lost(err)
		}
		off := len(st.buf)
		st.buf = grow(st.buf, n)
		if err := b.MySQL.ReadDataInto(st.buf[off : off+n]); err != nil {
			return nil, lost(err)
		}
		if n < maxPacketPayload {
			return st.buf, nil
		}
	}
}

func grow(b []byte, n int) []byte {
	if cap(b)-len(b) < n {
		nb := make([]byte, len(b), len(b)+n+len(b)/2+64)
		copy(nb, b)
		b = nb
	}
	return b[:len(b)+n]
}

func lost(err error) error {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return sqlerror.NewSQLErrorf(sqlerror.CRServerLost, sqlerror.SSUnknownSQLState, "%v", err)
}

// StartStream sends query and reads its response up to the first row:
// the returned Stream (valid until the connection's next statement)
// holds the column definitions. An error packet comes back as the
// replica's own SQLError.
func (b *Conn) StartStream(query string) (*Stream, error) {
	if err := b.MySQL.WriteComQuery(query); err != nil {
		return nil, err
	}
	st := &b.st
	st.stream = Stream{b: b}
	s := &st.stream
	data, err := b.readPacket()
	if err != nil {
		return nil, err
	}
	if len(data) == 0 {
		return nil, sqlerror.NewSQLError(sqlerror.CRMalformedPacket, sqlerror.SSUnknownSQLState, "invalid empty COM_QUERY response packet")
	}
	switch data[0] {
	case mysql.OKPacket:
		s.done = true
		var pos int
		s.affected, pos, _ = lenEncInt(data, 1)
		s.insertID, _, _ = lenEncInt(data, pos)
		s.status, s.warnings = okStatus(data, pos)
		s.statusRead = true
		return s, nil
	case mysql.ErrPacket:
		return nil, mysql.ParseErrorPacket(data)
	case 0xfb:
		return nil, sqlerror.NewSQLError(sqlerror.ERNotSupportedYet, sqlerror.SSUnknownSQLState, "LOAD DATA LOCAL INFILE is not supported through Shoal")
	}
	n, pos, ok := lenEncInt(data, 0)
	if !ok || pos != len(data) || n > 4096 {
		return nil, sqlerror.NewSQLError(sqlerror.CRMalformedPacket, sqlerror.SSUnknownSQLState, "cannot get column number")
	}
	// Column definitions, each prefixed by its length in defs.
	st.defs = st.defs[:0]
	for range n {
		d, err := b.readPacket()
		if err != nil {
			return nil, err
		}
		st.defs = binary.LittleEndian.AppendUint32(st.defs, uint32(len(d)))
		st.defs = append(st.defs, d...)
	}
	if b.MySQL.Capabilities&mysql.CapabilityClientDeprecateEOF == 0 {
		d, err := b.readPacket()
		if err != nil {
			return nil, err
		}
		switch {
		case len(d) > 0 && d[0] == mysql.EOFPacket && len(d) < 9:
		case len(d) > 0 && d[0] == mysql.ErrPacket:
			return nil, mysql.ParseErrorPacket(d)
		default:
			return nil, sqlerror.NewSQLErrorf(sqlerror.CRCommandsOutOfSync, sqlerror.SSUnknownSQLState, "unexpected packet after fields")
		}
	}
	if st.lastFields != nil && bytes.Equal(st.defs, st.lastDefs) {
		s.fields = st.lastFields
		return s, nil
	}
	fields, err := decodeDefs(st.defs, int(n))
	if err != nil {
		return nil, err
	}
	st.lastDefs = append(st.lastDefs[:0], st.defs...)
	st.lastFields = fields
	s.fields = fields
	return s, nil
}

// Fields are the result's columns, nil for a statement without a result
// set. They may be shared with other statements' results: do not change
// them.
func (s *Stream) Fields() []*querypb.Field { return s.fields }

// RowsAffected is the OK packet's count for a statement without a result
// set.
func (s *Stream) RowsAffected() uint64 { return s.affected }

// InsertID is the OK packet's last insert id, for a statement without a
// result set.
func (s *Stream) InsertID() uint64 { return s.insertID }

// Warnings is the warning count the replica gave the statement, once its
// result has been read to the end (Next returned nil).
func (s *Stream) Warnings() uint16 { return s.warnings }

// Status is the server status flags the replica gave the statement, and
// whether its result was read to the end (they come with its last packet).
func (s *Stream) Status() (uint16, bool) { return s.status, s.statusRead }

// okStatus reads an OK packet's status flags and warning count; pos is
// just past its affected rows: the last insert id, the status flags and
// the warnings follow.
func okStatus(data []byte, pos int) (status, warnings uint16) {
	if _, pos, ok := lenEncInt(data, pos); ok && pos+4 <= len(data) {
		return binary.LittleEndian.Uint16(data[pos : pos+2]), binary.LittleEndian.Uint16(data[pos+2 : pos+4])
	}
	return 0, 0
}

// NextRaw returns the next row's packet as the replica sent it (the text
// protocol's length-encoded values), valid until the next read on the
// connection, or nil at the end of the result.
func (s *Stream) NextRaw() ([]byte, error) {
	if s.done || s.fields == nil {
		s.done = true
		return nil, nil
	}
	data, err := s.b.readPacket()
	if err != nil {
		s.done = true
		return nil, err
	}
	if len(data) == 0 {
		s.done = true
		return nil, sqlerror.NewSQLError(sqlerror.CRMalformedPacket, sqlerror.SSUnknownSQLState, "empty row packet")
	}
	switch {
	case data[0] == mysql.EOFPacket && s.isEOF(len(data)):
		s.done = true
		if s.b.MySQL.Capabilities&mysql.CapabilityClientDeprecateEOF == 0 {
			if len(data) >= 5 { // 0xfe, warnings, status flags
				s.warnings = binary.LittleEndian.Uint16(data[1:3])
				s.status, s.statusRead = binary.LittleEndian.Uint16(data[3:5]), true
			} else if len(data) >= 3 {
				s.warnings = binary.LittleEndian.Uint16(data[1:3])
			}
		} else if _, pos, ok := lenEncInt(data, 1); ok { // an OK packet headed 0xfe
			s.status, s.warnings = okStatus(data, pos)
			s.statusRead = true
		}
		return nil, nil
	case data[0] == mysql.ErrPacket:
		s.done = true
		return nil, mysql.ParseErrorPacket(data)
	}
	return data, nil
}

func (s *Stream) isEOF(n int) bool {
	if s.b.MySQL.Capabilities&mysql.CapabilityClientDeprecateEOF == 0 {
		return n < 9
	}
	return n < maxPacketPayload
}

// Next returns the next row, or nil at the end of the result. Its values
// do not alias the connection's buffer: they stay valid after the next
// read (rows of one result share blocks of storage).
func (s *Stream) Next() ([]sqltypes.Value, error) {
	data, err := s.NextRaw()
	if data == nil || err != nil {
		return nil, err
	}
	if cap(s.arena)-len(s.arena) < len(data) {
		s.arena = make([]byte, 0, max(len(data), min(2*cap(s.arena), maxArena)))
	}
	off := len(s.arena)
	s.arena = append(s.arena, data...)
	n := len(s.fields)
	if cap(s.slab)-len(s.slab) < n {
		rows := min(max(2*cap(s.slab)/max(n, 1), 1), maxSlabRow)
		s.slab = make([]sqltypes.Value, 0, rows*n)
	}
	at := len(s.slab)
	s.slab = s.slab[:at+n]
	row := s.slab[at : at+n : at+n]
	if err := parseInto(row, s.arena[off:len(s.arena):len(s.arena)], s.fields); err != nil {
		return nil, err
	}
	return row, nil
}

// Close reads what is left of the result, so the connection can take the
// next statement.
func (s *Stream) Close() error {
	for !s.done {
		if _, err := s.NextRaw(); err != nil {
			return err
		}
	}
	return nil
}

// ParseRow splits a text-protocol row packet into values of fields' types;
// the values alias data.
func ParseRow(data []byte, fields []*querypb.Field) ([]sqltypes.Value, error) {
	row := make([]sqltypes.Value, len(fields))
	if err := parseInto(row, data, fields); err != nil {
		return nil, err
	}
	return row, nil
}

// parseInto is ParseRow into row (len(fields) values, all zero: NULL).
func parseInto(row []sqltypes.Value, data []byte, fields []*querypb.Field) error {
	pos := 0
	for i, f := range fields {
		if pos >= len(data) {
			return sqlerror.NewSQLError(sqlerror.CRMalformedPacket, sqlerror.SSUnknownSQLState, "row packet shorter than its columns")
		}
		if data[pos] == mysql.NullValue {
			pos++
			continue
		}
		n, p, ok := lenEncInt(data, pos)
		if !ok || uint64(len(data)-p) < n {
			return sqlerror.NewSQLError(sqlerror.CRMalformedPacket, sqlerror.SSUnknownSQLState, "decoding string failed")
		}
		end := p + int(n)
		row[i] = sqltypes.MakeTrusted(f.Type, data[p:end:end])
		pos = end
	}
	return nil
}

// decodeDefs decodes n column definitions, each prefixed by its length,
// as vitess' client does (readColumnDefinition), into one allocation of
// Fields.
func decodeDefs(defs []byte, n int) ([]*querypb.Field, error) {
	fields := make([]querypb.Field, n)
	out := make([]*querypb.Field, n)
	for i := range n {
		if len(defs) < 4 {
			return nil, malformed(i)
		}
		l := int(binary.LittleEndian.Uint32(defs))
		if len(defs)-4 < l {
			return nil, malformed(i)
		}
		if err := decodeDef(&fields[i], defs[4:4+l], i); err != nil {
			return nil, err
		}
		out[i] = &fields[i]
		defs = defs[4+l:]
	}
	return out, nil
}

func malformed(i int) error {
	return sqlerror.NewSQLErrorf(sqlerror.CRMalformedPacket, sqlerror.SSUnknownSQLState, "malformed definition of column %d", i)
}

// decodeDef is vitess' readColumnDefinition over one packet: the strings
// share one allocation.
func decodeDef(f *querypb.Field, d []byte, i int) error {
	// The catalog is always "def": skipped. Then database, table,
	// org_table, name, org_name.
	pos := 0
	var at [6][2]int // each string's start and end in d
	for k := range at {
		n, p, ok := lenEncInt(d, pos)
		if !ok || uint64(len(d)-p) < n {
			return malformed(i)
		}
		pos = p + int(n)
		at[k] = [2]int{p, pos}
	}
	all := string(d[at[1][0]:pos]) // one copy the five strings slice
	str := func(k int) string { return all[at[k][0]-at[1][0] : at[k][1]-at[1][0]] }
	f.Database, f.Table, f.OrgTable, f.Name, f.OrgName = str(1), str(2), str(3), str(4), str(5)
	pos++ // the length of the fixed fields
	if len(d) < pos+10 {
		return malformed(i)
	}
	charset := binary.LittleEndian.Uint16(d[pos:])
	length := binary.LittleEndian.Uint32(d[pos+2:])
	typ := d[pos+6]
	flags := binary.LittleEndian.Uint16(d[pos+7:])
	decimals := d[pos+9]
	t, err := sqltypes.MySQLToType(typ, int64(flags))
	if err != nil {
		return sqlerror.NewSQLErrorf(sqlerror.CRMalformedPacket, sqlerror.SSUnknownSQLState, "MySQLToType(%v,%v) failed for column %v: %v", typ, flags, i, err)
	}
	f.Charset, f.ColumnLength, f.Type, f.Decimals = uint32(charset), length, t, uint32(decimals)
	if length != 0 || charset != 0 {
		// As sent: vitess' client adds NUM_FLAG to numeric columns,
		// which MariaDB does not send for them (the C client sets it
		// itself).
		f.Flags = uint32(flags)
	}
	return nil
}

// lenEncInt reads a length-encoded integer at pos.
func lenEncInt(d []byte, pos int) (uint64, int, bool) {
	if pos >= len(d) {
		return 0, 0, false
	}
	switch c := d[pos]; {
	case c < 0xfb:
		return uint64(c), pos + 1, true
	case c == 0xfc:
		if pos+3 > len(d) {
			return 0, 0, false
		}
		return uint64(binary.LittleEndian.Uint16(d[pos+1:])), pos + 3, true
	case c == 0xfd:
		if pos+4 > len(d) {
			return 0, 0, false
		}
		return uint64(d[pos+1]) | uint64(d[pos+2])<<8 | uint64(d[pos+3])<<16, pos + 4, true
	case c == 0xfe:
		if pos+9 > len(d) {
			return 0, 0, false
		}
		return binary.LittleEndian.Uint64(d[pos+1:]), pos + 9, true
	}
	return 0, 0, false
}
