package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/shoaldb/shoal/planner"
	"github.com/shoaldb/shoal/replica"
	"github.com/shoaldb/shoal/sqlerr"
	"github.com/shoaldb/shoal/sqlparse"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// Metadata of prepared statements (COM_STMT_PREPARE): the result columns a
// statement announces, read from a replica once per catalog generation and
// cached with the plans.

// CachedPrepare returns the cached parameter count and result columns of
// query prepared in database db (shared: clone before handing them out).
func (s *Engine) CachedPrepare(db, query string) (fields []*querypb.Field, params uint16, ok bool) {
	e, ok := s.plans.get(prepareKey(db, query), s.snap.Load().Gen)
	if !ok {
		return nil, 0, false
	}
	return e.fields, e.params, true
}

// CachePrepare remembers the metadata of query prepared in db for the
// current catalog generation.
func (s *Engine) CachePrepare(db, query string, fields []*querypb.Field, params uint16) {
	s.plans.put(prepareKey(db, query), &cacheEntry{gen: s.snap.Load().Gen, params: params, fields: fields})
}

// MetadataQuery classifies a statement as a text query would be and
// returns the statement that gives its result columns ("" when there is
// none cheap to run), or the error the statement would get.
func MetadataQuery(text string) (string, error) {
	stmts, perr := sqlparse.Parse(text)
	if perr != nil || len(stmts) != 1 {
		if len(stmts) > 1 {
			return "", sqlerr.New(sqlerr.ErrNotSupported, "42000", "Shoal runs one statement per query; send the statements separately")
		}
		switch kind, why := planner.ClassifyUnparsed(text); kind {
		case planner.Refuse:
			return "", sqlerr.ReadOnly(why)
		case planner.Unparsable:
			return "", sqlerr.Parse(fmt.Sprintf("You have an error in your SQL syntax; check the manual that corresponds to your MariaDB/MySQL server version for the right syntax to use near '%s'", sqlparse.Truncate(text, 80)))
		}
		return "", nil
	}
	kind, why := planner.Classify(stmts[0])
	switch kind {
	case planner.Refuse:
		return "", sqlerr.ReadOnly(why)
	case planner.Named:
		return "", sqlerr.New(sqlerr.ErrUnsupportedPS, "HY000", "This command is not supported in the prepared statement protocol yet")
	}
	// The statement's own text (column names are the client's expressions)
	// with LIMIT 0 appended: only when it has no LIMIT, INTO or locking
	// clause of its own.
	switch s := stmts[0].(type) {
	case *ast.SelectStmt:
		if s.Limit != nil || s.SelectIntoOpt != nil || s.LockInfo != nil && s.LockInfo.LockType != ast.SelectLockNone {
			return "", nil
		}
	case *ast.SetOprStmt:
		if s.Limit != nil {
			return "", nil
		}
	default:
		return "", nil
	}
	body := strings.TrimRight(text, " \t\r\n;")
	return body + "\nLIMIT 0", nil
}

// Describe runs meta on the session's replica connection and returns its
// columns, or nil if it fails: the columns of COM_STMT_PREPARE are
// advisory, clients read the real ones from each execution.
func (s *Engine) Describe(ctx context.Context, ss *Session, meta string) []*querypb.Field {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	b, err := s.rep.sessionBackend(ctx, ss)
	if err != nil {
		return nil
	}
	if err := b.Use(ss.DB); err != nil {
		if replica.Broken(err) {
			ss.CloseBackend()
		}
		return nil
	}
	res, err := b.Fetch(meta, 0)
	if err != nil {
		if replica.Broken(err) {
			ss.CloseBackend()
		}
		return nil
	}
	return res.Fields
}

// OnReplica runs fn on a read-only connection to a healthy replica of its
// own (with the floor and KILL handling of passthrough not needed: fn
// reads metadata), closed afterwards.
func (s *Engine) OnReplica(ctx context.Context, fn func(*replica.Conn) error) error {
	ss := &Session{}
	defer ss.CloseBackend()
	b, err := s.rep.sessionBackend(ctx, ss)
	if err != nil {
		return err
	}
	return fn(b)
}
