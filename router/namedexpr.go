package router

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"vitess.io/vitess/go/sqltypes"
	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shoaldb/shoal/observe"
	"github.com/shoaldb/shoal/sqlerr"
)

// MariaDB's EXECUTE forms that TiDB's parser does not read:
//
//	EXECUTE s USING <expression>, …          (values, not only @variables)
//	EXECUTE IMMEDIATE <expression> [USING …] (the text from an expression)
//
// The expressions are evaluated on the session's replica connection, in
// one `SELECT e1, e2, …`, where the session's variables live; each value
// is then bound as the literal of its type, as EXECUTE … USING @v binds a
// variable's (named.go). A temporal value (USING NOW()) is bound as its
// text, as a user variable holding it would be.

// errUsingSubquery is MariaDB's ER_SUBQUERIES_NOT_SUPPORTED.
const errUsingSubquery = 1970

var (
	executeUsingRE     = regexp.MustCompile("(?is)^\\s*EXECUTE\\s+(`(?:[^`]|``)+`|[A-Za-z0-9_$]+)\\s+USING\\s+(.+?)[\\s;]*$")
	executeImmediateRE = regexp.MustCompile(`(?is)^\s*EXECUTE\s+IMMEDIATE\s+(.+?)[\s;]*$`)
)

// runNamedExpr runs query when it is one of the EXECUTE forms above;
// handled is false when it is not.
func (s namedRunner) runNamedExpr(ctx context.Context, ss *Session, query string, callback func(*sqltypes.Result) error) (handled bool, err error) {
	if m := executeImmediateRE.FindStringSubmatch(query); m != nil {
		return true, s.executeImmediate(ctx, ss, m[1], callback)
	}
	m := executeUsingRE.FindStringSubmatch(query)
	if m == nil || strings.EqualFold(m[1], "IMMEDIATE") {
		return false, nil
	}
	if err := s.noSubquery(m[2], "EXECUTE..USING"); err != nil {
		return true, err
	}
	name := m[1]
	if strings.HasPrefix(name, "`") {
		name = strings.ReplaceAll(name[1:len(name)-1], "``", "`")
	}
	n, ok := ss.named[strings.ToLower(name)]
	if !ok {
		ss.Kind = observe.KindLocal
		return true, unknownNamed(name, "EXECUTE")
	}
	vals, err := s.evalValues(ctx, ss, m[2])
	if err != nil {
		return true, err
	}
	return true, s.runBound(ctx, ss, n, vals, callback)
}

// executeImmediate runs EXECUTE IMMEDIATE rest: rest is the statement's
// expression, then optionally USING and the values.
func (s namedRunner) executeImmediate(ctx context.Context, ss *Session, rest string, callback func(*sqltypes.Result) error) error {
	textExpr, using, err := s.splitUsing(rest)
	if err != nil {
		return err
	}
	if err := s.noSubquery(textExpr, "EXECUTE IMMEDIATE"); err != nil {
		return err
	}
	if err := s.noSubquery(using, "EXECUTE..USING"); err != nil {
		return err
	}
	v, err := s.evalValues(ctx, ss, textExpr)
	if err != nil {
		return err
	}
	if len(v) != 1 {
		return syntaxError(textExpr)
	}
	if v[0].IsNull() {
		return syntaxError("NULL")
	}
	n, err := s.compileNamed(v[0].ToString())
	if err != nil {
		return err
	}
	var vals []sqltypes.Value
	if using != "" {
		if vals, err = s.evalValues(ctx, ss, using); err != nil {
			return err
		}
	}
	return s.runBound(ctx, ss, n, vals, callback)
}

// splitUsing cuts rest at its USING keyword outside parentheses, strings
// and comments (vitess' tokenizer finds it); using is "" without one.
func (s namedRunner) splitUsing(rest string) (expr, using string, err error) {
	tkn := s.eng.Env().VT().Parser().NewStringTokenizer(rest)
	depth := 0
	for {
		start := tkn.Pos
		typ, _ := tkn.Scan()
		switch typ {
		case 0:
			return rest, "", nil
		case sqlparser.LEX_ERROR:
			return "", "", syntaxError(rest)
		case '(':
			depth++
		case ')':
			depth--
		case sqlparser.USING:
			if depth == 0 {
				return strings.TrimSpace(rest[:start]), strings.TrimSpace(rest[tkn.Pos:]), nil
			}
		}
	}
}

// noSubquery refuses a subquery in list as MariaDB does (1970), before
// anything else of the statement is looked at; what names the clause.
func (s namedRunner) noSubquery(list, what string) error {
	tkn := s.eng.Env().VT().Parser().NewStringTokenizer(list)
	for {
		typ, _ := tkn.Scan()
		if typ == 0 || typ == sqlparser.LEX_ERROR {
			return nil
		}
		if typ == sqlparser.SELECT {
			return sqlerr.New(errUsingSubquery, "42000", "%s does not support subqueries or stored functions", what)
		}
	}
}

// evalValues evaluates a list of expressions on the session's replica
// connection and returns their values.
func (s namedRunner) evalValues(ctx context.Context, ss *Session, list string) ([]sqltypes.Value, error) {
	var row []sqltypes.Value
	fields := 0
	err := s.eng.Passthrough(ctx, &ss.Session, "SELECT "+list, func(r *sqltypes.Result) error {
		if r.Fields != nil {
			fields = len(r.Fields)
		}
		if len(r.Rows) > 0 {
			row = r.Rows[0]
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(row) != fields {
		return nil, fmt.Errorf("evaluating EXECUTE's values: %d columns, %d values", fields, len(row))
	}
	return row, nil
}
