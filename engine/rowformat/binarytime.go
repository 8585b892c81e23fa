package rowformat

import (
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

// HasTemporal reports whether a column of fields is a TIME, DATETIME or
// TIMESTAMP, whose values BinaryTemporal may cut.
func HasTemporal(fields []*querypb.Field) bool {
	for _, f := range fields {
		switch f.Type {
		case sqltypes.Time, sqltypes.Datetime, sqltypes.Timestamp:
			return true
		}
	}
	return false
}

// BinaryTemporalRows returns rows with BinaryTemporal applied to every
// value; the rows that change are copied (the caller's rows may be
// shared: a cached answer written to text-protocol clients too).
func BinaryTemporalRows(fields []*querypb.Field, rows [][]sqltypes.Value) [][]sqltypes.Value {
	if !HasTemporal(fields) {
		return rows
	}
	var out [][]sqltypes.Value
	for i, row := range rows {
		var cp []sqltypes.Value
		for j, v := range row {
			if w := BinaryTemporal(v); len(w.Raw()) != len(v.Raw()) {
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
