package e2e

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// genTPCH returns generated statement i of seed over tpchDB: the
// reporting shapes users send over lineitem and orders — aggregates of
// DECIMAL products, AVG of DECIMALs, quotients of aggregates, ROUND and
// TRUNCATE, date arithmetic, date parts and string functions of CHAR keys
// as group keys, CASE buckets, COUNT(DISTINCT), GROUP_CONCAT, HAVING,
// ORDER BY aggregates, LIMIT — over lineitem alone, orders alone, or
// lineitem joined to orders. Statement i does not depend on the others.
func genTPCH(seed uint64, i int) Query {
	r := rand.New(rand.NewPCG(seed^0x7bc4, uint64(i)*0x9e3779b97f4a7c15+3))
	pick := func(xs []string) string { return xs[r.IntN(len(xs))] }
	var from string
	var keys, aggs, preds []string
	having := tpchHaving
	switch x := r.IntN(10); {
	case x < 6:
		from, keys, aggs, preds = "lineitem", tpchLineKeys, tpchLineAggs, tpchLinePreds
		having = append(append([]string{}, tpchHaving...), tpchLineHaving...)
	case x < 8:
		from = "lineitem l JOIN orders o ON o.o_orderkey = l.l_orderkey"
		keys = append(append([]string{}, tpchLineKeys...), tpchOrderKeys...)
		aggs = append(append([]string{}, tpchLineAggs...), tpchOrderAggs...)
		preds = append(append([]string{}, tpchLinePreds...), tpchOrderPreds...)
		having = append(append([]string{}, tpchHaving...), tpchLineHaving...)
	default:
		from, keys, aggs, preds = "orders", tpchOrderKeys, tpchOrderAggs, tpchOrderPreds
	}
	cat := "grouped"
	nk := r.IntN(4)
	if nk == 0 {
		cat = "global"
	}
	var sel, gb []string
	seen := map[string]bool{}
	for len(gb) < nk {
		k := pick(keys)
		if seen[k] {
			continue
		}
		seen[k] = true
		alias := fmt.Sprintf("k%d", len(gb))
		sel = append(sel, k+" AS "+alias)
		gb = append(gb, alias)
	}
	na := 1 + r.IntN(4)
	var bags map[int]string
	// exact holds the aliases an ORDER BY may lead with: a variance is a
	// DOUBLE whose last bits follow the scan's order, so two groups equal
	// in exact arithmetic tie on one server and not on another (seed 6).
	var exact []string
	for j := range na {
		a := pick(aggs)
		alias := fmt.Sprintf("a%d", j)
		if strings.HasPrefix(a, "GROUP_CONCAT(") && !strings.Contains(a, "ORDER BY") {
			if bags == nil {
				bags = map[int]string{}
			}
			bags[len(sel)] = ","
		}
		sel = append(sel, a+" AS "+alias)
		if !strings.HasPrefix(a, "STDDEV") && !strings.HasPrefix(a, "VAR") {
			exact = append(exact, alias)
		}
	}
	var where []string
	for range r.IntN(4) {
		where = append(where, pick(preds))
	}
	var b strings.Builder
	src := tpchQualify("FROM " + from)[len("FROM "):]
	if from == "lineitem" && r.IntN(6) == 0 {
		// A BI tool's question over a saved one (Metabase's source).
		cols := []string{"l_orderkey", "l_partkey", "l_suppkey", "l_linenumber", "l_quantity", "l_extendedprice", "l_discount", "l_tax",
			"l_returnflag", "l_linestatus", "l_shipdate", "l_commitdate", "l_receiptdate", "l_shipinstruct", "l_shipmode", "l_comment"}
		for i, c := range cols {
			cols[i] = "lineitem." + c + " AS " + c
		}
		src = "(SELECT " + strings.Join(cols, ", ") + " FROM " + src + ") source"
		cat = "derived-" + cat
	}
	b.WriteString("SELECT " + strings.Join(sel, ", ") + " FROM " + src)
	if len(where) > 0 {
		b.WriteString(" WHERE " + strings.Join(where, " AND "))
	}
	ordered := nk == 0
	if nk > 0 {
		b.WriteString(" GROUP BY " + strings.Join(gb, ", "))
		order := r.IntN(4)
		if order >= 2 && len(exact) == 0 {
			order = 1
		}
		if order == 0 && r.IntN(4) == 0 {
			b.WriteString(" WITH ROLLUP")
			cat += "-rollup"
		}
		if r.IntN(4) == 0 {
			b.WriteString(" HAVING " + pick(having))
		}
		switch order {
		case 0: // no ORDER BY: compared as a bag
		case 1:
			b.WriteString(" ORDER BY " + strings.Join(gb, ", "))
			ordered = true
		case 2:
			dir := pick([]string{"", " DESC"})
			b.WriteString(" ORDER BY " + pick(exact) + dir + ", " + strings.Join(gb, ", "))
			ordered = true
		default:
			b.WriteString(" ORDER BY " + pick(exact) + " DESC, " + strings.Join(gb, " DESC, ") + " DESC")
			ordered = true
		}
		if ordered && r.IntN(2) == 0 {
			fmt.Fprintf(&b, " LIMIT %d", 1+r.IntN(20))
			if r.IntN(3) == 0 {
				fmt.Fprintf(&b, " OFFSET %d", r.IntN(5))
			}
		}
	}
	if strings.Contains(b.String(), " o.") || strings.Contains(b.String(), "(o.") {
		cat += "-join"
	}
	return Query{SQL: b.String(), Ordered: ordered, Category: cat, Bags: bags}
}

var tpchLineKeys = []string{
	"l_returnflag", "l_linestatus", "l_shipmode", "l_shipinstruct", "l_discount", "l_tax", "l_quantity",
	"YEAR(l_shipdate)", "MONTH(l_commitdate)", "DATE_FORMAT(l_shipdate, '%Y-%m')", "EXTRACT(QUARTER FROM l_receiptdate)",
	"EXTRACT(YEAR_MONTH FROM l_shipdate)", "WEEKDAY(l_shipdate)", "DAYNAME(l_receiptdate)", "LAST_DAY(l_shipdate)",
	"DATE_SUB(l_shipdate, INTERVAL DAYOFMONTH(l_shipdate) - 1 DAY)", "QUARTER(l_shipdate)",
	"DATEDIFF(l_receiptdate, l_shipdate)", "l_receiptdate > l_commitdate", "l_shipdate + INTERVAL 1 MONTH",
	"CASE WHEN l_quantity < 10 THEN 'small' WHEN l_quantity < 30 THEN 'medium' ELSE 'large' END",
	"CASE WHEN l_discount >= 0.05 THEN 'high' ELSE 'low' END", "FLOOR(l_extendedprice / 10000)",
	"ROUND(l_extendedprice, -3)", "TRUNCATE(l_discount * 10, 0)", "l_quantity * l_discount",
	"UPPER(l_shipmode)", "LOWER(l_shipmode)", "TRIM(l_shipmode)", "LENGTH(l_shipmode)", "CHAR_LENGTH(l_shipinstruct)",
	"CONCAT(l_returnflag, '-', l_linestatus)", "CONCAT(l_shipmode, '|')", "LEFT(l_shipinstruct, 7)",
	"SUBSTRING(l_comment, 1, 5)", "RTRIM(l_comment)", "l_comment", "LENGTH(l_comment)", "REPLACE(l_shipmode, 'A', 'a')",
	"l_shipmode LIKE '%AIR%'", "IFNULL(l_comment, 'none')", "l_orderkey % 7", "l_linenumber",
	"WEEK(l_shipdate)", "DATE(l_commitdate)", "LPAD(l_linenumber, 3, '0')", "CONCAT_WS('/', l_returnflag, l_shipmode)",
	"REVERSE(TRIM(l_shipmode))", "SUBSTRING_INDEX(l_shipinstruct, ' ', 1)", "l_discount * 100", "ROUND(l_quantity / 7, 2)",
	"DATE_FORMAT(l_receiptdate, '%a %b')", "YEARWEEK(l_shipdate)", "TO_DAYS(l_shipdate) % 5", "l_tax + l_discount",
}

var tpchOrderKeys = []string{
	"o_orderstatus", "o_orderpriority", "YEAR(o_orderdate)", "DATE_FORMAT(o_orderdate, '%Y-Q%q')",
	"MONTHNAME(o_orderdate)", "LEFT(o_orderpriority, 1)", "COALESCE(o_orderpriority, 'unknown')",
	"o_orderpriority IS NULL", "SUBSTRING_INDEX(o_comment, ' ', 1)", "LOWER(o_comment)", "o_custkey % 10",
	"CASE WHEN o_totalprice < 100000 THEN 'low' WHEN o_totalprice < 300000 THEN 'mid' ELSE 'high' END",
	"TRUNCATE(o_totalprice, -5)", "o_clerk",
}

var tpchLineAggs = []string{
	"COUNT(*)", "SUM(l_quantity)", "SUM(l_extendedprice)", "SUM(l_extendedprice * (1 - l_discount))",
	"SUM(l_extendedprice * (1 - l_discount) * (1 + l_tax))", "SUM(l_extendedprice * l_discount)",
	"AVG(l_quantity)", "AVG(l_extendedprice)", "AVG(l_discount)", "AVG(l_extendedprice * (1 - l_discount))",
	"MIN(l_shipdate)", "MAX(l_shipdate)", "MIN(l_receiptdate)", "MAX(l_commitdate)", "MIN(l_shipmode)", "MAX(l_shipinstruct)",
	"MIN(l_comment)", "MAX(l_comment)", "MIN(l_extendedprice)", "MAX(l_quantity * l_tax)",
	"COUNT(DISTINCT l_orderkey)", "COUNT(DISTINCT l_suppkey)", "COUNT(DISTINCT l_shipmode)", "COUNT(l_comment)",
	"SUM(l_extendedprice) / SUM(l_quantity)", "SUM(l_extendedprice) / COUNT(*)", "ROUND(AVG(l_extendedprice), 2)",
	"ROUND(SUM(l_extendedprice * (1 - l_discount)), 0)", "TRUNCATE(AVG(l_quantity), 1)", "ROUND(AVG(l_discount) * 100, 3)",
	"SUM(l_quantity) * 2.5", "SUM(l_extendedprice) - SUM(l_extendedprice * l_discount)", "MAX(l_extendedprice) - MIN(l_extendedprice)",
	"100.00 * SUM(CASE WHEN l_returnflag = 'R' THEN l_extendedprice ELSE 0 END) / SUM(l_extendedprice)",
	"SUM(CASE WHEN l_shipmode IN ('MAIL', 'SHIP') THEN 1 ELSE 0 END)", "SUM(IF(l_commitdate < l_receiptdate, 1, 0))",
	"AVG(DATEDIFF(l_receiptdate, l_shipdate))", "MAX(DATEDIFF(l_receiptdate, l_commitdate))", "SUM(DATEDIFF(l_receiptdate, l_shipdate))",
	"MIN(l_shipdate + INTERVAL 7 DAY)", "MAX(DATE_FORMAT(l_shipdate, '%d/%m/%Y'))", "DATEDIFF(MAX(l_shipdate), MIN(l_shipdate))",
	"GROUP_CONCAT(DISTINCT l_returnflag ORDER BY l_returnflag)", "GROUP_CONCAT(DISTINCT l_shipmode ORDER BY l_shipmode SEPARATOR '/')",
	"STDDEV_POP(l_quantity)", "VAR_SAMP(l_discount)", "AVG(l_extendedprice / l_quantity)", "SUM(l_extendedprice / 3)",
	"MAX(LENGTH(l_comment))", "COUNT(DISTINCT YEAR(l_shipdate))", "SUM(l_tax) / AVG(l_tax)", "AVG(l_quantity) * AVG(l_discount)",
	"CAST(SUM(l_extendedprice) AS SIGNED)", "CONCAT(SUM(l_quantity), ' units')", "FORMAT(SUM(l_extendedprice), 2)",
	"MAX(UPPER(l_shipmode))", "MIN(CONCAT(l_shipmode, '#'))", "SUM(l_discount) DIV 1", "CEIL(AVG(l_tax) * 100)",
	"AVG(l_extendedprice) * 100", "AVG(l_discount) - AVG(l_tax)", "ROUND(SUM(l_extendedprice) / SUM(l_quantity), 4)",
	"DATE_ADD(MAX(l_shipdate), INTERVAL 1 DAY)", "TIMESTAMPDIFF(MONTH, MIN(l_shipdate), MAX(l_shipdate))", "YEAR(MAX(l_receiptdate))",
	"DATE_FORMAT(MIN(l_shipdate), '%Y%m')", "SUM(DISTINCT l_discount)", "AVG(DISTINCT l_tax)", "COUNT(DISTINCT l_returnflag, l_linestatus)",
	"SUM(l_quantity * l_extendedprice)", "MIN(l_extendedprice * (1 - l_discount))", "SUM(ROUND(l_extendedprice * l_discount, 1))",
	"AVG(CASE WHEN l_returnflag = 'R' THEN l_quantity END)", "SUM(l_extendedprice) / NULLIF(SUM(l_quantity), 0)",
	"COUNT(CASE WHEN l_shipdate > l_commitdate THEN 1 END)", "MAX(l_receiptdate) - INTERVAL 1 MONTH", "SUM(l_tax * 100) / 100",
}

var tpchOrderAggs = []string{
	"COUNT(*)", "SUM(o_totalprice)", "AVG(o_totalprice)", "MIN(o_orderdate)", "MAX(o_orderdate)",
	"COUNT(o_orderpriority)", "COUNT(DISTINCT o_custkey)", "MIN(o_orderpriority)", "MAX(o_clerk)",
	"ROUND(AVG(o_totalprice), 1)", "SUM(o_totalprice) / COUNT(DISTINCT o_custkey)", "MAX(o_totalprice) / 1000",
	"GROUP_CONCAT(DISTINCT o_orderstatus ORDER BY o_orderstatus)", "SUM(CASE WHEN o_orderpriority LIKE '1%' THEN 1 ELSE 0 END)",
}

var tpchLinePreds = []string{
	"l_shipdate <= DATE '1998-12-01' - INTERVAL 90 DAY", "l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1994-01-01' + INTERVAL 1 YEAR",
	"l_discount BETWEEN 0.05 AND 0.07", "l_quantity < 24", "l_shipmode IN ('MAIL', 'SHIP')", "l_commitdate < l_receiptdate",
	"l_shipmode LIKE 'A%'", "l_comment LIKE '%deposits%'", "l_returnflag = 'R'", "l_shipinstruct = 'NONE'",
	"YEAR(l_shipdate) = 1995", "l_shipdate BETWEEN '1996-03-01' AND '1996-06-30'", "l_extendedprice > 50000.50",
	"l_discount * l_extendedprice > 1000", "l_shipmode = 'air'", "l_shipmode = 'AIR '", "l_comment IS NULL",
	"l_comment LIKE '% '", "MONTH(l_receiptdate) IN (1, 12)", "l_tax = 0.08", "l_orderkey BETWEEN 1000 AND 60000",
	"l_linenumber = 1", "DATEDIFF(l_receiptdate, l_commitdate) > 10", "TRIM(l_comment) = 'final foxes'",
}

var tpchOrderPreds = []string{
	"o_orderdate >= DATE '1993-07-01' AND o_orderdate < DATE '1993-07-01' + INTERVAL 3 MONTH",
	"o_orderpriority IS NULL", "o_orderpriority LIKE '1%'", "o_orderpriority <> '5-LOW'", "o_orderstatus = 'F'",
	"o_totalprice > 200000", "YEAR(o_orderdate) BETWEEN 1993 AND 1996", "o_comment LIKE '%requests%'",
}

var tpchHaving = []string{
	"COUNT(*) > 10", "COUNT(*) > 1000", "a0 IS NOT NULL", "SUM(1) >= 2",
}

var tpchLineHaving = []string{
	"AVG(l_discount) > 0.045", "SUM(l_quantity) > 500", "MAX(l_shipdate) > DATE '1998-01-01'",
	"SUM(l_extendedprice * (1 - l_discount)) > 1000000", "MIN(l_shipmode) = 'AIR'", "AVG(l_quantity) BETWEEN 20 AND 30",
}
