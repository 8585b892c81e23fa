package planner

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	"github.com/pingcap/tidb/pkg/parser/opcode"
)

// Quotients after the merge.
//
// A DECIMAL quotient (AVG of integers or DECIMALs, x / y of exact values)
// has a declared scale, the dividend's plus div_precision_increment, and
// internal digits beyond it (in groups of nine). MariaDB reads them three
// ways, and the final stage's evaluator (vitess' evalengine) differs from
// it in two:
//
//   - a comparison operator (=, <>, <, <=, >, >=, <=>) caches each DECIMAL
//     operand rounded to its declared scale: AVG(i) = 1.9675 is 1 when
//     AVG(i) is 1.967532467, and AVG(i) > 1.96753 is 0. The evaluator
//     compared all the digits. The operand is rewritten as ROUND(operand,
//     scale), which the evaluator rounds from all the digits, as MariaDB
//     does (fixQuotients). BETWEEN and IN compare all the digits on
//     MariaDB too;
//   - ROUND and TRUNCATE to more places than the declared scale read the
//     internal digits (ROUND(AVG(i), 6) is 1.967532); the evaluator cuts
//     the value at its declared scale first (1.967500). Such a statement
//     runs on a replica;
//   - a conversion to a time (SEC_TO_TIME, CAST AS TIME, MAKETIME,
//     FROM_UNIXTIME, an INTERVAL) truncates the digits past the type's
//     fraction, the evaluator rounds (SEC_TO_TIME(AVG(x)) was one
//     ten-thousandth of a second off; MIN(d) + INTERVAL AVG(x) SECOND was
//     NULL; SEC_TO_TIME(DayOfWeek / 7) over a group key too). A number
//     not known to be whole (a DOUBLE, AVG of TIME_TO_SEC, a DECIMAL with
//     a scale, a quotient) reaching one runs on a replica.

// quot describes an exact (integer or DECIMAL) value of the final stage.
type quot struct {
	scale int  // declared scale (maxDivScale+1: unknown)
	div   bool // it holds a quotient's internal digits
	exact bool // integer or DECIMAL, typed as MariaDB types it
}

// quotient describes e, an expression over group keys and aggregates.
func (a *aggPlanner) quotient(e ast.ExprNode) quot {
	const unknown = maxDivScale + 1
	switch x := e.(type) {
	case *ast.ParenthesesExpr:
		return a.quotient(x.Expr)
	case *ast.UnaryOperationExpr:
		if x.Op == opcode.Minus || x.Op == opcode.Plus {
			return a.quotient(x.V)
		}
		return quot{exact: true}
	case *ast.AggregateFuncExpr:
		if len(x.Args) != 1 {
			return quot{scale: unknown}
		}
		arg := x.Args[0]
		exact := a.exactValue(arg)
		switch strings.ToLower(x.F) {
		case ast.AggFuncCount:
			return quot{exact: true}
		case ast.AggFuncAvg:
			return quot{scale: min(a.divScale(arg)+divPrecisionIncrement, unknown), div: true, exact: exact}
		case ast.AggFuncSum, ast.AggFuncMin, ast.AggFuncMax:
			return quot{scale: a.divScale(arg), div: a.hasExactDivision(arg), exact: exact}
		}
		return quot{scale: unknown}
	case *ast.ColumnNameExpr:
		if i := a.aliasIndex(x); i >= 0 && a.sel.Fields.Fields[i].Expr != nil && hasAggregate(a.sel.Fields.Fields[i].Expr) {
			return a.quotient(a.sel.Fields.Fields[i].Expr) // HAVING and ORDER BY name select fields
		}
		return quot{scale: a.divScale(x), exact: a.exactValue(x)}
	case ast.ValueExpr:
		return quot{scale: a.divScale(x), exact: a.exactValue(x)}
	case *ast.BinaryOperationExpr:
		l, r := a.quotient(x.L), a.quotient(x.R)
		scale, ok := opScale(x.Op, l.scale, r.scale)
		if !ok || x.Op == opcode.IntDiv {
			return quot{exact: true} // DIV, comparisons, logic: integers
		}
		return quot{scale: scale, div: l.div || r.div || x.Op == opcode.Div, exact: l.exact && r.exact}
	case *ast.FuncCallExpr:
		if wholeFuncs[x.FnName.L] {
			return quot{exact: true}
		}
		switch x.FnName.L {
		case "round", "truncate":
			q := a.quotient(x.Args[0])
			if len(x.Args) == 1 {
				return quot{exact: q.exact}
			}
			if d, ok := placesLiteral(x.Args[1]); ok && d <= q.scale {
				return quot{scale: max(d, 0), exact: q.exact}
			}
			return quot{scale: unknown, div: q.div, exact: q.exact}
		case "abs", "if", "ifnull", "coalesce", "nullif", "greatest", "least":
			args := x.Args
			if x.FnName.L == "if" && len(args) == 3 {
				args = args[1:]
			}
			q := quot{exact: true}
			for _, arg := range args {
				aq := a.quotient(arg)
				q.scale, q.div, q.exact = max(q.scale, aq.scale), q.div || aq.div, q.exact && aq.exact
			}
			return q
		}
	}
	return quot{scale: unknown}
}

func placesLiteral(e ast.ExprNode) (int, bool) {
	if u, ok := e.(*ast.UnaryOperationExpr); ok && u.Op == opcode.Minus {
		d, ok := placesLiteral(u.V)
		return -d, ok
	}
	v, ok := e.(ast.ValueExpr)
	if !ok {
		return 0, false
	}
	switch n := v.GetValue().(type) {
	case int64:
		return int(n), true
	case uint64:
		return int(min(n, 1<<20)), true
	}
	return 0, false
}

// roundFuncs keep a temporal argument's type on MariaDB.
var roundFuncs = map[string]bool{"round": true, "truncate": true, "floor": true, "ceil": true, "ceiling": true}

// wholeFuncs return whole numbers.
var wholeFuncs = map[string]bool{"year": true, "month": true, "day": true, "dayofmonth": true, "dayofweek": true,
	"dayofyear": true, "weekday": true, "week": true, "weekofyear": true, "yearweek": true, "quarter": true,
	"hour": true, "minute": true, "second": true, "to_days": true, "to_seconds": true, "datediff": true,
	"timestampdiff": true, "length": true, "char_length": true, "floor": true, "ceil": true, "ceiling": true,
	"crc32": true, "sign": true}

// timeConversions turn a number into a time, truncating its fraction;
// the value is their argument at the given position (all of them: -1).
var timeConversions = map[string]int{"sec_to_time": 0, "from_unixtime": 0, "from_days": 0, "maketime": -1,
	"makedate": -1, "date_add": 1, "adddate": 1, "date_sub": 1, "subdate": 1, "timestampadd": 1}

// fixQuotients rewrites, in e (a final-stage expression, a copy), every
// comparison operand holding a DECIMAL quotient as ROUND(operand,
// declared scale), and refuses the uses of a quotient the evaluator does
// not read as MariaDB does (see above).
func (a *aggPlanner) fixQuotients(e ast.ExprNode) error {
	v := &quotientFixer{a: a}
	e.Accept(v)
	return v.err
}

type quotientFixer struct {
	a   *aggPlanner
	err error
}

func (v *quotientFixer) round(e ast.ExprNode) ast.ExprNode {
	q := v.a.quotient(e)
	if !q.div || !q.exact {
		return e
	}
	if q.scale > maxDivScale {
		v.err = notDist("a quotient compared after the merge whose declared scale is unknown (MariaDB compares it rounded to that scale)")
		return e
	}
	return &ast.FuncCallExpr{FnName: ast.NewCIStr("ROUND"), Args: []ast.ExprNode{e, ast.NewValueExpr(int64(q.scale), "", "")}}
}

func (v *quotientFixer) Enter(n ast.Node) (ast.Node, bool) {
	if v.err != nil {
		return n, true
	}
	switch x := n.(type) {
	case *ast.AggregateFuncExpr, *ast.SubqueryExpr:
		return n, true
	case *ast.BinaryOperationExpr:
		switch x.Op {
		case opcode.EQ, opcode.NE, opcode.LT, opcode.LE, opcode.GT, opcode.GE, opcode.NullEQ:
			if v.decimalComparison(x.L, x.R) {
				x.L, x.R = v.round(x.L), v.round(x.R)
			}
		}
	case *ast.FuncCallExpr:
		switch {
		case roundFuncs[x.FnName.L] && len(x.Args) > 0 && temporalFinder{a: v.a}.in(x.Args[0]):
			v.err = notDist("%s of a date or time after the merge (MariaDB returns a date or time, the evaluator a number)", x.FnName.O)
		case (x.FnName.L == "round" || x.FnName.L == "truncate") && len(x.Args) == 2:
			q := v.a.quotient(x.Args[0])
			if d, ok := placesLiteral(x.Args[1]); q.div && (q.exact || !v.a.mayBeFloat(x.Args[0])) && (!ok || d > q.scale || q.scale > maxDivScale) {
				v.err = notDist("%s of a quotient to more places than its declared scale (MariaDB reads its internal digits)", x.FnName.O)
			}
		default:
			if pos, ok := timeConversions[x.FnName.L]; ok {
				args := x.Args
				if pos >= 0 && pos < len(args) {
					args = args[pos : pos+1]
				}
				for _, arg := range args {
					if _, unit := arg.(*ast.TimeUnitExpr); !unit && !v.whole(arg) {
						v.err = notDist("%s of a number that may have a fraction, after the merge (MariaDB truncates it to the time's precision, the evaluator rounds)", x.FnName.O)
					}
				}
			}
		}
	case *ast.UnaryOperationExpr:
		if x.Op == opcode.Minus && hasBitAggregate(x.V) {
			// BIGINT UNSIGNED: MariaDB fails with 1690 past 2^63, the
			// evaluator answers a negative DECIMAL.
			v.err = notDist("minus of a BIT_ aggregate after the merge (MariaDB fails past 2^63)")
		}
	case *ast.FuncCastExpr:
		switch x.Tp.GetType() {
		case mysql.TypeDuration, mysql.TypeDatetime, mysql.TypeDate, mysql.TypeTimestamp:
			// A date or text is converted as such: only a number with
			// a fraction is truncated.
			if q := v.a.quotient(x.Expr); q.div || q.exact && q.scale > 0 || hasQuotient(x.Expr) {
				v.err = notDist("CAST of a number with a fraction to a time, after the merge (MariaDB truncates it to the time's precision, the evaluator rounds)")
			}
		}
	}
	return n, false
}

// decimalComparison reports whether a comparison of l and r holding a
// quotient is one MariaDB makes in DECIMAL (the other operand an integer,
// a DECIMAL or text), rounding the quotient first. Against a DOUBLE it
// compares all the digits (AVG(i) > 1.96753e0 is 1), as the evaluator
// does; against an operand whose type the planner cannot tell, the
// statement runs on a replica.
func (v *quotientFixer) decimalComparison(l, r ast.ExprNode) bool {
	ql, qr := v.a.quotient(l), v.a.quotient(r)
	if ql.div && !ql.exact && !v.a.mayBeFloat(l) || qr.div && !qr.exact && !v.a.mayBeFloat(r) {
		v.err = notDist("a quotient of a type the planner cannot tell compared after the merge (MariaDB rounds a DECIMAL one to its declared scale first)")
		return false
	}
	if !(ql.div && ql.exact) && !(qr.div && qr.exact) {
		return false
	}
	text := func(e ast.ExprNode) bool { _, ok := literalValue(e).(string); return ok }
	double := func(e ast.ExprNode) bool { _, ok := literalValue(e).(float64); return ok }
	switch {
	case ql.exact && (qr.exact || text(r)), qr.exact && text(l):
		return true
	case double(l) || double(r):
		return false
	}
	v.err = notDist("a DECIMAL quotient compared after the merge with a value of a type the planner cannot tell (MariaDB rounds the quotient against a DECIMAL, not against a DOUBLE)")
	return false
}

// whole reports whether e is known to be a whole number.
func (v *quotientFixer) whole(e ast.ExprNode) bool {
	q := v.a.quotient(e)
	return q.exact && !q.div && q.scale == 0
}

// hasQuotient reports an AVG or a division anywhere in e.
func hasQuotient(e ast.ExprNode) bool {
	found := false
	e.Accept(&finder{found: &found, match: func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.AggregateFuncExpr:
			return strings.EqualFold(x.F, ast.AggFuncAvg)
		case *ast.BinaryOperationExpr:
			return x.Op == opcode.Div
		}
		return false
	}})
	return found
}

func (v *quotientFixer) Leave(n ast.Node) (ast.Node, bool) { return n, true }

func hasAggregate(e ast.ExprNode) bool {
	found := false
	e.Accept(&finder{found: &found, match: func(n ast.Node) bool {
		_, ok := n.(*ast.AggregateFuncExpr)
		return ok
	}})
	return found
}

// QuotientFields reports, for each select field of sel, whether it holds
// an AVG or a division: a DECIMAL whose internal digits MariaDB reads when
// a UNION widens its scale to another branch's (AVG(i) at scale 4 is
// 1.9675325 in a UNION column of scale 7; the merged value, sent at its
// own scale, would be padded: 1.9675000).
func QuotientFields(sel *ast.SelectStmt) []bool {
	var out []bool
	for _, f := range sel.Fields.Fields {
		out = append(out, f.Expr != nil && hasQuotient(f.Expr))
	}
	return out
}

// floatFuncs return DOUBLE.
var floatFuncs = map[string]bool{"rand": true, "sqrt": true, "pow": true, "power": true, "exp": true, "ln": true,
	"log": true, "log2": true, "log10": true, "sin": true, "cos": true, "tan": true, "cot": true, "asin": true,
	"acos": true, "atan": true, "atan2": true, "pi": true, "degrees": true, "radians": true}

// mayBeFloat reports whether e reads a FLOAT or DOUBLE column, a DOUBLE
// literal or a function that returns DOUBLE.
func (a *aggPlanner) mayBeFloat(e ast.ExprNode) bool {
	found := false
	e.Accept(&finder{found: &found, match: func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.ColumnNameExpr:
			for _, s := range a.srcs {
				if x.Name.Table.O != "" && !strings.EqualFold(x.Name.Table.O, s.alias) {
					continue
				}
				if c, ok := s.tbl.Column(x.Name.Name.O); ok && (c.Type == "float" || c.Type == "double" || c.Type == "real") {
					return true
				}
			}
		case ast.ValueExpr:
			switch x.GetValue().(type) {
			case float64, float32:
				return true
			}
		case *ast.FuncCallExpr:
			return floatFuncs[x.FnName.L]
		}
		return false
	}})
	return found
}

// readsColumn reports whether e reads a column whose catalog entry
// satisfies pred.
func (a *aggPlanner) readsColumn(e ast.ExprNode, pred func(Column) bool) bool {
	found := false
	e.Accept(&finder{found: &found, match: func(n ast.Node) bool {
		x, ok := n.(*ast.ColumnNameExpr)
		if !ok {
			return false
		}
		for _, s := range a.srcs {
			if x.Name.Table.O != "" && !strings.EqualFold(x.Name.Table.O, s.alias) {
				continue
			}
			if c, ok := s.tbl.Column(x.Name.Name.O); ok && pred(c) {
				return true
			}
		}
		return false
	}})
	return found
}

// numberOfTime are functions of a date or time that return a number:
// FLOOR(UNIX_TIMESTAMP(ts) / 3600) rounds a number on both sides
// (Grafana's time buckets).
var numberOfTime = map[string]bool{"unix_timestamp": true, "to_seconds": true, "to_days": true, "time_to_sec": true,
	"year": true, "month": true, "day": true, "dayofmonth": true, "dayofweek": true, "dayofyear": true, "weekday": true,
	"week": true, "weekofyear": true, "yearweek": true, "quarter": true, "hour": true, "minute": true, "second": true,
	"microsecond": true, "datediff": true, "timestampdiff": true, "period_diff": true}

// temporalFinder finds what may make an expression a TIME, DATETIME or
// TIMESTAMP value: such a column read other than through a function of
// numberOfTime.
type temporalFinder struct {
	a     *aggPlanner
	found *bool
}

// in reports whether e may be a TIME, DATETIME or TIMESTAMP value.
func (f temporalFinder) in(e ast.ExprNode) bool {
	found := false
	e.Accept(&temporalFinder{a: f.a, found: &found})
	return found
}

func (f *temporalFinder) Enter(n ast.Node) (ast.Node, bool) {
	switch x := n.(type) {
	case *ast.SubqueryExpr:
		return n, true
	case *ast.FuncCallExpr:
		if numberOfTime[x.FnName.L] {
			return n, true
		}
	case *ast.ColumnNameExpr:
		if f.a.readsColumn(x, temporalColumn) {
			*f.found = true
		}
	}
	return n, *f.found
}

func (f *temporalFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// temporalColumn: MariaDB's ROUND, TRUNCATE, FLOOR and CEILING of a TIME,
// DATETIME or TIMESTAMP value return that type (FLOOR(MIN(tm)) is
// 11:36:10), the evaluator a number (113610).
func temporalColumn(c Column) bool {
	switch c.Type {
	case "time", "datetime", "timestamp": // a DATE gives a number on both
		return true
	}
	return false
}

func hasBitAggregate(e ast.ExprNode) bool {
	found := false
	e.Accept(&finder{found: &found, match: func(n ast.Node) bool {
		x, ok := n.(*ast.AggregateFuncExpr)
		return ok && strings.HasPrefix(strings.ToLower(x.F), "bit_")
	}})
	return found
}

// literalValue is e's value when e is a literal, else nil.
func literalValue(e ast.ExprNode) any {
	if x, ok := e.(ast.ValueExpr); ok {
		return x.GetValue()
	}
	return nil
}
