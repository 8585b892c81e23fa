package engine

import (
	"context"

	"github.com/shoaldb/shoal/observe"
	"github.com/shoaldb/shoal/replica"
	"vitess.io/vitess/go/sqltypes"
)

// Passthrough runs query verbatim on the session's replica connection and
// streams the replica's result — column definitions, rows, or error with
// its own code — to the client.
func (s *Engine) Passthrough(ctx context.Context, ss *Session, query string, callback func(*sqltypes.Result) error) error {
	ss.Kind = observe.KindPassthrough
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
