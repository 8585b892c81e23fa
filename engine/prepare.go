package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"

	"golang.org/x/sync/singleflight"

	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/mysql/collations/charset"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/arrowexec"
	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/engine/catalog"
	"github.com/shoaldb/shoal/engine/coldefs"
	"github.com/shoaldb/shoal/engine/replicaset"
	"github.com/shoaldb/shoal/engine/route"
	"github.com/shoaldb/shoal/engine/rowformat"
	"github.com/shoaldb/shoal/evalexpr"
	"github.com/shoaldb/shoal/observe"
	"github.com/shoaldb/shoal/pinned"
	"github.com/shoaldb/shoal/pinned/pinexec"
	"github.com/shoaldb/shoal/planner"
	"github.com/shoaldb/shoal/pushdown"
	"github.com/shoaldb/shoal/replica"
	"github.com/shoaldb/shoal/sqlparse"
)

// prepared is a plan bound to what the replicas say about it: the result's
// column metadata (from the original statement with LIMIT 0), the fragment
// columns' types and collations, and the compiled final stage. It is built
// once per distinct statement and shared read-only by every execution.
type prepared struct {
	plan *planner.Plan
	// inexact says why the final stage may compute values other than the
	// server's (evalexpr/inexact.go), or "": distributed statements pass
	// through then.
	inexact string
	// fields are the result columns exactly as MySQL reports them for the
	// original statement.
	fields []*querypb.Field
	// fragFields are the fragment result's columns.
	fragFields []*querypb.Field
	// keys and aggs configure the merge of fragment batches (level 1: the
	// group keys and the distinct keys); keys2 and aggs2 the second level
	// of a plan with DISTINCT aggregates.
	keys, keys2 []arrowexec.KeySpec
	aggs, aggs2 []arrowexec.AggSpec
	outputs     []*evalexpr.Expr
	having      *evalexpr.Expr
	order       []orderKey
	visible     int // row plans: columns sent to the client
	// recode are the charsets fragment columns are converted to from
	// utf8mb4 as they arrive (nil: none; rowformat.RealCharsets), and outFrom the
	// charsets output columns are converted from when they are sent (nil:
	// none): a latin1 key is merged, evaluated and sorted as latin1 and
	// sent in the result column's charset.
	recode, outFrom []charset.Charset
	// estRows is the replica optimizer's estimate of the rows a row plan
	// returns over the whole table (-1: unknown, or not a row plan); it
	// sizes the plan's fragments (schedule.Scheduler fragments).
	estRows int64

	// pin and prog are set when the split table is pinned: the fragment
	// runs in memory (see pins.go).
	pin  *pinned.Table
	prog *pinexec.Program
	// result caches the final rows of a statement over a pinned table
	// (immutable input, so valid as long as this plan is); flight lets
	// identical statements arriving together run once.
	result atomic.Pointer[cachedResult]
	flight singleflight.Group
	// cacheKey is the plan cache key pr is stored under ("" when it is
	// not), so that caching its result can re-weigh the entry.
	cacheKey string
	// warns: a run of this plan raised warnings and the replica answered
	// (schedule.Warned); later runs of the same text go there at once,
	// until the plan cache drops it.
	warns atomic.Bool
}

// groupConcatMaxLen is MariaDB's default group_concat_max_len (1 MiB).
// A session that changes it gets cut at this length through Shoal.
const groupConcatMaxLen = 1 << 20

// orderKey is one final-stage ORDER BY key: an expression over the final
// row (aggregate plans) or a column of the fragment row (row plans).
type orderKey struct {
	expr *evalexpr.Expr
	col  int
	desc bool
	coll collations.ID
}

// prepare asks a replica for the metadata of the statement and of its
// fragment, then compiles the final stage.
// preparer turns a plan into a prepared one: the replica's column
// metadata of the statement and of its fragment (describe, LIMIT 0), the
// optimizer's estimates (EXPLAIN), the routing decision by cost, the
// compiled final stage, and the shape cache that lets a statement with new
// literals skip the replica round trips. It reads the replicas through
// their metadata pools and caches in the engine's plan cache.
type preparer struct {
	cfg     config.Coordinator
	env     *evalexpr.Env
	rep     *replicaset.Set
	plans   *planCache
	metrics *observe.Metrics
	log     *slog.Logger
	snap    func() *catalog.Snapshot
	pins    *pinned.Registry
	// refresh re-reads the catalog when a statement names a table the
	// snapshot it saw lacks, and reports whether the snapshot changed
	// (Engine.refreshOnMiss); nil: never.
	refresh func(ctx context.Context, seen *catalog.Snapshot) bool
}

func (s *preparer) prepare(ctx context.Context, db string, p *planner.Plan) (*prepared, error) {
	pr, err := exact(s.prepareSQL(ctx, db, p, coldefs.Query{Meta: p.MetaSQL}, pushdown.Empty(p), true))
	if err != nil {
		return nil, err
	}
	if !p.Aggregate && p.PushedLimit < 0 {
		pr.estRows = s.estimateRows(ctx, db, strings.Replace(p.FragmentSQL, planner.RangeMarker, "TRUE", 1))
	}
	return pr, nil
}

// estimateRows asks a replica's optimizer how many rows a single-table
// statement returns (EXPLAIN's rows; once per plan, cached with it), or -1
// when it cannot tell (a join, an error). A row plan cut by the table's
// size would send a selective indexed query (a week of a 10M-row table)
// as hundreds of fragments, each an index dive costing more than the
// whole query does on one connection.
func (s *preparer) estimateRows(ctx context.Context, db, query string) int64 {
	if a, ok := route.Explain(ctx, s.rep.OnMeta, db, query); ok {
		return a.Rows
	}
	return -1
}

// describe asks one replica connection for the result columns of each
// statement (run with LIMIT 0 or FALSE: no rows). An error of a later
// statement names it; the first statement's is the replica's own, which
// the client sees.
func (s *preparer) describe(ctx context.Context, db string, sqls ...string) ([][]*querypb.Field, error) {
	out := make([][]*querypb.Field, len(sqls))
	failed := -1 // the statement that failed
	err := s.rep.OnMeta(ctx, func(b *replica.Conn) error {
		if err := b.Use(db); err != nil {
			return err
		}
		for i, q := range sqls {
			r, err := b.Fetch(q, 10)
			if err != nil {
				failed = i
				return err
			}
			out[i] = r.Fields
		}
		return nil
	})
	if err != nil && failed > 0 {
		return nil, fmt.Errorf("metadata of %s: %w", sqlparse.Truncate(sqls[failed], 120), err)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// prepareSQL is prepare with the metadata statements given: the result's
// columns as d describes them (package engine/coldefs), the fragment's from fragSQL.
// With real, a fragment with character columns is described a second
// time without conversion, and they take their real collations
// (rowformat.RealCharsets): a converted description gives every text column the
// connection's default collation (utf8mb4_general_ci), whatever the
// column's (utf8mb4_bin, utf8mb4_unicode_ci, latin1, a COLLATE clause),
// and the merge grouped and sorted by it ('a' and 'A' of a utf8mb4_bin
// column became one group).
func (s *preparer) prepareSQL(ctx context.Context, db string, p *planner.Plan, d coldefs.Query, fragSQL string, real bool) (*prepared, error) {
	var raw []*querypb.Field
	var fields, fragFields []*querypb.Field
	fragFailed := false
	s.metrics.Describes.Inc()
	err := s.rep.OnMeta(ctx, func(b *replica.Conn) error {
		if err := b.Use(db); err != nil {
			return err
		}
		var err error
		if fields, err = coldefs.Describe(b, d); err != nil {
			return err
		}
		r, err := b.Fetch(fragSQL, 10)
		if err != nil {
			fragFailed = true
			return err
		}
		fragFields = r.Fields
		if real && rowformat.HasCharColumns(fragFields) {
			if r, err = b.FetchUnconverted(fragSQL, 10); err != nil {
				fragFailed = true
				return fmt.Errorf("collations: %w", err)
			}
			raw = r.Fields
		}
		return nil
	})
	if err != nil && fragFailed {
		return nil, fmt.Errorf("metadata of %s: %w", sqlparse.Truncate(fragSQL, 120), err)
	}
	if err != nil {
		return nil, err
	}
	if raw != nil {
		if fragFields, err = rowformat.RealCharsets(fragFields, raw); err != nil {
			return nil, err
		}
	}
	return s.compilePrepared(p, fields, fragFields)
}

// exact is pr, or the error that passes the statement through when its
// final stage may compute other values than the server's (pr.inexact).
// Statements over pins, which have no server to ask, skip it.
func exact(pr *prepared, err error) (*prepared, error) {
	if err == nil && pr.inexact != "" {
		return nil, errors.New(pr.inexact)
	}
	return pr, err
}

// compilePrepared binds p to the result's and the fragment's columns and
// compiles the final stage.
func (s *preparer) compilePrepared(p *planner.Plan, fields, fragFields []*querypb.Field) (*prepared, error) {
	var err error
	pr := &prepared{plan: p, fields: fields, fragFields: fragFields, estRows: -1}
	for i, f := range fragFields {
		if cs := rowformat.RecodedCharset(f); cs != nil {
			if pr.recode == nil {
				pr.recode = make([]charset.Charset, len(fragFields))
			}
			pr.recode[i] = cs
		}
	}
	if p.Aggregate {
		err = pr.compileAggregate(s.env)
	} else {
		err = pr.compileRows()
	}
	if err != nil {
		return nil, err
	}
	return pr, nil
}

// setOutFrom records that output i is converted from cs when sent.
func (pr *prepared) setOutFrom(i int, cs charset.Charset) {
	if cs == nil {
		return
	}
	if pr.outFrom == nil {
		pr.outFrom = make([]charset.Charset, len(pr.fields))
	}
	pr.outFrom[i] = cs
}

func (pr *prepared) compileAggregate(env *evalexpr.Env) error {
	p := pr.plan
	fromFrag := 0
	for _, pa := range p.Partials {
		if pa.FromFragment() {
			fromFrag++
		}
	}
	nk := p.Keys + p.DistinctKeys
	if len(pr.fragFields) != nk+fromFrag {
		return fmt.Errorf("fragment returns %d columns, plan expects %d", len(pr.fragFields), nk+fromFrag)
	}
	if len(pr.fields) != len(p.Outputs) {
		return fmt.Errorf("statement returns %d columns, plan has %d outputs", len(pr.fields), len(p.Outputs))
	}
	for i := 0; i < nk; i++ {
		pr.keys = append(pr.keys, arrowexec.KeySpec{Collation: rowformat.Collation(pr.fragFields[i])})
	}
	for i := 0; i < p.Keys && p.Rollup; i++ {
		// WITH ROLLUP's rows come in group-key order (remerge.Rollup
		// sorts the keys as text); the server sorts ENUM and SET keys
		// by their member numbers.
		if t := pr.fragFields[i].Type; (t == sqltypes.Enum || t == sqltypes.Set) && pr.inexact == "" {
			pr.inexact = "WITH ROLLUP over an ENUM or SET key: the server orders the groups by member numbers, the merge by text"
		}
	}
	// partialField[i] is the fragment field of plan partial i, or nil.
	partialField := make([]*querypb.Field, len(p.Partials))
	j := nk
	for i, pa := range p.Partials {
		if !pa.FromFragment() {
			continue
		}
		partialField[i] = pr.fragFields[j]
		kind, err := aggKind(pa.Kind)
		if err != nil {
			return err
		}
		f := pr.fragFields[j]
		pr.aggs = append(pr.aggs, arrowexec.AggSpec{Kind: kind, Collation: rowformat.Collation(f),
			Sep: rowformat.InCharset(pa.Sep, f), MaxLen: groupConcatMaxLen})
		if pa.Kind == planner.MergeJSONArray && pr.inexact == "" && rowformat.ForeignText(f) {
			// MariaDB sends a JSON_ARRAYAGG of latin1 (…) text unconverted
			// when it reads the aggregate directly, converted when it reads
			// it from a temporary table (ORDER BY it): which one the
			// client sees depends on the server's plan.
			pr.inexact = fmt.Sprintf("%s: MariaDB sends a JSON_ARRAYAGG of text in %s converted or not depending on its plan", pa.SQL, rowformat.CharsetName(f))
		}
		if pa.Kind == planner.MergeJSONObject && pr.inexact == "" && !rowformat.ASCIICompatible(f) {
			// The partial objects are text in ucs2 (utf16, utf32), which
			// the merge cannot read as JSON.
			pr.inexact = fmt.Sprintf("%s: a JSON_OBJECTAGG of text in %s is not merged", pa.SQL, rowformat.CharsetName(f))
		}
		j++
	}
	for i, pa := range p.Partials {
		if f := partialField[i]; f != nil && pa.Kind == planner.MergeSum && sqltypes.IsFloat(f.Type) && pr.inexact == "" {
			// SUM, AVG, STD and VARIANCE over FLOAT or DOUBLE values: the
			// server adds the values one by one in its scan order; partial
			// sums added in another order differ in the last digits.
			pr.inexact = fmt.Sprintf("%s sums FLOAT or DOUBLE values, whose sum depends on the order of addition: partial sums merged differ from the server's in the last digits", pa.SQL)
		}
	}
	if p.DistinctKeys > 0 {
		pr.keys2 = pr.keys[:p.Keys]
		for i, pa := range p.Partials {
			switch pa.Kind {
			case planner.MergeDistinctCount:
				pr.aggs2 = append(pr.aggs2, arrowexec.AggSpec{Kind: arrowexec.AggCount})
			case planner.MergeDistinctSum:
				pr.aggs2 = append(pr.aggs2, arrowexec.AggSpec{Kind: arrowexec.AggSum})
			case planner.MergeDistinctConcat:
				f := pr.fragFields[p.Keys+pa.Arg]
				if !sqltypes.IsText(f.Type) && !sqltypes.IsBinary(f.Type) {
					return fmt.Errorf("GROUP_CONCAT over %s values is not merged", f.Type)
				}
				// The values are joined in their own charset (a latin1
				// key's bytes are latin1), with the separator converted
				// to it, as MariaDB does; the result is converted to the
				// result column's charset when sent (concatField).
				pr.aggs2 = append(pr.aggs2, arrowexec.AggSpec{Kind: arrowexec.AggConcat, Collation: rowformat.Collation(f),
					Sep: rowformat.InCharset(pa.Sep, f), Desc: pa.Desc, MaxLen: groupConcatMaxLen})
			default:
				kind, err := aggKind(pa.Kind)
				if err != nil {
					return err
				}
				pr.aggs2 = append(pr.aggs2, arrowexec.AggSpec{Kind: kind, Collation: rowformat.Collation(partialField[i]),
					Sep: rowformat.InCharset(pa.Sep, partialField[i]), MaxLen: groupConcatMaxLen})
			}
		}
	}
	names := make([]string, 0, len(pr.fragFields)+len(p.Outputs))
	fields := make([]*querypb.Field, 0, cap(names))
	for i := 0; i < p.Keys; i++ {
		names = append(names, fmt.Sprintf("__g%d", i))
		fields = append(fields, pr.fragFields[i])
	}
	for i, pa := range p.Partials {
		names = append(names, fmt.Sprintf("__a%d", i))
		f := partialField[i]
		switch pa.Kind {
		case planner.MergeCount, planner.MergeDistinctCount:
			f = &querypb.Field{Type: sqltypes.Int64} // BIGINT: CAST(COUNT(*) AS UNSIGNED) is exact
		case planner.MergeSum:
			f = nil // merged sums take their type from the values (DECIMAL or DOUBLE)
		case planner.MergeDistinctConcat:
			f = concatField(pr.fragFields[p.Keys+pa.Arg])
		}
		fields = append(fields, f)
	}
	base := evalexpr.NewLayout(names, fields)
	for _, o := range p.Outputs {
		x, err := pr.compileFinal(env, o, base)
		if err != nil {
			return err
		}
		pr.noteTyped(x, names, fields)
		pr.outputs = append(pr.outputs, x)
	}
	for i, x := range pr.outputs {
		names = append(names, fmt.Sprintf("__o%d", i))
		f := pr.fields[i]
		// HAVING and ORDER BY read an output as evaluated: in its own
		// collation (a latin1 key stays latin1 until it is sent).
		// An output of a key under another collation than the result
		// column reports (COLLATE utf8mb4_bin, a utf8mb4_unicode_ci
		// column: a converted description says utf8mb4_general_ci) is
		// compared in the key's.
		if cs := rowformat.OutputCharset(x.Collation(), f); cs != nil {
			pr.setOutFrom(i, cs)
			f = f.CloneVT()
			f.Charset = uint32(x.Collation())
		} else if c := x.Collation(); c != collations.Unknown && f != nil && rowformat.CharField(f) && f.Charset != uint32(c) {
			f = f.CloneVT()
			f.Charset = uint32(c)
		} else if j := slices.Index(names, strings.Trim(x.String(), "`")); j >= 0 && fields[j] != nil && f != nil &&
			rowformat.CharField(f) && rowformat.CharField(fields[j]) && f.Charset != fields[j].Charset {
			f = f.CloneVT() // the key itself, as the fragment typed it
			f.Charset = fields[j].Charset
		}
		fields = append(fields, f)
	}
	full := evalexpr.NewLayout(names, fields)
	if p.Having != "" {
		x, err := pr.compileFinal(env, p.Having, full)
		if err != nil {
			return err
		}
		pr.having = x
		pr.noteTyped(x, names, fields)
	}
	for _, o := range p.OrderBy {
		x, err := pr.compileFinal(env, o.Expr, full)
		if err != nil {
			return err
		}
		if x.ReadsField(fields, evalexpr.OfType(sqltypes.Enum, sqltypes.Set)) && pr.inexact == "" {
			pr.inexact = fmt.Sprintf("ORDER BY %s: the server orders ENUM and SET values by their member numbers, the merge by text", o.Expr)
		}
		if x.Collation() != collations.Unknown && x.ReadsField(fields, rowformat.LongSortText) && pr.inexact == "" {
			pr.inexact = fmt.Sprintf("ORDER BY %s: MariaDB orders text by its first max_sort_length bytes only, the merge by the whole value", o.Expr)
		}
		pr.noteTyped(x, names, fields)
		if (x.JSON() || evalexpr.OutputJSON(pr.outputs, o.Expr)) && env.MariaDB() && pr.inexact == "" {
			// evalexpr/inexact.go: MariaDB orders JSON values as text.
			pr.inexact = fmt.Sprintf("ORDER BY %s: MariaDB orders a JSON value as text in the connection's collation, the evaluator as JSON", o.Expr)
		}
		pr.order = append(pr.order, orderKey{expr: x, desc: o.Desc, coll: exprCollation(o.Expr, names, fields)})
	}
	return nil
}

// concatField is the merge's column of a GROUP_CONCAT(DISTINCT x) joined
// from the distinct key x's values (fragment column key): text in x's
// charset and collation, as MariaDB types it. Outputs, HAVING and ORDER
// BY read it in that collation, and the result writer converts it to the
// result column's charset (a latin1 x was sent as latin1 bytes into a
// utf8mb4 column).
func concatField(key *querypb.Field) *querypb.Field {
	f := &querypb.Field{Type: sqltypes.Text, Charset: key.Charset, ColumnLength: groupConcatMaxLen}
	if !rowformat.CharField(key) {
		f.Type, f.Charset = sqltypes.Blob, rowformat.BinaryCollation
	}
	return f
}

// compileFinal compiles a final-stage expression and records in
// pr.inexact the first reason the server may compute another value
// (evalexpr/inexact.go).
func (pr *prepared) compileFinal(env *evalexpr.Env, src string, layout *evalexpr.Layout) (*evalexpr.Expr, error) {
	x, err := env.Compile(src, layout)
	if err != nil {
		return nil, err
	}
	if why := x.Inexact(); why != "" && pr.inexact == "" {
		pr.inexact = fmt.Sprintf("final expression %q cannot be evaluated exactly: %s", src, why)
	}
	return x, nil
}

// noteTyped records in pr.inexact an expression that computes over an
// ENUM, SET or BIT value rather than passing it on: the server reads them
// as numbers in numeric context (status + 0 is the member number, BIN(b)
// the bits), the evaluator as the text or bytes the fragment sent.
func (pr *prepared) noteTyped(x *evalexpr.Expr, names []string, fields []*querypb.Field) {
	if pr.inexact != "" || !x.ReadsField(fields, evalexpr.OfType(sqltypes.Enum, sqltypes.Set, sqltypes.Bit)) {
		return
	}
	if src := strings.Trim(x.String(), "`"); slices.Contains(names, src) {
		return // the column itself, as sent
	}
	pr.inexact = fmt.Sprintf("final expression %q reads an ENUM, SET or BIT value, which the server computes with as a number", x.String())
}

// exprCollation returns the collation of an ORDER BY key that names a
// column directly; other expressions take the collation of their result.
func exprCollation(expr string, names []string, fields []*querypb.Field) collations.ID {
	e := strings.Trim(expr, "`")
	for i, n := range names {
		if n == e {
			return rowformat.Collation(fields[i])
		}
	}
	return collations.Unknown
}

func (pr *prepared) compileRows() error {
	p := pr.plan
	pr.visible = len(pr.fields)
	if len(pr.fragFields) != pr.visible+p.Hidden {
		return fmt.Errorf("fragment returns %d columns, plan expects %d", len(pr.fragFields), pr.visible+p.Hidden)
	}
	for i := 0; i < pr.visible && i < len(pr.recode); i++ {
		pr.setOutFrom(i, pr.recode[i])
	}
	for _, o := range p.OrderBy {
		var col int
		switch {
		case strings.HasPrefix(o.Expr, "__c"):
			fmt.Sscanf(o.Expr, "__c%d", &col)
		case strings.HasPrefix(o.Expr, "__h"):
			fmt.Sscanf(o.Expr, "__h%d", &col)
			col += pr.visible
		default:
			return fmt.Errorf("row plan order key %q", o.Expr)
		}
		if t := pr.fragFields[col].Type; (t == sqltypes.Enum || t == sqltypes.Set) && pr.inexact == "" {
			pr.inexact = "ORDER BY over an ENUM or SET column: the server orders by member numbers, the merge by text"
		}
		if rowformat.LongSortText(pr.fragFields[col]) && pr.inexact == "" {
			pr.inexact = "ORDER BY over a TEXT or BLOB column: MariaDB orders by its first max_sort_length bytes only, the merge by the whole value"
		}
		pr.order = append(pr.order, orderKey{col: col, desc: o.Desc, coll: rowformat.Collation(pr.fragFields[col])})
	}
	return nil
}

// mergeKinds is the merge operator of each planner merge function that
// merges a fragment column (the distinct kinds are built by prepare).
var mergeKinds = map[planner.AggKind]arrowexec.AggKind{
	planner.MergeSum:        arrowexec.AggSum,
	planner.MergeCount:      arrowexec.AggCount,
	planner.MergeMin:        arrowexec.AggMin,
	planner.MergeMax:        arrowexec.AggMax,
	planner.MergeBitAnd:     arrowexec.AggBitAnd,
	planner.MergeBitOr:      arrowexec.AggBitOr,
	planner.MergeBitXor:     arrowexec.AggBitXor,
	planner.MergeConcat:     arrowexec.AggConcatPartial,
	planner.MergeJSONArray:  arrowexec.AggJSONArray,
	planner.MergeJSONObject: arrowexec.AggJSONObject,
}

// aggKind is the merge operator of planner merge function k. A function
// the merge does not know is an error (the statement passes through), not
// a guess: an unknown kind once merged as MAX.
func aggKind(k planner.AggKind) (arrowexec.AggKind, error) {
	if a, ok := mergeKinds[k]; ok {
		return a, nil
	}
	return 0, fmt.Errorf("no merge operator for aggregate %s", k)
}

// Lines renders the plan as EXPLAIN does (observe.Plan: the status page
// and the slow log show it).
func (pr *prepared) Lines() []string {
	if pr == nil {
		return nil
	}
	lines := pr.plan.Describe()
	if pr.prog != nil {
		lines = append(lines, fmt.Sprintf("in memory: %s.%s v%d, %d rows", pr.pin.DB, pr.pin.Name, pr.pin.Version, pr.pin.Rows))
	}
	return lines
}
