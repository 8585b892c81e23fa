package engine

import (
	"context"

	"github.com/shoaldb/shoal/engine/rowformat"
	"github.com/shoaldb/shoal/observe"
	"github.com/shoaldb/shoal/replica"
	"github.com/shoaldb/shoal/sqlparse"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// Passthrough runs query verbatim on the session's replica connection and
// streams the replica's result — column definitions, rows, or error with
// its own code — to the client.
func (s *Engine) Passthrough(ctx context.Context, ss *Session, query string, callback func(*sqltypes.Result) error) error {
	return s.PassthroughToClient(rowformat.WithoutRawRows(ctx), ss, query, callback)
}

// PassthroughToClient is Passthrough for a callback that hands every row
// to the client unchanged: the rows then go to ctx's raw row writer when
// it has one (rowformat.RawRows), as the replica sent them, and only the
// column definitions through callback.
func (s *Engine) PassthroughToClient(ctx context.Context, ss *Session, query string, callback func(*sqltypes.Result) error) error {
	raw := rowformat.RawRowsOf(ctx)
	ss.Kind = observe.KindPassthrough
	query = s.overPins(ss.DB, query)
	if ss.StaleWarnings() && sqlparse.ContainsFold(query, "warning") {
		// SHOW WARNINGS, SHOW COUNT(*) WARNINGS, @@warning_count after a
		// statement Shoal answered itself: not an earlier statement's.
		s.rep.ClearWarnings(ctx, ss)
	}
	st, stop, err := s.rep.StartPassthrough(ctx, ss, query)
	if err != nil {
		ss.SetWarnings(0)
		return err
	}
	// Registered first, run last: after the stream is read to its end.
	defer func() {
		ss.SetWarnings(st.Warnings())
		if f, ok := st.Status(); ok {
			ss.SetStatus(f, query)
		}
	}()
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
		// vitess writes the OK packet, warning count included, from
		// within the callback: the count must be this statement's by
		// then (the stream read it with the OK packet).
		ss.SetWarnings(st.Warnings())
		if f, ok := st.Status(); ok {
			ss.SetStatus(f, query)
		}
		// The OK packet's counts as the replica gave them: SELECT … INTO
		// @var reports the rows it selected.
		return callback(&sqltypes.Result{RowsAffected: st.RowsAffected(), InsertID: st.InsertID()})
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
	if raw != nil {
		n, err := relayRows(ctx, ss, st, raw)
		s.metrics.RowsRelayed.Add(float64(n))
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
		if len(rows) == rowformat.ChunkRows {
			if err := callback(&sqltypes.Result{Rows: rows}); err != nil {
				return err
			}
			rows = make([][]sqltypes.Value, 0, rowformat.ChunkRows) // a large result: chunks from here on
		}
	}
	if len(rows) > 0 {
		return callback(&sqltypes.Result{Rows: rows})
	}
	return nil
}

// relayRows sends st's rows to raw as the replica sent them.
// It returns how many it sent.
func relayRows(ctx context.Context, ss *Session, st *replica.Stream, raw rowformat.RawRows) (int, error) {
	for n := 0; ; n++ {
		if n%256 == 0 && ctx.Err() != nil {
			ss.CloseBackend()
			return n, ctx.Err()
		}
		pkt, err := st.NextRaw()
		if err != nil {
			if replica.Broken(err) {
				ss.CloseBackend()
			}
			return n, err
		}
		if pkt == nil {
			return n, nil
		}
		if err := raw(pkt); err != nil {
			return n, err
		}
	}
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
	return s.rep.StartBinary(ctx, ss, query, fields, rowformat.ChunkRows, func(rows [][]sqltypes.Value) error {
		return callback(&sqltypes.Result{Rows: rows})
	})
}
