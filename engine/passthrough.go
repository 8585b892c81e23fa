package engine

import (
	"context"

	"github.com/shoaldb/shoal/engine/rowformat"
	"github.com/shoaldb/shoal/observe"
	"github.com/shoaldb/shoal/replica"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// Passthrough runs query verbatim on the session's replica connection and
// streams the replica's result — column definitions, rows, or error with
// its own code — to the client.
func (s *Engine) Passthrough(ctx context.Context, ss *Session, query string, callback func(*sqltypes.Result) error) error {
	ss.Kind = observe.KindPassthrough
	query = s.overPins(ss.DB, query)
	st, stop, err := s.rep.StartPassthrough(ctx, ss, query)
	if err != nil {
		return err
	}
	defer func() {
		if stop() {
			ss.CloseBackend() // KILLed: the connection's state is unknown
		}
	}()
	defer func() {
		if st.Close() != nil {
			ss.CloseBackend()
		}
	}()
	fields := st.Fields()
	if len(fields) == 0 {
		return callback(&sqltypes.Result{})
	}
	if rowformat.BinaryRows(ctx) && rowformat.FixedFloats(fields) {
		if err := st.Close(); err != nil {
			return err
		}
		return s.passBinary(ctx, ss, query, fields, callback)
	}
	if err := callback(&sqltypes.Result{Fields: fields}); err != nil {
		return err
	}
	// Rows grow by append up to a chunk: most passthrough statements
	// return one row or a few, and a chunk's worth of row headers (6 KB)
	// allocated up front per statement was most of their garbage.
	var rows [][]sqltypes.Value
	for {
		if ctx.Err() != nil {
			ss.CloseBackend()
			return ctx.Err()
		}
		row, err := st.Next()
		if err != nil {
			if replica.Broken(err) {
				ss.CloseBackend()
			}
			return err
		}
		if row == nil {
			break
		}
		rows = append(rows, row)
		if len(rows) == chunkRows {
			if err := callback(&sqltypes.Result{Rows: rows}); err != nil {
				return err
			}
			rows = make([][]sqltypes.Value, 0, chunkRows) // a large result: chunks from here on
		}
	}
	if len(rows) > 0 {
		return callback(&sqltypes.Result{Rows: rows})
	}
	return nil
}

// passBinary is Passthrough for a prepared statement whose columns
// (fields) include a DOUBLE with fixed decimals: run as a prepared
// statement on the session's replica, so that its every bit reaches the
// binary protocol (replicaset.Set.StartBinary).
func (s *Engine) passBinary(ctx context.Context, ss *Session, query string, fields []*querypb.Field, callback func(*sqltypes.Result) error) error {
	ss.Kind = observe.KindPassthrough
	if err := callback(&sqltypes.Result{Fields: fields}); err != nil {
		return err
	}
	return s.rep.StartBinary(ctx, ss, query, fields, chunkRows, func(rows [][]sqltypes.Value) error {
		return callback(&sqltypes.Result{Rows: rows})
	})
}
