package rowformat

import (
	"sync/atomic"

	"vitess.io/vitess/go/mysql/collations/charset"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// Writer streams a result to the client: the column definitions once,
// then rows in chunks, each value conformed to its column's MySQL type
// (Text, or Binary for COM_STMT_EXECUTE).
type Writer struct {
	Fields []*querypb.Field
	// OutFrom[i], when set, is the charset column i's values are in,
	// converted to the column's own when sent (RecodeOut).
	OutFrom  []charset.Charset
	Callback func(*sqltypes.Result) error
	Binary   bool // rows go out in the binary protocol (WithBinaryRows)
	// Sent: the column definitions went out.
	Sent bool
	// started is Sent for readers on other goroutines (Started).
	started atomic.Bool
	buf     [][]sqltypes.Value
	// Rows counts the rows added.
	Rows int64
}

// ChunkRows is how many rows a Writer (and a relay) sends in one callback.
const ChunkRows = 256

// Started reports whether anything was sent; safe from any goroutine.
func (w *Writer) Started() bool { return w.started.Load() }

func (w *Writer) header() error {
	if w.Sent {
		return nil
	}
	w.Sent = true
	w.started.Store(true)
	return w.Callback(&sqltypes.Result{Fields: w.Fields})
}

// Add queues one output row: its first len(Fields) values, conformed in
// place (the caller hands the row over).
func (w *Writer) Add(row []sqltypes.Value) error {
	out := row[:len(w.Fields):len(w.Fields)]
	for i, f := range w.Fields {
		if i < len(w.OutFrom) && w.OutFrom[i] != nil && !out[i].IsNull() {
			out[i] = RecodeOut(out[i], w.OutFrom[i], f)
		}
		if w.Binary {
			out[i] = Binary(out[i], f)
		} else {
			out[i] = Text(out[i], f)
		}
	}
	w.buf = append(w.buf, out)
	w.Rows++
	if len(w.buf) >= ChunkRows {
		return w.Flush()
	}
	return nil
}

// Flush sends the column definitions if not yet sent, and the rows
// queued.
func (w *Writer) Flush() error {
	if err := w.header(); err != nil {
		return err
	}
	if len(w.buf) == 0 {
		return nil
	}
	err := w.Callback(&sqltypes.Result{Rows: w.buf})
	w.buf = nil
	return err
}
