package e2e

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestPinnedValueFilters pins a table of the columns reports filter on
// most (a DECIMAL amount, a DECIMAL(18,4), a DOUBLE, a wide BIGINT id, a
// DATETIME(3)) and compares generated statements over the pin with
// MariaDB over the table: every comparison operator, BETWEEN and IN,
// literals taken from the rows (equal to some) and moved off them (past
// the column's scale, between two doubles, a fraction of a second),
// negative, integer, DECIMAL and float literals, strings against
// DATETIME, and constant expressions. Statements whose predicates the
// in-memory engine compiles to value filters must say "vectorized" in
// EXPLAIN: the share is asserted, not logged.
func TestPinnedValueFilters(t *testing.T) {
	const name = "pin_vals"
	directExec(t, "DROP TABLE IF EXISTS "+name,
		"CREATE TABLE "+name+` (id BIGINT NOT NULL PRIMARY KEY, Carrier VARCHAR(10) NOT NULL,
		  amount DECIMAL(10,2) NULL, big DECIMAL(18,4) NOT NULL, ratio DOUBLE NULL, at DATETIME(3) NULL, day DATE NOT NULL)`,
		"INSERT INTO "+name+` SELECT id * 1000003 - 500000000, Carrier,
		  IF(ArrDelayMinutes IS NULL, NULL, ArrDelayMinutes * 1.37 - 20), Distance * 123456.789 - 50000000,
		  IF(id % 11 = 0, NULL, DepDelayMinutes / 8),
		  IF(id % 13 = 0, NULL, FlightDate + INTERVAL (id % 86400) SECOND + INTERVAL (id % 1000) * 1000 MICROSECOND), FlightDate
		  FROM ontime`)
	t.Cleanup(func() { env.direct.Exec("DROP TABLE IF EXISTS " + name) })
	replicasAndCatalog(t)
	shoalExec(t, "CACHE TABLE ontime."+name)
	t.Cleanup(func() { env.shoal.Exec("UNCACHE TABLE IF EXISTS ontime." + name) })

	// Literals come from the rows themselves.
	samples := map[string][]string{}
	for _, col := range []string{"amount", "big", "ratio", "id", "at"} {
		r, err := query(env.direct, "SELECT "+col+" FROM "+name+" WHERE "+col+" IS NOT NULL ORDER BY RAND(7) LIMIT 50")
		if err != nil || r.err != nil || len(r.rows) == 0 {
			t.Fatalf("samples of %s: %v %v", col, err, r.err)
		}
		for _, row := range r.rows {
			samples[col] = append(samples[col], row[0])
		}
	}
	rng := rand.New(rand.NewPCG(17, 29))
	pick := func(xs []string) string { return xs[rng.IntN(len(xs))] }
	// generic is set when a literal keeps its statement off the
	// vectorized path: a float literal against a DECIMAL or an integer
	// (MySQL compares those as doubles).
	generic := false
	// literal is a literal for col: a value of the column as sent, or
	// one moved off every value, or a constant expression.
	literal := func(col string) string {
		v := pick(samples[col])
		switch col {
		case "at":
			switch rng.IntN(6) {
			case 0:
				return "'" + v[:10] + "'"
			case 1:
				return "DATE '" + v[:10] + "'"
			case 2:
				return "'" + v[:19] + "'"
			case 3:
				return "TIMESTAMP '" + v[:19] + ".0005'"
			case 4:
				return "DATE '" + v[:10] + "' + INTERVAL " + strconv.Itoa(rng.IntN(30)) + " DAY"
			}
			return "'" + v + "'"
		case "ratio":
			f, _ := strconv.ParseFloat(v, 64)
			switch rng.IntN(5) {
			case 0:
				return strconv.FormatFloat(f+0.0625, 'f', -1, 64)
			case 1:
				return strconv.FormatFloat(f, 'e', -1, 64)
			case 2:
				return strconv.Itoa(int(f))
			}
			return v
		}
		switch rng.IntN(6) {
		case 0: // past the column's scale
			return v + "5"
		case 1:
			if i := strings.IndexByte(v, '.'); i > 0 {
				return v[:i]
			}
			return v + ".5"
		case 2:
			return "(" + v + ") + 1"
		case 3:
			if strings.HasPrefix(v, "-") {
				return v[1:]
			}
			return "-" + v
		case 4:
			if rng.IntN(3) == 0 {
				generic = true
				return v + "e0"
			}
		}
		return v
	}
	pred := func() string {
		col := []string{"amount", "big", "ratio", "id", "at"}[rng.IntN(5)]
		switch rng.IntN(10) {
		case 0:
			a, b := literal(col), literal(col)
			return col + " BETWEEN " + a + " AND " + b
		case 1:
			return col + " NOT BETWEEN " + literal(col) + " AND " + literal(col)
		case 2:
			return col + " IN (" + literal(col) + ", " + literal(col) + ", " + literal(col) + ")"
		case 3:
			return col + " NOT IN (" + literal(col) + ", " + literal(col) + ")"
		case 4:
			return literal(col) + " < " + col
		}
		op := []string{"=", "<>", "<", "<=", ">", ">="}[rng.IntN(6)]
		if op == "=" || op == "<>" {
			if col != "at" && rng.IntN(2) == 0 {
				return col + " " + op + " " + pick(samples[col])
			}
		}
		return col + " " + op + " " + literal(col)
	}
	templates := []struct {
		sql  string
		fast bool // the in-memory engine vectorizes the statement
	}{
		{"SELECT Carrier, COUNT(*), SUM(amount), MIN(amount), MAX(big), AVG(amount) FROM " + name + " WHERE %s GROUP BY Carrier ORDER BY Carrier", true},
		{"SELECT COUNT(*), SUM(big), MIN(ratio), MAX(id), COUNT(at) FROM " + name + " WHERE %s AND %s", true},
		{"SELECT id, amount, ratio, at FROM " + name + " WHERE %s ORDER BY id LIMIT 20", true},
		{"SELECT day, COUNT(*), SUM(amount), MAX(amount) FROM " + name + " WHERE %s GROUP BY day ORDER BY day DESC LIMIT 5", true},
		{"SELECT COUNT(*), MIN(at), MAX(at) FROM " + name + " WHERE %s", false},
	}
	n := envInt(t, "SHOAL_PINNED_QUERIES", 200/raceShare)
	wantFast, fast := 0, 0
	for i := 0; i < n; i++ {
		tp := templates[i%len(templates)]
		q := tp.sql
		generic = false
		for strings.Contains(q, "%s") {
			q = strings.Replace(q, "%s", pred(), 1)
		}
		ex := explain(t, q)
		if tp.fast && !generic {
			wantFast++
			if strings.Contains(ex, "vectorized") {
				fast++
			}
		}
		t.Run(fmt.Sprintf("%03d", i), func(t *testing.T) {
			defer func() {
				if t.Failed() {
					t.Logf("query: %s\nplan:\n%s", q, ex)
				}
			}()
			diff(t, q, true)
		})
	}
	t.Logf("%d statements over the pin; %d of the %d without a float literal against a DECIMAL or an integer were vectorized", n, fast, wantFast)
	if fast < wantFast*19/20 {
		t.Errorf("only %d of %d statements vectorized", fast, wantFast)
	}
}
