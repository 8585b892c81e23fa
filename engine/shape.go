package engine

import (
	"context"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/engine/catalog"
	"github.com/shoaldb/shoal/engine/coldefs"
	"github.com/shoaldb/shoal/engine/route"
	"github.com/shoaldb/shoal/planner"
	"github.com/shoaldb/shoal/pushdown"
	"github.com/shoaldb/shoal/sqlparse"
)

// The literal-normalized statement cache. A dashboard or an application
// sends the same statement with new values again and again: the text
// cache (plancache.go) misses every time. Statements are also cached by
// their shape, sqlparse.Digest: the text with the literals of the WHERE
// clause and of LIMIT replaced by typed markers. What a shape holds is
// what stays true for any values in their place:
//
//   - pass: the statement runs on one replica for the keys it lists on
//     the primary key (route.ByCost's listed): a statement of the shape
//     passes through with neither parsing nor planning;
//   - window: the statement's key window on a unique integer primary key
//     is its two literals, [first, second] (`id BETWEEN 10 AND 209`): a
//     statement of the shape whose two literals span fewer keys than
//     route_small_rows reads at most that many rows, and passes through
//     unparsed like a listed one; a wider window is planned;
//   - the result's and the fragment's columns (the LIMIT 0 describe
//     round trip): the select list, GROUP BY, HAVING and ORDER BY are
//     the shape's own text, and WHERE values and LIMIT counts decide no
//     column. The statement is still planned with its own literals —
//     key window, LIMIT, ORDER BY positions bound from its text — and
//     the columns are reused only when the new plan's select lists are
//     the described plan's, character for character;
//   - the replica optimizer's estimates (routing, row-plan sizing),
//     cached per shape as performance_schema digests would.
//
// Shapes belong to one catalog and pins generation, like plans.

// shapeInfo is what one shape's statements share. Entries are replaced,
// never changed.
type shapeInfo struct {
	pass string
	// window: the key window is the shape's two integer literals, in
	// order; windowMax is the widest window (hi - lo) that passes.
	window    bool
	windowMax uint64
	// fields and fragFields are the described columns of a plan whose
	// select lists are metaHead and fragHead.
	fields, fragFields []*querypb.Field
	metaHead, fragHead string
	described          bool
	// estRows is the row-plan estimate (prepare.go estimateRows).
	estRows   int64
	estimated bool
	// access is the optimizer's access for routing (package engine/route).
	access   route.Access
	accessOK bool
	explored bool
}

// shape returns the shape cached under key for the current generation.
func (s *preparer) shape(key string) *shapeInfo {
	if key == "" {
		return nil
	}
	e, ok := s.plans.get(key, s.generation())
	if !ok {
		return nil
	}
	return e.shape
}

// shapeRef names a shape: its cache key and the tables its statements
// read, with their versions (catalog.Snapshot.Deps), which the entry
// depends on.
type shapeRef struct {
	key  string
	deps []catalog.Dep
}

// shapeOf is the shape of query in db under key (route.ShapeKey or
// pinshape.Key; "" when it has none); sel is query parsed.
func (s *preparer) shapeOf(key, db string, sel ast.Node) shapeRef {
	if key == "" {
		return shapeRef{}
	}
	return shapeRef{key: key, deps: s.snap().Deps(planner.TableRefs(sel, db))}
}

// updateShape replaces the shape sk with f applied to a copy.
func (s *preparer) updateShape(sk shapeRef, f func(*shapeInfo)) {
	if sk.key == "" {
		return
	}
	var sh shapeInfo
	if old := s.shape(sk.key); old != nil {
		sh = *old
	}
	f(&sh)
	s.plans.put(sk.key, s.generation().stamp(&cacheEntry{shape: &sh}, sk.deps, true))
}

// shapePasses reports whether query passes through by its shape in db,
// with neither parsing nor planning: its shape passes whatever the
// values, or its two literals are a key window narrow enough.
func (s *preparer) shapePasses(db, query string) bool {
	d, lits, ok := sqlparse.DigestLiterals(query)
	if !ok {
		return false
	}
	sh := s.shape("\x02" + db + "\x00" + d) // route.ShapeKey's
	switch {
	case sh == nil:
		return false
	case sh.pass != "":
		return true
	case sh.window && len(lits) == 2:
		lo, hi, ok := route.IntPair(lits)
		return ok && lo <= hi && uint64(hi)-uint64(lo) <= sh.windowMax
	}
	return false
}

// splitUnique reports whether p's split key is its table's primary key
// alone (each key one row).
func (s *preparer) splitUnique(p *planner.Plan) bool {
	t, ok := s.snap().Tables.Table(p.DB, p.Table)
	return ok && t.SplitUnique
}

// prepareShaped is prepare, with the columns and the row estimate of an
// earlier statement of the shape key when it has them.
func (s *preparer) prepareShaped(ctx context.Context, db string, p *planner.Plan, key shapeRef, d coldefs.Query) (*prepared, error) {
	sh := s.shape(key.key)
	fragSQL := pushdown.Empty(p)
	metaHead, fragHead := route.SelectHead(p.MetaSQL), route.SelectHead(fragSQL)
	var pr *prepared
	var err error
	if sh != nil && sh.described && sh.metaHead == metaHead && sh.fragHead == fragHead {
		if s.metrics != nil {
			s.metrics.ShapeHits.Inc()
		}
		pr, err = exact(s.compilePrepared(p, sh.fields, sh.fragFields))
	} else {
		pr, err = exact(s.prepareSQL(ctx, db, p, d, fragSQL, true))
		if err == nil {
			s.updateShape(key, func(n *shapeInfo) {
				n.fields, n.fragFields, n.metaHead, n.fragHead, n.described = pr.fields, pr.fragFields, metaHead, fragHead, true
			})
		}
	}
	if err != nil {
		return nil, err
	}
	if !p.Aggregate && p.PushedLimit < 0 {
		if sh != nil && sh.estimated {
			pr.estRows = sh.estRows
		} else {
			pr.estRows = s.estimateRows(ctx, db, strings.Replace(p.FragmentSQL, planner.RangeMarker, "TRUE", 1))
			s.updateShape(key, func(n *shapeInfo) { n.estRows, n.estimated = pr.estRows, true })
		}
	}
	return pr, nil
}

// explainShaped is route.Explain, cached under the shape key.
func (s *preparer) explainShaped(key shapeRef) func(context.Context, string, string) (route.Access, bool) {
	return func(ctx context.Context, db, query string) (route.Access, bool) {
		if sh := s.shape(key.key); sh != nil && sh.explored {
			return sh.access, sh.accessOK
		}
		a, ok := route.Explain(ctx, s.rep.OnMeta, db, query)
		s.updateShape(key, func(n *shapeInfo) { n.access, n.accessOK, n.explored = a, ok, true })
		return a, ok
	}
}
