package engine

import (
	"context"
	"slices"

	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/mysql/collations/colldata"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/engine/pinstore"
	"github.com/shoaldb/shoal/engine/rowformat"
	"github.com/shoaldb/shoal/replica"
	"github.com/shoaldb/shoal/sqlparse"
)

// A pin keeps each text column's own collation.
//
// A client on a utf8mb4 connection is told that every text column is
// utf8mb4_general_ci, whatever its own collation, and gets its values
// converted to utf8mb4; the distributed scan that loads a pin reads them
// that way too. But the pin is what the in-memory engine groups, compares
// and sorts, so its columns must say what a replica compares by: the
// column's own collation (utf8mb4_bin keeps 'b' and 'B' apart,
// utf8mb4_unicode_ci makes 'ß' equal 'ss'). A statement over the pin
// still takes its result column definitions from a replica
// (engine/coldefs).
//
// The pin holds every text value as utf8mb4, which is the column's own
// encoding for utf8mb4, utf8mb3 and ascii. A column in another character
// set (latin1) says so too, with utf8mb4 bytes: the in-memory engine
// refuses to read it (pinexec's modeled), and statements that do run on
// the replicas, as over an unpinned table.

// realCols is a pin's Rows whose columns carry their own collations:
// it replaces the collation of each text column as it arrives
// (converted) by the one real gives; the values are unchanged.
type realCols struct {
	pinstore.Rows
	real []*querypb.Field // nil: keep the columns as they arrive
	set  bool             // Fields was called: later calls are the Rows' to ignore
}

func (r *realCols) Fields(fs []*querypb.Field) error {
	if r.set || r.real == nil || len(r.real) != len(fs) {
		r.set = true
		return r.Rows.Fields(fs)
	}
	r.set = true
	out := make([]*querypb.Field, len(fs))
	for i, f := range fs {
		out[i] = f
		if g := r.real[i]; rowformat.CharField(f) && rowformat.CharField(g) && g.Charset != f.Charset {
			c := f.CloneVT()
			c.Charset = g.Charset
			out[i] = c
		}
	}
	return r.Rows.Fields(out)
}

// unconverted describes sql (a statement that returns no rows) with
// each text column's own collation and charset
// (replica.Conn.FetchUnconverted); nil when that fails, and the pin then
// keeps the columns as a client sees them.
func (s *preparer) unconverted(ctx context.Context, db, sql string) []*querypb.Field {
	var out []*querypb.Field
	err := s.rep.OnMeta(ctx, func(b *replica.Conn) error {
		if err := b.Use(db); err != nil {
			return err
		}
		r, err := b.FetchUnconverted(sql, 0)
		if err != nil {
			return err
		}
		out = r.Fields
		return nil
	})
	if err != nil {
		s.log.Debug("pin columns described as converted", "sql", sqlparse.Truncate(sql, 120), "err", err)
		return nil
	}
	return out
}

// ownCollations is pr's result columns with the collation each text
// column is computed in (a utf8mb4_bin key stays utf8mb4_bin), for a
// derived table held in memory: like a pin, what the outer statement
// groups, joins and compares must be the server's collation, not the
// utf8mb4_general_ci a client is told. Only collations of utf8mb4 are
// taken (a side in another character set passes through: recodedSide).
func ownCollations(pr *prepared) []*querypb.Field {
	out := pr.fields
	for i, f := range pr.fields {
		if !rowformat.CharField(f) {
			continue
		}
		var own uint32
		switch {
		case pr.plan.Aggregate && i < len(pr.outputs):
			own = uint32(pr.outputs[i].Collation())
		case !pr.plan.Aggregate && i < len(pr.fragFields) && rowformat.CharField(pr.fragFields[i]):
			own = pr.fragFields[i].Charset
		}
		if own == 0 || own == f.Charset {
			continue
		}
		if c := colldata.Lookup(collations.ID(own)); c == nil || c.Charset().Name() != "utf8mb4" {
			continue
		}
		if &out[0] == &pr.fields[0] {
			out = slices.Clone(pr.fields)
		}
		c := f.CloneVT()
		c.Charset = own
		out[i] = c
	}
	return out
}
