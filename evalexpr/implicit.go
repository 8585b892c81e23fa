package evalexpr

import (
	"vitess.io/vitess/go/sqltypes"
	"vitess.io/vitess/go/vt/sqlparser"
)

// Text read as a number without CAST.
//
// MariaDB converts text to a number where arithmetic reads it
// (`MAX(Carrier) + 0`, `-MIN(Origin)`) and where it is compared with a
// number (`MIN(TailNum) > 5`, `HAVING MAX(Carrier) > 0`), and warns 1292
// for each value the conversion cuts ('YV', 'N100AA'), as CAST does
// (casttrunc.go). The final stage computes the same values without the
// warnings, so such a conversion is recorded with the divisions
// (divzero.go): an operand typed text under arithmetic, a text side
// compared with a side that is not text; and DividesByZero reports a row
// whose text castWarns says MariaDB would warn about, for the replica to
// answer. Text compared with a date or time is read as one, not as a
// number: not checked here (MariaDB warns for text that is no date, which
// the final stage does not see; docs/sql.md).

// implicitNumber is what arithmetic and a comparison with a number read
// text as: a DOUBLE, the widest of castWarns' kinds.
var implicitNumber = &sqlparser.ConvertType{Type: "double"}

// comparisonWarns reports whether comparing text, the value of d's text
// side on row, with d's other side makes MariaDB warn: when that side's
// value is a number, the text is read as one.
func comparisonWarns(v *Evaluator, d division, text sqltypes.Value, row []sqltypes.Value) bool {
	if text.IsNull() {
		return false
	}
	other, _, err := v.Eval(d.divisor, row)
	if err != nil {
		return true
	}
	if other.IsNull() || !(other.IsIntegral() || other.IsFloat() || other.IsDecimal()) {
		return false
	}
	return castWarns(text, implicitNumber)
}
