package e2e

import (
	"database/sql"
	"fmt"
	"testing"
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
