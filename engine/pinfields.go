package engine

import (
	"context"

	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/engine/rowformat"
	"github.com/shoaldb/shoal/replica"
	"github.com/shoaldb/shoal/sqlparse"
)

// unconverted describes sql (a statement that returns no rows) with
// each text column's own collation and charset
// (replica.Conn.FetchUnconverted), for a pin's columns
// (pinstore.OwnCollations); nil when that fails, and the pin then keeps
// the columns as a client sees them.
func (s *preparer) unconverted(ctx context.Context, db, sql string) []*querypb.Field {
	var out []*querypb.Field
	err := s.rep.OnMeta(ctx, func(b *replica.Conn) error {
		if err := b.Use(db); err != nil {
			return err
		}
		r, err := b.FetchUnconverted(sql, 0)
		if err == nil {
			out = r.Fields
		}
		return err
	})
	if err != nil {
		s.log.Debug("pin columns described as converted", "sql", sqlparse.Truncate(sql, 120), "err", err)
		return nil
	}
	return out
}

// ownCollations is pr's result columns with the collation each text
// column is computed in (a utf8mb4_bin key stays utf8mb4_bin), for a
// derived table held in memory: as over a pin (pinstore.OwnCollations),
// what the outer statement groups, joins and compares by must be the
// server's collation. A side in another character set than utf8mb4
// passes through (recodedSide).
func ownCollations(pr *prepared) []*querypb.Field {
	return rowformat.OwnCollations(pr.fields, func(i int) uint32 {
		switch {
		case pr.plan.Aggregate && i < len(pr.outputs):
			return uint32(pr.outputs[i].Collation())
		case !pr.plan.Aggregate && i < len(pr.fragFields) && rowformat.CharField(pr.fragFields[i]):
			return pr.fragFields[i].Charset
		}
		return 0
	}, true)
}
