package mysqlwire

import (
	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/router"
)

// Nullability of columns computed from parameters.
//
// MariaDB describes an execution's columns as it fixed the statement at
// prepare, where every parameter may be NULL: CAST(? AS SIGNED),
// LENGTH(?), Distance < ? are nullable whatever is bound. Shoal runs each
// execution with its values bound as literals, of which the replica says
// NOT NULL: mysqli's fetch_fields, DBI's NULLABLE and ODBC's nullable
// told a client otherwise than MariaDB. The prepare's own answer
// (ComPrepare: the statement with NULL for every parameter, as MariaDB
// types it) has the nullability MariaDB gives, so a column that answer
// says nullable is sent nullable at every execution. A bare parameter
// (SELECT ?) is the exception: MariaDB describes it by the value bound.

// preparedFields are the columns ComPrepare answered for query on c's
// session (from the plan cache; nil when it no longer holds them).
func (h *handler) preparedFields(c *mysql.Conn, query string) []*querypb.Field {
	ss, ok := c.ClientData.(*router.Session)
	if !ok {
		return nil
	}
	fields, _, ok := h.r.Engine().CachedPrepare(ss.DB, query)
	if !ok {
		return nil
	}
	return fields
}

// paramNullable returns fields with NOT_NULL cleared on each column that
// prepared, the prepare's columns, says nullable (the same columns by
// name and position); the fields changed are copies.
func paramNullable(fields, prepared []*querypb.Field) []*querypb.Field {
	if len(fields) != len(prepared) {
		return fields
	}
	const notNull = uint32(querypb.MySqlFlag_NOT_NULL_FLAG)
	var out []*querypb.Field
	for i, f := range fields {
		p := prepared[i]
		// A column of NULL type at prepare is a bare parameter (SELECT ?),
		// which MariaDB types by the value bound: it keeps the execution's.
		if f.Flags&notNull == 0 || p.Flags&notNull != 0 || p.Name != f.Name || p.Type == sqltypes.Null {
			continue
		}
		if out == nil {
			out = append([]*querypb.Field(nil), fields...)
		}
		out[i] = f.CloneVT()
		out[i].Flags &^= notNull
	}
	if out == nil {
		return fields
	}
	return out
}
