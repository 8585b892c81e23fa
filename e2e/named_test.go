package e2e

import (
	"context"
	"database/sql"
	"strings"
	"testing"
)

// TestNamedPrepared: SQL-level PREPARE / EXECUTE … USING @vars /
// DEALLOCATE PREPARE, as the mysql CLI sends them, on one connection to
// Shoal and one to MariaDB, step by step: the same rows, column names and
// types, and the same error numbers. An EXECUTE runs its bound statement
// on the path the same text would take (distributed or passed through,
// counted by shoal_queries_total).
func TestNamedPrepared(t *testing.T) {
	ctx := context.Background()
	conn := func(db *sql.DB) *sql.Conn {
		c, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { discard(c) })
		return c
	}
	shoal, direct := conn(env.shoal), conn(env.direct)
	// In this step a `?` is itself a column, typed as its literal (INT,
	// VARCHAR) where MariaDB types the variable (BIGINT, LONGTEXT): names
	// and values are compared, types are not (docs/sql.md).
	const untypedStep = "EXECUTE n USING @s, @d, @s, @a"
	const (
		dist = `shoal_queries_total{kind="distributed",outcome="ok"}`
		pass = `shoal_queries_total{kind="passthrough",outcome="ok"}`
	)
	steps := []struct {
		sql     string
		ordered bool
		path    string // the counter an EXECUTE must move: dist or pass; "" for none checked
	}{
		{"SET @a = 5, @s = 'WN', @d = 12.5, @f = 1e1, @n = NULL, @big = 18446744073709551615, @q = 'select count(*), sum(Distance) from ontime where Carrier = ? and DayOfWeek <> ?'", false, ""},
		{"PREPARE s FROM 'SELECT Carrier, count(*) FROM ontime WHERE DayOfWeek = ? GROUP BY Carrier'", false, ""},
		{"EXECUTE s USING @a", true, dist},
		{"execute S using @a", true, dist}, // names are case-insensitive
		// A string, a decimal and a double as parameters.
		{"PREPARE t FROM 'select Origin, count(*), max(ArrDelayMinutes) from ontime where Carrier = ? and ArrDelayMinutes > ? and Distance > ? group by Origin order by 2 desc, Origin limit 7'", true, ""},
		{"EXECUTE t USING @s, @d, @f", true, dist},
		// The statement text from a variable; NULL and a big unsigned.
		{"PREPARE v FROM @q", false, ""},
		{"EXECUTE v USING @s, @a", false, dist},
		{"EXECUTE v USING @n, @a", false, ""},
		{"PREPARE u FROM 'select count(*) from ontime where id < ?'", false, ""},
		{"EXECUTE u USING @big", false, ""},
		// One that passes through (a volatile function).
		{"PREPARE p FROM 'select count(*) from ontime where DayOfWeek = ? and YearD < year(sysdate())'", false, ""},
		{"EXECUTE p USING @a", false, pass},
		// A `?` in a string or a quoted name is not a marker.
		{"PREPARE m FROM 'select ''?'' as `x?`, count(*) from carriers where Code <> ?'", false, ""},
		{"EXECUTE m USING @s", false, ""},
		// Unaliased markers in the select list are named as prepared.
		{"PREPARE n FROM 'select ?, ? + 1, concat(?, ''x''), ? from carriers order by 1 limit 1'", false, ""},
		{untypedStep, false, ""},
		// Errors: wrong argument count (1210), unknown statements (1243),
		// a syntax error at PREPARE (1064) drops the old statement of
		// that name.
		{"EXECUTE s USING @a, @a", false, ""},
		{"EXECUTE s", false, ""},
		{"EXECUTE nosuch USING @a", false, ""},
		{"PREPARE m FROM 'selec 1'", false, ""},
		{"EXECUTE m USING @s", false, ""},
		{"DEALLOCATE PREPARE s", false, ""},
		{"EXECUTE s USING @a", false, ""},
		{"DEALLOCATE PREPARE s", false, ""},
		{"DROP PREPARE t", false, ""},
		{"EXECUTE t USING @s, @d, @f", false, ""},
	}
	for _, st := range steps {
		before := scrape(t).get(st.path)
		got, err := queryArgs(shoal, st.sql)
		if err != nil {
			t.Fatalf("shoal %s: %v", st.sql, err)
		}
		if st.path != "" && scrape(t).get(st.path) <= before {
			t.Errorf("%s: %s did not move", st.sql, st.path)
		}
		want, err := queryArgs(direct, st.sql)
		if err != nil {
			t.Fatalf("direct %s: %v", st.sql, err)
		}
		if st.sql == untypedStep && got.err == nil && want.err == nil {
			got.types, want.types = nil, nil
		}
		compare(t, st.sql, got, want, st.ordered)
	}

	// Shoal refuses a write at PREPARE (MariaDB would at EXECUTE on a
	// read-only server; the primary here is not one, so Shoal alone).
	for q, num := range map[string]uint16{
		"PREPARE w FROM 'delete from ontime where id = ?'": 1290,
		"EXECUTE w USING @a":                           1243,
		"PREPARE w FROM 'prepare x from ''select 1'''": 1295,
		"EXECUTE s USING (SELECT 5)":                   1970, // as MariaDB refuses it
	} {
		r, err := queryArgs(shoal, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if r.err == nil || r.err.Number != num {
			t.Errorf("%s: error %v, want %d", q, r.err, num)
		}
	}
}

// TestNamedExecuteExpressions: MariaDB's EXECUTE s USING <expression>
// and EXECUTE IMMEDIATE <expression> [USING …], which TiDB's parser does
// not read (they got 1235), run as on MariaDB: the values are evaluated on
// the session's replica connection and bound as literals of their types,
// and the statement distributes as its text would.
func TestNamedExecuteExpressions(t *testing.T) {
	dist := func() float64 {
		return scrapeAt(t, env.coord.HTTPAddr()).get(`shoal_queries_total{kind="distributed",outcome="ok"}`)
	}
	before := dist()
	sameSequence(t, rawShoal, rawDirect, true,
		// No `?` in the select list: Shoal types a bound value as its
		// literal there, MariaDB as a parameter (docs/sql.md).
		"PREPARE s FROM 'select DayOfWeek + 1 as x, count(*) c, sum(Distance) d from ontime where Distance > ? and Carrier = ? group by DayOfWeek order by DayOfWeek'",
		"EXECUTE s USING 1+1, 'AA'",
		"SET @c = 'DL'",
		"EXECUTE s USING 2, @c",
		"execute `s` using 1.5, concat('A', 'A')",
		"EXECUTE s USING NULL, 'AA'",
		"EXECUTE s USING 1e0, (SELECT 'WN')",
		"EXECUTE IMMEDIATE 'select count(*) from ontime where DayOfWeek = ?' USING 3",
		"EXECUTE IMMEDIATE CONCAT('select ', '7 as seven')",
		"EXECUTE IMMEDIATE 'select Carrier, count(*) from ontime where Carrier in (?, ?) group by Carrier order by 1' USING 'AA', 'DL'",
		"EXECUTE IMMEDIATE 'select ''USING'' as u, count(*) from ontime where DayOfWeek = ?' USING (1+2)",
		"EXECUTE nosuch USING 1",
		"EXECUTE IMMEDIATE NULL",
		"EXECUTE nosuch USING (SELECT 5)",
		"EXECUTE IMMEDIATE (SELECT 'select 1')",
		"EXECUTE IMMEDIATE 'select ?' USING (SELECT 1)",
	)
	// Six of them are distributed statements, on each side's sequence
	// only Shoal's counts.
	if got := dist() - before; got < 6 {
		t.Errorf("%v EXECUTEs distributed, want at least 6", got)
	}
	// A wrong number of values: 1210, and the session goes on; a write
	// is refused as any write is (1290).
	got := sequence(t, rawShoal, "PREPARE s FROM 'select ? + ?'", "EXECUTE s USING 1", "EXECUTE s USING 1, 2",
		"EXECUTE IMMEDIATE 'insert into ontime (id) values (?)' USING 1")
	if !strings.Contains(got[1], "error 1210") || !strings.Contains(got[2], "3") || !strings.Contains(got[3], "error 1290") {
		t.Errorf("wrong argument count, write: %q", got)
	}
}

// stmtQueryer runs a statement prepared on the server (*sql.Stmt) through
// queryArgs; the query text is the statement's own.
type stmtQueryer struct{ *sql.Stmt }

func (s stmtQueryer) QueryContext(ctx context.Context, _ string, args ...any) (*sql.Rows, error) {
	return s.Stmt.QueryContext(ctx, args...)
}

// TestPreparedAcrossUse: MariaDB resolves a prepared statement's tables in
// the database current at its prepare, and each execution after a USE
// still reads them (DATABASE() in it names that database too), for
// SQL-level PREPARE and for COM_STMT_PREPARE alike. Shoal ran the bound
// text in the session's current database: the other database's table of
// the same name answered.
func TestPreparedAcrossUse(t *testing.T) {
	directExec(t, "CREATE DATABASE IF NOT EXISTS shoal_other",
		"DROP TABLE IF EXISTS shoal_other.ontime",
		"CREATE TABLE shoal_other.ontime (id INT PRIMARY KEY, Carrier VARCHAR(5))",
		"INSERT INTO shoal_other.ontime VALUES (1, 'ZZ'), (2, 'YY')")
	t.Cleanup(func() { env.direct.Exec("DROP DATABASE IF EXISTS shoal_other") })
	replicasAndCatalog(t)
	ctx := context.Background()
	type side struct {
		conn *sql.Conn
		stmt *sql.Stmt
	}
	open := func(db *sql.DB) side {
		c := sessionConn(t, db)
		if _, err := c.ExecContext(ctx, "USE ontime"); err != nil {
			t.Fatal(err)
		}
		if _, err := c.ExecContext(ctx, "PREPARE s FROM 'select database(), count(*), max(Carrier) from ontime where id > ?'"); err != nil {
			t.Fatal(err)
		}
		st, err := c.PrepareContext(ctx, "select database() d, count(*), min(Carrier) from ontime where id > ?")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		if _, err := c.ExecContext(ctx, "USE shoal_other"); err != nil {
			t.Fatal(err)
		}
		return side{c, st}
	}
	shoal, direct := open(env.shoal), open(env.direct)
	for _, step := range []struct {
		name string
		run  func(s side) (*result, error)
	}{
		{"EXECUTE after USE", func(s side) (*result, error) {
			return queryArgs(s.conn, "EXECUTE s USING 0")
		}},
		{"COM_STMT_EXECUTE after USE", func(s side) (*result, error) {
			return queryArgs(stmtQueryer{s.stmt}, "", 0)
		}},
		{"the session's own database", func(s side) (*result, error) {
			return queryArgs(s.conn, "select database(), count(*), max(Carrier) from ontime")
		}},
	} {
		got, err := step.run(shoal)
		if err != nil {
			t.Fatalf("shoal %s: %v", step.name, err)
		}
		want, err := step.run(direct)
		if err != nil {
			t.Fatalf("direct %s: %v", step.name, err)
		}
		compare(t, step.name, got, want, true)
	}
}
