package e2e

import (
	"database/sql"
	"strconv"
	"testing"
)

// BenchmarkPointLookup reads one row by primary key, a new literal each
// time (text protocol, one connection), directly on replica 1 and
// through a coordinator that routes by cost (the defaults), in the same
// run: the difference is Shoal's cost per small statement (issue 14's
// target: p50 within 0.1 ms of direct). The coordinator runs in this
// process, so -cpuprofile shows where its time goes:
//
//	go test ./e2e -run '^$' -bench PointLookup -benchtime 5000x -count 5 -cpuprofile /tmp/point.prof
func BenchmarkPointLookup(b *testing.B) {
	direct, err := sql.Open("mysql", env.cluster.DSN(env.cluster.Replicas[0].MySQL))
	if err != nil {
		b.Fatal(err)
	}
	defer direct.Close()
	direct.SetMaxOpenConns(1)
	shoal := routedCoordinator(b, nil)
	var ids []int64
	rows, err := direct.Query("SELECT id FROM ontime ORDER BY RAND(7) LIMIT 2000")
	if err != nil {
		b.Fatal(err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			b.Fatal(err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	for _, c := range []struct {
		name string
		db   *sql.DB
	}{{"direct", direct}, {"shoal", shoal}} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				lookup(b, c.db, "SELECT * FROM ontime WHERE id = "+strconv.FormatInt(ids[i%len(ids)], 10))
			}
		})
	}
}

// lookup runs q and reads every column of its one row.
func lookup(b *testing.B, db *sql.DB, q string) {
	rows, err := db.Query(q)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	vals := make([]sql.RawBytes, len(cols))
	ptrs := make([]any, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	n := 0
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			b.Fatal(err)
		}
		n++
	}
	if err := rows.Err(); err != nil || n != 1 {
		b.Fatalf("%s: %d rows, %v", q, n, err)
	}
}
