package mysqlwire

import (
	"reflect"
	"sync"

	"vitess.io/vitess/go/mysql"
)

// Relaying row packets in batches.
//
// A statement passed through unchanged relays the replica's row packets
// to the client as they are (rowformat.RawRows). vitess' Conn.WritePacket
// takes a lock and resets the connection's flush timer for every packet:
// in a profile of 3M-row exports that was a third of the coordinator's
// CPU (time.Timer.Reset and the clock reads under it), more than reading
// the rows from the replica.
//
// A relay instead gathers the packets, headers included, and writes 256
// of them at a time with one Conn.WritePacketRaw, which goes through the
// same buffered writer in order with what vitess wrote before (the column
// definitions) and will write after (the end of the result). A packet's
// header carries a sequence number (one byte, counting every packet of
// the response) that vitess keeps to itself and advances once per packet
// it writes: the relay reads it (reflect reads an unexported field; it
// does not write it) and numbers its packets from there. 256 packets
// bring the byte back where it was, so vitess' own count stays right
// without being told. Packets that do not fill a batch of 256 (the end of
// a result, a small one, rows too large to gather) go out one by one
// through WritePacket, which numbers and counts them itself.
//
// Should a vitess release rename or retype the field, seqField finds
// nothing and every packet goes through WritePacket as before.

// relayBatch is the number of packets written at once: the sequence
// number is one byte, so a batch of 256 leaves it unchanged.
const relayBatch = 256

// relayMaxBytes bounds a batch's buffer: rows large enough to pass it in
// fewer than relayBatch packets go out one by one (their per-packet cost
// is then small beside their bytes).
const relayMaxBytes = 1 << 20

// seqField is the index of vitess' Conn.sequence, -1 when it has none of
// the expected type.
var seqField = func() int {
	f, ok := reflect.TypeFor[mysql.Conn]().FieldByName("sequence")
	if !ok || f.Type.Kind() != reflect.Uint8 || len(f.Index) != 1 {
		return -1
	}
	return f.Index[0]
}()

var relayBufs = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

// relay batches one statement's raw row packets for c. Not safe for
// concurrent use (a statement's rows come from one goroutine).
type relay struct {
	c    *mysql.Conn
	buf  *[]byte // pooled: packets, each its 4 header bytes then its payload
	offs []int   // where each gathered packet starts in *buf
}

// write gathers one row packet's payload (copied: the caller reuses it).
func (r *relay) write(payload []byte) error {
	if len(payload) >= mysql.MaxPacketSize || seqField < 0 {
		if err := r.flush(); err != nil {
			return err
		}
		p := make([]byte, 4+len(payload))
		copy(p[4:], payload)
		return r.c.WritePacket(p)
	}
	if r.buf == nil {
		r.buf = relayBufs.Get().(*[]byte)
	}
	b := *r.buf
	r.offs = append(r.offs, len(b))
	n := len(payload)
	b = append(b, byte(n), byte(n>>8), byte(n>>16), 0)
	*r.buf = append(b, payload...)
	switch {
	case len(r.offs) == relayBatch:
		return r.writeBatch()
	case len(*r.buf) > relayMaxBytes:
		return r.flush()
	}
	return nil
}

// writeBatch writes a full batch of relayBatch packets in one write,
// numbered from the connection's sequence number.
func (r *relay) writeBatch() error {
	seq := byte(reflect.ValueOf(r.c).Elem().Field(seqField).Uint())
	b := *r.buf
	for i, o := range r.offs {
		b[o+3] = seq + byte(i)
	}
	r.reset()
	return r.c.WritePacketRaw(b)
}

// flush writes the gathered packets one by one (WritePacket numbers and
// counts them) and returns the buffer to the pool. It must run before
// anything else is written to the client: the column definitions of a
// next result, the end of this one, an error.
func (r *relay) flush() error {
	if r.buf == nil {
		return nil
	}
	b := *r.buf
	var err error
	for i, o := range r.offs {
		end := len(b)
		if i+1 < len(r.offs) {
			end = r.offs[i+1]
		}
		if err = r.c.WritePacket(b[o:end]); err != nil {
			break
		}
	}
	r.reset()
	if cap(*r.buf) <= 4*relayMaxBytes { // a rare huge one is not kept
		relayBufs.Put(r.buf)
	}
	r.buf = nil
	return err
}

func (r *relay) reset() {
	*r.buf = (*r.buf)[:0]
	r.offs = r.offs[:0]
}
