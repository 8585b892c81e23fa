package e2e

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// TestMultiStatements: a client that enables CLIENT_MULTI_STATEMENTS may
// send several statements in one COM_QUERY; each runs on its own path
// (here one distributed, one passed through, one from the coordinator)
// and answers in its own result set, in order, as MySQL does.
func TestMultiStatements(t *testing.T) {
	db, err := sql.Open("mysql", "root@tcp("+env.coord.Addr().String()+")/ontime?multiStatements=true")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const q = "select DayOfWeek, count(*) from ontime group by DayOfWeek order by DayOfWeek; select count(*) from carriers; select connection_id() > 0"
	rows, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var sets [][]string
	for {
		var set []string
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			set = append(set, fmt.Sprintf("%s", vals))
		}
		sets = append(sets, set)
		if !rows.NextResultSet() {
			break
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(sets) != 3 {
		t.Fatalf("%d result sets, want 3: %v", len(sets), sets)
	}
	want1, err := query(env.direct, "select DayOfWeek, count(*) from ontime group by DayOfWeek order by DayOfWeek")
	if err != nil {
		t.Fatal(err)
	}
	if len(sets[0]) != len(want1.rows) || len(sets[1]) != 1 || len(sets[2]) != 1 {
		t.Fatalf("result sets %v; want %d, 1 and 1 rows", sets, len(want1.rows))
	}
	// A statement that fails ends the batch with its error; the
	// connection stays usable.
	if _, err := db.Exec("select 1; delete from ontime; select 2"); err == nil {
		t.Fatal("a write inside a multi-statement batch was not refused")
	}
	var one int
	if err := db.QueryRow("select 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("connection unusable after a failed batch: %v", err)
	}
}

// TestSeveralStatementsWithoutMultiStatements: a client that did not
// enable CLIENT_MULTI_STATEMENTS and sends two statements in one query
// gets the server's own answer — its syntax error 1064, naming the text
// near the second statement and its line — and nothing runs, a write
// included; the connection stays usable. Shoal answered 1235 with a
// message of its own.
func TestSeveralStatementsWithoutMultiStatements(t *testing.T) {
	for _, q := range []string{
		"select count(*) from ontime where Carrier = 'AA'; select count(*) from ontime where Carrier = 'DL'",
		"select 1 ;\n  select 2",
		"select Carrier, count(*) from ontime group by Carrier; delete from carriers",
		"delete from carriers; select 1",
	} {
		got, want := bothSides(t, q)
		if got.err == nil || want.err == nil || got.err.Number != 1064 || got.err.Error() != want.err.Error() {
			t.Errorf("%s:\nshoal  %v\ndirect %v", q, got.err, want.err)
		}
	}
	// Prepared, the server refuses them at PREPARE with the same error.
	for _, q := range []string{"select ? + 1; select 2", "select count(*) from ontime where Carrier = ?;\n select 1"} {
		_, gerr := env.shoal.Prepare(q)
		_, werr := env.direct.Prepare(q)
		var g, w *mysql.MySQLError
		if !errors.As(gerr, &g) || !errors.As(werr, &w) || g.Number != 1064 || w.Number != 1064 || !strings.Contains(g.Message, "near '"+strings.TrimSpace(strings.SplitN(q, ";", 2)[1])+"'") {
			t.Errorf("prepare %q:\nshoal  %v\ndirect %v", q, gerr, werr)
		}
	}
	diff(t, "select count(*) from carriers", true) // nothing deleted, the connections work
}
