package livepin

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/evalexpr"
	"github.com/shoaldb/shoal/pinned"
)

func TestQuotient(t *testing.T) {
	for _, c := range []struct {
		num             int64
		den             int64
		scale, outScale int32
		want            string
	}{
		{3, 2, 0, 4, "1.5000"},
		{-3, 2, 0, 4, "-1.5000"},
		{2, 3, 0, 4, "0.6667"},
		{-2, 3, 0, 4, "-0.6667"},
		{1, 8, 0, 2, "0.13"},   // 0.125: half away from zero
		{-1, 8, 0, 2, "-0.13"}, // -0.125
		{12345, 1, 2, 2, "123.45"},
		{-5, 1, 2, 2, "-0.05"},
		{0, 7, 2, 6, "0.000000"},
		{1001, 3, 2, 6, "3.336667"},
		{7, 1, 0, 0, "7"},
		{15, 10, 0, 0, "2"},
	} {
		if got := quotient(big.NewInt(c.num), c.den, c.scale, c.outScale); got != c.want {
			t.Errorf("quotient(%d, %d, %d, %d) = %s, want %s", c.num, c.den, c.scale, c.outScale, got, c.want)
		}
	}
	for _, c := range []struct {
		in    string
		scale int32
		want  string
		bad   bool
	}{
		{"12.5", 2, "1250", false}, {"-0.01", 2, "-1", false}, {"18446744073709551615", 0, "18446744073709551615", false},
		{"1.230", 2, "123", false}, {"1.234", 2, "", true}, {"x", 0, "", true},
	} {
		n, err := parseScaled([]byte(c.in), c.scale)
		if (err != nil) != c.bad || (!c.bad && n.String() != c.want) {
			t.Errorf("parseScaled(%q, %d) = %v, %v", c.in, c.scale, n, err)
		}
	}
}

// startAgg starts an aggregated pin of query over lp.a, described as
// MariaDB describes the query itself.
func startAgg(t *testing.T, agg *AggSpec, where, query string) (*Pin, error) {
	t.Helper()
	env, err := evalexpr.NewEnv("10.11.0-MariaDB")
	if err != nil {
		t.Fatal(err)
	}
	describe := func(context.Context) ([]*querypb.Field, error) {
		c := dial(t)
		r, err := c.ExecuteFetch(query+" LIMIT 0", 0, true)
		if err != nil {
			return nil, err
		}
		return r.Fields, nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	p, _, err := Start(ctx, Spec{DB: "lp", Name: "agg", SrcDB: "lp", SrcTable: "a", Source: query, Where: where, Agg: agg},
		Config{Addrs: []string{testAddr}, User: "root", Env: env, MinInterval: 20 * time.Millisecond, Describe: describe,
			Publish: func(*pinned.Table) error { return nil }})
	if err != nil {
		cancel()
		return nil, err
	}
	t.Cleanup(func() { cancel(); p.Stop() })
	return p, nil
}

func aggRow(r *rand.Rand, id int) string {
	null := func(s string) string {
		if r.IntN(6) == 0 {
			return "NULL"
		}
		return s
	}
	k1 := []string{"'AA'", "'aa'", "'AA '", "'DL'", "'ÄÖ'", "'äö'", "NULL"}[r.IntN(7)]
	return fmt.Sprintf("(%d, %s, %s, %s, %s, %s, %s)", id, k1, null(fmt.Sprint(r.IntN(6))),
		null(fmt.Sprintf("%d.%02d", r.IntN(2000)-1000, r.IntN(100))), null(fmt.Sprint(r.IntN(100)-30)),
		null(fmt.Sprintf("'2024-%02d-%02d'", r.IntN(12)+1, r.IntN(28)+1)), null(fmt.Sprintf("%d.5e%d", r.IntN(100), r.IntN(5))))
}

// TestAggregatedPin drives inserts, updates (of values, of group keys,
// of the primary key, across the WHERE), deletes (of whole groups) and
// NULLs into aggregated pins and compares them after every round with
// MariaDB's GROUP BY at the same position.
func TestAggregatedPin(t *testing.T) {
	c := dial(t)
	exec(t, c, "CREATE DATABASE IF NOT EXISTS lp", "DROP TABLE IF EXISTS lp.a",
		"CREATE TABLE lp.a (id INT PRIMARY KEY, k1 VARCHAR(8) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci, k2 INT, x DECIMAL(10,2), y INT, z DATE, f DOUBLE)")
	r := rand.New(rand.NewPCG(3, 17))
	var vals []string
	for id := range 800 {
		vals = append(vals, aggRow(r, id))
	}
	exec(t, c, "INSERT INTO lp.a VALUES "+strings.Join(vals, ","))
	const where = "`id` % 10 <> 3"
	grouped := "SELECT k1, k2, COUNT(*), SUM(x), AVG(y), MIN(z), MAX(z), COUNT(x), AVG(x), MIN(x), MAX(y), SUM(y), MIN(f), MAX(f) FROM lp.a WHERE " + where + " GROUP BY k1, k2"
	p, err := startAgg(t, &AggSpec{Keys: []string{"k1", "k2"}, Outs: []AggOut{{Key: 0}, {Key: 1}, {Func: "count"}, {Func: "sum", Col: "x"},
		{Func: "avg", Col: "y"}, {Func: "min", Col: "z"}, {Func: "max", Col: "z"}, {Func: "count", Col: "x"}, {Func: "avg", Col: "x"},
		{Func: "min", Col: "x"}, {Func: "max", Col: "y"}, {Func: "sum", Col: "y"}, {Func: "min", Col: "f"}, {Func: "max", Col: "f"}}}, where, grouped)
	if err != nil {
		t.Fatal(err)
	}
	scalarQ := "SELECT COUNT(*), SUM(x), AVG(x), MAX(z) FROM lp.a WHERE k2 = 2"
	scalar, err := startAgg(t, &AggSpec{Outs: []AggOut{{Func: "count"}, {Func: "sum", Col: "x"}, {Func: "avg", Col: "x"}, {Func: "max", Col: "z"}}}, "`k2` = 2", scalarQ)
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string) {
		t.Helper()
		caughtUp(t, c, p)
		caughtUp(t, c, scalar)
		same(t, c, p, grouped)
		same(t, c, scalar, scalarQ)
		t.Logf("%s: %d groups, %+v", what, len(p.rowsForTest()), p.Status().Applied)
	}
	check("loaded")
	// Averages exactly halfway at their scale: 1/32 = 0.03125 (AVG of an
	// INT, 4 decimals) and 0.01/32 = 0.0003125 (of a DECIMAL(10,2), 6),
	// both signs: MariaDB rounds them away from zero.
	var half []string
	for i := range 32 {
		y, x := "0", "0.00"
		if i == 0 {
			y, x = "1", "0.01"
		}
		half = append(half, fmt.Sprintf("(%d, 'half', 1, %s, %s, NULL, NULL)", 5000+i, x, y), fmt.Sprintf("(%d, 'half', -1, -%s, -%s, NULL, NULL)", 6000+i, x, y))
	}
	exec(t, c, "INSERT INTO lp.a VALUES "+strings.Join(half, ","))
	check("halfway averages")
	exec(t, c, "DELETE FROM lp.a WHERE k1 = 'half'")
	next := 1000
	for round := range 8 {
		var stmts []string
		for range 15 {
			switch r.IntN(7) {
			case 0, 1:
				stmts = append(stmts, "INSERT INTO lp.a VALUES "+aggRow(r, next)+", "+aggRow(r, next+1))
				next += 2
			case 2:
				stmts = append(stmts, fmt.Sprintf("UPDATE lp.a SET x = x + %d.5, y = IF(y IS NULL, 1, NULL), z = z + INTERVAL 1 DAY WHERE id %% 9 = %d", r.IntN(9), r.IntN(9)))
			case 3: // group moves
				stmts = append(stmts, fmt.Sprintf("UPDATE lp.a SET k1 = %s, k2 = k2 + 1 WHERE id BETWEEN %d AND %d", []string{"'DL'", "'aa'", "NULL", "'new'"}[r.IntN(4)], r.IntN(next), r.IntN(next)))
			case 4:
				stmts = append(stmts, fmt.Sprintf("DELETE FROM lp.a WHERE id %% 13 = %d", r.IntN(13)))
			case 5: // the key, and across the WHERE
				stmts = append(stmts, fmt.Sprintf("UPDATE IGNORE lp.a SET id = id + 1 WHERE id = %d", r.IntN(next)))
			case 6: // delete a whole group
				stmts = append(stmts, fmt.Sprintf("DELETE FROM lp.a WHERE k1 = %s AND k2 <=> %d", []string{"'DL'", "'aa'", "'ÄÖ'", "'new'"}[r.IntN(4)], r.IntN(7)))
			}
		}
		if round%2 == 1 {
			stmts = append(append([]string{"BEGIN"}, stmts...), "COMMIT")
		}
		for _, q := range stmts {
			if _, err := c.ExecuteFetch(q, 0, false); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		check(fmt.Sprintf("round %d", round))
	}
	exec(t, c, "DELETE FROM lp.a")
	check("emptied")
	if n := len(p.rowsForTest()); n != 0 {
		t.Fatalf("an emptied table left %d groups", n)
	}
}

func TestAggregatedNotLive(t *testing.T) {
	c := dial(t)
	exec(t, c, "CREATE DATABASE IF NOT EXISTS lp", "DROP TABLE IF EXISTS lp.a",
		"CREATE TABLE lp.a (id INT PRIMARY KEY, k1 VARCHAR(8), t TEXT, x DECIMAL(10,2), f DOUBLE, ts TIMESTAMP NULL)")
	for _, c := range []struct {
		agg   AggSpec
		query string
		why   string
	}{
		{AggSpec{Keys: []string{"k1"}, Outs: []AggOut{{Key: 0}, {Func: "sum", Col: "f"}}}, "SELECT k1, SUM(f) FROM lp.a GROUP BY k1", "floating-point"},
		{AggSpec{Keys: []string{"k1"}, Outs: []AggOut{{Key: 0}, {Func: "avg", Col: "f"}}}, "SELECT k1, AVG(f) FROM lp.a GROUP BY k1", "floating-point"},
		{AggSpec{Keys: []string{"k1"}, Outs: []AggOut{{Key: 0}, {Func: "max", Col: "k1"}}}, "SELECT k1, MAX(k1) FROM lp.a GROUP BY k1", "collation"},
		{AggSpec{Keys: []string{"t"}, Outs: []AggOut{{Key: 0}, {Func: "count"}}}, "SELECT t, COUNT(*) FROM lp.a GROUP BY t", "max_sort_length"},
		{AggSpec{Keys: []string{"f"}, Outs: []AggOut{{Key: 0}, {Func: "count"}}}, "SELECT f, COUNT(*) FROM lp.a GROUP BY f", "GROUP BY f"},
		{AggSpec{Keys: []string{"ts"}, Outs: []AggOut{{Key: 0}, {Func: "count"}}}, "SELECT ts, COUNT(*) FROM lp.a GROUP BY ts", "GROUP BY ts"},
		{AggSpec{Keys: []string{"k1"}, Outs: []AggOut{{Key: 0}, {Func: "sum", Col: "ts"}}}, "SELECT k1, SUM(ts) FROM lp.a GROUP BY k1", "SUM(ts)"},
	} {
		_, err := startAgg(t, &c.agg, "", c.query)
		var nl *ErrNotLive
		if !errors.As(err, &nl) || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%s: %v, want ErrNotLive saying %q", c.query, err, c.why)
		}
	}
}
