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
// row offsets once per plan, so evaluating a row does no parsing. Where
// evalengine answers otherwise than MySQL, the call is evaluated here
// instead, over arguments evalengine evaluates (host calls, host.go).
package evalexpr

import (
	"context"
	"crypto/sha256"
	"fmt"
	"github.com/shoaldb/shoal/evalexpr/exprmemo"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/mysql/collations/colldata"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
	vtrpcpb "vitess.io/vitess/go/vt/proto/vtrpc"
	"vitess.io/vitess/go/vt/sqlparser"
	"vitess.io/vitess/go/vt/vtenv"
	"vitess.io/vitess/go/vt/vterrors"
	"vitess.io/vitess/go/vt/vtgate/evalengine"

	"github.com/shoaldb/shoal/sqlerr"
)

// Env is the shared, read-only evaluation environment.
type Env struct {
	vt *vtenv.Environment
	cm caseMaps
	// mariadb: the replicas are MariaDB (inexact.go).
	mariadb bool
	// memo remembers compiled expressions (memo.go).
	memo exprmemo.Cache[*Expr]
	// zone gives the replicas' time zone (SetTimeZone); nil, or nil
	// from it: the process's.
	zone func() *time.Location
}

// zoneFuncs compute in the session's time zone.
var zoneFuncs = map[string]bool{"from_unixtime": true, "unix_timestamp": true, "convert_tz": true,
	"makedate": true, "last_day": true, "dayofyear": true}

// zoned reports whether e calls a function of zoneFuncs.
func zoned(e sqlparser.Expr) bool {
	found := false
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if f, ok := n.(*sqlparser.FuncExpr); ok && zoneFuncs[f.Name.Lowered()] {
			found = true
		}
		return !found, nil
	}, e)
	return found
}

// SetTimeZone makes evaluators made from then on compute FROM_UNIXTIME,
// UNIX_TIMESTAMP and the other zone-dependent calls in the zone zone
// returns, the replicas' time zone as a fresh connection to them has it
// (engine: the catalog's, read again with it), not the coordinator
// process's. Call it before the Env is shared.
func (e *Env) SetTimeZone(zone func() *time.Location) { e.zone = zone }

// NewEnv returns an environment for the given MySQL server version string
// (as the replicas report it; "" for vitess' default).
func NewEnv(version string) (*Env, error) {
	vt, err := vtenv.New(vtenv.Options{MySQLServerVersion: mysqlVersion(version)})
	if err != nil {
		return nil, err
	}
	return &Env{vt: vt, mariadb: strings.Contains(strings.ToLower(version), "mariadb")}, nil
}

// MariaDB reports whether the replicas are MariaDB.
func (e *Env) MariaDB() bool { return e.mariadb }

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
	// n is the layout's width; hosts are the calls evaluated here
	// (host.go), whose results are the synthetic columns n, n+1, ….
	n     int
	hosts []host
	// coll is the collation of a text result (Unknown otherwise): Eval
	// returns text in its charset, whatever the arguments' were.
	coll collations.ID
	// json: the result is a JSON value (MariaDB sends it as text).
	json bool
	// inexact says why the server may compute another value (inexact.go).
	inexact string
	// zoned: it calls a function of the session's time zone (zoneFuncs).
	zoned bool
	// converts: the expression names a character set or collation itself
	// (CONVERT, CAST, COLLATE).
	converts bool
	// retype are the text columns typed binary it reads (textTyped):
	// their values are bound as text.
	retype []int
	// divs are the divisions it makes on every row (divzero.go).
	divs []division
	// serial, when not nil, serializes its evaluations: vitess'
	// GREATEST and LEAST write their argument precision into the
	// compiled expression as they evaluate (builtinMultiComparison.prec),
	// a data race between the partitions of a pinned scan that share it.
	serial *sync.Mutex
}

// Collation is the collation of the expression's result when it is text
// (as MySQL types it from the columns' types and collations), Unknown
// otherwise: a latin1 column gives latin1 text, which the caller converts
// for its result column.
func (x *Expr) Collation() collations.ID { return x.coll }

// Inexact says why the server may compute a value other than the
// evaluator's for some rows (inexact.go), or "". The coordinator's final
// stage passes such a statement through; the in-memory engine over pins,
// which has no server to ask, evaluates it anyway.
func (x *Expr) Inexact() string { return x.inexact }

// OutputJSON reports whether ref names one of outputs (`__oN`, as the
// planner writes an ORDER BY position or alias) whose value is JSON.
func OutputJSON(outputs []*Expr, ref string) bool {
	var i int
	if _, err := fmt.Sscanf(strings.Trim(ref, "`"), "__o%d", &i); err != nil || i < 0 || i >= len(outputs) {
		return false
	}
	return outputs[i].JSON()
}

// ReadsField reports whether x reads a column of its layout's fields
// that pred holds (nil fields are skipped).
func (x *Expr) ReadsField(fields []*querypb.Field, pred func(*querypb.Field) bool) bool {
	for i, f := range fields {
		if f != nil && pred(f) && x.Reads(i) {
			return true
		}
	}
	return false
}

// OfType is a ReadsField predicate: a column of one of types.
func OfType(types ...querypb.Type) func(*querypb.Field) bool {
	return func(f *querypb.Field) bool { return slices.Contains(types, f.Type) }
}

// JSON reports whether the expression's result is a JSON value.
func (x *Expr) JSON() bool { return x.json }

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
	n      int
	// key digests the layout for the compile memo (memo.go).
	key [sha256.Size]byte
	// retype are the offsets of text columns typed binary (textTyped).
	retype []int
	// storedFloats: FLOAT values arrive as the table stores them (a live
	// pin's row changes), not as the text MariaDB prints for them
	// (inexactConversion; WithStoredFloats).
	storedFloats bool
}

// WithStoredFloats returns l for rows whose FLOAT values are the table's
// own (a live pin's row changes from the binary log), not MariaDB's
// printed text of them (a fragment's or the merge's): a FLOAT may then
// be computed with.
func (l *Layout) WithStoredFloats() *Layout {
	c := *l
	c.storedFloats = true
	c.key = sha256.Sum256(append(l.key[:], "stored floats"...))
	return &c
}

// textTyped types as text the columns vitess types binary for their
// BINARY flag although they have a character set: a _bin collation
// (utf8mb4_bin, latin1_bin) or COLLATE …_bin. Typed VARBINARY,
// evalengine evaluates them as binary strings (UPPER and LOWER change
// nothing, CHAR_LENGTH counts bytes, comparisons ignore the collation);
// MySQL evaluates them as the text they are. Every character set: a
// latin1_bin fragment column arrives as utf8mb4 and is converted back to
// latin1 like any latin1 column (engine/rowformat.RecodedCharset), and a
// pinned table refuses to compute with text it holds in another charset
// than its own (pinexec.modeled). It returns the fields (a copy when one
// changed) and the offsets changed, whose values Eval retypes too.
func textTyped(fields []*querypb.Field) ([]*querypb.Field, []int) {
	var retype []int
	out := fields
	for i, f := range fields {
		if f == nil || f.Charset == collations.CollationBinaryID || f.Charset == 0 {
			continue
		}
		if colldata.Lookup(collations.ID(f.Charset)) == nil {
			continue
		}
		t, ok := textType(f.Type)
		if !ok {
			continue
		}
		if retype == nil {
			out = slices.Clone(fields)
		}
		c := f.CloneVT()
		c.Type = t
		out[i] = c
		retype = append(retype, i)
	}
	return out, retype
}

// textType is the text type of a binary string type.
func textType(t querypb.Type) (querypb.Type, bool) {
	switch t {
	case sqltypes.VarBinary:
		return sqltypes.VarChar, true
	case sqltypes.Binary:
		return sqltypes.Char, true
	case sqltypes.Blob:
		return sqltypes.Text, true
	}
	return t, false
}

// NewLayout builds a layout; fields may be shorter than names or nil.
func NewLayout(names []string, fields []*querypb.Field) *Layout {
	fields, retype := textTyped(fields)
	l := &Layout{index: make(map[string]int, len(names)), fields: fields, n: len(names), key: exprmemo.LayoutKey(names, fields), retype: retype}
	for i, n := range names {
		l.index[strings.ToLower(n)] = i
	}
	return l
}

// Compile parses src and binds column names to offsets in the row layout.
// Each column is typed from its field (type, charset, collation), so the
// expression is evaluated as MySQL would over the replica's column. The
// expression is then evaluated once over typed sample values (probe):
// what the evaluator cannot do for those types fails here, when the plan
// is made, and the statement passes through, instead of failing when it
// runs.
//
// Compiled expressions are shared: the same source over an equal layout
// returns the same *Expr, which callers must not change (package exprmemo).
func (e *Env) Compile(src string, layout *Layout) (*Expr, error) {
	k := exprmemo.Key{Layout: layout.key, Src: src}
	if x, ok := e.memo.Get(k); ok {
		return x, nil
	}
	gen := e.memo.Gen()
	x, err := e.compile(src, layout)
	if err == nil {
		// An error is not kept: it may come from a replica that is down
		// for a while (a case mapping, casemap.go).
		e.memo.Put(k, x, gen)
	}
	return x, err
}

func (e *Env) compile(src string, layout *Layout) (*Expr, error) {
	x, err := e.compileNoDivisions(src, layout)
	if err != nil {
		return nil, err
	}
	ast, err := e.vt.Parser().ParseExpr(src)
	if err != nil {
		return nil, fmt.Errorf("final expression %q: %w", src, err)
	}
	x.divs = e.divisions(ast, layout)
	return x, nil
}

// compileNoDivisions is compile without the divisions' operands.
func (e *Env) compileNoDivisions(src string, layout *Layout) (*Expr, error) {
	ast, err := e.vt.Parser().ParseExpr(src)
	if err != nil {
		return nil, fmt.Errorf("final expression %q: %w", src, err)
	}
	ast = dateLiterals(equivalents(rewriteNotLike(ast)))
	if e.mariadb {
		ast = mariaUnixTimestamps(ast) // inexact.go
	}
	var read []int
	x := &Expr{src: src, n: layout.n, inexact: e.inexact(ast), converts: converts(ast), zoned: zoned(ast)}
	if multiComparison(ast) {
		x.serial = new(sync.Mutex)
	}
	ast = yearLiterals(ast, layout, &x.inexact)
	ast = columnCollations(comparisonForms(ast), layout, e.vt.CollationEnv(), &x.inexact)
	ho := &hoister{e: e, x: x}
	cfg := &evalengine.Config{
		Environment: e.vt,
		Collation:   e.vt.CollationEnv().DefaultConnectionCharset(),
		ResolveColumn: func(col *sqlparser.ColName) (int, error) {
			name := strings.ToLower(col.Name.String())
			if i, ok := layout.index[name]; ok {
				read = append(read, i)
				return i, nil
			}
			if i, ok := hostColumn(name); ok && i < len(ho.types) {
				return layout.n + i, nil
			}
			return 0, fmt.Errorf("unknown column %s in final expression", col.Name.String())
		},
		ResolveType: func(ex sqlparser.Expr) (evalengine.Type, bool) {
			col, ok := ex.(*sqlparser.ColName)
			if !ok {
				return evalengine.Type{}, false
			}
			name := strings.ToLower(col.Name.String())
			if i, ok := hostColumn(name); ok && i < len(ho.types) {
				return ho.types[i], true
			}
			i, ok := layout.index[name]
			if !ok || i >= len(layout.fields) || layout.fields[i] == nil {
				return evalengine.Type{}, false
			}
			return evalengine.NewTypeFromField(layout.fields[i]), true
		},
		NoCompilation: true,
		// Constant folding evaluates in the process's time zone, not
		// the replicas' (SetTimeZone).
		NoConstantFolding: x.zoned,
	}
	ho.cfg = cfg
	// The calls evaluated here (host.go) become synthetic columns,
	// innermost first.
	ast = ho.hoist(ast)
	if ho.err != nil {
		return nil, fmt.Errorf("final expression %q: %w", src, ho.err)
	}
	if err := e.checkInexact(ast, cfg, layout.storedFloats); err != nil {
		return nil, fmt.Errorf("final expression %q cannot be evaluated exactly: %w", src, err)
	}
	ev, err := evalengine.Translate(ast, cfg)
	if err != nil {
		return nil, fmt.Errorf("final expression %q: %w", src, uncoded{err})
	}
	x.e = ev
	if t, err := evalengine.EmptyExpressionEnv(e.vt).TypeOf(ev); err == nil {
		if sqltypes.IsText(t.Type()) {
			x.coll = t.Collation()
		}
		x.json = t.Type() == sqltypes.TypeJSON
	}
	slices.Sort(read)
	x.cols = slices.Compact(read)
	for _, c := range layout.retype {
		if _, ok := slices.BinarySearch(x.cols, c); ok {
			x.retype = append(x.retype, c)
		}
	}
	if err := e.probe(x, layout); err != nil {
		return nil, fmt.Errorf("final expression %q cannot be evaluated exactly: %w", src, err)
	}
	return x, nil
}

// checkInexact refuses the functions whose MySQL answer the evaluator
// cannot reproduce for their argument types:
//
//   - ORD of a string in a charset with 4-byte characters (utf8mb4): the
//     code of a character above U+FFFF does not fit ORD's INT result, and
//     MariaDB sends either the full value or INT's maximum, depending on
//     whether its plan went through a temporary table.
func (e *Env) checkInexact(ast sqlparser.Expr, cfg *evalengine.Config, storedFloats bool) error {
	var bad error
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if e.mariadb && bad == nil {
			bad = e.mariaJSON(n, cfg)
		}
		if bad == nil {
			bad = e.inexactConversion(n, n == ast || storedFloats, cfg)
		}
		f, ok := n.(*sqlparser.FuncExpr)
		if !ok || bad != nil || len(f.Exprs) != 1 || !strings.EqualFold(f.Name.String(), "ord") {
			return bad == nil, nil
		}
		ax, err := evalengine.Translate(f.Exprs[0], cfg)
		if err != nil {
			return true, nil // Translate of the whole expression reports it
		}
		t, err := evalengine.EmptyExpressionEnv(e.vt).TypeOf(ax)
		if err != nil || !sqltypes.IsText(t.Type()) {
			return true, nil
		}
		if c := colldata.Lookup(t.Collation()); c != nil && c.Charset().MaxWidth() >= 4 {
			bad = fmt.Errorf("ORD over %s text: MySQL's value above U+FFFF depends on its execution plan", c.Charset().Name())
		}
		return bad == nil, nil
	}, ast)
	return bad
}

// inexactConversion refuses what the evaluator converts otherwise than
// MariaDB (found by the third exactness hunt, e2e TestHuntConversions):
//
//   - a FLOAT value inside an expression: it arrives as the text MariaDB
//     sends for a FLOAT (6 significant digits, 142.143), while MariaDB
//     computes with the float's own bits (MAX(f) + 0 is
//     142.14285278320312, CAST(MAX(f) AS DECIMAL(10,4)) 142.1429); a bare
//     FLOAT column is sent as it came (top: n is the whole expression, or
//     the rows hold FLOAT values as stored, Layout.WithStoredFloats);
//   - TIME_TO_SEC of a value that may have fractional seconds: MariaDB
//     keeps them (TIME_TO_SEC of 27:45:55.125 is 99955.125), the
//     evaluator drops them;
//   - minus a BIGINT UNSIGNED: MariaDB fails with 1690 past 2^63;
//   - HEX, BIN, OCT of a DECIMAL or DOUBLE: MariaDB clamps it to BIGINT
//     UNSIGNED, the evaluator to BIGINT (over a pin);
//   - CAST or CONVERT to UNSIGNED of a value that is not an integer:
//     MariaDB clamps a DECIMAL, DOUBLE or text to 0 … 2^64-1 (-3.5 is 0,
//     with a warning), the evaluator wraps a negative value around 2^64
//     and clamps a large one to 2^63-1.
func (e *Env) inexactConversion(n sqlparser.SQLNode, top bool, cfg *evalengine.Config) error {
	typeOf := func(x sqlparser.Expr) (*evalengine.Type, bool) {
		ax, err := evalengine.Translate(x, cfg)
		if err != nil {
			return nil, false
		}
		t, err := evalengine.EmptyExpressionEnv(e.vt).TypeOf(ax)
		if err != nil || !t.Valid() || t.Type() == sqltypes.Unknown {
			return nil, false
		}
		return &t, true
	}
	switch x := n.(type) {
	case *sqlparser.ColName:
		if t, ok := typeOf(x); ok && !top && t.Type() == sqltypes.Float32 {
			return fmt.Errorf("a FLOAT value computed with after the merge (it arrives as its 6 printed digits, MariaDB computes with the float's bits)")
		}
	case *sqlparser.FuncExpr:
		if len(x.Exprs) != 1 {
			break
		}
		switch strings.ToLower(x.Name.String()) {
		case "time_to_sec":
			t, ok := typeOf(x.Exprs[0])
			if !ok || !(sqltypes.IsIntegral(t.Type()) || t.Type() == sqltypes.Date || sqltypes.IsDateOrTime(t.Type()) && t.Scale() == 0) {
				return fmt.Errorf("TIME_TO_SEC of a value that may have fractional seconds (MariaDB keeps them, the evaluator drops them)")
			}
		case "hex", "bin", "oct":
			// MariaDB rounds a DECIMAL or DOUBLE to an integer and
			// clamps it to BIGINT UNSIGNED (HEX of 4.9e34 is
			// FFFFFFFFFFFFFFFF); the evaluator clamps to BIGINT
			// (7FFFFFFFFFFFFFFF).
			if t, ok := typeOf(x.Exprs[0]); ok && (t.Type() == sqltypes.Decimal || sqltypes.IsFloat(t.Type())) {
				return fmt.Errorf("%s of a DECIMAL or DOUBLE (MariaDB clamps it to BIGINT UNSIGNED, the evaluator to BIGINT)", strings.ToUpper(x.Name.String()))
			}
		}
	case *sqlparser.UnaryExpr:
		// MariaDB fails with 1690 negating a BIGINT UNSIGNED past
		// 2^63 (-MIN(u)); the evaluator answers a DECIMAL.
		if _, lit := x.Expr.(*sqlparser.Literal); x.Operator == sqlparser.UMinusOp && !lit {
			if t, ok := typeOf(x.Expr); ok && t.Type() == sqltypes.Uint64 {
				return fmt.Errorf("minus a BIGINT UNSIGNED (MariaDB fails with 1690 past 2^63, the evaluator answers a DECIMAL)")
			}
		}
	case *sqlparser.CastExpr:
		return e.unsignedCast(x.Expr, x.Type, typeOf)
	case *sqlparser.ConvertExpr:
		return e.unsignedCast(x.Expr, x.Type, typeOf)
	}
	return nil
}

// unsignedCast refuses a CAST to UNSIGNED of a value that may not be an
// integer (inexactConversion).
func (e *Env) unsignedCast(x sqlparser.Expr, to *sqlparser.ConvertType, typeOf func(sqlparser.Expr) (*evalengine.Type, bool)) error {
	if to == nil || !strings.EqualFold(to.Type, "unsigned") && !strings.EqualFold(to.Type, "unsigned integer") {
		return nil
	}
	if t, ok := typeOf(x); ok && sqltypes.IsIntegral(t.Type()) {
		return nil
	}
	return fmt.Errorf("CAST to UNSIGNED of a value that may not be an integer (MariaDB clamps it to 0 … 2^64-1, the evaluator wraps a negative one)")
}

// mariaJSON refuses the JSON a MariaDB server writes otherwise than the
// evaluator (found by hand-written reporting queries, now in the function
// matrix, e2e/functions.go). MariaDB's JSON is text, kept as it was built:
//
//   - JSON_OBJECT keeps its keys in argument order, duplicates included
//     ({"b": 1, "a": 2}); the evaluator sorts them and keeps the last of
//     a duplicate, as MySQL's binary JSON does;
//   - a DOUBLE argument of JSON_ARRAY or JSON_OBJECT is written with the
//     item's display decimals (STDDEV: 666.7950), by the evaluator with
//     all its digits;
//   - a function that reads a JSON document and writes one (JSON_EXTRACT,
//     JSON_KEYS, JSON_SET, JSON_MERGE…) writes its objects as MariaDB
//     keeps them, the evaluator with sorted keys.
//
// JSON_ARRAY and one-key JSON_OBJECT over integers, DECIMALs, text and
// dates agree (the function matrix checks them); the functions that answer
// a scalar about a document (JSON_LENGTH, JSON_CONTAINS, JSON_VALUE) the
// evaluator does not implement.
func (e *Env) mariaJSON(n sqlparser.SQLNode, cfg *evalengine.Config) error {
	var args []sqlparser.Expr
	switch j := n.(type) {
	case *sqlparser.JSONObjectExpr:
		if len(j.Params) > 1 {
			return fmt.Errorf("MariaDB keeps JSON_OBJECT's keys in argument order, the evaluator sorts them")
		}
		for _, p := range j.Params {
			args = append(args, p.Value)
		}
	case *sqlparser.JSONArrayExpr:
		args = j.Params
	case *sqlparser.JSONExtractExpr, *sqlparser.JSONKeysExpr, *sqlparser.JSONValueModifierExpr,
		*sqlparser.JSONValueMergeExpr, *sqlparser.JSONRemoveExpr, *sqlparser.JSONPrettyExpr, *sqlparser.JSONUnquoteExpr:
		return fmt.Errorf("MariaDB writes a JSON document's objects with their keys as built, the evaluator sorts them")
	}
	for _, a := range args {
		ax, err := evalengine.Translate(a, cfg)
		if err != nil {
			continue // Translate of the whole expression reports it
		}
		// A type not known before the values arrive (a merged aggregate's
		// column) may be a DOUBLE too.
		if t, err := evalengine.EmptyExpressionEnv(e.vt).TypeOf(ax); err != nil || !t.Valid() || t.Type() == sqltypes.Unknown || sqltypes.IsFloat(t.Type()) {
			return fmt.Errorf("MariaDB writes a DOUBLE inside JSON with the item's display decimals, the evaluator with all its digits; this argument is or may be one")
		}
	}
	return nil
}

// hostColumn parses the name of a synthetic column (__host3 → 3).
func hostColumn(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, "__host")
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(rest)
	return i, err == nil
}

// columnCollations gives the text columns of ast their collation as
// MySQL ranks it. MySQL gives a column's collation (IMPLICIT) precedence
// over a literal's (COERCIBLE), so `u = 'strasse'` compares under u's
// collation and 'Straße' is equal under utf8mb4_unicode_ci; evalengine
// types a column as coercible as a literal, and merged the two collations
// to a binary comparison. Where every text column a value reads has the
// same collation, other than the connection's, they are marked with it
// (u COLLATE utf8mb4_unicode_ci: EXPLICIT, which wins over literals as
// IMPLICIT does). Each operand of AND, OR, XOR and NOT is a value of its
// own (`b LIKE 'B%' AND u LIKE 's%'`). Columns of different collations in
// one value are left as they are: there MySQL's rules between columns
// (a Unicode character set wins) are evalengine's too.
func columnCollations(ast sqlparser.Expr, layout *Layout, env *collations.Environment, inexact *string) sqlparser.Expr {
	switch n := ast.(type) {
	case *sqlparser.AndExpr:
		return &sqlparser.AndExpr{Left: columnCollations(n.Left, layout, env, inexact), Right: columnCollations(n.Right, layout, env, inexact)}
	case *sqlparser.OrExpr:
		return &sqlparser.OrExpr{Left: columnCollations(n.Left, layout, env, inexact), Right: columnCollations(n.Right, layout, env, inexact)}
	case *sqlparser.XorExpr:
		return &sqlparser.XorExpr{Left: columnCollations(n.Left, layout, env, inexact), Right: columnCollations(n.Right, layout, env, inexact)}
	case *sqlparser.NotExpr:
		return &sqlparser.NotExpr{Expr: columnCollations(n.Expr, layout, env, inexact)}
	}
	if mixedBinaryIn(ast) && *inexact == "" {
		// MariaDB compares every element of the list under the
		// collation of them all, binary when one is a binary string;
		// evalengine compares each element under its own pair's.
		*inexact = "IN over a list of binary strings (BINARY x) and other values"
	}
	conn := env.DefaultConnectionCharset()
	textColl := func(col *sqlparser.ColName) collations.ID {
		i, ok := layout.index[strings.ToLower(col.Name.String())]
		if !ok || i >= len(layout.fields) || layout.fields[i] == nil {
			return collations.Unknown
		}
		f := layout.fields[i]
		if !sqltypes.IsText(f.Type) || f.Charset == collations.CollationBinaryID {
			return collations.Unknown
		}
		return collations.ID(f.Charset)
	}
	one, mixed, binary := collations.Unknown, false, false
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if e, ok := n.(sqlparser.Expr); ok && binaryConversion(e) {
			binary = true
		}
		if col, ok := n.(*sqlparser.ColName); ok {
			switch c := textColl(col); {
			case c == collations.Unknown:
			case one == collations.Unknown:
				one = c
			case c != one:
				mixed = true
			}
		}
		return true, nil
	}, ast)
	if mixed || one == collations.Unknown || one == conn || !env.IsSupported(one) {
		return ast
	}
	if binary {
		// A binary string (BINARY 'x', CAST(… AS BINARY), CONVERT(…
		// USING binary)) is IMPLICIT too, and between IMPLICIT operands
		// binary wins: Django's `title LIKE BINARY '%Gadget%'` matches
		// bytes, not under title's collation, which COLLATE (EXPLICIT)
		// would impose. Left unmarked, the column and the binary string
		// merge to binary in evalengine as well: for a comparison whose
		// operand is the binary string and that compares nothing else
		// inside; in any other value the marks would be needed elsewhere
		// and wrong here, and the value is not evaluated.
		// A value that compares nothing (CAST(x AS BINARY) as a result
		// or a sort key) is marked as before: the marks change no byte.
		switch {
		case binaryOperand(ast):
			return ast
		case collationSensitive(ast):
			if *inexact == "" {
				*inexact = "a binary string (BINARY x, CAST(x AS BINARY)) inside a value that also compares text under a column's collation"
			}
			return ast
		}
	}
	name := env.LookupName(one)
	if name == "" {
		return ast
	}
	return sqlparser.Rewrite(sqlparser.Clone(ast), nil, func(c *sqlparser.Cursor) bool {
		col, ok := c.Node().(*sqlparser.ColName)
		if !ok || textColl(col) != one {
			return true
		}
		if _, inside := c.Parent().(*sqlparser.CollateExpr); inside {
			return true
		}
		c.Replace(&sqlparser.CollateExpr{Expr: col, Collation: name})
		return true
	}).(sqlparser.Expr)
}

// multiComparison reports a GREATEST or LEAST call in ast (Expr.serial).
func multiComparison(ast sqlparser.Expr) bool {
	found := false
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if f, ok := n.(*sqlparser.FuncExpr); ok && (f.Name.Lowered() == "greatest" || f.Name.Lowered() == "least") {
			found = true
		}
		return !found, nil
	}, ast)
	return found
}

// binaryConversion reports a conversion to a binary string: BINARY x,
// CAST(x AS BINARY[(n)]), CONVERT(x, BINARY), CONVERT(x USING binary),
// whose collation is binary with IMPLICIT coercibility.
func binaryConversion(e sqlparser.Expr) bool {
	switch x := e.(type) {
	case *sqlparser.ConvertExpr:
		return x.Type != nil && strings.EqualFold(x.Type.Type, "binary")
	case *sqlparser.CastExpr:
		return x.Type != nil && strings.EqualFold(x.Type.Type, "binary")
	case *sqlparser.ConvertUsingExpr:
		return strings.EqualFold(x.Type, "binary")
	}
	return false
}

// mixedBinaryIn reports an IN list, in ast, of binary strings
// (binaryConversion) and other values.
func mixedBinaryIn(ast sqlparser.Expr) bool {
	found := false
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		c, ok := n.(*sqlparser.ComparisonExpr)
		if !ok || c.Operator != sqlparser.InOp && c.Operator != sqlparser.NotInOp {
			return true, nil
		}
		t, ok := c.Right.(sqlparser.ValTuple)
		if !ok {
			return true, nil
		}
		bin, other := binaryConversion(c.Left), !binaryConversion(c.Left)
		for _, e := range t {
			if binaryConversion(e) {
				bin = true
			} else {
				other = true
			}
		}
		found = found || bin && other
		return !found, nil
	}, ast)
	return found
}

// binaryOperand reports a comparison (=, <, LIKE, IN, BETWEEN, …) one of
// whose operands is a binary string (binaryConversion), with no other
// comparison or collation-dependent function inside its operands: one
// that MariaDB makes on bytes whole.
func binaryOperand(ast sqlparser.Expr) bool {
	var ops []sqlparser.Expr
	switch c := ast.(type) {
	case *sqlparser.ComparisonExpr:
		ops = []sqlparser.Expr{c.Left, c.Right}
		if t, ok := c.Right.(sqlparser.ValTuple); ok {
			ops = append([]sqlparser.Expr{c.Left}, t...)
		}
		if c.Escape != nil {
			ops = append(ops, c.Escape)
		}
	case *sqlparser.BetweenExpr:
		ops = []sqlparser.Expr{c.Left, c.From, c.To}
	default:
		return false
	}
	has, nested := false, false
	for _, op := range ops {
		if binaryConversion(op) {
			has = true
		}
		nested = nested || collationSensitive(op)
	}
	return has && !nested
}

// collationSensitive reports a comparison, or a function whose answer
// depends on its arguments' collation, in e.
func collationSensitive(e sqlparser.Expr) bool {
	found := false
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch f := n.(type) {
		case *sqlparser.ComparisonExpr, *sqlparser.BetweenExpr, *sqlparser.CaseExpr, *sqlparser.LocateExpr,
			*sqlparser.CollateExpr, *sqlparser.Subquery:
			found = true
		case *sqlparser.FuncExpr:
			switch f.Name.Lowered() {
			case "strcmp", "field", "find_in_set", "nullif", "greatest", "least", "instr", "replace", "if", "ifnull", "coalesce":
				found = true
			}
		}
		return !found, nil
	}, e)
	return found
}

// probe evaluates x over a row of typed sample values and over a row of
// NULLs. An evaluator that does not implement a function for the
// argument types (vitess answers UNIMPLEMENTED) fails here.
func (e *Env) probe(x *Expr, layout *Layout) error {
	sample := make([]sqltypes.Value, layout.n)
	nulls := make([]sqltypes.Value, layout.n)
	for i := range sample {
		var f *querypb.Field
		if i < len(layout.fields) {
			f = layout.fields[i]
		}
		sample[i] = sampleValue(f)
		nulls[i] = sqltypes.NULL
	}
	ev := e.NewEvaluator()
	for _, row := range [][]sqltypes.Value{sample, nulls} {
		if _, _, err := ev.Eval(x, row); err != nil && unimplemented(err) {
			return err
		}
	}
	// A text result in another character set than every text column it
	// reads, with no CONVERT, CAST or COLLATE to say so: MySQL gives a
	// column's collation precedence over literals' (IFNULL(l1, 'none')
	// over a latin1 column is latin1), so the evaluator typed it wrong
	// and would send or sort it in the wrong one (inexact.go).
	if x.inexact == "" && !x.converts && x.coll != collations.Unknown && x.coll != collations.CollationBinaryID {
		if to := colldata.Lookup(x.coll); to != nil {
			other, same := false, false
			for _, c := range x.cols {
				if c >= len(layout.fields) || layout.fields[c] == nil || !sqltypes.IsText(layout.fields[c].Type) {
					continue
				}
				from := colldata.Lookup(collations.ID(layout.fields[c].Charset))
				if from == nil || from.Charset().Name() == "binary" {
					continue
				}
				if from.Charset().Name() == to.Charset().Name() {
					same = true
				} else {
					other = true
				}
			}
			if other && !same {
				x.inexact = fmt.Sprintf("its result is typed %s, its text columns are in another character set", to.Charset().Name())
			}
		}
	}
	// A text result's collation at run time: where the type could not
	// be worked out statically (IFNULL or REGEXP_REPLACE over a latin1
	// column), it is the result's (so its text is converted for the
	// result column and sorted by it); where it contradicts the type, the
	// server computes the expression (inexact.go). Binary results are
	// bytes either way.
	if x.inexact == "" && ev.bind(x, sample) == nil {
		if r, err := ev.env.Evaluate(x.e); err == nil && r.Collation() != collations.Unknown && r.Collation() != collations.CollationBinaryID {
			if x.coll == collations.Unknown && sqltypes.IsText(r.Value(r.Collation()).Type()) {
				x.coll = r.Collation()
			} else if x.coll != collations.Unknown && x.coll != collations.CollationBinaryID {
				from, to := colldata.Lookup(r.Collation()), colldata.Lookup(x.coll)
				if from != nil && to != nil && from.Charset().Name() != to.Charset().Name() {
					x.inexact = fmt.Sprintf("its text is %s at run time, its type says %s", from.Charset().Name(), to.Charset().Name())
				}
			}
		}
	}
	return nil
}

// unimplemented reports whether err says the evaluator lacks a feature,
// rather than a data error MySQL raises too.
func unimplemented(err error) bool {
	if vterrors.Code(err) == vtrpcpb.Code_UNIMPLEMENTED {
		return true
	}
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, "not implemented") || strings.Contains(msg, "unsupported") || strings.Contains(msg, "unimplemented")
}

// sampleValue is an ordinary value of the field's type (a NULL-able
// column's values are ordinary values too).
func sampleValue(f *querypb.Field) sqltypes.Value {
	if f == nil {
		return sqltypes.NewInt64(7)
	}
	t := f.Type
	switch {
	case t == sqltypes.Null:
		return sqltypes.NULL
	case sqltypes.IsUnsigned(t):
		return sqltypes.MakeTrusted(t, []byte("7"))
	case sqltypes.IsIntegral(t):
		return sqltypes.MakeTrusted(t, []byte("-7"))
	case sqltypes.IsFloat(t):
		return sqltypes.MakeTrusted(t, []byte("2.5"))
	case t == sqltypes.Decimal:
		return sqltypes.MakeTrusted(t, []byte("2.50"))
	case t == sqltypes.Date:
		return sqltypes.MakeTrusted(t, []byte("2020-02-29"))
	case t == sqltypes.Datetime || t == sqltypes.Timestamp:
		return sqltypes.MakeTrusted(t, []byte("2020-02-29 13:04:05"))
	case t == sqltypes.Time:
		return sqltypes.MakeTrusted(t, []byte("13:04:05"))
	case t == sqltypes.Year:
		return sqltypes.MakeTrusted(t, []byte("2020"))
	case t == sqltypes.TypeJSON:
		return sqltypes.MakeTrusted(t, []byte(`{"a": 1}`))
	case t == sqltypes.Bit:
		return sqltypes.MakeTrusted(t, []byte{1})
	case sqltypes.IsText(t) || sqltypes.IsBinary(t):
		return sqltypes.MakeTrusted(t, []byte("Ab 1"))
	}
	return sqltypes.MakeTrusted(t, []byte("7"))
}

// Evaluator evaluates compiled expressions; it is not safe for concurrent
// use (one per query).
type Evaluator struct {
	env *evalengine.ExpressionEnv
	buf []sqltypes.Value
}

// NewEvaluator returns an evaluator.
func (e *Env) NewEvaluator() *Evaluator {
	loc := time.Local
	if e.zone != nil {
		if z := e.zone(); z != nil {
			loc = z
		}
	}
	return &Evaluator{env: evalengine.NewExpressionEnv(context.Background(), nil, evalengine.NewEmptyVCursor(e.vt, loc))}
}

// Eval evaluates x over row, returning the value and its collation.
func (v *Evaluator) Eval(x *Expr, row []sqltypes.Value) (sqltypes.Value, collations.ID, error) {
	if x.serial != nil {
		x.serial.Lock()
		defer x.serial.Unlock()
	}
	if err := v.bind(x, row); err != nil {
		return sqltypes.NULL, 0, err
	}
	r, err := v.env.Evaluate(x.e)
	if err != nil {
		return sqltypes.NULL, 0, err
	}
	if err := outOfRange(x, r.Value(collations.Unknown)); err != nil {
		return sqltypes.NULL, 0, err
	}
	c := r.Collation()
	if x.coll != collations.Unknown && c != x.coll && c != collations.Unknown {
		return r.Value(x.coll), x.coll, nil // converted to the expression's type
	}
	return r.Value(c), c, nil
}

// outOfRange is MariaDB's error for a DOUBLE result that overflowed
// (`MAX(db) * 1e308`): 1690, where the evaluator answers +Inf. Only the
// expression's own result is checked: an overflow inside it that a
// comparison consumes still gives the comparison's answer.
func outOfRange(x *Expr, r sqltypes.Value) error {
	if r.Type() != sqltypes.Float64 && r.Type() != sqltypes.Float32 {
		return nil
	}
	f, err := r.ToFloat64()
	if err != nil || !math.IsInf(f, 0) && !math.IsNaN(f) {
		return nil
	}
	return sqlerr.New(1690, "22003", "DOUBLE value is out of range in '%s'", x.src)
}

// True evaluates x as a condition: NULL and false are false.
func (v *Evaluator) True(x *Expr, row []sqltypes.Value) (bool, error) {
	if x.serial != nil {
		x.serial.Lock()
		defer x.serial.Unlock()
	}
	if err := v.bind(x, row); err != nil {
		return false, err
	}
	r, err := v.env.Evaluate(x.e)
	if err != nil {
		return false, err
	}
	return r.ToBoolean(), nil
}

// bind sets the row an expression reads: the row itself, or, when the
// expression has host calls, the row's layout columns followed by the
// host calls' results.
func (v *Evaluator) bind(x *Expr, row []sqltypes.Value) error {
	if len(x.hosts) == 0 && len(x.retype) == 0 {
		v.env.Row = row
		return nil
	}
	v.buf = v.buf[:0]
	for i := 0; i < x.n; i++ {
		if i < len(row) {
			v.buf = append(v.buf, row[i])
		} else {
			v.buf = append(v.buf, sqltypes.NULL)
		}
	}
	for _, c := range x.retype {
		if c < len(v.buf) {
			if t, ok := textType(v.buf[c].Type()); ok {
				v.buf[c] = sqltypes.MakeTrusted(t, v.buf[c].Raw())
			}
		}
	}
	for _, h := range x.hosts {
		v.env.Row = v.buf
		out, err := h.eval(v.env)
		if err != nil {
			return err
		}
		v.buf = append(v.buf, out)
	}
	v.env.Row = v.buf
	return nil
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

// uncoded is err printed without the "Code: UNIMPLEMENTED" line that
// vitess' errors print first (EXPLAIN shows the reason to users); it
// still unwraps to err, code and all.
type uncoded struct{ err error }

func (u uncoded) Unwrap() error { return u.err }

func (u uncoded) Error() string {
	msg := u.err.Error()
	if strings.HasPrefix(msg, "Code: ") {
		if _, rest, ok := strings.Cut(msg, "\n"); ok {
			return strings.TrimSpace(rest)
		}
	}
	return msg
}

// RuntimeError is an expression that compiled but failed on a row's
// values: an integer overflow, say. MariaDB names its own rendering of
// the statement's expression in such an error, which a final stage
// evaluating a rewritten expression cannot reproduce, and the server may
// not fail at all where it computes another way. A caller that has sent
// the client nothing yet runs the statement on a replica instead, so the
// client gets the server's own answer or error (engine.runPrepared).
type RuntimeError struct {
	What string // what was being evaluated: "evaluating HAVING …"
	Err  error
}

func (e *RuntimeError) Error() string { return e.What + ": " + e.Err.Error() }

func (e *RuntimeError) Unwrap() error { return e.Err }
