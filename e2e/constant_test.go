package e2e

import (
	"context"
	"database/sql"
	"strings"
	"testing"
)

// TestConstantSelects: a connection check (SELECT 1 and friends) is
// answered by the coordinator from the replica's first answer to the same
// text (engine/constant.go), and the client cannot tell: the same rows,
// text and column definitions as MariaDB's, the second time and after.
// The metric asserts that the repeats were answered locally, not passed
// through.
func TestConstantSelects(t *testing.T) {
	constants := []string{
		"SELECT 1",
		"select 1 ;",
		"SELECT 1 AS ok",
		"SELECT 1, 2 AS two, 1e3, 18446744073709551615 AS big FROM DUAL",
		"SELECT 12345678901",
	}
	others := []string{ // not constant by constantSelect's rule: passed through each time
		"SELECT 2.5",
		"SELECT 'x'",
		"SELECT NULL",
		"SELECT 1 AS `é`",
		"SELECT 1 LIMIT 0",
		"SELECT -1",
	}
	if ex := explain(t, "SELECT 1"); !strings.Contains(ex, "a constant statement") {
		t.Errorf("EXPLAIN SELECT 1 does not say it is answered by the coordinator:\n%s", ex)
	}
	// A session of its own: a pooled one may hold an earlier test's
	// warnings on its replica connection, and then SELECT 1 passes
	// through, as it must (MariaDB's SELECT 1 leaves them to show).
	db, err := sql.Open("mysql", "root@tcp("+env.coord.Addr().String()+")/ontime")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	shoal, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer shoal.Close()
	direct, err := env.direct.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close()
	for _, q := range append(append([]string{}, constants...), others...) {
		diffOnConns(t, shoal, direct, q, q) // first: passed through, kept
	}
	before := scrape(t)
	for round := 0; round < 3; round++ {
		for _, q := range append(append([]string{}, constants...), others...) {
			diffOnConns(t, shoal, direct, q, q)
		}
	}
	after := scrape(t)
	const local = `shoal_queries_total{kind="local",outcome="ok"}`
	if d, want := after.get(local)-before.get(local), float64(3*len(constants)); d < want {
		t.Errorf("%s moved by %v over %d repeated constant statements: they were not answered locally", local, d, int(want))
	}
	const pass = `shoal_queries_total{kind="passthrough",outcome="ok"}`
	if d, want := after.get(pass)-before.get(pass), float64(3*len(others)); d < want {
		t.Errorf("%s moved by %v, want at least %v", pass, d, want)
	}
}
