package router

import (
	"context"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"vitess.io/vitess/go/sqltypes"

	"github.com/shoaldb/shoal/engine/replicaset"
	"github.com/shoaldb/shoal/observe"
	"github.com/shoaldb/shoal/planner"
	"github.com/shoaldb/shoal/sqlerr"
	"github.com/shoaldb/shoal/sqlparse"
)

// query classifies and runs one statement. callback hands every row it
// gets to the client unchanged (a caller may rename columns): a statement
// passed through unchanged (engine.Engine.PassthroughToClient) sends its
// rows to ctx's raw row writer instead, when it has one
// (rowformat.RawRows). Paths that read the rows call
// engine.Engine.Passthrough, which decodes them.
func (s *Router) query(ctx context.Context, ss *Session, query string, callback func(*sqltypes.Result) error) error {
	if ok, err := s.answerLastResult(ctx, ss, query, callback); ok { // lastresult.go
		return err
	}
	if ok, err := s.pinStatement(ctx, ss, query, callback); ok {
		ss.Kind = observe.KindLocal
		return err
	}
	if ss.TablesLocked() && releasesTableLocks(query) {
		err := s.eng.PassthroughToClient(ctx, &ss.Session, query, callback)
		ss.SetTablesLocked(err != nil)
		return err
	}
	if (ownDefaultsDiffer(ss, query) || ss.InTransaction() || ss.TablesLocked()) && readsOnly(query) {
		// In a transaction the client opened, reads run in it, on the
		// session's replica connection: they see its snapshot (REPEATABLE
		// READ, WITH CONSISTENT SNAPSHOT: mysqldump --single-transaction,
		// a report that reads several tables as of one moment), which
		// fragments on other connections would not. So do reads under
		// the table locks the session holds there (LOCK TABLES … READ:
		// mysqldump's default), as of the lock.
		return s.eng.PassthroughToClient(ctx, &ss.Session, query, callback)
	}
	ctx, pass := ss.charsetRoute(ctx, query) // charset.go
	if pass {
		return s.eng.PassthroughToClient(ctx, &ss.Session, query, callback)
	}
	// A statement seen before skips parsing and planning.
	if ok, err := s.eng.RunCached(ctx, &ss.Session, query, callback); ok {
		return err
	}
	var (
		stmts []ast.StmtNode
		perr  error
	)
	if sqlparse.LexDepth(query) > sqlparse.MaxDepth { // depth.go: not worth parsing here
		perr = sqlparse.ErrTooDeep
	} else {
		stmts, perr = sqlparse.Parse(query)
	}
	if perr != nil || len(stmts) != 1 {
		if len(stmts) > 1 {
			// Several statements from a client that did not enable
			// CLIENT_MULTI_STATEMENTS (with it, the server splits them
			// before they get here): the server's answer is its own
			// syntax error (1064, near the second statement, at its line).
			// The replica connections do not enable it either, so the
			// replica parses the text, refuses it and runs nothing.
			return s.eng.PassthroughToClient(ctx, &ss.Session, query, callback)
		}
		if isNamed(query) { // named.go
			if handled, err := (namedRunner{s}).runNamedExpr(ctx, ss, query, callback); handled { // namedexpr.go
				return err
			}
			return namedUnparsed(query)
		}
		kind, why := planner.ClassifyUnparsed(query)
		switch kind {
		case planner.Refuse:
			return sqlerr.ReadOnly(why)
		case planner.Unparsable:
			return sqlerr.Syntax(sqlparse.FirstToken(query))
		case planner.Set: // SET NAMES cp1251 and others the parser does not know
			return s.set(ctx, ss, query, callback)
		}
		return s.eng.PassthroughToClient(ctx, &ss.Session, query, callback)
	}
	stmt := stmts[0]
	kind, why := planner.Classify(stmt)
	switch kind {
	case planner.Refuse:
		return sqlerr.ReadOnly(why)
	case planner.Use:
		return s.use(ctx, ss, stmt.(*ast.UseStmt).DBName, callback)
	case planner.Set:
		return s.set(ctx, ss, query, callback)
	case planner.Select:
		sel := stmt.(*ast.SelectStmt)
		// information_schema.PROCESSLIST is the coordinator's sessions.
		if handled, err := s.eng.SelectProcesslist(ctx, &ss.Session, ss.id, sel, func() []observe.ProcRow { return s.processList(ss.user, nil, "") }, callback); handled {
			return err
		}
		return s.eng.RunSelect(ctx, &ss.Session, query, sel, callback)
	case planner.Explain:
		return s.eng.Explain(ctx, &ss.Session, query, stmt.(*ast.ExplainStmt), callback)
	case planner.Named:
		return namedRunner{s}.runNamed(ctx, ss, stmt, callback) // named.go
	case planner.LockRead:
		err := s.eng.PassthroughToClient(ctx, &ss.Session, query, callback)
		ss.SetTablesLocked(err == nil)
		return err
	}
	if u, ok := stmt.(*ast.SetOprStmt); ok {
		if handled, err := s.eng.RunUnion(ctx, &ss.Session, u, callback); handled {
			return err
		}
	}
	return s.eng.PassthroughToClient(ctx, &ss.Session, query, callback)
}

// set runs a session SET on the session's replica connection and
// remembers it (replayed when the connection is reopened).
func (s *Router) set(ctx context.Context, ss *Session, query string, callback func(*sqltypes.Result) error) error {
	if err := ss.AdmitSet(query); err != nil {
		return err
	}
	if err := s.eng.Passthrough(ctx, &ss.Session, query, callback); err != nil {
		return err
	}
	ss.RememberSet(query)
	return s.afterSet(ctx, ss, query) // charset.go
}

// mergeDefaults are the session variables whose default the fragments
// and the merge assume, each with the statements whose answer it changes.
// A session whose value differs from the server's (replicaset.Drift, read
// after each SET that names one: a SET back to DEFAULT distributes again)
// runs those statements on its replica, which has the session's own value.
var mergeDefaults = []struct {
	differs func(replicaset.Drift) bool
	affects func(query string) bool
}{
	// GROUP_CONCAT is cut at the default length, and its result metadata
	// (VARCHAR or TEXT, its length) is the default's.
	{func(d replicaset.Drift) bool { return d.ConcatLen }, func(q string) bool {
		return sqlparse.ContainsFold(q, "group_concat") || sqlparse.ContainsFold(q, "json_arrayagg") || sqlparse.ContainsFold(q, "json_objectagg")
	}},
	// A quotient, AVG and the STDDEV/VARIANCE family (STD, STDDEV_POP,
	// VAR_SAMP, …) are typed and printed with the default 4 more digits.
	{func(d replicaset.Drift) bool { return d.DivPrecision }, func(q string) bool {
		return strings.Contains(q, "/") || sqlparse.ContainsFold(q, "avg") ||
			sqlparse.ContainsFold(q, "std") || sqlparse.ContainsFold(q, "var")
	}},
}

// ownDefaultsDiffer reports whether the session set a variable of
// mergeDefaults that query depends on, or one that changes what a read
// returns (engine/replicaset/drift.go).
func ownDefaultsDiffer(ss *Session, query string) bool {
	d := ss.Drift()
	switch {
	case d.All:
		return true
	case d.TimeNames && (sqlparse.ContainsFold(query, "monthname") || sqlparse.ContainsFold(query, "dayname") ||
		sqlparse.ContainsFold(query, "date_format") || sqlparse.ContainsFold(query, "str_to_date")):
		return true // MONTHNAME, DAYNAME, DATE_FORMAT's %M %W %a %b
	case d.WeekFormat && sqlparse.ContainsFold(query, "week"):
		return true
	}
	for _, m := range mergeDefaults {
		if m.differs(d) && m.affects(query) {
			return true
		}
	}
	return false
}

// releasesTableLocks reports UNLOCK TABLES and the start of a
// transaction, which release the table locks a session holds.
func releasesTableLocks(query string) bool {
	stmts, err := sqlparse.Parse(query)
	if err != nil || len(stmts) != 1 {
		return false
	}
	switch stmts[0].(type) {
	case *ast.UnlockTablesStmt, *ast.BeginStmt:
		return true
	}
	return false
}

// readsOnly reports whether a statement is one the coordinator would
// answer or pass through anyway (a SELECT, EXPLAIN, UNION, SHOW, ...), so
// sending it to the replica changes nothing but who merges.
func readsOnly(query string) bool {
	stmts, err := sqlparse.Parse(query)
	if err != nil || len(stmts) != 1 {
		return false
	}
	switch k, _ := planner.Classify(stmts[0]); k {
	case planner.Select, planner.Explain, planner.Passthrough:
		return true
	}
	return false
}

func (s *Router) use(ctx context.Context, ss *Session, db string, callback func(*sqltypes.Result) error) error {
	if !s.eng.Snapshot().Schemas[db] {
		// The catalog may be older than the database: let the session's
		// replica decide with one statement (and answer 1049 itself)
		// rather than re-reading the whole catalog for every unknown name.
		if err := s.eng.Passthrough(ctx, &ss.Session, "USE "+sqlparse.QuoteID(db), callback); err != nil {
			return err
		}
		ss.DB = db
		return nil
	}
	ss.DB = db
	ss.leavesWarnings = true // as MariaDB's USE does
	return callback(&sqltypes.Result{})
}
