package router

import (
	"context"
	"github.com/shoaldb/shoal/planner/conncoll"

	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/mysql/collations/colldata"

	"github.com/shoaldb/shoal/engine/replicaset"
	"github.com/shoaldb/shoal/engine/rowformat"
	"github.com/shoaldb/shoal/sqlparse"
)

// The client's character set.
//
// A client chooses its connection character set at the handshake (the
// mariadb CLI on Debian asks for utf8mb3, a Latin-1 application for
// latin1) and may change it with SET NAMES or SET CHARACTER SET. MariaDB
// then reads its statements in that charset and sends results converted
// to it, with the column definitions to match. The coordinator reads and
// merges utf8mb4, so:
//
//   - the session's replica connection gets the same SET NAMES, so
//     passthrough statements are answered by the replica as they would be
//     directly;
//   - on a utf8mb3 connection (a subset of utf8mb4: its statements are
//     read the same) Shoal's own results are converted as MariaDB converts
//     them (engine.WithClientCharset);
//   - on any other, statements that read run on the replica: their text is
//     not utf8mb4, so Shoal could not plan them as written.

// SetClientCharset records the character set the client negotiated at the
// handshake (a collation id); a connection whose charset is not utf8mb4
// replays it on its replica connection.
func (ss *Session) SetClientCharset(id collations.ID) {
	ss.charset, ss.charsetID, ss.resultsID, ss.connCollated = "", 0, 0, false // a reset session's SET NAMES are gone
	c := colldata.Lookup(id)
	if c == nil {
		return
	}
	name := c.Charset().Name()
	if name == "utf8mb4" {
		// Another collation than the one Shoal's own results carry
		// (utf8mb4_unicode_ci from Connector/J or a driver's collation
		// option): MariaDB names it in every text column it sends and
		// compares the connection's literals under it. Ids from 255 up
		// are MySQL 8's, which MariaDB does not know and replaces with
		// its default, as Shoal's results already carry.
		if id != utf8mb4Default && id < 255 {
			ss.resultsID, ss.connCollated = id, true
			ss.RememberSet("SET NAMES utf8mb4 COLLATE " + c.Name())
		}
		return
	}
	ss.charset, ss.charsetID = name, id
	ss.RememberSet("SET NAMES " + name)
}

// utf8mb4Default is the utf8mb4 collation a fresh MariaDB connection's
// results name (utf8mb4_general_ci), as Shoal's own results do.
const utf8mb4Default collations.ID = 45

// afterSet re-reads the session's character set after a SET that may
// change it (SET NAMES, SET CHARACTER SET, SET character_set_...).
func (s *Router) afterSet(ctx context.Context, ss *Session, query string) error {
	if replicaset.NamesDriftVar(query) {
		if err := s.eng.Replicas().ReadDrift(ctx, &ss.Session); err != nil {
			return err
		}
	}
	if !sqlparse.ContainsFold(query, "names") && !sqlparse.ContainsFold(query, "character") && !sqlparse.ContainsFold(query, "collation") {
		return nil
	}
	name, results, conn, err := s.eng.Replicas().ReadCharset(ctx, &ss.Session)
	if err != nil {
		return err
	}
	ss.charset, ss.charsetID, ss.resultsID = name, 0, 0
	ss.connCollated = name != "mixed" && conn != connDefault(name)
	switch {
	case name == "":
		if results != 0 && results != utf8mb4Default && colldata.Lookup(results) != nil {
			ss.resultsID = results
		}
	case name != "mixed":
		ss.charsetID = collations.MySQL8().DefaultCollationForCharset(name)
		if c := colldata.Lookup(results); c != nil && c.Charset().Name() == name {
			ss.charsetID = results // SET NAMES utf8mb3 COLLATE utf8mb3_unicode_ci: 192
		}
	}
	return nil
}

// connDefault is the collation_connection of a fresh connection in the
// session's character set ("" for utf8mb4), as the workers' and the
// merge's literals are collated.
func connDefault(name string) string {
	if name == "" || name == "utf8" {
		name = map[string]string{"": "utf8mb4", "utf8": "utf8mb3"}[name]
	}
	return name + "_general_ci"
}

// charsetRoute applies the session's character set to one statement: ctx
// marked for converted results on a utf8mb3 connection, or pass true when
// the statement must run on the replica.
func (ss *Session) charsetRoute(ctx context.Context, query string) (context.Context, bool) {
	if ss.connCollated && connectionCollated(query) {
		return ctx, readsOnly(query)
	}
	switch ss.charset {
	case "":
		if ss.resultsID != 0 {
			// utf8mb4 under another collation: the same text, column
			// definitions naming that collation.
			return rowformat.WithClientCharset(ctx, ss.resultsID), false
		}
		return ctx, false
	case "utf8mb3", "utf8":
		if ss.charsetID != collations.Unknown {
			return rowformat.WithClientCharset(ctx, ss.charsetID), false
		}
	}
	return ctx, readsOnly(query)
}

// connectionCollated reports whether query compares text under the
// connection's collation (conncoll.Collated): such a statement
// of a session with another collation_connection than its charset's
// default runs on its replica, which has the session's.
func connectionCollated(query string) bool {
	stmts, err := sqlparse.Parse(query)
	if err != nil || len(stmts) != 1 {
		return false
	}
	return conncoll.Collated(stmts[0])
}
