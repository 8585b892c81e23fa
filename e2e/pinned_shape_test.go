package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// Statements over pins that differ only in their WHERE and LIMIT literals
// (a dashboard's date picker) share the first one's column definitions:
// one replica describe per shape, not per text (engine/pinshape). Every
// statement's definitions, names, types and rows are still MariaDB's for
// its own text, including shapes whose literals change MariaDB's plan
// (WHERE 1 = 0, a range on an indexed column, LIMIT 0), which are
// described per text.
func TestPinnedShapeNewLiterals(t *testing.T) {
	const describes = "shoal_describes_total"
	run := func(t *testing.T, shoalQ, directQ string) {
		t.Helper()
		got, err := rawShoal.query(shoalQ)
		if err != nil {
			t.Fatalf("shoal: %s: %v", shoalQ, err)
		}
		want, err := rawDirect.query(directQ)
		if err != nil {
			t.Fatalf("direct: %s: %v", directQ, err)
		}
		compare(t, shoalQ, got, want, true)
	}
	lit := func(k int) []any { // the literals of statement k, in order
		return []any{100 + 37*k, 2005 + k%3, k % 2, 2 + k%3, 1990 + 2*k, 1990 + 2*k + k%4}
	}
	t.Run("query result", func(t *testing.T) {
		const def = "SELECT * FROM ontime.ontime WHERE YearD >= 2000"
		for _, q := range []string{"DROP TABLE IF EXISTS ontime.shape_copy", "CREATE TABLE ontime.shape_copy AS " + def} {
			if _, err := env.direct.Exec(q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		t.Cleanup(func() { env.direct.Exec("DROP TABLE IF EXISTS ontime.shape_copy") })
		if err := env.coord.RefreshCatalog(t.Context()); err != nil {
			t.Fatal(err)
		}
		shoalExec(t, "CACHE TABLE shape_recent AS "+def)
		t.Cleanup(func() { env.shoal.Exec("UNCACHE TABLE IF EXISTS ontime.shape_recent") })
		shapes := []string{
			"SELECT COUNT(*) AS flights, SUM(Cancelled) AS cancelled, MAX(DepDelayMinutes) AS max_dep FROM {t} WHERE Distance <> %[1]d AND YearD >= %[2]d",
			"SELECT Carrier, COUNT(*) AS flights FROM {t} WHERE Distance <> %[1]d GROUP BY Carrier ORDER BY flights DESC, Carrier LIMIT %[4]d",
			"SELECT FlightDate, COUNT(*) AS flights, SUM(Cancelled) AS c FROM {t} WHERE Distance <> %[1]d AND YearD BETWEEN %[5]d AND %[6]d GROUP BY FlightDate ORDER BY FlightDate DESC LIMIT 30",
			"SELECT Origin, Dest, COUNT(*) AS flights FROM {t} WHERE Carrier IN ('AA', 'DL') AND Cancelled = %[3]d GROUP BY Origin, Dest ORDER BY flights DESC, Origin, Dest LIMIT 10",
		}
		// The copy is a table and the pin is described over its
		// definition as a derived table, so definitions are compared
		// with a fresh describe of the same text (below), and values,
		// names and types with the copy (docs/sql.md "Column definitions").
		saved := compareDefs
		compareDefs = false
		defer func() { compareDefs = saved }()
		via := func(q string) string { return strings.ReplaceAll(q, "{t}", "shape_recent AS ontime") }
		before := scrape(t).get(describes)
		defs := map[string][]string{}
		for k := 0; k < 8; k++ {
			for _, sh := range shapes {
				q := fmt.Sprintf(sh, lit(k)...)
				run(t, via(q), strings.ReplaceAll(q, "{t}", "shape_copy AS ontime"))
				r, err := rawShoal.query(via(q)) // the plan cache's
				if err != nil || r.err != nil {
					t.Fatalf("%s: %v %v", q, err, r.err)
				}
				defs[q] = r.defs
			}
		}
		if got := scrape(t).get(describes) - before; got != float64(len(shapes)) {
			t.Errorf("%v describes for %d statements of %d shapes, want %d", got, len(defs), len(shapes), len(shapes))
		}
		// Each text first of its shape (a new pin generation): described
		// afresh, the definitions the shape gave it.
		for k := 1; k < 8; k += 3 {
			shoalExec(t, "CACHE TABLE shape_recent AS "+def)
			for _, sh := range shapes {
				q := fmt.Sprintf(sh, lit(k)...)
				r, err := rawShoal.query(via(q))
				if err != nil || r.err != nil {
					t.Fatalf("%s: %v %v", q, err, r.err)
				}
				if !slices.Equal(r.defs, defs[q]) {
					t.Errorf("%s: definitions from the shape %q, described afresh %q", q, defs[q], r.defs)
				}
			}
		}
	})
	t.Run("whole table", func(t *testing.T) {
		// The catalog as it is now (the subtest above dropped its copy):
		// a periodic refresh that found the drop mid-loop would start a
		// new generation and describe every shape again.
		if err := env.coord.RefreshCatalog(t.Context()); err != nil {
			t.Fatal(err)
		}
		shoalExec(t, "CACHE TABLE ontime.ontime")
		t.Cleanup(func() { env.shoal.Exec("UNCACHE TABLE IF EXISTS ontime.ontime") })
		shared := []string{ // no literal can change MariaDB's plan
			"SELECT COUNT(*) AS flights, SUM(Cancelled) AS cancelled, MAX(DepDelayMinutes) AS max_dep FROM ontime WHERE Distance <> %[1]d AND YearD >= %[2]d",
			"SELECT Carrier, COUNT(*) AS flights, SUM(Diverted) AS d FROM ontime WHERE Distance <> %[1]d GROUP BY Carrier ORDER BY Carrier",
			"SELECT Origin, COUNT(*) AS flights FROM ontime WHERE YearD BETWEEN %[5]d AND %[6]d GROUP BY Origin ORDER BY flights DESC, Origin LIMIT %[4]d",
			"SELECT Origin, COUNT(*) AS flights FROM ontime WHERE Distance <> %[1]d GROUP BY Origin ORDER BY Origin LIMIT %[4]d",
		}
		perText := []string{ // the literals may choose the plan, so the definitions
			"SELECT Carrier, COUNT(*) AS flights, SUM(Diverted) AS d FROM ontime WHERE 1 = %[3]d GROUP BY Carrier ORDER BY Carrier",
			"SELECT Carrier, COUNT(*) AS flights, MIN(Distance) AS m FROM ontime WHERE FlightDate >= '%[5]d-01-01' GROUP BY Carrier ORDER BY Carrier",
			"SELECT Origin, COUNT(*) AS flights FROM ontime WHERE Distance <> %[1]d GROUP BY Origin ORDER BY Origin LIMIT 0", // the shape above
			"SELECT Carrier, COUNT(*) AS flights FROM ontime WHERE Distance = %[1]d AND Distance = %[4]d GROUP BY Carrier",
		}
		before := scrape(t).get(describes)
		texts := map[string]bool{} // a repeated text is the plan cache's
		for k := 0; k < 8; k++ {
			for _, sh := range shared {
				run(t, fmt.Sprintf(sh, lit(k)...), fmt.Sprintf(sh, lit(k)...))
			}
			for _, sh := range perText {
				q := fmt.Sprintf(sh, lit(k)...)
				run(t, q, q)
				texts[q] = true
			}
		}
		want := float64(len(shared) + len(texts))
		if got := scrape(t).get(describes) - before; got != want {
			t.Errorf("%v describes, want %v (%d shared shapes, %d texts described each)", got, want, len(shared), len(texts))
		}
		// They ran in memory, not on the replicas.
		for _, sh := range append(shared, perText...) {
			if q := fmt.Sprintf(sh, lit(0)...); !strings.Contains(explain(t, q), "in memory") {
				t.Fatalf("not in memory: %s\n%s", q, explain(t, q))
			}
		}
	})
}
