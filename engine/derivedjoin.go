package engine

import (
	"context"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/mysql/collations/charset"
	"vitess.io/vitess/go/mysql/collations/colldata"
	"vitess.io/vitess/go/sqltypes"

	"github.com/shoaldb/shoal/engine/derivedsql"
	"github.com/shoaldb/shoal/engine/rowformat"
	"github.com/shoaldb/shoal/planner"
	"github.com/shoaldb/shoal/sqlparse"
)

// Joins of derived tables and CTEs over distributed aggregates (the
// ClickHouse OnTime Q5–Q7 shape):
//
//	SELECT … FROM (SELECT k, count(*) c FROM t WHERE … GROUP BY k) a
//	  JOIN (SELECT k, count(*) c2 FROM t GROUP BY k) b USING (k) …
//
// Each side runs distributed and is held in memory as
// derivedSchema.<alias>; the outer statement, with every side replaced by
// its ephemeral table (aliases kept), is a join of in-memory tables: the
// pinned engine's hash join runs it. Inner, comma/CROSS and LEFT joins
// with ON or USING; NATURAL and RIGHT joins, a side that is not an
// aggregate that distributes, a replica table among the sides, a side
// with text in another character set than utf8mb4 (held as utf8mb4, it
// would be compared under the wrong collation), and anything the rewrite
// below cannot prove the same pass through.

// planDerivedJoin is planDerived for a FROM that joins derived tables or
// CTEs; nil when sel is not such a statement or a side does not
// distribute.
func (s *ephemeral) planDerivedJoin(ctx context.Context, ss *Session, sel *ast.SelectStmt) *derivedPlan {
	if sel.From == nil || sel.From.TableRefs == nil || sel.From.TableRefs.Right == nil {
		return nil
	}
	if sel.With != nil && sel.With.IsRecursive {
		return nil
	}
	if planner.NameFields(sel) != nil {
		return nil
	}
	outer, ok := derivedsql.Reparse(derivedsql.Restore(sel))
	if !ok {
		return nil
	}
	leaves, ok := derivedsql.JoinLeaves(outer)
	if !ok {
		return nil
	}
	for _, l := range leaves {
		l.TS.Source = &ast.TableName{Schema: ast.NewCIStr(derivedSchema), Name: ast.NewCIStr(l.Alias)}
		l.TS.AsName = ast.NewCIStr(l.Alias)
	}
	outer.With = nil
	if derivedsql.HasSubquery(outer) {
		return nil // a subquery could name a CTE, or correlate
	}
	d := &derivedPlan{}
	cols := map[string][]string{}
	for _, l := range leaves {
		side, ok := s.planSide(ctx, ss, l.InnerSQL, l.Alias)
		if !ok {
			return nil
		}
		if recodedSide(side.inner) {
			// Held as utf8mb4 text, the outer statement would compare and
			// sort it under a utf8mb4 collation, not its own.
			s.log.Debug("derived join passes through: a side reads text that is not utf8mb4", "side", l.Alias)
			return nil
		}
		side.nullable = l.Nullable
		d.sides = append(d.sides, side)
		for _, f := range side.inner.fields {
			cols[l.Alias] = append(cols[l.Alias], f.Name)
		}
	}
	if !derivedsql.RewriteUsing(outer, cols) {
		return nil
	}
	var err error
	if d.outerSQL, err = sqlparse.Restore(outer); err != nil {
		return nil
	}
	return d
}

// recodedSide reports whether pr reads or returns text in another
// character set than utf8mb4, or of a collation Shoal does not know.
func recodedSide(pr *prepared) bool {
	for _, c := range append(append([]charset.Charset(nil), pr.recode...), pr.outFrom...) {
		if c != nil {
			return true
		}
	}
	for _, f := range pr.fields {
		if sqltypes.IsText(f.Type) && f.Charset != rowformat.BinaryCollation && colldata.Lookup(collations.ID(f.Charset)) == nil {
			return true
		}
	}
	return false
}
