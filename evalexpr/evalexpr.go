// Package evalexpr evaluates the coordinator's final-stage expressions —
// select expressions over merged aggregates, HAVING, ORDER BY keys — with
// MySQL's semantics.
//
// It does not implement SQL semantics itself: expressions are handed to
// vitess' evalengine, which implements MySQL's rules for DECIMAL arithmetic
// and precision, integer vs decimal division, NULL propagation, type
// coercion in comparisons and string collations. The planner renders each
// final expression as SQL text over named columns (__g0, __a1, __o2, …);
// this package parses that text with vitess' parser and binds the names to
// row offsets once per plan, so evaluating a row does no parsing.
package evalexpr

import (
	"fmt"
	"slices"
	"strings"

	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
	"vitess.io/vitess/go/vt/sqlparser"
	"vitess.io/vitess/go/vt/vtenv"
	"vitess.io/vitess/go/vt/vtgate/evalengine"
)

// Env is the shared, read-only evaluation environment.
type Env struct {
	vt *vtenv.Environment
}

// NewEnv returns an environment for the given MySQL server version string
// (as the replicas report it; "" for vitess' default).
func NewEnv(version string) (*Env, error) {
	vt, err := vtenv.New(vtenv.Options{MySQLServerVersion: mysqlVersion(version)})
	if err != nil {
		return nil, err
	}
	return &Env{vt: vt}, nil
}

// mysqlVersion maps a MariaDB version (10.x, 11.x) to the MySQL version
// whose behaviour vitess should emulate; MySQL versions pass unchanged.
func mysqlVersion(v string) string {
	if v == "" {
		return "8.0.40"
	}
	if strings.Contains(strings.ToLower(v), "mariadb") {
		// MariaDB's defaults (utf8mb4_general_ci as the utf8mb4 default
		// collation, GROUP BY semantics) are those of MySQL 5.7.
		return "5.7.44"
	}
	return v
}

// VT returns the vitess environment.
func (e *Env) VT() *vtenv.Environment { return e.vt }

// Collations returns the collation environment.
func (e *Env) Collations() *collations.Environment { return e.vt.CollationEnv() }

// Expr is a compiled expression bound to a row layout.
type Expr struct {
	src  string
	e    evalengine.Expr
	cols []int // layout offsets the expression reads, ascending
}

// String returns the source text.
func (x *Expr) String() string { return x.src }

// Reads reports whether the expression reads any of the layout offsets in
// cols.
func (x *Expr) Reads(cols ...int) bool {
	for _, c := range cols {
		if slices.Contains(x.cols, c) {
			return true
		}
	}
	return false
}

// Layout names the columns of the rows an expression is evaluated over.
// Fields, when known, give each column's MySQL type and collation, so
// string comparisons use the column's collation as MySQL would.
type Layout struct {
	index  map[string]int
	fields []*querypb.Field
}

// NewLayout builds a layout; fields may be shorter than names or nil.
func NewLayout(names []string, fields []*querypb.Field) *Layout {
	l := &Layout{index: make(map[string]int, len(names)), fields: fields}
	for i, n := range names {
		l.index[strings.ToLower(n)] = i
	}
	return l
}

// Compile parses src and binds column names to offsets in the row layout.
func (e *Env) Compile(src string, layout *Layout) (*Expr, error) {
	ast, err := e.vt.Parser().ParseExpr(src)
	if err != nil {
		return nil, fmt.Errorf("final expression %q: %w", src, err)
	}
	ast = rewriteNotLike(ast)
	var read []int
	cfg := &evalengine.Config{
		Environment: e.vt,
		Collation:   e.vt.CollationEnv().DefaultConnectionCharset(),
		ResolveColumn: func(col *sqlparser.ColName) (int, error) {
			name := strings.ToLower(col.Name.String())
			if i, ok := layout.index[name]; ok {
				read = append(read, i)
				return i, nil
			}
			return 0, fmt.Errorf("unknown column %s in final expression", col.Name.String())
		},
		ResolveType: func(x sqlparser.Expr) (evalengine.Type, bool) {
			col, ok := x.(*sqlparser.ColName)
			if !ok {
				return evalengine.Type{}, false
			}
			i, ok := layout.index[strings.ToLower(col.Name.String())]
			if !ok || i >= len(layout.fields) || layout.fields[i] == nil {
				return evalengine.Type{}, false
			}
			return evalengine.NewTypeFromField(layout.fields[i]), true
		},
		NoCompilation: true,
	}
	x, err := evalengine.Translate(ast, cfg)
	if err != nil {
		return nil, fmt.Errorf("final expression %q: %w", src, err)
	}
	slices.Sort(read)
	return &Expr{src: src, e: x, cols: slices.Compact(read)}, nil
}

// Evaluator evaluates compiled expressions; it is not safe for concurrent
// use (one per query).
type Evaluator struct {
	env *evalengine.ExpressionEnv
}

// NewEvaluator returns an evaluator.
func (e *Env) NewEvaluator() *Evaluator {
	return &Evaluator{env: evalengine.EmptyExpressionEnv(e.vt)}
}

// Eval evaluates x over row, returning the value and its collation.
func (v *Evaluator) Eval(x *Expr, row []sqltypes.Value) (sqltypes.Value, collations.ID, error) {
	v.env.Row = row
	r, err := v.env.Evaluate(x.e)
	if err != nil {
		return sqltypes.NULL, 0, err
	}
	c := r.Collation()
	return r.Value(c), c, nil
}

// True evaluates x as a condition: NULL and false are false.
func (v *Evaluator) True(x *Expr, row []sqltypes.Value) (bool, error) {
	v.env.Row = row
	r, err := v.env.Evaluate(x.e)
	if err != nil {
		return false, err
	}
	return r.ToBoolean(), nil
}

// rewriteNotLike turns `a NOT LIKE b` into `NOT (a LIKE b)`. vitess'
// evalengine (v0.24) ignores the negation when the pattern is a constant
// and it has precompiled the wildcard (LikeExpr.matchWildcard returns the
// match itself on that path), so `x NOT LIKE '9%'` would select the rows
// that are LIKE '9%'. NOT over LIKE is the same expression in MySQL,
// NULLs included.
func rewriteNotLike(e sqlparser.Expr) sqlparser.Expr {
	out := sqlparser.Rewrite(e, nil, func(c *sqlparser.Cursor) bool {
		if cmp, ok := c.Node().(*sqlparser.ComparisonExpr); ok && cmp.Operator == sqlparser.NotLikeOp {
			like := *cmp
			like.Operator = sqlparser.LikeOp
			c.Replace(&sqlparser.NotExpr{Expr: &like})
		}
		return true
	})
	return out.(sqlparser.Expr)
}
