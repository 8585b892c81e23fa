package rowformat

import (
	"context"

	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/sqltypes"
)

// How a statement's rows go out, carried in its context: the protocol
// (text or binary) and the client's character set. The front ends set
// them; the engine's writers read them.

// binaryRowsKey marks a statement whose rows go out in the binary
// protocol (COM_STMT_EXECUTE).
type binaryRowsKey struct{}

// WithBinaryRows marks ctx's statement as answered in the binary protocol:
// a DOUBLE or FLOAT with fixed decimals (STDDEV, VARIANCE, DOUBLE(M,D))
// is then sent at full precision, as MySQL does there (the text protocol
// writes it with the column's decimals).
func WithBinaryRows(ctx context.Context) context.Context {
	return context.WithValue(ctx, binaryRowsKey{}, true)
}

// BinaryRows reports whether ctx's statement is answered in the binary
// protocol (WithBinaryRows).
func BinaryRows(ctx context.Context) bool { b, _ := ctx.Value(binaryRowsKey{}).(bool); return b }

// The client's character set. Shoal's own results (distributed, in
// memory, cached) are utf8mb4, as the coordinator reads them. A session
// whose connection character set is utf8mb3 (the mariadb CLI's default on
// Debian, for one) gets them converted as MariaDB converts a result for
// character_set_results: each text column's charset number becomes the
// connection charset's, its length is counted in that charset's bytes per
// character, and a character it cannot hold becomes '?'. Sessions with any
// other character set run their statements on a replica (the router);
// passthrough results come converted by the replica itself.

type clientCharsetKey struct{}

// WithClientCharset marks ctx's statement as answered to a client whose
// connection character set is cs (a collation id of its charset), not
// utf8mb4.
func WithClientCharset(ctx context.Context, cs collations.ID) context.Context {
	return context.WithValue(ctx, clientCharsetKey{}, cs)
}

// ToClientOf returns callback, converting what it is given to the
// client's character set when ctx carries one (WithClientCharset).
func ToClientOf(ctx context.Context, callback func(*sqltypes.Result) error) func(*sqltypes.Result) error {
	if id, ok := ctx.Value(clientCharsetKey{}).(collations.ID); ok {
		return ToClient(id, callback)
	}
	return callback
}

// Raw rows. A statement passed through unchanged gets its rows from the
// replica in the text protocol, each a packet the client would accept as
// is. Parsing each into values and writing them again cost as much as
// the replica's own scan: an export of 3M rows took 1.9x as long through
// the coordinator as directly. The MySQL front end therefore hands the
// statement a writer of row packets for the text protocol; a plain
// passthrough sends its column definitions through the callback as usual
// and relays each row packet to that writer as the replica sent it.

type rawRowsKey struct{}

// RawRows writes one text-protocol row packet to the client: its payload
// as the replica sent it, which the writer copies (the caller reuses it
// once the call returns). The writer may hold rows back to write them in
// batches; its front end sends them before anything else reaches the
// client.
type RawRows func(payload []byte) error

// WithRawRows gives ctx's statement a writer of raw row packets. Only a
// front end writing the text protocol to a MySQL client sets it, and only
// engine.Engine.PassthroughToClient uses it: its callers hand rows on
// unchanged. engine.Engine.Passthrough, for callers that read the rows,
// drops it (WithoutRawRows).
func WithRawRows(ctx context.Context, w RawRows) context.Context {
	return context.WithValue(ctx, rawRowsKey{}, w)
}

// WithoutRawRows makes every row of ctx's statement go through its
// callback.
func WithoutRawRows(ctx context.Context) context.Context {
	if RawRowsOf(ctx) == nil {
		return ctx
	}
	return context.WithValue(ctx, rawRowsKey{}, RawRows(nil))
}

// RawRowsOf returns ctx's raw row writer, nil when rows must go through
// the callback (the binary protocol, Flight SQL, a caller that reads them).
func RawRowsOf(ctx context.Context) RawRows {
	if BinaryRows(ctx) {
		return nil
	}
	w, _ := ctx.Value(rawRowsKey{}).(RawRows)
	return w
}
