package router

import (
	"context"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"vitess.io/vitess/go/sqltypes"
	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shoaldb/shoal/observe"
	"github.com/shoaldb/shoal/planner"
	"github.com/shoaldb/shoal/sqlerr"
	"github.com/shoaldb/shoal/sqlparse"
)

// SQL-level prepared statements: PREPARE s FROM '…' (or FROM @var),
// EXECUTE s [USING @a, @b, …], DEALLOCATE PREPARE s (or DROP PREPARE s),
// as the mysql CLI and scripts send them.
//
// The router keeps each session's statements by name (case-insensitive,
// as MySQL's). PREPARE checks the statement as a text query would be
// checked — a write is refused (1290), a syntax error the parser is sure
// of is 1064 — and records its `?` markers, found by vitess' tokenizer so a
// `?` in a string, a quoted name or a comment is never one. EXECUTE reads
// the user variables it names from the session's replica connection (SET
// @a = … ran there, and is replayed on a new one), binds each value as a
// literal of its type into the text, and runs the result through
// Router.query like any statement: it distributes, runs over pins or
// passes through exactly as the same text sent directly would.

// namedRunner runs the SQL-level prepared statements of a Router's
// sessions (named.go, namedexpr.go).
type namedRunner struct{ *Router }

// maxNamed bounds one session's named statements (MySQL bounds all
// sessions' together with max_prepared_stmt_count, 16382 by default).
const maxNamed = 1024

// named is one statement prepared with PREPARE.
type named struct {
	text  string
	marks []int  // byte offsets of the `?` markers in text
	db    string // the session's database at PREPARE (Session.InDatabase)
}

// isNamed reports whether the first keyword of an unparsable statement
// is one of the SQL-level prepared statement commands.
func isNamed(query string) bool {
	_, kw := planner.ClassifyUnparsed(query)
	switch strings.ToUpper(kw) {
	case "PREPARE", "EXECUTE", "DEALLOCATE":
		return true
	}
	return false
}

// namedUnparsed is the error for a PREPARE, EXECUTE or DEALLOCATE the
// parser cannot read and namedexpr.go does not run.
func namedUnparsed(query string) error {
	return sqlerr.New(sqlerr.ErrNotSupported, "42000",
		"Shoal supports PREPARE s FROM '…' | @var, EXECUTE s [USING value, …], EXECUTE IMMEDIATE '…' [USING value, …] and DEALLOCATE PREPARE s near '%s'",
		sqlparse.Truncate(query, 80))
}

// runNamed runs a PREPARE, EXECUTE or DEALLOCATE PREPARE of session ss.
func (s namedRunner) runNamed(ctx context.Context, ss *Session, stmt ast.StmtNode, callback func(*sqltypes.Result) error) error {
	switch st := stmt.(type) {
	case *ast.PrepareStmt:
		ss.Kind = observe.KindLocal
		return s.prepareNamed(ctx, ss, st, callback)
	case *ast.ExecuteStmt:
		return s.executeNamed(ctx, ss, st, callback)
	case *ast.DeallocateStmt:
		ss.Kind = observe.KindLocal
		key := strings.ToLower(st.Name)
		if _, ok := ss.named[key]; !ok {
			return unknownNamed(st.Name, "DEALLOCATE PREPARE")
		}
		delete(ss.named, key)
		return callback(&sqltypes.Result{})
	}
	return fmt.Errorf("runNamed: %T", stmt)
}

func unknownNamed(name, cmd string) error {
	return sqlerr.New(sqlerr.ErrUnknownStmtHandler, "HY000", "Unknown prepared statement handler (%s) given to %s", sqlparse.Truncate(name, 64), cmd)
}

// prepareNamed checks and records a PREPARE. As in MySQL, a statement of
// the same name is dropped first, even when the new one fails.
func (s namedRunner) prepareNamed(ctx context.Context, ss *Session, st *ast.PrepareStmt, callback func(*sqltypes.Result) error) error {
	key := strings.ToLower(st.Name)
	delete(ss.named, key)
	text := st.SQLText
	if st.SQLVar != nil {
		vals, err := s.readVariables(ctx, ss, []ast.ExprNode{st.SQLVar})
		if err != nil {
			return err
		}
		if vals[0].IsNull() {
			return syntaxError("NULL")
		}
		text = vals[0].ToString()
	}
	n, err := s.compileNamed(text)
	if err != nil {
		return err
	}
	if len(ss.named) >= maxNamed {
		return sqlerr.New(sqlerr.ErrMaxPreparedStmts, "42000", "Can't create more than %d prepared statements in one session; DEALLOCATE PREPARE the ones no longer used", maxNamed)
	}
	if ss.named == nil {
		ss.named = map[string]*named{}
	}
	n.db = ss.DB
	ss.named[key] = n
	return callback(&sqltypes.Result{Info: "Statement prepared"})
}

// compileNamed checks a statement's text as PREPARE does and finds its
// markers.
func (s namedRunner) compileNamed(text string) (*named, error) {
	if err := checkNamed(text); err != nil {
		return nil, err
	}
	marks, err := s.markers(text)
	if err != nil {
		return nil, err
	}
	if len(marks) > math.MaxUint16 {
		return nil, sqlerr.New(sqlerr.ErrTooManyPlaceholders, "HY000", "Prepared statement contains too many placeholders")
	}
	return &named{text: text, marks: marks}, nil
}

// checkNamed fails with the error the statement text would get from
// Shoal as a query, or from MySQL at PREPARE.
func checkNamed(text string) error {
	stmts, err := sqlparse.Parse(text)
	if err != nil || len(stmts) != 1 {
		if len(stmts) > 1 {
			return syntaxError(text)
		}
		switch kind, why := planner.ClassifyUnparsed(text); {
		case kind == planner.Refuse:
			return sqlerr.ReadOnly(why)
		case kind == planner.Unparsable:
			return syntaxError(text)
		}
		return nil
	}
	switch kind, why := planner.Classify(stmts[0]); kind {
	case planner.Refuse:
		return sqlerr.ReadOnly(why)
	case planner.Named:
		return sqlerr.New(sqlerr.ErrUnsupportedPS, "HY000", "This command is not supported in the prepared statement protocol yet")
	}
	return nil
}

func syntaxError(near string) error {
	return sqlerr.Syntax(near, 1)
}

// markers returns the byte offsets of the `?` markers of text.
func (s namedRunner) markers(text string) ([]int, error) {
	tkn := s.eng.Env().VT().Parser().NewStringTokenizer(text)
	var marks []int
	for {
		typ, _ := tkn.Scan()
		switch typ {
		case 0:
			return marks, nil
		case sqlparser.LEX_ERROR:
			return nil, syntaxError(text)
		case sqlparser.VALUE_ARG:
			if p := tkn.Pos - 1; p >= 0 && p < len(text) && text[p] == '?' {
				marks = append(marks, p)
			}
		}
	}
}

// executeNamed binds the USING variables into the statement and runs it
// as a query.
func (s namedRunner) executeNamed(ctx context.Context, ss *Session, st *ast.ExecuteStmt, callback func(*sqltypes.Result) error) error {
	n, ok := ss.named[strings.ToLower(st.Name)]
	if !ok {
		ss.Kind = observe.KindLocal
		return unknownNamed(st.Name, "EXECUTE")
	}
	if len(st.UsingVars) != len(n.marks) {
		ss.Kind = observe.KindLocal
		return sqlerr.New(sqlerr.ErrWrongArguments, "HY000", "Incorrect arguments to EXECUTE: the statement has %d parameter(s), USING names %d", len(n.marks), len(st.UsingVars))
	}
	var vals []sqltypes.Value
	if len(n.marks) > 0 {
		var err error
		if vals, err = s.readVariables(ctx, ss, st.UsingVars); err != nil {
			return err
		}
	}
	return s.runBound(ctx, ss, n, vals, callback)
}

// runBound binds vals into n's markers as literals of their types and
// runs the text as a query, in the database n was prepared in
// (Session.InDatabase).
func (s namedRunner) runBound(ctx context.Context, ss *Session, n *named, vals []sqltypes.Value, callback func(*sqltypes.Result) error) error {
	return ss.InDatabase(n.db, func() error { return s.runBoundHere(ctx, ss, n, vals, callback) })
}

func (s namedRunner) runBoundHere(ctx context.Context, ss *Session, n *named, vals []sqltypes.Value, callback func(*sqltypes.Result) error) error {
	if len(vals) != len(n.marks) {
		ss.Kind = observe.KindLocal
		return sqlerr.New(sqlerr.ErrWrongArguments, "HY000", "Incorrect arguments to EXECUTE: the statement has %d parameter(s), USING names %d", len(n.marks), len(vals))
	}
	if len(n.marks) == 0 {
		ss.Kind = ""
		return s.query(ctx, ss, n.text, callback)
	}
	lits := make([]string, len(vals))
	for i, v := range vals {
		lits[i] = literal(v)
	}
	b := sqlparse.Bind(n.text, n.marks, lits)
	ss.Kind = ""
	return s.query(ctx, ss, b.Text, func(r *sqltypes.Result) error {
		if r.Fields == nil {
			return callback(r)
		}
		// Unaliased columns are named from the statement as prepared,
		// with its `?` markers, as MySQL names them.
		at := 0 // computed columns' names appear in select-list order
		cp := *r
		cp.Fields = append(cp.Fields[:0:0], r.Fields...)
		for i, f := range cp.Fields {
			if f.OrgTable != "" { // a table's column keeps its name
				continue
			}
			if name, ok := b.OriginalName(f.Name, &at); ok {
				cp.Fields[i] = f.CloneVT()
				cp.Fields[i].Name = name
			}
		}
		return callback(&cp)
	})
}

// readVariables reads the values of user variables from the session's
// replica connection, where the session's SETs ran.
func (s namedRunner) readVariables(ctx context.Context, ss *Session, vars []ast.ExprNode) ([]sqltypes.Value, error) {
	names := make([]string, len(vars))
	for i, v := range vars {
		ve, ok := v.(*ast.VariableExpr)
		if !ok || ve.IsSystem {
			return nil, sqlerr.New(sqlerr.ErrNotSupported, "42000", "EXECUTE … USING takes user variables (@name) only")
		}
		names[i] = "@" + sqlparse.QuoteID(ve.Name)
	}
	row, err := s.evalValues(ctx, ss, strings.Join(names, ", ")) // namedexpr.go
	if err != nil {
		return nil, err
	}
	if len(row) != len(vars) {
		return nil, fmt.Errorf("reading user variables: %d values for %d variables", len(row), len(vars))
	}
	return row, nil
}

// literal renders a user variable's value as the SQL literal of its type:
// integers and decimals as written, a DOUBLE as an exponent literal (a
// DOUBLE in SQL), binary strings and bytes that are not UTF-8 as X'…',
// other strings quoted with backslash escapes.
func literal(v sqltypes.Value) string {
	raw := v.Raw()
	switch t := v.Type(); {
	case v.IsNull():
		return "NULL"
	case sqltypes.IsIntegral(t), t == sqltypes.Decimal:
		return string(raw)
	case sqltypes.IsFloat(t):
		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return sqlparse.QuoteString(raw)
		}
		return strconv.FormatFloat(f, 'e', -1, 64)
	case sqltypes.IsBinary(t), !utf8.Valid(raw):
		if len(raw) == 0 {
			return "''"
		}
		return "X'" + hex.EncodeToString(raw) + "'"
	}
	return sqlparse.QuoteString(raw)
}
