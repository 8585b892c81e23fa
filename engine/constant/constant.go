// Package constant recognizes constant statements (SELECT 1, SELECT 1 AS
// ok, SELECT 1, 2e0 FROM DUAL: Select) and copies the replica's answer to
// one (Capture), so that the engine can answer the next ones itself.
//
// Connection pools and drivers send these to check a connection, often
// before every borrowed use, and a relay pays a full replica round trip
// for each (issue 14: a passthrough `select 1` at p99 2.26× direct, the
// extra loopback round trip being most of it). Their answer does not
// depend on data or on session state, but its column definitions are the
// server's (MariaDB types `1` as INT, MySQL 8 as BIGINT), so the first one
// of each text passes through and its result, as the replica sent it, is
// kept on the plan cache entry; later ones are answered from there,
// without a round trip, until the catalog generation changes.
//
// One thing a constant statement does on the server besides answering:
// it leaves the session's warnings alone (MariaDB clears them only with a
// statement that reads a table), so its warning count is the previous
// statement's. A session whose replica connection may hold warnings
// passes them through as before; one that holds none is answered by the
// engine, with the count 0 the server would send.
//
// The engine owns the rest (its constant.go): passing the first one
// through with a Capture, keeping the answer on the plan cache entry, and
// the session's warnings. This package is its own because the rule and
// the copy depend on the statement and the answer alone. It imports the TiDB AST and vitess'
// value types.
package constant

import (
	"unicode"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"vitess.io/vitess/go/sqltypes"

	"github.com/shoaldb/shoal/sqlparse"
)

// Select reports whether sel selects only numeric literals, with
// plain ASCII aliases, from no table: its answer is the same for every
// session of a server.
func Select(sel *ast.SelectStmt) bool {
	if !sqlparse.OnlySelectList(sel) {
		return false
	}
	for _, f := range sel.Fields.Fields {
		if f.WildCard != nil || !asciiName(f.AsName.O) {
			return false
		}
		v, ok := f.Expr.(ast.ValueExpr)
		if !ok {
			return false
		}
		switch v.GetValue().(type) {
		case int64, uint64, float64:
		default:
			// Strings (their column's charset is the connection's),
			// bit and hex literals, NULL, and decimals (kept out for
			// the collation and width rules around them).
			return false
		}
	}
	return true
}

// asciiName reports whether an alias is plain ASCII letters, digits and
// underscores: its bytes on the wire do not depend on
// character_set_results.
func asciiName(s string) bool {
	for _, r := range s {
		if r > unicode.MaxASCII || !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return false
		}
	}
	return true
}

// Capture keeps a copy of the result a passthrough writes to its client.
type Capture struct{ kept sqltypes.Result }

// Wrap is callback, keeping a copy of what it is handed.
func (c *Capture) Wrap(callback func(*sqltypes.Result) error) func(*sqltypes.Result) error {
	return func(r *sqltypes.Result) error {
		if r.Fields != nil {
			c.kept.Fields = r.Fields
		}
		for _, row := range r.Rows {
			own := make([]sqltypes.Value, len(row))
			for i, v := range row {
				// Copied: the replica connection may reuse its buffers.
				own[i] = sqltypes.MakeTrusted(v.Type(), append([]byte(nil), v.Raw()...))
			}
			c.kept.Rows = append(c.kept.Rows, own)
		}
		return callback(r)
	}
}

// Answer is the kept result when it is a constant statement's answer
// (columns and one row), to be sent as it is; false otherwise.
func (c *Capture) Answer() (*sqltypes.Result, bool) {
	return &c.kept, len(c.kept.Fields) > 0 && len(c.kept.Rows) == 1
}
