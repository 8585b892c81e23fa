package e2e

// querygen.go generates random reporting queries over the sample schema
// (ontime, carriers, airports) for the differential tests in
// random_test.go. Generation is a pure function of (seed, index): query i
// of a seed is reproducible on its own, whatever else ran before it.
//
// Every query is valid MariaDB 10.11 SQL, ONLY_FULL_GROUP_BY-clean (a
// grouped select lists only group keys and aggregates) and exact: no
// DOUBLE value depends on the order rows are summed in (no SUM/AVG over
// FLOAT/DOUBLE expressions; STDDEV/VARIANCE results are DOUBLE with 4
// fixed decimals, compared as MariaDB prints them).
// Integer and DECIMAL arithmetic is exact, so string comparison of the
// results is meaningful. Query.Ordered is true only when the row order is
// fully determined: an ORDER BY that ends with every group key (or with id
// for row queries), a single-row aggregate, or a GROUP BY without ORDER BY
// (MariaDB sorts groups by their keys, and Shoal promises to do the same).
// A LIMIT is only ever generated under a total order.

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/shoaldb/shoal/gen"
)

// Query categories.
const (
	CatGrouped = "grouped" // GROUP BY over ontime alone
	CatScalar  = "scalar"  // aggregates without GROUP BY
	CatRows    = "rows"    // non-aggregate row queries
	CatBreadth = "breadth" // joins, subqueries, DISTINCT, ROLLUP, ... (expected to pass through today)
	CatMixed   = "mixed"   // GROUP BY over the latin1/utf8mb4 table mixed_cs
)

// Query is one generated statement.
type Query struct {
	SQL      string
	Ordered  bool   // the order of the result rows is fully determined
	Category string // one of the Cat* constants
	Feature  string // for breadth queries: the feature exercised
	// Bags maps result columns whose value is a collection in no defined
	// order (GROUP_CONCAT, JSON_ARRAYAGG or JSON_OBJECTAGG without ORDER
	// BY) to how to compare them: see bagOf.
	Bags map[int]string
}

// GenQuery returns query i of the sequence of seed.
func GenQuery(seed uint64, i int) Query { return GenQueryIn(seed, i, Window{}) }

// Window confines generated queries to a random slice of the fact table's
// key space, so that many queries can run against a big table: every
// ontime scan gets "id BETWEEN lo AND lo+Size-1" with lo drawn in [Min,
// Max] from a generator of its own (the rest of query i is the same as
// without a window). The zero Window confines nothing.
type Window struct {
	Min, Max, Size int64
}

// GenQueryIn returns query i of the sequence of seed within w.
func GenQueryIn(seed uint64, i int, w Window) Query {
	g := &qgen{r: rand.New(rand.NewPCG(seed, uint64(i)*0x9e3779b97f4a7c15+1))}
	if w.Size > 0 {
		wr := rand.New(rand.NewPCG(seed^0x5bd1e995, uint64(i)+7))
		lo := w.Min + wr.Int64N(max(1, w.Max-w.Min+1))
		g.win = fmt.Sprintf("$id BETWEEN %d AND %d", lo, lo+w.Size-1)
	}
	switch n := g.r.IntN(100); {
	case n < 5:
		return g.mixed()
	case n < 45:
		return g.grouped(ontimeOnly(), CatGrouped, "")
	case n < 55:
		return g.scalar(ontimeOnly(), CatScalar, "")
	case n < 75:
		return g.rows(ontimeOnly(), CatRows, "")
	default:
		return g.breadth()
	}
}

type kind int

const (
	kInt kind = iota
	kDec      // DECIMAL-valued expression
	kStr
	kDate
)

// qgen is the state of generating one query.
type qgen struct {
	r *rand.Rand
	// win is the key window every scan of ontime gets (a template: $ is
	// the qualifier), "" for none; see Window.
	win string
}

func (g *qgen) n(k int) int              { return g.r.IntN(k) }
func (g *qgen) chance(pct int) bool      { return g.r.IntN(100) < pct }
func (g *qgen) oneOf(s ...string) string { return s[g.r.IntN(len(s))] }
func (g *qgen) between(lo, hi int) int   { return lo + g.r.IntN(hi-lo+1) }

// source is the FROM clause of a query and how ontime's columns are named
// in it: templates write ontime columns as $Col and the qualifier ("" or
// "o.") replaces the $.
type source struct {
	from string
	qual string
	// extra group keys from dimension tables (already qualified).
	keys []keyOpt
	// extra WHERE conjunct (already qualified), e.g. an IN-subquery.
	where string
}

func ontimeOnly() source { return source{from: "ontime"} }

func (s source) q(tmpl string) string { return strings.ReplaceAll(tmpl, "$", s.qual) }

// ---- value domains --------------------------------------------------------

var (
	carrierCodes = func() []string {
		var out []string
		for _, c := range gen.Carriers() {
			out = append(out, c.Code)
		}
		return append(out, "XX") // in no table
	}()
	airportCodes = func() []string {
		var out []string
		for _, a := range gen.Airports() {
			out = append(out, a.Code)
		}
		return append(out, "QQQ")
	}()
	stateCodes = func() []string {
		seen := map[string]bool{}
		var out []string
		for _, a := range gen.Airports() {
			if !seen[a.State] {
				seen[a.State] = true
				out = append(out, a.State)
			}
		}
		return append(out, "ZZ")
	}()
	countries = func() []string {
		seen := map[string]bool{}
		var out []string
		for _, c := range gen.Carriers() {
			if !seen[c.Country] {
				seen[c.Country] = true
				out = append(out, c.Country)
			}
		}
		return out
	}()
)

// col is an ontime column usable in predicates.
type col struct {
	name     string
	kind     kind
	nullable bool
	weight   int
}

var ontimeCols = []col{
	{"id", kInt, false, 2},
	{"YearD", kInt, false, 6},
	{"Quarter", kInt, false, 2},
	{"MonthD", kInt, false, 2},
	{"DayofMonth", kInt, false, 1},
	{"DayOfWeek", kInt, false, 5},
	{"FlightDate", kDate, false, 4},
	{"UniqueCarrier", kStr, false, 1},
	{"Carrier", kStr, false, 6},
	{"TailNum", kStr, true, 2},
	{"FlightNum", kInt, false, 1},
	{"Origin", kStr, false, 5},
	{"OriginState", kStr, false, 5},
	{"Dest", kStr, false, 3},
	{"DestState", kStr, false, 4},
	{"DepDelayMinutes", kInt, true, 4},
	{"ArrDelayMinutes", kInt, true, 5},
	{"Cancelled", kInt, false, 2},
	{"Diverted", kInt, false, 1},
	{"Distance", kInt, false, 4},
}

func (g *qgen) pickCol() col {
	total := 0
	for _, c := range ontimeCols {
		total += c.weight
	}
	n := g.n(total)
	for _, c := range ontimeCols {
		if n < c.weight {
			return c
		}
		n -= c.weight
	}
	return ontimeCols[0]
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// lit returns a literal from the value domain of column name.
func (g *qgen) lit(name string) string {
	switch name {
	case "id":
		return fmt.Sprint(g.n(700_000))
	case "YearD":
		if g.chance(3) {
			return g.oneOf("1800", "1987", "2017", "2100")
		}
		return fmt.Sprint(g.between(1988, 2016))
	case "Quarter":
		return fmt.Sprint(g.between(1, 4))
	case "MonthD":
		return fmt.Sprint(g.between(1, 12))
	case "DayofMonth":
		return fmt.Sprint(g.between(1, 31))
	case "DayOfWeek":
		return fmt.Sprint(g.between(1, 7))
	case "FlightDate":
		y, m, d := g.between(1987, 2017), g.between(1, 12), g.between(1, 28)
		if g.chance(70) {
			return quote(fmt.Sprintf("%04d-%02d-%02d", y, m, d))
		}
		return lenientDate(g.n(10), y, m, d)
	case "UniqueCarrier", "Carrier":
		// Weighted to the big carriers, as the data is.
		if g.chance(50) {
			return g.padded(quote(carrierCodes[g.n(6)]))
		}
		return g.padded(quote(carrierCodes[g.n(len(carrierCodes))]))
	case "TailNum":
		return g.padded(quote(fmt.Sprintf("N%d%c%c", g.between(100, 999), 'A'+g.n(26), 'A'+g.n(26))))
	case "FlightNum":
		return fmt.Sprint(g.between(1, 7500))
	case "Origin", "Dest":
		if g.chance(50) {
			return g.padded(quote(airportCodes[g.n(15)]))
		}
		return g.padded(quote(airportCodes[g.n(len(airportCodes))]))
	case "OriginState", "DestState":
		if g.chance(40) {
			return g.padded(quote(g.oneOf("AK", "HI", "PR", "VI", "TT")))
		}
		return g.padded(quote(stateCodes[g.n(len(stateCodes))]))
	case "DepDelayMinutes", "ArrDelayMinutes":
		// Delays are 0..1500 in the data, mostly small.
		if g.chance(20) {
			return g.oneOf("-5", "-1", "0", "0", "1", "15", "30", "60", "120", "300", "1000", "1500", "2000")
		}
		return fmt.Sprint(g.n(90))
	case "Cancelled", "Diverted":
		return fmt.Sprint(g.n(2))
	case "Distance":
		return fmt.Sprint(g.between(0, 7400))
	}
	panic("no domain for " + name)
}

// padded gives a quoted string literal trailing spaces now and then:
// MySQL's PAD SPACE collations ignore them ('AA ' = 'AA', 'AA ' > 'AA' is
// false), in WHERE, HAVING and expressions alike.
func (g *qgen) padded(lit string) string {
	if g.chance(8) {
		return spaced(lit, g.oneOf(" ", "  "))
	}
	return lit
}

// spaced appends sp inside a quoted literal.
func spaced(lit, sp string) string { return strings.TrimSuffix(lit, "'") + sp + "'" }

func (g *qgen) lits(name string, n int) string {
	var out []string
	for range n {
		out = append(out, g.lit(name))
	}
	if g.chance(5) {
		out = append(out, "NULL")
	}
	return strings.Join(out, ", ")
}

// likePattern returns a LIKE pattern fitting the values of a string
// column, now and then with an ESCAPE clause (escapeLike).
func (g *qgen) likePattern(name string) string {
	p := g.oneOf(likePatterns(name)...)
	if g.chance(15) {
		esc := g.oneOf("!", "|", "#", "^")
		return escapeLike(p, esc, g.chance(20))
	}
	return p
}

// escapeLike rewrites a quoted LIKE pattern to use esc, a character that
// is not in it, as its ESCAPE character: put before a letter (an escaped
// letter is the letter: the same matches) or, with literalWild, before a
// '_' (a literal underscore, which no value has).
func escapeLike(p, esc string, literalWild bool) string {
	body := []rune(strings.Trim(p, "'"))
	var out []rune
	done := false
	for _, r := range body {
		if !done && (r != '%' && r != '_' || literalWild && r == '_') {
			out = append(out, []rune(esc)...)
			done = true
		}
		out = append(out, r)
	}
	return quote(string(out)) + " ESCAPE '" + esc + "'"
}

// likePatterns are LIKE patterns fitting the values of a string column.
func likePatterns(name string) []string {
	switch name {
	case "TailNum":
		return []string{"'N1%'", "'N5%'", "'%A'", "'N_0%'", "'%Z_'", "'N9%'"}
	case "Carrier", "UniqueCarrier":
		return []string{"'A%'", "'_A'", "'%N'", "'9%'", "'U_'", "'W%'"}
	case "Origin", "Dest":
		return []string{"'A%'", "'S%'", "'%X'", "'_A_'", "'M%'", "'B%'", "'%O'"}
	default: // states
		return []string{"'N%'", "'A%'", "'%A'", "'M_'", "'_I'", "'C%'"}
	}
}

// ---- predicates -------------------------------------------------------------

// pairPreds compare two ontime columns.
var pairPreds = []string{
	"$ArrDelayMinutes > $DepDelayMinutes",
	"$ArrDelayMinutes <= $DepDelayMinutes",
	"$OriginState = $DestState",
	"$Origin < $Dest",
	"$UniqueCarrier = $Carrier",
	"YEAR($FlightDate) = $YearD",
	"$MonthD = MONTH($FlightDate)",
	"$Distance > $FlightNum",
	"$ArrDelayMinutes - $DepDelayMinutes BETWEEN -5 AND 5",
	"COALESCE($ArrDelayMinutes, $DepDelayMinutes, -1) > 20",
}

// atom returns one comparison over ontime columns.
func (g *qgen) atom(s source) string {
	c := g.pickCol()
	x := s.qual + c.name
	if g.chance(6) {
		return s.q(pairPreds[g.n(len(pairPreds))])
	}
	if c.nullable && g.chance(15) || g.chance(2) {
		return x + g.oneOf(" IS NULL", " IS NOT NULL")
	}
	switch c.kind {
	case kStr:
		switch g.n(10) {
		case 0, 1:
			return x + " = " + g.lit(c.name)
		case 2:
			return x + " <> " + g.lit(c.name)
		case 3:
			return x + g.oneOf(" < ", " >= ", " > ", " <= ") + g.lit(c.name)
		case 4:
			a, b := g.lit(c.name), g.lit(c.name)
			if a > b && g.chance(80) {
				a, b = b, a
			}
			return x + g.oneOf(" BETWEEN ", " NOT BETWEEN ") + a + " AND " + b
		case 5, 6:
			return x + " IN (" + g.lits(c.name, g.between(1, 5)) + ")"
		case 7:
			return x + " NOT IN (" + g.lits(c.name, g.between(1, 4)) + ")"
		case 8:
			return x + " LIKE " + g.likePattern(c.name)
		default:
			if g.chance(50) {
				return x + " NOT LIKE " + g.likePattern(c.name)
			}
			return "SUBSTRING(" + x + ", 1, 1) = " + g.oneOf("'A'", "'S'", "'M'", "'N'", "'D'")
		}
	case kDate:
		switch g.n(6) {
		case 0:
			return x + " = " + g.lit(c.name)
		case 1, 2:
			return x + g.oneOf(" < ", " >= ", " > ", " <= ", " <> ") + g.lit(c.name)
		case 3:
			a, b := g.lit(c.name), g.lit(c.name)
			if a > b {
				a, b = b, a
			}
			return x + " BETWEEN " + a + " AND " + b
		case 4:
			return "YEAR(" + x + ")" + g.oneOf(" = ", " < ", " >= ") + g.lit("YearD")
		default:
			return "MONTH(" + x + ") IN (" + g.lits("MonthD", g.between(1, 3)) + ")"
		}
	}
	switch g.n(12) {
	case 0, 1:
		return x + " = " + g.lit(c.name)
	case 2:
		return x + " <> " + g.lit(c.name)
	case 3, 4:
		return x + g.oneOf(" < ", " >= ", " > ", " <= ") + g.lit(c.name)
	case 5, 6:
		a, b := g.lit(c.name), g.lit(c.name)
		return x + g.oneOf(" BETWEEN ", " BETWEEN ", " NOT BETWEEN ") + a + " AND " + b
	case 7, 8:
		return x + " IN (" + g.lits(c.name, g.between(1, 5)) + ")"
	case 9:
		return x + " NOT IN (" + g.lits(c.name, g.between(1, 4)) + ")"
	case 10:
		return x + " % " + g.oneOf("2", "3", "7", "10") + " = " + g.oneOf("0", "1")
	default:
		return x + " + 0" + g.oneOf(" < ", " >= ") + g.lit(c.name)
	}
}

// pred returns a predicate tree of at most depth levels of AND/OR/NOT.
func (g *qgen) pred(s source, depth int) string {
	if depth == 0 || g.chance(40) {
		return g.atom(s)
	}
	switch g.n(6) {
	case 0, 1, 2:
		return "(" + g.pred(s, depth-1) + " AND " + g.pred(s, depth-1) + ")"
	case 3, 4:
		return "(" + g.pred(s, depth-1) + " OR " + g.pred(s, depth-1) + ")"
	default:
		return "NOT (" + g.pred(s, depth-1) + ")"
	}
}

// where returns a WHERE clause (with a leading space) or "".
func (g *qgen) where(s source, pct int) string {
	var conj []string
	if g.chance(pct) {
		conj = append(conj, g.pred(s, 3))
	}
	if s.where != "" {
		conj = append(conj, s.where)
	}
	if g.win != "" {
		conj = append(conj, s.q(g.win))
	}
	if len(conj) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(conj, " AND ")
}

// ---- group keys and aggregates ---------------------------------------------

// keyOpt is a possible group key.
type keyOpt struct {
	expr string // template
	card int    // rough number of distinct values in the sample
}

var ontimeKeys = []keyOpt{
	{"$Carrier", 21}, {"$UniqueCarrier", 21}, {"$YearD", 29}, {"$Quarter", 4}, {"$MonthD", 12},
	{"$DayOfWeek", 7}, {"$Origin", 108}, {"$Dest", 108}, {"$OriginState", 50}, {"$DestState", 50},
	{"$Cancelled", 2}, {"$Diverted", 2}, {"$ArrDelayMinutes", 300}, {"$DepDelayMinutes", 300},
	{"$FlightDate", 10000}, {"$TailNum", 50000}, {"$DayofMonth", 31},
	{"$YearD DIV 5", 6}, {"$YearD DIV 10", 3},
	{"IF($ArrDelayMinutes > 30, 'late', 'ok')", 2},
	{"CASE WHEN $Distance < 500 THEN 'short' WHEN $Distance < 1500 THEN 'medium' ELSE 'long' END", 3},
	{"CASE $DayOfWeek WHEN 6 THEN 'sat' WHEN 7 THEN 'sun' END", 3},
	{"$DayOfWeek IN (6,7)", 2},
	{"SUBSTRING($Origin,1,1)", 20},
	{"LEFT($TailNum, 2)", 10},
	{"YEAR($FlightDate)", 29},
	{"MONTH($FlightDate)", 12},
	{"DATE_FORMAT($FlightDate, '%Y-%m')", 348},
	{"$Distance DIV 500", 15},
	{"$ArrDelayMinutes IS NULL", 2},
	{"$ArrDelayMinutes DIV 15", 60},
	{"$OriginState = $DestState", 2},
	{"$Cancelled + $Diverted", 2},
	{"COALESCE($ArrDelayMinutes, -1) DIV 60", 20},
	{"$FlightDate < '2000-01-01'", 2},
	{"CONCAT($Carrier, '/', $OriginState)", 600},
	{"$ArrDelayMinutes > $DepDelayMinutes", 3},
}

// numArgs are numeric (INT or DECIMAL) arguments of SUM/AVG/MIN/MAX.
var numArgs = []string{
	"$Distance", "$Distance", "$ArrDelayMinutes", "$ArrDelayMinutes", "$DepDelayMinutes",
	"$Cancelled", "$Diverted", "$YearD", "$DayOfWeek", "$MonthD", "$FlightNum",
	"$Distance * $Cancelled", "$ArrDelayMinutes - $DepDelayMinutes", "$Distance * 1.5", "$Distance / 3",
	"IF($ArrDelayMinutes > 30, 1, 0)",
	"CASE WHEN $ArrDelayMinutes > 60 THEN 1 WHEN $ArrDelayMinutes > 15 THEN 0.5 ELSE 0 END",
	"COALESCE($ArrDelayMinutes, 0)", "GREATEST($ArrDelayMinutes, $DepDelayMinutes)",
	"ABS($ArrDelayMinutes - $DepDelayMinutes)", "$Distance DIV 100", "IF($DayOfWeek IN (6,7), $Distance, 0)",
	"$id % 10", "$ArrDelayMinutes * $Distance", "$Distance - 1000",
	"$Distance / 7", "$ArrDelayMinutes / 60", "$Distance / $DayOfWeek", "$DepDelayMinutes / 3",
	"ROUND($Distance / 7, 2)", "$Distance * 0.01",
}

func (g *qgen) numArg(s source) string {
	if g.chance(12) {
		return "IF(" + g.pred(s, 1) + ", 1, 0)"
	}
	return s.q(numArgs[g.n(len(numArgs))])
}

// aggItem is one aggregate select expression.
type aggItem struct {
	expr string
	kind kind
}

// Bag kinds: a GROUP_CONCAT's values (between separators), a JSON array's
// members, a JSON object's members. MySQL defines no order for them
// without an ORDER BY inside the aggregate, so the differential tests
// compare them as multisets (diffBags).
const (
	bagJSONArray  = "json["
	bagJSONObject = "json{"
	bagSepPrefix  = "sep:" // then the separator
)

// bagOf returns the bag kind of a select expression that is an unordered
// collection aggregate, or "".
func bagOf(expr string) string {
	switch {
	case strings.HasPrefix(expr, "JSON_ARRAYAGG("):
		return bagJSONArray
	case strings.HasPrefix(expr, "JSON_OBJECTAGG("):
		return bagJSONObject
	case strings.HasPrefix(expr, "GROUP_CONCAT(") && !strings.Contains(expr, "ORDER BY"):
		if _, sep, ok := strings.Cut(expr, " SEPARATOR '"); ok {
			return bagSepPrefix + strings.TrimSuffix(sep, "')")
		}
		return bagSepPrefix + ","
	}
	return ""
}

// aggregate returns an aggregate expression over ontime columns.
func (g *qgen) aggregate(s source) aggItem {
	q := s.q
	switch g.n(24) {
	case 0, 1, 2:
		return aggItem{"COUNT(*)", kInt}
	case 3:
		return aggItem{"COUNT(" + q(g.oneOf("$ArrDelayMinutes", "$DepDelayMinutes", "$TailNum", "$id", "$Origin")) + ")", kInt}
	case 4:
		return aggItem{"COUNT(IF(" + g.pred(s, 1) + ", 1, NULL))", kInt}
	case 5, 6, 7:
		return aggItem{"SUM(" + g.numArg(s) + ")", kDec}
	case 8, 9:
		return aggItem{"AVG(" + g.numArg(s) + ")", kDec}
	case 10, 11:
		return aggItem{g.oneOf("MIN(", "MAX(") + g.numArg(s) + ")", kDec}
	case 12:
		return aggItem{g.oneOf("MIN(", "MAX(") + q(g.oneOf("$Origin", "$Dest", "$Carrier", "$TailNum", "$OriginState")) + ")", kStr}
	case 13:
		if g.chance(25) {
			// A date summed as a number (19880101): the in-memory
			// engine once fed the date's text to a DECIMAL sum.
			return aggItem{g.oneOf("SUM(", "AVG(", "BIT_OR(") + q("$FlightDate") + ")", kDec}
		}
		if g.chance(35) {
			return g.bitAggregate(s)
		}
		return aggItem{g.oneOf("MIN(", "MAX(") + q("$FlightDate") + ")", kDate}
	case 14:
		return aggItem{"ROUND(SUM(" + g.numArg(s) + ") / COUNT(*), 2)", kDec}
	case 15:
		return aggItem{"ROUND(AVG(" + g.numArg(s) + "), " + g.oneOf("0", "1", "3") + ")", kDec}
	case 16:
		return aggItem{"SUM(" + g.numArg(s) + ")" + g.oneOf(" / ", " DIV ") + "COUNT(*)", kDec}
	case 17:
		a := g.numArg(s)
		return aggItem{"MAX(" + a + ") - MIN(" + a + ")", kDec}
	case 18:
		// AVG as an operand: its SUM/COUNT keeps its grouping under the
		// operator (planner finalRewriter.Leave).
		a, b := g.numArg(s), g.numArg(s)
		return aggItem{g.oneOf("SUM("+a+") / SUM("+b+")", "SUM("+a+") / AVG("+b+")", "100 / AVG("+a+")",
			"MAX("+a+") / AVG("+a+")", "AVG("+a+") * AVG("+b+")", "-AVG("+a+")", "AVG("+a+") DIV 2"), kDec}
	case 19:
		return aggItem{q("COUNT(*) - COUNT($ArrDelayMinutes)"), kInt}
	case 20:
		return aggItem{"100 * SUM(IF(" + g.pred(s, 1) + ", 1, 0)) / COUNT(*)", kDec}
	case 21:
		return aggItem{g.oneOf("COALESCE(SUM(", "IFNULL(MAX(") + g.numArg(s) + "), 0)", kDec}
	case 22:
		if g.chance(30) {
			return aggItem{q("DATEDIFF(MAX($FlightDate), MIN($FlightDate))"), kInt}
		}
		return aggItem{q(g.oneOf("IFNULL(MAX($TailNum), 'none')", "CONCAT(MIN($Origin), '-', MAX($Dest))")), kStr}
	case 23:
		return g.funcOverAggregate(s)
	default:
		return aggItem{g.oneOf("COUNT(*) * 2 + 1", "SUM("+g.numArg(s)+") + COUNT(*)", "MAX("+g.numArg(s)+") * 2"), kDec}
	}
}

// bitArgs are BIT_AND/OR/XOR arguments MariaDB reads as integers in its
// several ways: negative integers (two's complement), text ('9E' is 9,
// 'N512AA' 0), DECIMAL and DOUBLE values rounded (half away from zero,
// half to even), an expression typed text over numbers. The in-memory
// engine over a pin once failed on the first two (1105).
var bitArgs = []string{
	"$DepDelayMinutes - 100", "-$Distance", "$ArrDelayMinutes - $DepDelayMinutes", "$Carrier", "$TailNum",
	"$Origin", "CONCAT($Carrier, $FlightNum)", "$Distance * 1.5", "$DepDelayMinutes * -0.5", "$Distance / 7",
	"$Distance / 4e0", "IF($DayOfWeek > 3, $TailNum, -$Distance)", "$FlightNum", "$id",
}

// bitAggregate returns BIT_AND, BIT_OR or BIT_XOR of one of bitArgs.
func (g *qgen) bitAggregate(s source) aggItem {
	return aggItem{g.oneOf("BIT_AND(", "BIT_OR(", "BIT_XOR(") + s.q(bitArgs[g.n(len(bitArgs))]) + ")", kInt}
}

// funcOverAggregate applies a string, numeric, date or control-flow
// function to an aggregate (evaluated after the merge).
func (g *qgen) funcOverAggregate(s source) aggItem {
	q := s.q
	str := q(g.oneOf("MIN($Origin)", "MAX($Carrier)", "MAX($TailNum)", "MIN($OriginState)"))
	num := g.oneOf("SUM("+g.numArg(s)+")", "COUNT(*)", "MAX("+g.numArg(s)+")", "AVG("+g.numArg(s)+")")
	if g.chance(30) {
		switch g.n(3) {
		case 0:
			f, k := g.matrixFunc(str, kStr)
			return aggItem{f, k}
		case 1:
			f, k := g.matrixFunc(num, kDec)
			return aggItem{f, k}
		}
		f, k := g.matrixFunc(q(g.oneOf("MAX($FlightDate)", "MIN($FlightDate)")), kDate)
		return aggItem{f, k}
	}
	switch g.n(4) {
	case 0:
		return aggItem{g.oneOf("LOWER(", "UPPER(", "LCASE(", "REVERSE(", "TRIM(", "LTRIM(") + str + ")", kStr}
	case 1:
		return aggItem{g.oneOf("LENGTH("+str+")", "CHAR_LENGTH("+str+")", "LOCATE('A', "+str+")", "ASCII("+str+")"), kInt}
	case 2:
		return aggItem{g.oneOf("CONCAT("+str+", '-', COUNT(*))", "SUBSTRING("+str+", 2)", "REPLACE("+str+", 'A', 'a')",
			"LPAD("+str+", 6, '*')", "COALESCE("+str+", 'none')", "IF(COUNT(*) > 100, 'many', 'few')",
			"CASE WHEN "+num+" > 1000 THEN 'big' ELSE 'small' END", q("DATE_FORMAT(MAX($FlightDate), '%Y/%m')"),
			q("DAYNAME(MIN($FlightDate))")), kStr}
	}
	return aggItem{g.oneOf("ABS("+num+" - 1000)", "ROUND("+num+", -1)", "FLOOR("+num+" / 7)", "CEILING("+num+" / 7)",
		"MOD(COUNT(*), 7)", "GREATEST("+num+", 10)", "SIGN("+num+" - 500)", q("YEAR(MAX($FlightDate))"),
		q("DATEDIFF(MAX($FlightDate), '2000-01-01')"), q("TO_DAYS(MIN($FlightDate))"),
		// A quotient's digits past its declared scale (planner/quotient.go).
		"ROUND("+num+", "+g.oneOf("5", "6", "9")+")", "TRUNCATE("+num+" / 7, 6)", num+" / 7 > 100.1234",
		num+" = ROUND("+num+", 4)", "SEC_TO_TIME("+num+" / 7)",
		// Conversions BI tools wrap around aggregates.
		"CAST("+num+" AS UNSIGNED)", "CAST("+num+" AS SIGNED)", "CONVERT("+num+", DECIMAL(20,2))",
		"CAST(COUNT(*) AS UNSIGNED)", "CAST(COUNT(DISTINCT "+q("$Carrier")+") AS UNSIGNED)"), kDec}
}

// keyFunc applies a function to a plain-column group key of kind k (the
// result depends on the group key only: ONLY_FULL_GROUP_BY-clean).
func (g *qgen) keyFunc(key string, k kind) (string, kind) {
	if g.chance(30) {
		return g.matrixFunc(key, k)
	}
	switch k {
	case kStr:
		switch g.n(5) {
		case 0:
			return g.oneOf("LOWER(", "UPPER(", "LCASE(", "UCASE(", "REVERSE(", "TRIM(", "QUOTE(", "HEX(") + key + ")", kStr
		case 1:
			return g.oneOf("LENGTH("+key+")", "CHAR_LENGTH("+key+")", "ASCII("+key+")", "LOCATE('A', "+key+")", "ORD("+key+")"), kInt
		case 2:
			// Comparisons under the key's collation, trailing spaces
			// ignored (PAD SPACE); LIKE with an ESCAPE clause.
			return g.oneOf(key+" = 'AA '", key+" <> 'DL  '", key+" < 'M '", "STRCMP("+key+", 'M ')", key+" IN ('AA ', 'DL')",
				key+" BETWEEN 'A ' AND 'M '", "FIELD("+key+", 'WN ', 'AA  ')", "IF("+key+" = 'UA ', 1, 0)",
				key+" LIKE 'A|_%' ESCAPE '|'", key+" LIKE '!A%' ESCAPE '!'", key+" NOT LIKE '%#%' ESCAPE '#'"), kInt
		case 3:
			// Text read as a number: '9E' is 9, 'AA' is 0.
			return g.oneOf(key+" + 0", "ABS("+key+")", key+" || '-'", "CAST("+key+" AS DOUBLE)", "NOT "+key, key+" > 0"), kInt
		}
		return g.oneOf("CONCAT("+key+", '-x')", "CONCAT(LOWER("+key+"), '/', UPPER("+key+"))", "SUBSTRING("+key+", 1, 2)",
			"REPLACE("+key+", 'A', 'a')", "LPAD("+key+", 5, '*')", "RPAD("+key+", 4, '.')", "LEFT("+key+", 1)",
			"IF("+key+" LIKE 'A%', 'a', 'other')", "COALESCE("+key+", 'none')", "CASE WHEN "+key+" < 'M' THEN 'am' ELSE 'nz' END",
			"CONCAT_WS(':', "+key+", LOWER("+key+"))", "NULLIF("+key+", 'AA')"), kStr
	case kDate:
		return g.oneOf("YEAR(", "MONTH(", "DAYOFWEEK(", "WEEKDAY(", "QUARTER(", "DAYOFMONTH(", "TO_DAYS(", "LAST_DAY(", "DAYNAME(") + key + ")", kInt
	}
	return g.oneOf("ABS("+key+" - 10)", key+" * 2", "ROUND("+key+" / 3, 1)", "MOD("+key+", 3)", "IF("+key+" > 5, 'hi', 'lo')",
		"CASE WHEN "+key+" > 100 THEN 'far' ELSE 'near' END", "COALESCE("+key+", -1)", "GREATEST("+key+", 3)",
		"FLOOR("+key+" / 7)", "CEIL("+key+" / 7)", "SIGN("+key+" - 5)", "CONCAT('n', "+key+")", "SQRT("+key+")"), kDec
}

// matrixFunc applies a function of the matrix (functions.go) that takes
// an argument of kind k to arg.
func (g *qgen) matrixFunc(arg string, k kind) (string, kind) {
	want := byte('n')
	switch k {
	case kStr:
		want = 's'
	case kDate:
		want = 'd'
	}
	var fs []fn
	for _, f := range matrixFuncs {
		if f.kind == want {
			fs = append(fs, f)
		}
	}
	f := fs[g.n(len(fs))]
	out := kStr
	switch f.cat {
	case "numeric", "bit":
		out = kDec
	case "comparison":
		out = kInt
	}
	return fmt.Sprintf(f.f, arg), out
}

// plainKind is the kind of a group key that is one ontime or mixed_cs
// column, or false.
func plainKind(expr string) (kind, bool) {
	if strings.ContainsAny(expr, " ()+-*/,=<>'") {
		return 0, false // an expression ("o.OriginState = o.DestState" ends in a column's name)
	}
	name := expr
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	for _, c := range ontimeCols {
		if c.name == name {
			return c.kind, true
		}
	}
	for _, c := range mixedCols {
		if c.name == name {
			return c.kind, true
		}
	}
	return 0, false
}

var mixedCols = []col{{"l1", kStr, false, 1}, {"u8", kStr, true, 1}, {"n", kInt, true, 1}, {"day", kDate, false, 1}}

// mixed builds a GROUP BY query over mixed_cs (a latin1 table with a
// latin1 and a utf8mb4 column holding non-ASCII letters): functions of the
// keys and of aggregates in the select list, HAVING and ORDER BY.
func (g *qgen) mixed() Query {
	keys := []string{"l1", "u8"}
	if g.chance(40) {
		keys = []string{g.oneOf("l1", "u8")}
	}
	if g.chance(20) {
		keys = append(keys, g.oneOf("n DIV 100", "YEAR(day)"))
	}
	var items []string
	for _, k := range keys {
		items = append(items, k)
		if kd, ok := plainKind(k); ok && g.chance(70) {
			f, _ := g.keyFunc(k, kd)
			items = append(items, f)
		}
	}
	aggs := []string{"COUNT(*)", "SUM(n)", "AVG(amount)", "STDDEV_POP(amount)", "VAR_SAMP(n)", "MIN(u8)", "MAX(l1)",
		"LOWER(MAX(u8))", "UPPER(MIN(l1))", "CONCAT(MIN(l1), '|', MAX(u8))", "CHAR_LENGTH(MAX(u8))", "COUNT(u8)", "MAX(day)",
		"ROUND(SUM(amount) / COUNT(*), 2)", "IF(SUM(n) > 1000, 'hi', 'lo')",
		// Text in latin1 joined: the merge sent GROUP_CONCAT(DISTINCT l1)'s
		// latin1 bytes into a utf8mb4 column, and a partial merge's UTF-8
		// separator between latin1 partials.
		"GROUP_CONCAT(DISTINCT l1 ORDER BY l1)", "GROUP_CONCAT(DISTINCT l1 ORDER BY l1 DESC SEPARATOR 'ä')",
		"UPPER(GROUP_CONCAT(DISTINCT l1 ORDER BY l1 SEPARATOR ''))", "LENGTH(GROUP_CONCAT(l1 SEPARATOR 'ä'))",
		"GROUP_CONCAT(DISTINCT LOWER(l1) ORDER BY LOWER(l1) SEPARATOR ' / ')",
		"BIT_XOR(n - 100)", "BIT_OR(l1)", "BIT_AND(amount * -1)"}
	for range g.between(1, 3) {
		items = append(items, aggs[g.n(len(aggs))])
	}
	sql := "SELECT " + strings.Join(items, ", ") + " FROM " + mixedTable
	if g.chance(40) {
		sql += g.oneOf(" WHERE n > 10", " WHERE day >= '2000-01-01'", " WHERE l1 <> 'abc'", " WHERE u8 IS NOT NULL", " WHERE id % 3 = 0")
	}
	sql += " GROUP BY " + strings.Join(keys, ", ")
	if g.chance(30) {
		sql += g.oneOf(" HAVING COUNT(*) > 10", " HAVING LOWER(MAX(u8)) <> 'x'", " HAVING UPPER("+keys[0]+") >= 'M'",
			" HAVING CHAR_LENGTH("+keys[0]+") > 4", " HAVING SUM(n) IS NOT NULL",
			" HAVING GROUP_CONCAT(DISTINCT l1 ORDER BY l1) > 'b'")
	}
	// Total order: every key last (utf8mb4_general_ci and latin1_swedish_ci
	// order, as MariaDB does); a function of a key first, sometimes.
	var ob []string
	if g.chance(40) {
		ob = append(ob, g.oneOf("LOWER("+keys[0]+")", "UPPER("+keys[0]+") DESC", "COUNT(*) DESC", "2"))
	}
	ob = append(ob, keys...)
	sql += " ORDER BY " + strings.Join(ob, ", ")
	if g.chance(20) {
		sql += g.limit()
	}
	return Query{SQL: sql, Ordered: true, Category: CatMixed}
}

// breadthAggregate returns an aggregate Shoal does not decompose today.
func (g *qgen) breadthAggregate(s source, feature string) aggItem {
	q := s.q
	intCol := q(g.oneOf("$Distance", "$ArrDelayMinutes", "$DepDelayMinutes", "$DayOfWeek", "$YearD", "$FlightNum"))
	switch feature {
	case "count-distinct":
		return aggItem{"COUNT(DISTINCT " + q(g.oneOf("$Carrier", "$Origin", "$TailNum", "$DayOfWeek", "$YearD", "$Dest", "$ArrDelayMinutes", "$Origin, $Dest")) + ")", kInt}
	case "group-concat":
		x := q(g.oneOf("$Carrier", "$DayOfWeek", "$OriginState", "$Quarter", "$Cancelled"))
		// Values without a separator in them, some NULL (skipped by
		// GROUP_CONCAT, null members of a JSON array).
		v := q(g.oneOf("$Carrier", "$DayOfWeek", "$OriginState", "$Origin", "$TailNum", "$ArrDelayMinutes", "$FlightDate"))
		switch g.n(4) {
		case 0:
			return aggItem{"GROUP_CONCAT(" + v + ")", kStr}
		case 1:
			y := q(g.oneOf("$Dest", "$Distance", "$DepDelayMinutes"))
			return aggItem{"GROUP_CONCAT(" + v + ", '-', " + y + " SEPARATOR '|')", kStr}
		case 2:
			return aggItem{"LENGTH(GROUP_CONCAT(" + v + g.oneOf("", " SEPARATOR ''", " SEPARATOR '; '") + "))", kInt}
		}
		return aggItem{"GROUP_CONCAT(DISTINCT " + x + " ORDER BY " + x + g.oneOf("", " DESC", " SEPARATOR '|'") + ")", kStr}
	case "json-agg":
		v := q(g.oneOf("$Carrier", "$DayOfWeek", "$Origin", "$TailNum", "$ArrDelayMinutes", "$FlightDate", "$Distance / 7"))
		if g.chance(60) {
			return aggItem{"JSON_ARRAYAGG(" + v + ")", kStr}
		}
		k := q(g.oneOf("$Carrier", "$DayOfWeek", "$OriginState", "$Dest"))
		return aggItem{"JSON_OBJECTAGG(" + k + ", " + v + ")", kStr}
	case "stddev":
		v := g.oneOf("STDDEV_POP(", "VAR_SAMP(", "STDDEV_SAMP(", "VAR_POP(", "STDDEV(", "VARIANCE(", "STD(") + intCol + ")"
		if g.chance(40) {
			// Inside expressions, as dashboards use them: those that keep
			// the 4 decimals are distributed, a quotient or text passes
			// through (planner doubleAncestors).
			v = g.oneOf(v+" * 2", "ROUND("+v+", 1)", "-"+v, "IF(COUNT(*) > 1, "+v+", 0)", v+" / 3",
				"CONCAT("+v+")", v+" / AVG("+intCol+")", "COALESCE("+v+", 0) + 1")
		}
		return aggItem{v, kDec}
	case "bit":
		if g.chance(50) {
			return g.bitAggregate(s)
		}
		return aggItem{g.oneOf("BIT_OR(", "BIT_AND(", "BIT_XOR(") + intCol + ")", kInt}
	}
	return g.aggregate(s)
}

// lenientDate writes y-m-d in one of the forms MariaDB reads as a date
// where it meets a DATE, which only the canonical form used to be
// compared right after the merge and over pins: a time of two parts,
// trailing space or garbage, leading space, dots, YYMMDD and
// YYYYMMDDhhmmss numbers, an impossible day (compared as it is) and a
// zero day.
func lenientDate(form, y, m, d int) string {
	switch form {
	case 0:
		return fmt.Sprintf("'%04d-%02d-%02d 10:00'", y, m, d)
	case 1:
		return fmt.Sprintf("'%04d-%02d-%02d '", y, m, d)
	case 2:
		return fmt.Sprintf("'%04d-%02d-%02dx'", y, m, d)
	case 3:
		return fmt.Sprintf("'%04d.%02d.%02d'", y, m, d)
	case 4:
		return fmt.Sprintf("%02d%02d%02d", y%100, m, d)
	case 5:
		return fmt.Sprintf("' %04d-%02d-%02d'", y, m, d)
	case 6:
		return fmt.Sprintf("'%04d-%02d-31'", y, m)
	case 7:
		return fmt.Sprintf("'%04d-%02d-00'", y, m)
	case 8:
		return fmt.Sprintf("%04d%02d%02d000000", y, m, d)
	}
	return fmt.Sprintf("'%04d-%d-%d 0'", y, m, d)
}

func (g *qgen) havingConst(k kind) string {
	switch k {
	case kStr:
		return g.oneOf("'M'", "'B'", "'S'", "'N5'", "'M '", "'AA '", "'WN  '")
	case kDate:
		return g.oneOf("'2000-01-01'", "'1990-06-30'", "'2010-01-01'", "'2000-01-01 10:00'", "'1990-06-30x'",
			"20100101", "'2010-02-31'", "' 2000-01-01'", "'2010.01.01 00:00:00 '")
	}
	return g.oneOf("0", "1", "2", "5", "10", "50", "100", "500", "1000", "5000", "100000", "0.5", "0.12345", "100.00005")
}

func (g *qgen) limit() string {
	n := g.oneOf("1", "2", "3", "5", "10", "10", "20", "100")
	switch g.n(5) {
	case 0:
		return " LIMIT " + n + " OFFSET " + g.oneOf("1", "2", "5", "10", "50")
	case 1:
		return " LIMIT " + g.oneOf("0", "1", "3", "7") + ", " + n
	}
	return " LIMIT " + n
}

// selItem is one select-list entry.
type selItem struct {
	expr  string
	alias string
	key   bool // a group key
	kind  kind
	bag   string // see aggItem
}

func (it selItem) String() string {
	if it.alias == "" {
		return it.expr
	}
	return it.expr + " AS " + it.alias
}

// ref returns a way to refer to select item i (0-based) in GROUP BY,
// HAVING or ORDER BY.
func (g *qgen) ref(items []selItem, i int, ordinal bool) string {
	it := items[i]
	switch {
	case it.alias != "" && g.chance(50):
		return it.alias
	case ordinal && g.chance(30):
		return fmt.Sprint(i + 1)
	}
	return it.expr
}

// aggOpts tunes grouped and scalar queries.
type aggOpts struct {
	feature string // breadth aggregate feature, or ""
	rollup  bool
}

// grouped builds a GROUP BY query.
func (g *qgen) grouped(s source, cat, feature string) Query {
	return g.groupedOpts(s, cat, feature, aggOpts{feature: feature, rollup: feature == "rollup"})
}

func (g *qgen) groupedOpts(s source, cat, feature string, o aggOpts) Query {
	// Keys: 1..3 distinct, at most one of high cardinality.
	pool := slices.Clone(ontimeKeys)
	for i := range pool {
		pool[i].expr = s.q(pool[i].expr)
	}
	nk := 1 + g.n(3)
	if len(s.keys) > 0 {
		pool = append(pool, s.keys...)
	}
	var keys []keyOpt
	card := 1
	for len(keys) < nk {
		k := pool[g.n(len(pool))]
		if len(s.keys) > 0 && len(keys) == 0 && g.chance(70) {
			k = s.keys[g.n(len(s.keys))]
		}
		if slices.ContainsFunc(keys, func(x keyOpt) bool { return x.expr == k.expr }) || k.card > 1000 && card > 1 {
			continue
		}
		if o.rollup && k.card > 200 {
			continue
		}
		keys = append(keys, k)
		card *= k.card
		if card > 1000 {
			break
		}
	}
	var items []selItem
	for i, k := range keys {
		if g.chance(8) && len(keys) > 1 {
			continue // grouped by, not selected
		}
		it := selItem{expr: k.expr, key: true}
		if g.chance(55) {
			it.alias = fmt.Sprintf("k%d", i+1)
		}
		items = append(items, it)
		if kd, ok := plainKind(k.expr); ok && !o.rollup && g.chance(20) {
			f, fk := g.keyFunc(k.expr, kd)
			items = append(items, selItem{expr: f, kind: fk})
		}
	}
	na := g.between(1, 4)
	for i := range na {
		a := g.aggregate(s)
		if o.feature != "" && (i == 0 || g.chance(30)) {
			a = g.breadthAggregate(s, o.feature)
		}
		it := selItem{expr: a.expr, kind: a.kind, bag: bagOf(a.expr)}
		if g.chance(60) {
			it.alias = fmt.Sprintf("a%d", i+1)
		}
		items = append(items, it)
	}
	if g.chance(30) {
		g.r.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
	}

	var sb strings.Builder
	sb.WriteString("SELECT ")
	for i, it := range items {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(it.String())
	}
	sb.WriteString(" FROM " + s.from)
	sb.WriteString(g.where(s, 75))

	// GROUP BY: each key by alias, ordinal or expression.
	var gb []string
	for _, k := range keys {
		i := slices.IndexFunc(items, func(it selItem) bool { return it.key && it.expr == k.expr })
		if i < 0 || o.rollup {
			gb = append(gb, k.expr)
			continue
		}
		gb = append(gb, g.ref(items, i, true))
	}
	sb.WriteString(" GROUP BY " + strings.Join(gb, ", "))
	if o.rollup {
		sb.WriteString(" WITH ROLLUP")
		// MariaDB refuses ORDER BY with ROLLUP; the rollup's own order is
		// the keys' order, super-aggregate rows after their group.
		if g.chance(20) {
			sb.WriteString(g.limit())
		}
		return Query{SQL: sb.String(), Ordered: true, Category: cat, Feature: feature, Bags: bags(items)}
	}

	if g.chance(30) {
		sb.WriteString(" HAVING " + g.having(s, items))
	}

	ordered := true // GROUP BY sorts by the keys
	if g.chance(65) || card > 300 {
		var ob []string
		covered := map[string]bool{}
		for range g.between(1, 2) {
			var i int
			if g.chance(15) {
				ob = append(ob, g.oneOf("COUNT(*)", s.q("SUM($Distance)"), s.q("MAX($ArrDelayMinutes)"))+g.oneOf("", " DESC", " ASC"))
				continue
			}
			i = g.n(len(items))
			if items[i].bag != "" {
				// An unordered collection's text is no sort key.
				ob = append(ob, "COUNT(*)"+g.oneOf("", " DESC"))
				continue
			}
			ob = append(ob, g.ref(items, i, true)+g.oneOf("", " DESC", " ASC"))
			if items[i].key {
				covered[items[i].expr] = true
			}
		}
		limit := g.chance(60) || card > 300
		ordered = false
		if limit || g.chance(50) {
			for _, k := range keys {
				if covered[k.expr] {
					continue
				}
				i := slices.IndexFunc(items, func(it selItem) bool { return it.key && it.expr == k.expr })
				r := k.expr
				if i >= 0 {
					r = g.ref(items, i, true)
				}
				ob = append(ob, r+g.oneOf("", " DESC"))
			}
			ordered = true
		}
		sb.WriteString(" ORDER BY " + strings.Join(ob, ", "))
		if limit {
			sb.WriteString(g.limit())
		}
	}
	return Query{SQL: sb.String(), Ordered: ordered, Category: cat, Feature: feature, Bags: bags(items)}
}

// bags returns Query.Bags of a select list.
func bags(items []selItem) map[int]string {
	var m map[int]string
	for i, it := range items {
		if it.bag != "" {
			if m == nil {
				m = map[int]string{}
			}
			m[i] = it.bag
		}
	}
	return m
}

// having returns a HAVING condition over the select items or aggregates.
func (g *qgen) having(s source, items []selItem) string {
	one := func() string {
		var aggs []int
		for i, it := range items {
			if !it.key && it.bag == "" {
				aggs = append(aggs, i)
			}
		}
		if len(aggs) == 0 || g.chance(30) {
			a := g.aggregate(s)
			return a.expr + g.oneOf(" > ", " >= ", " < ", " <> ") + g.havingConst(a.kind)
		}
		it := items[aggs[g.n(len(aggs))]]
		r := it.expr
		if it.alias != "" && g.chance(60) {
			r = it.alias
		}
		if g.chance(10) {
			return r + " IS NOT NULL"
		}
		return r + g.oneOf(" > ", " >= ", " < ", " <> ", " = ") + g.havingConst(it.kind)
	}
	// strCond compares the string group key r (ontime column col) after
	// the merge: with literals that often carry trailing spaces, through
	// IN, BETWEEN, STRCMP, and LIKE with an ESCAPE clause.
	strCond := func(r, col string) string {
		lit := func() string {
			l := g.lit(col)
			if g.chance(40) {
				l = spaced(l, " ")
			}
			return l
		}
		switch g.n(6) {
		case 0:
			return r + g.oneOf(" = ", " <> ", " <=> ") + lit()
		case 1:
			return r + g.oneOf(" IN (", " NOT IN (") + lit() + ", " + lit() + ")"
		case 2:
			a, b := lit(), lit()
			if a > b {
				a, b = b, a
			}
			return r + " BETWEEN " + a + " AND " + b
		case 3:
			return r + g.oneOf(" < ", " >= ") + lit()
		case 4:
			p := g.oneOf(likePatterns(col)...)
			esc := g.oneOf("!", "|", "#", "^")
			return r + " LIKE " + escapeLike(p, esc, g.chance(20))
		}
		return "STRCMP(" + r + ", " + lit() + ")" + g.oneOf(" = 0", " < 0", " > 0")
	}
	keyCond := func() string {
		// MariaDB resolves HAVING names against the select list and the
		// GROUP BY columns: a key is named by its alias or, when it is a
		// bare column, by the column.
		var names, cols []string
		for _, it := range items {
			switch {
			case !it.key:
				continue
			case it.alias != "":
				names = append(names, it.alias)
			case !strings.ContainsAny(it.expr, " ()+-*/,"):
				names = append(names, it.expr)
			default:
				continue
			}
			cols = append(cols, it.expr)
		}
		if len(names) == 0 {
			return one()
		}
		i := g.n(len(names))
		r := names[i]
		if c, ok := ontimeStrCol(cols[i]); ok && g.chance(60) {
			return strCond(r, c)
		}
		return r + g.oneOf(" IS NOT NULL", " IS NULL", " <> 0", " > 1")
	}
	switch g.n(7) {
	case 5:
		return keyCond()
	case 6:
		return keyCond() + " AND " + one()
	case 0:
		return one() + " AND " + one()
	case 1:
		return "(" + one() + " OR " + one() + ")"
	}
	return one()
}

// ontimeStrCol is the ontime string column a group key is, or false.
func ontimeStrCol(expr string) (string, bool) {
	name := expr
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	for _, c := range ontimeCols {
		if c.name == name && c.kind == kStr {
			return name, true
		}
	}
	return "", false
}

// scalar builds an aggregate query without GROUP BY: one row.
func (g *qgen) scalar(s source, cat, feature string) Query {
	var items []string
	var bags map[int]string
	for i := range g.between(1, 5) {
		a := g.aggregate(s)
		if feature != "" && (i == 0 || g.chance(30)) {
			a = g.breadthAggregate(s, feature)
		}
		if b := bagOf(a.expr); b != "" {
			if bags == nil {
				bags = map[int]string{}
			}
			bags[i] = b
		}
		if g.chance(40) {
			items = append(items, fmt.Sprintf("%s AS a%d", a.expr, i+1))
		} else {
			items = append(items, a.expr)
		}
	}
	q := "SELECT " + strings.Join(items, ", ") + " FROM " + s.from + g.where(s, 80)
	if g.chance(8) {
		q += " HAVING COUNT(*) " + g.oneOf("> 0", "> 1000", "= 0", "< 100")
	}
	if g.chance(5) {
		q += g.oneOf(" LIMIT 1", " LIMIT 1 OFFSET 1", " LIMIT 0")
	}
	return Query{SQL: q, Ordered: true, Category: cat, Feature: feature, Bags: bags}
}

// rowExprs are select-list entries of row queries.
var rowExprs = []struct {
	expr string
	kind kind
}{
	{"$id", kInt}, {"$Carrier", kStr}, {"$Origin", kStr}, {"$Dest", kStr}, {"$FlightDate", kDate},
	{"$TailNum", kStr}, {"$ArrDelayMinutes", kInt}, {"$DepDelayMinutes", kInt}, {"$Distance", kInt},
	{"$YearD", kInt}, {"$DayOfWeek", kInt}, {"$OriginState", kStr}, {"$Cancelled", kInt}, {"$FlightNum", kInt},
	{"$Distance * 2", kInt}, {"CONCAT($Origin, '-', $Dest)", kStr}, {"IF($ArrDelayMinutes > 30, 'late', 'ok')", kStr},
	{"YEAR($FlightDate)", kInt}, {"$ArrDelayMinutes - $DepDelayMinutes", kInt}, {"$Distance / 7", kDec},
	{"COALESCE($TailNum, 'none')", kStr}, {"$Distance DIV 100", kInt}, {"SUBSTRING($Origin,1,1)", kStr},
}

// clash reports whether a's alias could be confused with b in ORDER BY:
// the same alias, or an alias naming the column b selects.
func clash(a, b selItem) bool {
	if a.alias == "" {
		return false
	}
	return a.alias == b.alias || strings.EqualFold(b.expr, a.alias) || strings.HasSuffix(strings.ToLower(b.expr), "."+strings.ToLower(a.alias))
}

// lowCardKey returns a group key template with few distinct values.
func (g *qgen) lowCardKey() string {
	for {
		k := ontimeKeys[g.n(len(ontimeKeys))]
		if k.card <= 400 {
			return k.expr
		}
	}
}

// rows builds a non-aggregate query.
func (g *qgen) rows(s source, cat, feature string) Query {
	var items []selItem
	if g.chance(5) {
		items = append(items, selItem{expr: "*"})
	} else {
		for range g.between(1, 5) {
			e := rowExprs[g.n(len(rowExprs))]
			it := selItem{expr: s.q(e.expr), kind: e.kind}
			if slices.ContainsFunc(items, func(x selItem) bool { return x.expr == it.expr }) {
				continue
			}
			if g.chance(25) {
				it.alias = fmt.Sprintf("c%d", len(items)+1)
				if g.chance(20) {
					// An alias that shadows a column: ORDER BY must see the alias.
					it.alias = g.oneOf("Distance", "ArrDelayMinutes", "Origin", "YearD")
				}
			}
			if slices.ContainsFunc(items, func(x selItem) bool { return clash(x, it) || clash(it, x) }) {
				continue
			}
			items = append(items, it)
		}
	}
	var list []string
	for _, it := range items {
		list = append(list, it.String())
	}
	q := "SELECT " + strings.Join(list, ", ") + " FROM " + s.from
	w := g.where(s, 85)
	id := s.q("$id")
	switch g.n(10) {
	case 0, 1, 2: // selective, unordered
		sel := fmt.Sprintf("%s %% %d = %d", id, g.between(150, 900), g.n(150))
		if w == "" {
			w = " WHERE " + sel
		} else {
			w += " AND " + sel
		}
		return Query{SQL: q + w, Ordered: false, Category: cat, Feature: feature}
	default: // ORDER BY ..., id LIMIT n
		var ob []string
		for range g.n(3) {
			if g.chance(25) || items[0].expr == "*" {
				e := rowExprs[g.n(len(rowExprs))]
				ob = append(ob, s.q(e.expr)+g.oneOf("", " DESC"))
				continue
			}
			ob = append(ob, g.ref(items, g.n(len(items)), true)+g.oneOf("", " DESC"))
		}
		ob = append(ob, id+g.oneOf("", " DESC"))
		return Query{SQL: q + w + " ORDER BY " + strings.Join(ob, ", ") + g.limit(), Ordered: true, Category: cat, Feature: feature}
	}
}

// ---- breadth ------------------------------------------------------------------

var breadthFeatures = []string{
	"join-carriers", "join-airports", "left-join-dim", "in-subquery", "count-distinct",
	"select-distinct", "group-concat", "json-agg", "stddev", "bit", "rollup", "derived-table", "cte", "scalar-subquery",
}

// breadth builds a query using SQL Shoal passes through today.
func (g *qgen) breadth() Query {
	f := breadthFeatures[g.n(len(breadthFeatures))]
	o := source{from: "ontime o", qual: "o."}
	switch f {
	case "join-carriers":
		o.from = "ontime o JOIN carriers c ON c.code = o.Carrier"
		o.keys = []keyOpt{{"c.name", 21}, {"c.country", 2}, {"c.code", 21}, {"LEFT(c.name, 3)", 18}}
		if g.chance(20) {
			o.where = "c.country " + g.oneOf("=", "<>") + " 'United States'"
		}
		return g.grouped(o, CatBreadth, f)
	case "join-airports":
		side := g.oneOf("Origin", "Dest")
		o.from = "ontime o JOIN airports a ON a.code = o." + side
		o.keys = []keyOpt{{"a.state", 50}, {"a.city", 100}, {"SUBSTRING(a.name, 1, 1)", 22}, {"a.state IN ('AK', 'HI')", 2}}
		if g.chance(30) {
			return g.scalar(o, CatBreadth, f)
		}
		return g.grouped(o, CatBreadth, f)
	case "left-join-dim":
		on := "o.Carrier = c.code"
		if g.chance(60) {
			on += " AND " + g.pred(o, 1)
		}
		if g.win != "" {
			on += " AND " + o.q(g.win)
		}
		key := g.oneOf("c.code", "c.name", "c.country")
		var aggs []string
		for range g.between(1, 3) {
			aggs = append(aggs, g.oneOf("COUNT(o.id)", "SUM(o.Distance)", "MAX(o.FlightDate)", "MIN(o.Origin)", "COUNT(*)", "AVG(o.ArrDelayMinutes)"))
		}
		q := fmt.Sprintf("SELECT %s, %s FROM carriers c LEFT JOIN ontime o ON %s GROUP BY %s ORDER BY %s",
			key, strings.Join(aggs, ", "), on, key, key)
		return Query{SQL: q, Ordered: true, Category: CatBreadth, Feature: f}
	case "in-subquery":
		var sub string
		switch g.n(5) {
		case 0, 1:
			sub = "o." + g.oneOf("Origin", "Dest") + g.oneOf(" IN", " NOT IN") + " (SELECT code FROM airports WHERE state " +
				g.oneOf("= "+g.lit("OriginState"), "IN ("+g.lits("OriginState", 3)+")") + ")"
		case 2, 3:
			sub = "o.Carrier" + g.oneOf(" IN", " NOT IN") + " (SELECT code FROM carriers WHERE country = " + quote(countries[g.n(len(countries))]) + ")"
		default:
			sub = g.oneOf("", "NOT ") + "EXISTS (SELECT 1 FROM airports a WHERE a.code = o.Dest AND a.state = o.OriginState)"
		}
		o.where = sub
		switch g.n(3) {
		case 0:
			return g.scalar(o, CatBreadth, f)
		case 1:
			return g.rows(o, CatBreadth, f)
		}
		return g.grouped(o, CatBreadth, f)
	case "count-distinct", "group-concat", "json-agg", "stddev", "bit":
		if g.chance(25) {
			return g.scalar(o, CatBreadth, f)
		}
		return g.grouped(o, CatBreadth, f)
	case "rollup":
		return g.grouped(o, CatBreadth, f)
	case "select-distinct":
		var cols []string
		for range g.between(1, 3) {
			c := o.q(g.oneOf("$Carrier", "$OriginState", "$DayOfWeek", "$YearD", "$Cancelled", "$Quarter", "$Origin", "$YearD DIV 10"))
			if !slices.Contains(cols, c) {
				cols = append(cols, c)
			}
		}
		q := "SELECT DISTINCT " + strings.Join(cols, ", ") + " FROM ontime o" + g.where(o, 80)
		var ob []string
		for _, c := range cols {
			ob = append(ob, c+g.oneOf("", " DESC"))
		}
		if g.chance(20) {
			return Query{SQL: q, Ordered: false, Category: CatBreadth, Feature: f}
		}
		q += " ORDER BY " + strings.Join(ob, ", ")
		if g.chance(50) {
			q += g.limit()
		}
		return Query{SQL: q, Ordered: true, Category: CatBreadth, Feature: f}
	case "derived-table":
		k := g.lowCardKey()
		inner := "SELECT " + o.q(k) + " AS k, o.Distance AS d, o.ArrDelayMinutes AS late FROM ontime o" + g.where(o, 80)
		q := "SELECT t.k, COUNT(*), SUM(t.d), MAX(t.late) FROM (" + inner + ") t GROUP BY t.k ORDER BY " + g.oneOf("t.k", "COUNT(*) DESC, t.k")
		if g.chance(50) {
			q += g.limit()
		}
		return Query{SQL: q, Ordered: true, Category: CatBreadth, Feature: f}
	case "cte":
		k := g.lowCardKey()
		q := "WITH t AS (SELECT " + o.q(k) + " AS k, o.Distance AS d FROM ontime o" + g.where(o, 80) + ") " +
			"SELECT k, COUNT(*) AS n, SUM(d) AS total FROM t GROUP BY k ORDER BY " + g.oneOf("k", "n DESC, k", "total, k")
		if g.chance(50) {
			q += g.limit()
		}
		return Query{SQL: q, Ordered: true, Category: CatBreadth, Feature: f}
	default: // scalar-subquery
		inner := "Carrier = " + g.lit("Carrier")
		if g.win != "" {
			inner += " AND " + strings.ReplaceAll(g.win, "$", "")
		}
		o.where = "o.Distance > (SELECT AVG(Distance) FROM ontime WHERE " + inner + ")"
		if g.chance(50) {
			return g.scalar(o, CatBreadth, f)
		}
		return g.grouped(o, CatBreadth, f)
	}
}

// mixedTable is a latin1 table with a latin1 and a utf8mb4 group column
// holding non-ASCII values (accents, ß, Greek, a code point above the BMP),
// for string functions over group keys in both charsets. It is created
// before Shoal starts (its catalog is read then).
const mixedTable = "mixed_cs"
