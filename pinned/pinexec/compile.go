package pinexec

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shoaldb/shoal/arrowexec"
	"github.com/shoaldb/shoal/evalexpr"
	"github.com/shoaldb/shoal/evalexpr/convwarn"
	"github.com/shoaldb/shoal/pinned"
	"github.com/shoaldb/shoal/pinned/pinexec/bitarg"
)

// ErrUnsupported wraps the reasons a fragment cannot run in memory.
var ErrUnsupported = errors.New("not supported over a pinned table")

func unsupported(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUnsupported, fmt.Sprintf(format, args...))
}

// aggFunc is a partial aggregate of a fragment statement.
type aggFunc uint8

const (
	aggCount aggFunc = iota + 1 // COUNT(x): x NOT NULL; COUNT(*) has no arg
	aggSum
	aggMin
	aggMax
	aggBitAnd
	aggBitOr
	aggBitXor
)

// expr is one compiled scalar expression of the fragment and what the
// fast path knows of it.
type expr struct {
	ast  sqlparser.Expr
	src  string
	x    *evalexpr.Expr
	cols []int // table columns it reads
}

type aggExpr struct {
	fn  aggFunc
	arg *expr       // nil: COUNT(*)
	bit bitarg.Read // BIT_AND, BIT_OR, BIT_XOR: how arg is read (bitarg.go, package bitarg)
}

// Inexact says why one of the program's expressions may compute values
// other than the server's (evalexpr.Expr.Inexact), or "". Over a pin,
// which no server holds, the program runs anyway; over a derived table
// the statement can pass through instead.
func (p *Program) Inexact() string { return p.inexact }

// Program is a fragment statement compiled against one pinned table. It is
// read-only and may run many times, concurrently.
type Program struct {
	t   *pinned.Table
	env *evalexpr.Env
	// inexact says why an expression may compute values other than the
	// server's (evalexpr.Expr.Inexact), or "".
	inexact string
	// out is the fragment result's schema: the schema a worker would send.
	out    *arrow.Schema
	fields []*querypb.Field
	// ordered: the statement runs in one partition reading the batches
	// in order, so that a group shows its first row's spelling (finish).
	ordered bool

	where []*expr // conjuncts; all must be true
	// Aggregate statements: group keys, then partial aggregates.
	aggregate bool
	keys      []*expr
	aggs      []aggExpr
	keySpecs  []arrowexec.KeySpec
	aggSpecs  []arrowexec.AggSpec
	pre       *arrow.Schema // generic path: one row per input row
	// Row statements: the select expressions and the pushed LIMIT (only
	// without ORDER BY; -1: none).
	outs  []*expr
	limit int64

	used []int // every split-table column any expression reads
	fast *fastPlan
	top  *topPlan  // row statements with ORDER BY and LIMIT
	join *joinPlan // nil: FROM is the one table t

	allowDivision bool    // while compiling row-statement outputs
	exactDiv      divMode // rewrite integer divisions (see exactDivision)
}

type divMode uint8

const (
	divNone    divMode = iota
	divAll             // predicates: every integer division
	divInFuncs         // group keys: divisions under a function (FLOOR(x/250))
)

// Fast reports whether the program runs on the vectorized path.
func (p *Program) Fast() bool { return p.fast != nil }

// Compile compiles a fragment statement (the range predicate already
// replaced by TRUE) over t. fields are the fragment result's columns as
// MySQL reports them; the output follows them exactly. It returns an error
// wrapping ErrUnsupported when the statement cannot run in memory.
func Compile(env *evalexpr.Env, t *pinned.Table, fragment string, fields []*querypb.Field) (*Program, error) {
	return CompileJoin(env, t, nil, fragment, fields)
}

// Resolver finds a pinned table by database and name, or returns nil.
type Resolver func(db, name string) *pinned.Table

// CompileJoin is Compile for a fragment whose FROM may join t with other
// pinned tables, which tables resolves (nil: joins are unsupported). t is
// the split table: each partition scans part of it and probes hash tables
// built once per run over every other table (see join.go).
func CompileJoin(env *evalexpr.Env, t *pinned.Table, tables Resolver, fragment string, fields []*querypb.Field) (*Program, error) {
	stmt, err := env.VT().Parser().Parse(fragment)
	if err != nil {
		return nil, fmt.Errorf("pinned: fragment does not parse: %w", err)
	}
	sel, ok := stmt.(*sqlparser.Select)
	if !ok {
		return nil, unsupported("%T statement", stmt)
	}
	if sel.With != nil || sel.Having != nil || len(sel.Windows) > 0 || sel.Into != nil || sel.Lock != sqlparser.NoLock {
		return nil, unsupported("WITH, HAVING, WINDOW, INTO or locking in a fragment")
	}
	p := &Program{t: t, env: env, fields: fields, out: arrowexec.SchemaFor(fields), limit: -1}
	single := len(sel.From) == 1
	if single {
		ate, ok := sel.From[0].(*sqlparser.AliasedTableExpr)
		single = ok
		if ok {
			tn, ok := ate.Expr.(sqlparser.TableName)
			if !ok || tn.Name.String() != t.Name || (tn.Qualifier.NotEmpty() && tn.Qualifier.String() != t.DB) {
				return nil, unsupported("FROM is not the pinned table %s.%s", t.DB, t.Name)
			}
			if len(ate.Partitions) > 0 || ate.Hints != nil {
				return nil, unsupported("PARTITION or index hints")
			}
		}
	}
	var layout *evalexpr.Layout
	if single {
		names := make([]string, len(t.Cols))
		for i, c := range t.Cols {
			names[i] = c.Name
		}
		layout = evalexpr.NewLayout(names, t.Fields)
	} else {
		if tables == nil {
			return nil, unsupported("a join over a pinned table")
		}
		if p.join, err = planJoin(t, tables, sel.From); err != nil {
			return nil, err
		}
		layout = p.join.layout()
	}
	usedSet := map[int]bool{}
	compile := func(e sqlparser.Expr) (*expr, error) {
		switch p.exactDiv {
		case divAll:
			e = p.exactDivision(e)
		case divInFuncs:
			e = p.exactInFunctions(e)
		}
		cols, err := p.columns(e)
		if err != nil {
			return nil, err
		}
		if err := modeled(p, e, cols); err != nil {
			return nil, err
		}
		if why := convwarn.Risk(e, typeOf(p)); why != "" {
			return nil, unsupported("%s %s, which MariaDB warns about for each value it cuts (evalexpr/convwarn)", sqlparser.String(e), why)
		}
		src := sqlparser.String(e)
		csrc := src
		if p.join != nil {
			// Bind qualified names to the joined row's slots.
			csrc = sqlparser.String(p.join.bind(e))
		}
		x, err := env.Compile(csrc, layout)
		if err != nil {
			return nil, unsupported("%v", err)
		}
		if why := x.Inexact(); why != "" && p.inexact == "" {
			p.inexact = fmt.Sprintf("%s: %s", src, why)
		}
		for _, c := range cols {
			usedSet[c] = true
		}
		return &expr{ast: e, src: src, x: x, cols: cols}, nil
	}
	if sel.Where != nil || p.join != nil {
		// Predicates compare MySQL's full quotient: rewrite divisions.
		p.exactDiv = divAll
		var conj []sqlparser.Expr
		if sel.Where != nil {
			conj = sqlparser.SplitAndExpression(nil, sel.Where.Expr)
		}
		if p.join != nil {
			// Inner joins' ON conditions filter like WHERE; each
			// conjunct runs at the first join level that binds every
			// table it reads.
			if err := p.join.place(conj, compile); err != nil {
				return nil, err
			}
			conj = nil
		}
		for _, c := range conj {
			x, err := compile(c)
			if err != nil {
				return nil, err
			}
			p.where = append(p.where, x)
		}
		p.exactDiv = divNone
	}
	var selExprs []sqlparser.Expr
	for _, se := range sel.SelectExprs.Exprs {
		switch x := se.(type) {
		case *sqlparser.AliasedExpr:
			selExprs = append(selExprs, x.Expr)
		case *sqlparser.StarExpr:
			if p.join != nil {
				stars, err := p.join.star(x)
				if err != nil {
					return nil, err
				}
				selExprs = append(selExprs, stars...)
				continue
			}
			for _, c := range t.Cols {
				selExprs = append(selExprs, sqlparser.NewColName(c.Name))
			}
		default:
			return nil, unsupported("select item %T", se)
		}
	}
	hasAgg := false
	for _, e := range selExprs {
		if _, ok := e.(sqlparser.AggrFunc); ok {
			hasAgg = true
		}
	}
	p.aggregate = hasAgg || sel.GroupBy != nil || sel.Distinct
	if sel.GroupBy != nil && sel.GroupBy.WithRollup {
		return nil, unsupported("WITH ROLLUP in a fragment")
	}
	if len(selExprs) != len(fields) {
		return nil, fmt.Errorf("pinned: fragment selects %d columns, metadata has %d", len(selExprs), len(fields))
	}
	if !p.aggregate {
		p.allowDivision = true
		for _, e := range selExprs {
			x, err := compile(e)
			if err != nil {
				return nil, err
			}
			p.outs = append(p.outs, x)
		}
		p.allowDivision = false
		if sel.Limit != nil && len(sel.OrderBy) == 0 {
			if sel.Limit.Offset != nil {
				return nil, unsupported("OFFSET in a fragment")
			}
			lit, ok := sel.Limit.Rowcount.(*sqlparser.Literal)
			if !ok || lit.Type != sqlparser.IntVal {
				return nil, unsupported("LIMIT %s", sqlparser.String(sel.Limit))
			}
			fmt.Sscan(lit.Val, &p.limit)
		}
		// With ORDER BY the coordinator sorts every fragment row itself:
		// the fragment's own ORDER BY and LIMIT only bound what it sends
		// (each partition's first rows, top.go).
		p.finish(usedSet)
		p.top = p.compileTop(sel)
		return p, nil
	}
	// Aggregate statement: the group keys are the GROUP BY expressions
	// (or, for SELECT DISTINCT, the select list); every non-aggregate
	// select item must be one of them, in order, at the front.
	var groupBy []sqlparser.Expr
	if sel.GroupBy != nil {
		groupBy = sel.GroupBy.Exprs
	} else if sel.Distinct {
		groupBy = selExprs
	}
	nk := 0
	for nk < len(selExprs) {
		if _, ok := selExprs[nk].(sqlparser.AggrFunc); ok {
			break
		}
		nk++
	}
	if nk != len(groupBy) {
		return nil, unsupported("fragment selects %d group keys, groups by %d", nk, len(groupBy))
	}
	for i := 0; i < nk; i++ {
		ks, gs := sqlparser.String(selExprs[i]), sqlparser.String(groupBy[i])
		if ks != gs && !p.sameColumn(selExprs[i], groupBy[i]) {
			return nil, unsupported("select item %s is not group key %s", ks, gs)
		}
		// A function of a quotient (FLOOR(Distance/250)) sees the full
		// quotient; a quotient itself is displayed rounded, which the
		// rewrite would not reproduce, so it stays (and is refused).
		p.exactDiv = divInFuncs
		x, err := compile(selExprs[i])
		p.exactDiv = divNone
		if err != nil {
			return nil, err
		}
		p.keys = append(p.keys, x)
		p.keySpecs = append(p.keySpecs, arrowexec.KeySpec{Collation: collationOf(fields[i])})
	}
	preFields := make([]arrow.Field, 0, len(fields))
	for i := 0; i < nk; i++ {
		preFields = append(preFields, p.out.Field(i))
	}
	for i, e := range selExprs[nk:] {
		f := fields[nk+i]
		a, err := aggOf(e)
		if err != nil {
			return nil, err
		}
		if arg := aggArg(e); arg != nil {
			if a.arg, err = compile(arg); err != nil {
				return nil, err
			}
			if err := memberNumbers(p, a); err != nil {
				return nil, err
			}
			if a.fn == aggSum {
				// SUM (AVG's too) reads its argument as a number
				// (evalexpr/convwarn). The BIT_ aggregates read text as MariaDB's
				// val_int does (bitarg.go), without counting warnings.
				if why := convwarn.SumRisk(a.arg.ast, typeOf(p)); why != "" {
					return nil, unsupported("%s: %s, which MariaDB warns about for each value it cuts (evalexpr/convwarn)", sqlparser.String(e), why)
				}
			}
			if a.fn >= aggBitAnd {
				if a.bit, err = bitReadOf(p, a.arg); err != nil {
					return nil, err
				}
			}
		}
		p.aggs = append(p.aggs, a)
		spec := arrowexec.AggSpec{Collation: collationOf(f)}
		pf := p.out.Field(nk + i)
		switch a.fn {
		case aggCount:
			spec.Kind = arrowexec.AggCount
			pf = arrow.Field{Name: pf.Name, Type: arrow.PrimitiveTypes.Int64, Nullable: true}
		case aggSum:
			spec.Kind = arrowexec.AggSum
		case aggMin:
			spec.Kind = arrowexec.AggMin
		case aggMax:
			spec.Kind = arrowexec.AggMax
		case aggBitAnd:
			spec.Kind = arrowexec.AggBitAnd
		case aggBitOr:
			spec.Kind = arrowexec.AggBitOr
		case aggBitXor:
			spec.Kind = arrowexec.AggBitXor
		}
		p.aggSpecs = append(p.aggSpecs, spec)
		preFields = append(preFields, pf)
	}
	p.pre = arrow.NewSchema(preFields, nil)
	p.finish(usedSet)
	return p, nil
}

func (p *Program) finish(used map[int]bool) {
	// p.used lists the split table's columns a partition reads from its
	// batches; a join's other tables are read when their hash tables are
	// built.
	for c := range p.t.Cols {
		if used[c] {
			p.used = append(p.used, c)
		}
	}
	if p.join != nil {
		p.join.finish(used)
		p.ordered = textKeys(p)
		return // the vectorized path covers one table only
	}
	p.fast = planFast(p)
	if p.fast != nil && !p.fast.rowsOnly {
		p.ordered = slices.ContainsFunc(p.fast.keys, func(k *fastKey) bool { return k.spellings != nil })
	} else {
		p.ordered = textKeys(p)
	}
}

// textKeys reports whether one of p's group keys is text: one group may hold
// several spellings ('Hello', 'hello' under a _ci collation; 'a', 'a '
// under PAD SPACE), and MySQL shows the first row's in key order, which
// one partition reading the batches in order keeps (the generic path's
// hash aggregate keeps the first key values it sees).
func textKeys(p *Program) bool {
	for i := range p.keys {
		// Text vitess types VARBINARY (utf8mb4_bin, latin1_bin) has a
		// collation too: 'a' and 'a ' are one group under PAD SPACE.
		if i >= len(p.fields) || p.fields[i] == nil {
			continue
		}
		if f := p.fields[i]; sqltypes.IsText(f.Type) || sqltypes.IsBinary(f.Type) && collationOf(f) != 0 {
			return true
		}
	}
	return false
}

// sameColumn reports whether a and b name the same column (one may be
// qualified, the other not).
func (p *Program) sameColumn(a, b sqlparser.Expr) bool {
	x, ok1 := a.(*sqlparser.ColName)
	y, ok2 := b.(*sqlparser.ColName)
	if !ok1 || !ok2 {
		return false
	}
	if p.join != nil {
		i, err1 := p.join.resolve(x)
		j, err2 := p.join.resolve(y)
		return err1 == nil && err2 == nil && i == j
	}
	return x.Name.Equal(y.Name)
}

func aggOf(e sqlparser.Expr) (aggExpr, error) {
	switch x := e.(type) {
	case *sqlparser.CountStar:
		return aggExpr{fn: aggCount}, nil
	case *sqlparser.Count:
		if x.Distinct || len(x.Args) != 1 || x.OverClause != nil {
			return aggExpr{}, unsupported("%s", sqlparser.String(e))
		}
		return aggExpr{fn: aggCount}, nil
	case *sqlparser.Sum:
		if x.Distinct || x.OverClause != nil {
			return aggExpr{}, unsupported("%s", sqlparser.String(e))
		}
		return aggExpr{fn: aggSum}, nil
	case *sqlparser.Min:
		if x.OverClause != nil {
			return aggExpr{}, unsupported("%s", sqlparser.String(e))
		}
		return aggExpr{fn: aggMin}, nil
	case *sqlparser.Max:
		if x.OverClause != nil {
			return aggExpr{}, unsupported("%s", sqlparser.String(e))
		}
		return aggExpr{fn: aggMax}, nil
	case *sqlparser.BitAnd:
		return aggExpr{fn: aggBitAnd}, nil
	case *sqlparser.BitOr:
		return aggExpr{fn: aggBitOr}, nil
	case *sqlparser.BitXor:
		return aggExpr{fn: aggBitXor}, nil
	}
	return aggExpr{}, unsupported("aggregate %s", sqlparser.String(e))
}

func aggArg(e sqlparser.Expr) sqlparser.Expr {
	switch x := e.(type) {
	case *sqlparser.Count:
		return x.Args[0]
	case *sqlparser.Sum:
		return x.Arg
	case *sqlparser.Min:
		return x.Arg
	case *sqlparser.Max:
		return x.Arg
	case *sqlparser.BitAnd:
		return x.Arg
	case *sqlparser.BitOr:
		return x.Arg
	case *sqlparser.BitXor:
		return x.Arg
	}
	return nil
}

// columns lists the table columns e reads and refuses what cannot be
// evaluated row by row here: subqueries, aggregates, variables.
func (p *Program) columns(e sqlparser.Expr) ([]int, error) {
	var cols []int
	seen := map[int]bool{}
	var bad error
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch x := n.(type) {
		case *sqlparser.Subquery:
			bad = unsupported("subquery %s", sqlparser.String(x))
		case sqlparser.AggrFunc:
			bad = unsupported("nested aggregate %s", sqlparser.String(x))
		case *sqlparser.Variable:
			bad = unsupported("variable %s", sqlparser.String(x))
		case *sqlparser.BinaryExpr:
			if x.Operator == sqlparser.DivOp && !p.allowDivision {
				// MySQL keeps a quotient's digits past its display scale
				// inside SUM, comparisons and grouping; evalengine rounds
				// each row's quotient to div_precision_increment, so the
				// sum of many would drift from MySQL's.
				bad = unsupported("division %s outside the select list", sqlparser.String(x))
			}
		case *sqlparser.ColName:
			c := -1
			if p.join != nil {
				var err error
				if c, err = p.join.resolve(x); err != nil {
					bad = err
					break
				}
			} else {
				// The fragment has one table, so any qualifier (an
				// alias) names it.
				for i, col := range p.t.Cols {
					if strings.EqualFold(col.Name, x.Name.String()) {
						c = i
						break
					}
				}
			}
			if bad != nil {
				break
			}
			if c < 0 {
				bad = fmt.Errorf("pinned: unknown column %s in %s.%s", x.Name.String(), p.t.DB, p.t.Name)
			} else if !seen[c] {
				seen[c] = true
				cols = append(cols, c)
			}
		}
		return bad == nil, nil
	}, e)
	return cols, bad
}

// modeled refuses an expression over a column whose values the in-memory
// engine does not hold the way the server computes with them (found with
// ordinary SQL over a pinned table of such columns): BIT (kept as bytes:
// b + 0, BIT_COUNT, MIN and BIT_XOR came out wrong or failed), TIME inside
// an expression (compared as text: '-10:59:59' < '-11:00:00'), an ENUM
// or SET inside an expression (e + 0 needs the member numbers), and text
// in a character set other than utf8mb4, utf8mb3 or ascii (the pin holds
// it as utf8mb4 under the column's own collation, latin1_swedish_ci: see
// engine/pinfields.go). Such a statement runs on the replicas, or over
// the pin's definition.
func modeled(p *Program, e sqlparser.Expr, cols []int) error {
	_, bare := e.(*sqlparser.ColName)
	for _, c := range cols {
		col := columnAt(p, c)
		if col == nil || col.Field == nil {
			continue
		}
		f := col.Field
		switch {
		case f.Type == sqltypes.Bit, !bare && f.Type == sqltypes.Time:
			return unsupported("%s reads %s, a %s column the in-memory engine does not model", sqlparser.String(e), col.Name, f.Type)
		case !bare && (f.Type == sqltypes.Enum || f.Type == sqltypes.Set):
			return unsupported("%s computes with %s, an %s column (member numbers)", sqlparser.String(e), col.Name, f.Type)
		}
		if cs := foreignCharset(p, f); cs != "" {
			return unsupported("%s reads %s, a %s column the pin holds as utf8mb4", sqlparser.String(e), col.Name, cs)
		}
	}
	return nil
}

// memberNumbers refuses SUM (and AVG, which sums) and BIT_AND/OR/XOR of
// an ENUM or SET column: the server adds the member numbers, the engine
// holds the members' names (SUM(e) failed with error 1105).
func memberNumbers(p *Program, a aggExpr) error {
	if a.fn != aggSum && a.fn < aggBitAnd || a.arg == nil || len(a.arg.cols) != 1 {
		return nil
	}
	if col := columnAt(p, a.arg.cols[0]); col != nil && col.Field != nil && (col.Field.Type == sqltypes.Enum || col.Field.Type == sqltypes.Set) {
		return unsupported("%s sums the member numbers of %s, an %s column", a.arg.src, col.Name, col.Field.Type)
	}
	return nil
}

// foreignCharset is the character set of a text column whose values are
// not held in it ("" for utf8mb4, utf8mb3, ascii, binary and non-text).
func foreignCharset(p *Program, f *querypb.Field) string {
	if f.Charset == 63 || !(sqltypes.IsText(f.Type) || sqltypes.IsBinary(f.Type)) {
		return ""
	}
	switch cs, _, _ := strings.Cut(p.env.Collations().LookupName(collations.ID(f.Charset)), "_"); cs {
	case "", "utf8mb4", "utf8mb3", "utf8", "ascii":
		return ""
	default:
		return cs
	}
}

func collationOf(f *querypb.Field) collations.ID {
	if f == nil || f.Charset == 63 {
		return 0
	}
	return collations.ID(f.Charset)
}

// exactDivision rewrites `a / b` over integers (columns narrower than
// BIGINT, small integer literals) as `(a * 1000000000 DIV b) * 0.000000001`.
// MySQL divides integers to 9 fractional digits, truncated, and keeps them
// inside SUM, comparisons and FLOOR (div_precision_increment only rounds
// what is displayed); evalengine rounds the quotient to 4 digits, so the
// rewrite gives evalengine MySQL's value. Division by zero stays NULL.
// Divisions of other operands are left for columns() to refuse.
func (p *Program) exactDivision(e sqlparser.Expr) sqlparser.Expr {
	out := sqlparser.Rewrite(sqlparser.Clone(e), nil, func(c *sqlparser.Cursor) bool {
		b, ok := c.Node().(*sqlparser.BinaryExpr)
		if !ok || b.Operator != sqlparser.DivOp || !p.smallInt(b.Left) || !p.smallInt(b.Right) {
			return true
		}
		scaled := &sqlparser.BinaryExpr{Operator: sqlparser.MultOp, Left: b.Left, Right: sqlparser.NewIntLiteral("1000000000")}
		quot := &sqlparser.BinaryExpr{Operator: sqlparser.IntDivOp, Left: scaled, Right: b.Right}
		c.Replace(&sqlparser.BinaryExpr{Operator: sqlparser.MultOp, Left: quot, Right: sqlparser.NewDecimalLiteral("0.000000001")})
		return true
	})
	return out.(sqlparser.Expr)
}

// exactInFunctions applies exactDivision to the arguments of functions
// only.
func (p *Program) exactInFunctions(e sqlparser.Expr) sqlparser.Expr {
	out := sqlparser.Rewrite(sqlparser.Clone(e), func(c *sqlparser.Cursor) bool {
		f, ok := c.Node().(*sqlparser.FuncExpr)
		if !ok {
			return true
		}
		c.Replace(p.exactDivision(f))
		return false
	}, nil)
	return out.(sqlparser.Expr)
}

// smallInt reports an integer operand whose product with 10^9 fits BIGINT.
func (p *Program) smallInt(e sqlparser.Expr) bool {
	switch x := e.(type) {
	case *sqlparser.Literal:
		if x.Type != sqlparser.IntVal {
			return false
		}
		n, err := strconv.ParseInt(x.Val, 10, 64)
		return err == nil && n > -1<<31 && n < 1<<31
	case *sqlparser.ColName:
		if p.join != nil {
			i, err := p.join.resolve(x)
			if err != nil {
				return false
			}
			switch p.join.cols[i].Field.Type {
			case sqltypes.Int8, sqltypes.Uint8, sqltypes.Int16, sqltypes.Uint16, sqltypes.Int24, sqltypes.Uint24, sqltypes.Int32, sqltypes.Year:
				return true
			}
			return false
		}
		for _, c := range p.t.Cols {
			if strings.EqualFold(c.Name, x.Name.String()) {
				switch c.Field.Type {
				case sqltypes.Int8, sqltypes.Uint8, sqltypes.Int16, sqltypes.Uint16, sqltypes.Int24, sqltypes.Uint24, sqltypes.Int32, sqltypes.Year:
					return true
				}
				return false
			}
		}
	}
	return false
}

// columnAt is the column at a slot of the rows expressions read: the
// joined row's with a join, else the table's.
func columnAt(p *Program, c int) *pinned.Column {
	if p.join != nil {
		if c < len(p.join.cols) {
			return p.join.cols[c]
		}
		return nil
	}
	if c < len(p.t.Cols) {
		return p.t.Cols[c]
	}
	return nil
}

// typeOf types p's columns for package convwarn: a statement whose
// implicit conversions MariaDB warns about runs on the replicas.
func typeOf(p *Program) convwarn.TypeOf {
	return func(c *sqlparser.ColName) (querypb.Type, string, bool) {
		if cols, err := p.columns(c); err == nil && len(cols) == 1 {
			if col := columnAt(p, cols[0]); col != nil && col.Field != nil {
				return col.Field.Type, col.Name, true
			}
		}
		return 0, "", false
	}
}
