package engine

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/engine/coldefs"
	"github.com/shoaldb/shoal/engine/derivedsql"
	"github.com/shoaldb/shoal/engine/proclist"
	"github.com/shoaldb/shoal/observe"
	"github.com/shoaldb/shoal/pinned"
	"github.com/shoaldb/shoal/pinned/pinexec"
	"github.com/shoaldb/shoal/planner"
	"github.com/shoaldb/shoal/sqlerr"
	"github.com/shoaldb/shoal/sqlparse"
)

// SELECT … FROM information_schema.PROCESSLIST lists the coordinator's
// sessions, the same ones SHOW PROCESSLIST shows, never a replica's
// threads (which would be the coordinator's and the workers' connections).
//
// The list is materialized for the one statement as an in-memory table
// under the name the client wrote, and the statement runs over it with
// the pinned-table engine (WHERE, ORDER BY, LIMIT, column lists,
// aggregates), as derived tables do (derived.go). The columns — names,
// types, order — are the replica's own information_schema.PROCESSLIST,
// described with LIMIT 0, so they match the MariaDB version behind Shoal;
// so is the result's metadata, which a replica describes over its own
// table. A statement the engine cannot run over it (a join, a subquery)
// fails with 1235 rather than listing the replica's threads.

// infoSchema and processlistName are the table's canonical spelling; the
// statement's reference is rewritten to it so the in-memory engine finds
// its table, keeping the name the client wrote as the alias.
const (
	infoSchema      = proclist.Schema
	processlistName = proclist.Name
)

// selectProcesslist runs sel when it reads information_schema.PROCESSLIST
// (handled false otherwise). It runs on the session's goroutine.
// SelectProcesslist answers a SELECT over information_schema.PROCESSLIST
// from list(), the sessions the asking account may see (the router's), in
// memory; list is called only for such a statement, so that every other
// SELECT does not pay for a walk of all sessions; connID is the asking session's id (CONNECTION_ID()). handled is false when sel does not read that table.
func (s *ephemeral) SelectProcesslist(ctx context.Context, ss *Session, connID uint32, sel *ast.SelectStmt, list func() []observe.ProcRow, callback func(*sqltypes.Result) error) (handled bool, err error) {
	refs := proclist.Refs(sel, ss.DB)
	if len(refs) == 0 {
		return false, nil
	}
	if len(refs) > 1 {
		return true, errProcesslistShape("it reads the table more than once")
	}
	tn := refs[0]
	if ts := derivedsql.TableSourceOf(sel); ts != nil && ts.Source == tn && ts.AsName.O == "" {
		ts.AsName = tn.Name
	}
	tn.Schema, tn.Name = ast.NewCIStr(infoSchema), ast.NewCIStr(processlistName)
	// WHERE ID = CONNECTION_ID(), the usual way to find one's own row:
	// the in-memory engine has no session, so the id is written in.
	sel.Accept(&derivedsql.ConnectionIDBinder{ID: connID})
	// The statement with LIMIT 0, for a replica to check should it not
	// run here; rendered before planning rewrites sel.
	limit := sel.Limit
	sel.Limit = &ast.Limit{Count: ast.NewValueExpr(0, "", "")}
	check, err := sqlparse.Restore(sel)
	sel.Limit = limit
	if err != nil {
		return true, err
	}
	base, err := s.processlistColumns(ctx)
	if err != nil {
		return true, err
	}
	t, err := s.processlistTable(base, list())
	if err != nil {
		return true, err
	}
	p, err := planner.PlanSelect(processlistCatalog{base: s.snap().Tables, t: t}, ss.DB, sel)
	var nd *planner.NotDistributed
	switch {
	case errors.As(err, &nd):
		return true, s.processlistRefusal(ctx, check, nd.Reason)
	case err != nil:
		return true, err
	case p.DB != infoSchema || p.Table != processlistName:
		return true, errProcesslistShape("it does not read information_schema.PROCESSLIST as its main table")
	}
	pr, err := s.prepareProcesslist(ctx, ss.DB, p, t)
	if err != nil {
		if _, ok := sqlerr.As(err); ok {
			return true, err
		}
		return true, s.processlistRefusal(ctx, check, err.Error())
	}
	ss.Kind = observe.KindLocal
	qid := strconv.FormatUint(s.ids.Next(), 10)
	_, err = s.merge.execute(ctx, pr, qid, newResultWriter(pr, callback))
	return true, err
}

// processlistRefusal is the error for a statement over PROCESSLIST that
// cannot run in memory: the replica's own error when the statement is
// wrong (an unknown column is 1054, as on MariaDB), else 1235 saying why.
// check is the statement with LIMIT 0: the replica resolves it, reads no
// rows.
func (s *ephemeral) processlistRefusal(ctx context.Context, check, why string) error {
	if metas := s.rep.OrderedMetas(); len(metas) > 0 {
		if _, err := coldefs.On(ctx, metas[0], check, 10); err != nil {
			if se, ok := sqlerr.As(err); ok && se.Num < 2000 { // the server's answer, not a CR_* client error
				return err
			}
		}
	}
	return errProcesslistShape(why)
}

func errProcesslistShape(why string) error {
	return sqlerr.New(sqlerr.ErrNotSupported, "42000",
		"Shoal answers SELECT over information_schema.PROCESSLIST from its own sessions and cannot run this one (%s); select from the table alone, with WHERE, ORDER BY, LIMIT or GROUP BY, or use SHOW FULL PROCESSLIST", why)
}

// processlistColumns returns the replica's information_schema.PROCESSLIST
// columns, described once per coordinator: a replica that hangs must not
// hang the statement an operator runs to see what hangs. Each replica is
// tried in turn (healthy ones first) for at most coldefs.Wait.
func (s *ephemeral) processlistColumns(ctx context.Context) ([]*querypb.Field, error) {
	if f := s.plColumns.Load(); f != nil {
		return *f, nil
	}
	var last error
	for _, pool := range s.rep.OrderedMetas() {
		fields, err := coldefs.On(ctx, pool, "SELECT * FROM information_schema.PROCESSLIST LIMIT 0", 10)
		if err == nil {
			s.plColumns.Store(&fields)
			return fields, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		last = err
	}
	return nil, sqlerr.Unavailable("no replica described information_schema.PROCESSLIST (its columns follow the replicas' server version): %v; SHOW FULL PROCESSLIST needs no replica", last)
}

// prepareProcesslist prepares p over the materialized list. A statement
// whose select list is columns of the table (or *) gets its metadata from
// the table's columns, with no replica round trip; others (expressions,
// aggregates) are described by a replica over its own PROCESSLIST.
func (s *ephemeral) prepareProcesslist(ctx context.Context, db string, p *planner.Plan, t *pinned.Table) (*prepared, error) {
	meta, ok1 := proclist.ColumnFields(p.MetaSQL, t.Fields)
	frag, ok2 := proclist.ColumnFields(strings.Replace(p.FragmentSQL, planner.RangeMarker, "FALSE", 1), t.Fields)
	if !ok1 || !ok2 || p.Aggregate {
		return s.prep.prepareInMemory(ctx, db, p, t, nil, coldefs.Query{}, func(string, string) (string, bool) { return "", false }, shapeRef{})
	}
	pr := &prepared{plan: p, fields: meta, fragFields: frag, estRows: -1}
	if err := pr.compileRows(); err != nil {
		return nil, err
	}
	prog, err := pinexec.Compile(s.env, t, strings.Replace(p.FragmentSQL, planner.RangeMarker, "TRUE", 1), pr.fragFields)
	if err != nil {
		return nil, err
	}
	pr.pin, pr.prog = t, prog
	return pr, nil
}

// processlistTable builds the in-memory table: one row per session, in
// the replica's columns. A column this version does not know (a later
// MariaDB's) is NULL.
func (s *ephemeral) processlistTable(fields []*querypb.Field, list []observe.ProcRow) (*pinned.Table, error) {
	rows := make([][]sqltypes.Value, 0, len(list))
	for _, r := range list {
		row := make([]sqltypes.Value, len(fields))
		for i, f := range fields {
			if v, ok := proclist.Value(strings.ToUpper(f.Name), r); ok {
				row[i] = sqltypes.MakeTrusted(f.Type, []byte(v))
			} else {
				row[i] = sqltypes.NULL
			}
		}
		rows = append(rows, row)
	}
	return pinned.FromRows(s.mem, infoSchema, processlistName, fields, rows)
}

// processlistCatalog is the replica catalog with the materialized list
// as information_schema.PROCESSLIST.
type processlistCatalog struct {
	base planner.Catalog
	t    *pinned.Table
}

func (c processlistCatalog) Table(db, name string) (*planner.Table, bool) {
	if db == infoSchema && name == processlistName {
		return pinCatalog{}.describe(db, name, c.t), true
	}
	return c.base.Table(db, name)
}
