package mysqlwire

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/sqlparse"
)

// Select items that are a bare parameter.
//
// MariaDB types a select item that is a parameter alone (SELECT ?, or
// `?` AS one: Django's Value() annotations, an ORM's constant column)
// by the type the client declared for it in COM_STMT_EXECUTE, where the
// statement Shoal runs holds the value as a literal, typed by its text:
// a LONGLONG parameter 7 is a BIGINT of length 21 (the literal, an INT of
// length 1, whose binary value is 4 bytes where MariaDB sends 8), a
// DOUBLE one has length 23 (the literal 1.5e+00: 7), a STRING (0xfe) one
// is CHAR (the literal: VARCHAR). Those columns are retyped here, their
// values with them. The other parameter types (DECIMAL, DATETIME,
// VAR_STRING, NULL) come out as MariaDB's already; a parameter inside an
// expression (`? + 1`) is not retyped (docs/sql.md).

// paramColumns maps the result columns of stmt that are a bare
// parameter to that parameter's index (marks are the offsets of stmt's
// markers). nil when there is none or the select list cannot be lined up
// with the result (a wildcard, not a SELECT).
func paramColumns(stmt string, marks []int) map[int]int {
	n, err := sqlparse.ParseOne(stmt)
	if err != nil {
		return nil
	}
	sel, ok := n.(*ast.SelectStmt)
	if !ok || sel.Fields == nil {
		return nil
	}
	var out map[int]int
	for i, f := range sel.Fields.Fields {
		if f.WildCard != nil {
			return nil
		}
		x := f.Expr
		for {
			p, ok := x.(*ast.ParenthesesExpr)
			if !ok {
				break
			}
			x = p.Expr
		}
		if _, ok := x.(ast.ParamMarkerExpr); !ok {
			continue
		}
		for j, m := range marks {
			if m >= f.Offset {
				if out == nil {
					out = map[int]int{}
				}
				out[i] = j
				break
			}
		}
	}
	return out
}

// paramTyped returns fields with the bare-parameter columns cols typed
// as MariaDB types them for prepare's declared parameter types, and
// which columns' values must become BIGINT (nil: none). Fields changed
// are copies.
func paramTyped(fields []*querypb.Field, cols map[int]int, prepare *mysql.PrepareData) ([]*querypb.Field, []int) {
	var out []*querypb.Field
	var ints []int
	for c, p := range cols {
		if c >= len(fields) || p >= len(prepare.ParamsType) {
			continue
		}
		f := fields[c]
		var g *querypb.Field
		switch querypb.Type(prepare.ParamsType[p]) {
		case sqltypes.Int64:
			if f.Type == sqltypes.Int64 && f.ColumnLength == 21 || !sqltypes.IsSigned(f.Type) {
				continue
			}
			g = f.CloneVT()
			g.Type, g.ColumnLength, g.Decimals = sqltypes.Int64, 21, 0
			ints = append(ints, c)
		case sqltypes.Float64:
			if f.Type != sqltypes.Float64 || f.ColumnLength == 23 {
				continue
			}
			g = f.CloneVT()
			g.ColumnLength = 23
		case sqltypes.Char:
			if f.Type != sqltypes.VarChar {
				continue
			}
			g = f.CloneVT()
			g.Type = sqltypes.Char
		default:
			continue
		}
		if out == nil {
			out = append([]*querypb.Field(nil), fields...)
		}
		out[c] = g
	}
	if out == nil {
		return fields, nil
	}
	return out, ints
}

// bigintValues returns rows with the values of columns ints as BIGINT
// (the rows changed are copies).
func bigintValues(rows [][]sqltypes.Value, ints []int) [][]sqltypes.Value {
	if len(ints) == 0 {
		return rows
	}
	out := make([][]sqltypes.Value, len(rows))
	for i, row := range rows {
		cp := append([]sqltypes.Value(nil), row...)
		for _, c := range ints {
			if c < len(cp) && !cp[c].IsNull() && sqltypes.IsSigned(cp[c].Type()) {
				cp[c] = sqltypes.MakeTrusted(sqltypes.Int64, cp[c].Raw())
			}
		}
		out[i] = cp
	}
	return out
}
