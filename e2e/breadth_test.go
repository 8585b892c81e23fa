package e2e

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestBreadth covers joins with dimension tables, subqueries, DISTINCT
// aggregates, SELECT DISTINCT and the variance family: each must be
// distributed and equal MySQL's answer.
func TestBreadth(t *testing.T) {
	cases := []struct {
		name    string
		q       string
		ordered bool
	}{
		{"join both dimensions", "select c.name, a.state, count(*), sum(o.Distance) from ontime o join carriers c on c.code = o.Carrier join airports a on a.code = o.Origin where a.state <> 'CA' group by c.name, a.state", true},
		{"left join fact preserved", "select o.Carrier, count(c.name), count(*) from ontime o left join carriers c on c.code = o.Carrier group by o.Carrier", true},
		{"in subquery on dimension", "select count(*), sum(Distance) from ontime where Origin in (select code from airports where state in ('CA', 'TX'))", true},
		{"not exists correlated on dimension", "select Carrier, count(*) from ontime o where not exists (select 1 from airports a where a.code = o.Dest and a.state = 'NY') group by Carrier", true},
		{"count distinct", "select Carrier, count(distinct TailNum), count(*) from ontime group by Carrier", true},
		{"count distinct no group", "select count(distinct Origin) from ontime where YearD > 2000", true},
		{"count distinct two columns", "select YearD, count(distinct Origin, Dest) from ontime group by YearD", true},
		{"sum avg distinct", "select sum(distinct DayOfWeek), avg(distinct DayOfWeek), count(distinct DayOfWeek) from ontime", true},
		{"count distinct empty", "select count(distinct Distance), sum(distinct Distance), avg(distinct Distance) from ontime where YearD = 1800", true},
		{"select distinct", "select distinct Carrier, YearD from ontime where Cancelled = 1", false},
		{"select distinct order limit", "select distinct Origin from ontime order by Origin desc limit 5", true},
		{"stddev variance", "select Carrier, round(stddev_pop(ArrDelayMinutes), 6), round(var_samp(Distance), 6), round(std(DepDelayMinutes), 6), round(variance(Distance), 4) from ontime group by Carrier", true},
		{"bit aggregates", "select Carrier, bit_and(Distance), bit_or(FlightNum), bit_xor(id), bit_and(FlightNum + 0) from ontime group by Carrier", true},
		{"bit aggregates empty", "select bit_and(Distance), bit_or(Distance), bit_xor(Distance) from ontime where YearD = 1800", true},
		{"rollup one key", "select Quarter, count(*), sum(Distance), max(FlightDate) from ontime group by Quarter with rollup", true},
		{"rollup two keys", "select YearD, Quarter, count(*), min(ArrDelayMinutes) from ontime where YearD > 2010 group by YearD, Quarter with rollup", true},
		{"rollup having limit", "select DayOfWeek, Cancelled, count(*) c from ontime group by DayOfWeek, Cancelled with rollup having c > 10 limit 20", true},
		{"group_concat distinct", "select Carrier, group_concat(distinct OriginState order by OriginState separator '|'), count(distinct OriginState) from ontime group by Carrier", true},
		{"group_concat distinct desc no group", "select group_concat(distinct Carrier order by Carrier desc) from ontime where YearD = 2000", true},
		{"group_concat distinct default order", "select DayOfWeek, group_concat(distinct UniqueCarrier) from ontime where Cancelled = 1 group by DayOfWeek", true},
		{"join with distinct", "select c.country, count(distinct o.Origin) from ontime o join carriers c on c.code = o.Carrier group by c.country", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			diff(t, c.q, c.ordered)
			if ex := explain(t, c.q); !strings.HasPrefix(ex, "split ontime.ontime") {
				t.Errorf("not distributed:\n%s", ex)
			}
		})
	}
	// The fact table under the null-supplying side passes through, and
	// still answers exactly.
	q := "select c.code, count(o.id) from carriers c left join ontime o on o.Carrier = c.code group by c.code"
	diff(t, q, true)
	if ex := explain(t, q); !strings.Contains(ex, "passthrough") {
		t.Errorf("expected passthrough:\n%s", ex)
	}
}

// TestUnorderedAggregates covers GROUP_CONCAT without DISTINCT or ORDER BY,
// JSON_ARRAYAGG and JSON_OBJECTAGG: fragments compute partials that the
// coordinator joins. MySQL defines no order of the values, so those
// columns compare as multisets (Bags); everything else, their length
// included, must be equal.
func TestUnorderedAggregates(t *testing.T) {
	sep, arr, obj := bagSepPrefix+",", bagJSONArray, bagJSONObject
	cases := []struct {
		name string
		q    string
		bags map[int]string
	}{
		{"group_concat grouped", "select Carrier, group_concat(Origin), count(*) from ontime group by Carrier", map[int]string{1: sep}},
		{"group_concat nulls skipped, all-null group NULL", "select YearD, group_concat(TailNum separator '|'), group_concat(if(Cancelled = 1, Origin, NULL)) from ontime where YearD < 1995 group by YearD", map[int]string{1: bagSepPrefix + "|", 2: sep}},
		{"group_concat of several values and numbers", "select DayOfWeek, group_concat(Carrier, '-', Distance, '-', ArrDelayMinutes separator ';') from ontime where MonthD = 3 group by DayOfWeek", map[int]string{1: bagSepPrefix + ";"}},
		{"group_concat no group, empty separator", "select group_concat(Dest separator ''), count(*) from ontime where Origin = 'SFO'", map[int]string{0: bagSepPrefix}},
		{"group_concat over no rows", "select group_concat(Origin), json_arrayagg(Origin), json_objectagg(Origin, Dest) from ontime where YearD = 1800", map[int]string{0: sep, 1: arr, 2: obj}},
		{"group_concat beside a distinct aggregate", "select Carrier, group_concat(Origin), count(distinct OriginState), group_concat(distinct OriginState order by OriginState) from ontime where DayOfWeek = 2 group by Carrier", map[int]string{1: sep}},
		{"group_concat with rollup", "select Quarter, group_concat(Carrier) from ontime where DayofMonth = 1 group by Quarter with rollup", map[int]string{1: sep}},
		{"length of group_concat", "select Carrier, length(group_concat(TailNum)), length(group_concat(Origin separator '')) from ontime group by Carrier", nil},
		{"json_arrayagg strings numbers dates nulls", "select Carrier, json_arrayagg(TailNum), json_arrayagg(ArrDelayMinutes), json_arrayagg(FlightDate) from ontime where MonthD = 1 and DayofMonth < 8 group by Carrier", map[int]string{1: arr, 2: arr, 3: arr}},
		{"json_objectagg", "select OriginState, json_objectagg(Carrier, Distance), json_objectagg(Origin, ArrDelayMinutes) from ontime where DayOfWeek = 3 and MonthD < 4 group by OriginState", map[int]string{1: obj, 2: obj}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			diffBags(t, c.q, true, c.bags)
			if ex := explain(t, c.q); !strings.HasPrefix(ex, "split ontime.ontime") {
				t.Errorf("not distributed:\n%s", ex)
			}
		})
	}
	// The cut at the default group_concat_max_len (1 MiB): 60k values of
	// about 22 bytes are well over it.
	q := "select length(group_concat(concat(TailNum, FlightDate, Origin, Dest))), count(TailNum) from ontime"
	if r := diff(t, q, true); len(r.rows) != 1 || r.rows[0][0] != "1048576" {
		t.Errorf("cut GROUP_CONCAT length %v, want 1048576", r.rows)
	}
	if ex := explain(t, q); !strings.HasPrefix(ex, "split ontime.ontime") {
		t.Errorf("not distributed:\n%s", ex)
	}
}

// TestJSONArrayOverMaxLen: a JSON_ARRAYAGG longer than group_concat_max_len
// is text MariaDB cuts and Shoal cannot reproduce. Shoal refuses (1235)
// only when the query reads that value; a group HAVING drops on other
// columns, or a row outside the LIMIT window, gives MariaDB's answer.
// (Query 7277 of the 20,000-query run, seed 7, was refused before.)
func TestJSONArrayOverMaxLen(t *testing.T) {
	long := "json_arrayagg(concat(TailNum, FlightDate, Origin, Dest, Carrier, Distance))" // ~32 bytes a value: 6/7 of 60k rows are over 1 MiB
	arr := map[int]string{2: bagJSONArray}
	answered := []struct {
		q    string
		bags map[int]string
	}{
		// HAVING drops the only group on COUNT: no row.
		{"select count(*), " + long + " from ontime having count(*) > 1000000", nil},
		// The long group is dropped by HAVING on COUNT, the short one stays.
		{"select DayOfWeek = 1 as d1, count(*), " + long + " from ontime group by d1 having count(*) < 20000 order by d1", arr},
		// The long group lies outside the LIMIT window.
		{"select DayOfWeek = 1 as d1, count(*) as n, " + long + " from ontime group by d1 order by n limit 1", arr},
	}
	for _, c := range answered {
		t.Run("answered", func(t *testing.T) {
			got, err := query(env.shoal, c.q)
			if err != nil || got.err != nil {
				t.Fatalf("shoal: %s: %v %v", c.q, err, got.err)
			}
			diffBags(t, c.q, true, c.bags)
			if ex := explain(t, c.q); !strings.HasPrefix(ex, "split ontime.ontime") {
				t.Errorf("not distributed:\n%s", ex)
			}
		})
	}
	refused := []string{
		"select count(*), " + long + " from ontime",
		// The long group of the answered queries above, not dropped.
		"select DayOfWeek = 1 as d1, count(*) as n, " + long + " from ontime group by d1 order by n",
		"select count(*), " + long + " as a from ontime having length(a) > 10",
		"select DayOfWeek = 1 as d1, count(*) as n from ontime group by d1 order by length(" + long + ") limit 1",
		// A derived table's aggregate columns are all merged before the
		// outer query runs, read or not.
		"select c from (select count(*) as c, " + long + " as a from ontime) d",
	}
	for _, q := range refused {
		t.Run("refused", func(t *testing.T) {
			got, err := query(env.shoal, q)
			if err != nil {
				t.Fatal(err)
			}
			if got.err == nil || got.err.Number != 1235 || !strings.Contains(got.err.Message, "group_concat_max_len") {
				t.Fatalf("%s: got %v rows %d, want 1235", q, got.err, len(got.rows))
			}
			sameAnswer(t, env.shoal, "select count(*) from ontime") // the session goes on
		})
	}
}

// TestConcatMaxLenSession: a session that sets group_concat_max_len gets
// GROUP_CONCAT cut at its own length, with MariaDB's metadata for it
// (VARCHAR under 512 bytes): such statements run on its replica.
func TestConcatMaxLenSession(t *testing.T) {
	diffInSession(t, "SET SESSION group_concat_max_len = 50",
		"select Carrier, group_concat(distinct Origin order by Origin) from ontime group by Carrier",
		"select Carrier, length(group_concat(Origin)) from ontime group by Carrier",
		"select count(*) from ontime")
}

// TestDivPrecisionSession: a session that sets div_precision_increment
// gets quotients typed and rounded with its own increment: statements
// with a division or AVG run on its replica (the fragments and the merge
// use the default 4).
func TestDivPrecisionSession(t *testing.T) {
	diffInSession(t, "SET SESSION div_precision_increment = 9",
		"select sum(Distance / 7), avg(ArrDelayMinutes) from ontime",
		"select DayOfWeek, sum(Distance / 7), max(Distance) / 3 from ontime group by DayOfWeek",
		"select id, Distance / 7 from ontime order by id limit 5")
}

// diffInSession runs set on one Shoal and one direct connection, then
// compares each query's answers on those two connections (ordered).
func diffInSession(t *testing.T, set string, queries ...string) {
	t.Helper()
	ctx := context.Background()
	sc, err := env.shoal.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer discard(sc)
	dc, err := env.direct.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer discard(dc)
	for _, c := range []*sql.Conn{sc, dc} {
		if _, err := c.ExecContext(ctx, set); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range queries {
		diffOnConns(t, sc, dc, q, q)
	}
}

// discard closes a connection instead of returning it to its pool, so its
// session state does not leak into other tests.
func discard(c *sql.Conn) {
	c.Raw(func(any) error { return driver.ErrBadConn })
	c.Close()
}

// TestPinnedUnorderedAggregates: with ontime pinned whole, statements the
// in-memory engine does not compile (GROUP_CONCAT, JSON aggregates) fall
// back to the replicas and answer as MySQL does.
func TestPinnedUnorderedAggregates(t *testing.T) {
	shoalExec(t, "CACHE TABLE ontime.ontime")
	t.Cleanup(func() { env.shoal.Exec("UNCACHE TABLE IF EXISTS ontime.ontime") })
	for _, q := range []string{
		"select Carrier, group_concat(Origin), json_arrayagg(DayOfWeek), count(*) from ontime where YearD = 1999 group by Carrier",
		"select group_concat(distinct Dest order by Dest), json_objectagg(Dest, Distance) from ontime where Origin = 'BOS'",
	} {
		bags := map[int]string{}
		if strings.HasPrefix(q, "select Carrier") {
			bags[1], bags[2] = bagSepPrefix+",", bagJSONArray
		} else {
			bags[1] = bagJSONObject
		}
		diffBags(t, q, true, bags)
		if ex := explain(t, q); strings.Contains(ex, "in memory:") {
			t.Errorf("ran in memory, which has no GROUP_CONCAT:\n%s", ex)
		}
	}
}

// diffBags is diff with the columns of bags compared as multisets of
// values or members (see bagOf); nil bags is diff.
func diffBags(t *testing.T, q string, ordered bool, bags map[int]string) *result {
	t.Helper()
	r, _ := diffBagsDefs(t, q, ordered, bags, true)
	return r
}

// diffBagsDefs is diffBags comparing column definitions only when defs
// is set (and compareDefs is on); otherwise it reports whether they
// differ (logged, not failed).
func diffBagsDefs(t *testing.T, q string, ordered bool, bags map[int]string, defs bool) (*result, bool) {
	t.Helper()
	got, want := bothSides(t, q)
	defsDiffer := false
	if !defs {
		if defsDiffer = !slices.Equal(got.defs, want.defs); defsDiffer {
			t.Logf("documented column definition difference (docs/sql.md):\nshoal  %q\ndirect %q", got.defs, want.defs)
		}
		got.defs, want.defs = nil, nil
	}
	if cutJSONArray(got, want) {
		// Documented (docs/sql.md): MariaDB cuts a JSON_ARRAYAGG longer
		// than group_concat_max_len into text that is not JSON; Shoal
		// refuses with 1235 instead of reproducing it.
		t.Logf("documented refusal: %v", got.err)
		return nil, false
	}
	if len(bags) == 0 {
		compare(t, q, got, want, ordered)
		return got, defsDiffer
	}
	normalizeBags(t, q, bags, got, want)
	compare(t, q, got, want, ordered)
	return got, defsDiffer
}

// normalizeBag puts the values or members of an unordered collection in
// byte order and appends the original length, which keeps separators and
// JSON spacing significant.
// concatMaxLen is MariaDB's default group_concat_max_len.
const concatMaxLen = 1 << 20

func normalizeBag(kind, v string) (string, error) {
	if v == "NULL" {
		return v, nil
	}
	var parts []string
	switch {
	case strings.HasPrefix(kind, bagSepPrefix) && len(v) >= concatMaxLen-64:
		// Cut at group_concat_max_len: which values made it in depends
		// on the order rows were read (MySQL defines none, docs/sql.md),
		// so only the cut itself is compared.
		return fmt.Sprintf("<cut near %d bytes>", concatMaxLen), nil
	case strings.HasPrefix(kind, bagSepPrefix):
		sep := strings.TrimPrefix(kind, bagSepPrefix)
		if sep == "" {
			parts = strings.Split(v, "") // one byte per value is not ours to know: compare as bytes
		} else {
			parts = strings.Split(v, sep)
		}
	case kind == bagJSONArray:
		var members []json.RawMessage
		if err := json.Unmarshal([]byte(v), &members); err != nil {
			return "", fmt.Errorf("JSON array %.60q: %w", v, err)
		}
		for _, m := range members {
			parts = append(parts, string(m))
		}
	case kind == bagJSONObject:
		dec := json.NewDecoder(bytes.NewReader([]byte(v)))
		if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
			return "", fmt.Errorf("JSON object %.60q: %v", v, err)
		}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return "", err
			}
			var m json.RawMessage
			if err := dec.Decode(&m); err != nil {
				return "", err
			}
			parts = append(parts, fmt.Sprintf("%q:%s", k, m))
		}
	default:
		return "", fmt.Errorf("unknown bag kind %q", kind)
	}
	slices.Sort(parts)
	return fmt.Sprintf("%s #%d", strings.Join(parts, "\x00"), len(v)), nil
}

// cutJSONArray reports whether Shoal refused a query with its documented
// 1235 for a JSON_ARRAYAGG over group_concat_max_len and MariaDB's answer
// does hold such an array, cut at that length (docs/sql.md: MariaDB cuts it
// into text that is not JSON; Shoal refuses instead of reproducing it).
func cutJSONArray(got, want *result) bool {
	if got.err == nil || got.err.Number != 1235 || want.err != nil ||
		!strings.Contains(got.err.Message, "JSON_ARRAYAGG result longer than group_concat_max_len") {
		return false
	}
	for _, row := range want.rows {
		for _, v := range row {
			if strings.HasPrefix(v, "[") && len(v) >= 1<<20-3 {
				return true
			}
		}
	}
	return false
}
