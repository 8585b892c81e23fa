package pinexec

import (
	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shoaldb/shoal/pinned/pinexec/bitarg"
)

// The BIT_AND, BIT_OR and BIT_XOR partials read their argument as
// MariaDB's val_int does (package bitarg); how depends on the argument,
// decided once at compile time here.

// bitReadOf is how the argument arg of a BIT_ aggregate is read, or an
// error wrapping ErrUnsupported.
func bitReadOf(p *Program, arg *expr) (bitarg.Read, error) {
	if lit, ok := arg.ast.(*sqlparser.Literal); ok && (lit.Type == sqlparser.HexNum || lit.Type == sqlparser.BitNum) {
		return bitarg.Hybrid, nil
	}
	if _, bare := arg.ast.(*sqlparser.ColName); !bare || len(arg.cols) != 1 {
		if arg.x.Collation() != collations.Unknown {
			// Typed text, it is read as text whatever each row's value
			// is: IF(i > 0, v, d) reads d's -12.75 as '-12.75', -12.
			return bitarg.TextExpr, nil
		}
		return bitarg.Expr, nil
	}
	col := columnAt(p, arg.cols[0])
	if col == nil || col.Field == nil {
		return bitarg.Expr, nil
	}
	r, ok := bitarg.ColumnRead(col.Field)
	if !ok {
		return 0, unsupported("%s reads %s, an %s column, as its member numbers", arg.src, col.Name, col.Field.Type)
	}
	return r, nil
}
