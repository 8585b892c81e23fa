package rowformat

import (
	"strconv"

	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// Temporal values in the binary protocol. MariaDB sends a DATE, DATETIME
// or TIMESTAMP as a length and only the parts that are not zero
// (Protocol_binary::store: 11 bytes with microseconds, 7 with a time of
// day, 4 for a date at midnight, 0 for the zero date) and a TIME likewise
// (12 bytes with microseconds, 8 without, 0 for 00:00:00, whose sign it
// drops). vitess' writer decides by the length of the value's text, as
// the text protocol wrote it for the column's decimals: "00:00:00.0000"
// became 12 bytes of zeros and "2004-01-02 00:00:00" 7 bytes, which
// clients decode to the same value but which are not the server's bytes
// (a client comparing packets, or one that keeps the length as the
// value's precision, sees the difference).

// BinaryTemporal returns v's text cut to what MariaDB's binary protocol
// sends of it, for vitess' writer: zero fractional seconds dropped, a
// midnight time of day dropped from a DATETIME or TIMESTAMP, a negative
// zero TIME made 00:00:00. Other values are returned as they are.
func BinaryTemporal(v sqltypes.Value) sqltypes.Value {
	raw := v.Raw()
	switch t := v.Type(); t {
	case sqltypes.Time, sqltypes.Datetime, sqltypes.Timestamp:
		cut := zeroFraction(raw)
		if t == sqltypes.Time {
			if string(cut) == "-00:00:00" {
				cut = cut[1:]
			}
		} else if len(cut) == 19 && string(cut[10:]) == " 00:00:00" {
			cut = cut[:10]
		}
		if len(cut) != len(raw) {
			return sqltypes.MakeTrusted(t, cut)
		}
	}
	return v
}

// zeroFraction returns raw without its fractional seconds when they are
// all zeros ("12:00:00.000" → "12:00:00").
func zeroFraction(raw []byte) []byte {
	for i := len(raw) - 1; i >= 0; i-- {
		switch raw[i] {
		case '0':
		case '.':
			return raw[:i]
		default:
			return raw
		}
	}
	return raw
}

// Integers past their column's width. MariaDB declares some results
// narrower than their values: ORD of a 4-byte character is 4036006016 in
// an INT (signed LONG) column. Its text protocol sends the digits; its
// binary protocol stores the low bytes of the column's width
// (Protocol_binary::store_long: int4store((uint32) from)), which a client
// reads as -258961280. vitess' writer parses the text at the column's
// width and failed the whole statement (1105 value out of range).

// BinaryInteger returns v, an integer of a type narrower than 64 bits,
// as the number of its type whose bytes are v's low bytes (what MariaDB's
// binary protocol sends of it); v itself when it fits.
func BinaryInteger(v sqltypes.Value) sqltypes.Value {
	var bits int
	switch t := v.Type(); t {
	case sqltypes.Int8, sqltypes.Uint8:
		bits = 8
	case sqltypes.Int16, sqltypes.Uint16, sqltypes.Year:
		bits = 16
	case sqltypes.Int24, sqltypes.Uint24, sqltypes.Int32, sqltypes.Uint32:
		bits = 32
	default:
		return v
	}
	raw := v.Raw()
	var x uint64
	if i, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		x = uint64(i)
	} else if u, err := strconv.ParseUint(string(raw), 10, 64); err == nil {
		x = u
	} else {
		return v
	}
	low := x & (1<<bits - 1)
	var w []byte
	if sqltypes.IsUnsigned(v.Type()) {
		w = strconv.AppendUint(nil, low, 10)
	} else {
		w = strconv.AppendInt(nil, int64(low<<(64-bits))>>(64-bits), 10)
	}
	if string(w) == string(raw) {
		return v
	}
	return sqltypes.MakeTrusted(v.Type(), w)
}

// binaryWire reports whether a column of fields is of a type whose
// values BinaryTemporal or BinaryInteger may change.
func binaryWire(fields []*querypb.Field) bool {
	for _, f := range fields {
		switch f.Type {
		case sqltypes.Time, sqltypes.Datetime, sqltypes.Timestamp,
			sqltypes.Int8, sqltypes.Uint8, sqltypes.Int16, sqltypes.Uint16, sqltypes.Year,
			sqltypes.Int24, sqltypes.Uint24, sqltypes.Int32, sqltypes.Uint32:
			return true
		}
	}
	return false
}

// WireRows returns rows with every value as MariaDB's binary protocol
// sends it (BinaryTemporal, BinaryInteger), for vitess' writer; the rows
// that change are copied (the caller's rows may be shared: a cached
// answer written to text-protocol clients too).
func WireRows(fields []*querypb.Field, rows [][]sqltypes.Value) [][]sqltypes.Value {
	if !binaryWire(fields) {
		return rows
	}
	var out [][]sqltypes.Value
	for i, row := range rows {
		var cp []sqltypes.Value
		for j, v := range row {
			if w := BinaryInteger(BinaryTemporal(v)); string(w.Raw()) != string(v.Raw()) {
				if cp == nil {
					cp = append([]sqltypes.Value(nil), row...)
				}
				cp[j] = w
			}
		}
		if cp != nil {
			if out == nil {
				out = append([][]sqltypes.Value(nil), rows...)
			}
			out[i] = cp
		}
	}
	if out == nil {
		return rows
	}
	return out
}
