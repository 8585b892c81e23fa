package engine

import (
	"context"

	"github.com/shoaldb/shoal/engine/rowformat"
	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/mysql/collations/charset"
	"vitess.io/vitess/go/mysql/collations/colldata"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

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

func binaryRows(ctx context.Context) bool { b, _ := ctx.Value(binaryRowsKey{}).(bool); return b }

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

// toClient returns callback, converting what it is given to the
// client's character set when ctx carries one (WithClientCharset).
func toClient(ctx context.Context, callback func(*sqltypes.Result) error) func(*sqltypes.Result) error {
	id, ok := ctx.Value(clientCharsetKey{}).(collations.ID)
	if !ok {
		return callback
	}
	to := colldata.Lookup(id)
	if to == nil {
		return callback
	}
	var fields []*querypb.Field // as sent, converted
	return func(r *sqltypes.Result) error {
		if r.Fields != nil {
			fields = rowformat.ConvertFields(r.Fields, to)
			r = &sqltypes.Result{Fields: fields, Rows: r.Rows, RowsAffected: r.RowsAffected, InsertID: r.InsertID}
		}
		if len(r.Rows) > 0 && fields != nil {
			// New rows: the ones given may be a cached result's.
			rows := make([][]sqltypes.Value, len(r.Rows))
			for j, row := range r.Rows {
				out := make([]sqltypes.Value, len(row))
				for i, v := range row {
					out[i] = v
					if i < len(fields) && fields[i].Charset != rowformat.BinaryCollation && v.IsText() {
						b, _ := charset.Convert(nil, to.Charset(), v.Raw(), charset.Charset_utf8mb4{})
						out[i] = sqltypes.MakeTrusted(v.Type(), b)
					}
				}
				rows[j] = out
			}
			r = &sqltypes.Result{Fields: r.Fields, Rows: rows}
		}
		return callback(r)
	}
}
