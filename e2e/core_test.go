package e2e

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
)

const perconaQ1 = `select min(YearD), max(YearD) as max_year, Carrier, count(*) as cnt,
 sum(if(ArrDelayMinutes>30, 1, 0)) as flights_delayed,
 round(sum(if(ArrDelayMinutes>30, 1, 0))/count(*),2) as rate
 FROM ontime WHERE DayOfWeek not in (6,7) and OriginState not in ('AK', 'HI', 'PR', 'VI')
 and DestState not in ('AK', 'HI', 'PR', 'VI')
 GROUP by Carrier HAVING cnt > 1000 and max_year > '1990'
 ORDER by rate DESC, cnt desc LIMIT 10`

// TestDistributed runs queries that must be distributed and equal MySQL's
// answer.
func TestDistributed(t *testing.T) {
	cases := []struct {
		name    string
		q       string
		ordered bool
	}{
		{"percona q1", perconaQ1, false},
		{"percona q2", "select DayOfWeek, count(*) from ontime group by DayOfWeek", true},
		{"selective count", "select count(*) from ontime where Carrier = 'AA' and YearD between 2000 and 2005", true},
		{"aggregates no group", "select count(*), count(ArrDelayMinutes), sum(Distance), min(FlightDate), max(FlightDate), avg(ArrDelayMinutes), min(Origin), max(TailNum) from ontime", true},
		{"aggregates grouped", "select Carrier, count(*), sum(DepDelayMinutes), min(ArrDelayMinutes), max(ArrDelayMinutes), avg(Distance) from ontime group by Carrier order by Carrier", true},
		{"avg of expression", "select YearD, avg(ArrDelayMinutes * 1.5), sum(Distance / 3) from ontime group by YearD order by YearD", true},
		{"empty input no group", "select count(*), sum(Distance), min(Origin), avg(Distance) from ontime where YearD = 1800", true},
		{"empty input grouped", "select Carrier, count(*) from ontime where YearD = 1800 group by Carrier", true},
		{"null group keys", "select TailNum is null, count(*) from ontime group by TailNum is null order by 1", true},
		{"null keys nullable column", "select ArrDelayMinutes, count(*) from ontime where ArrDelayMinutes < 3 or ArrDelayMinutes is null group by ArrDelayMinutes", true},
		{"limit offset", "select Origin, count(*) c from ontime group by Origin order by c desc, Origin limit 5 offset 3", true},
		{"order by ordinal and alias", "select Dest d, sum(Distance) s from ontime group by d order by 2 desc, d limit 7", true},
		{"order by aggregate not selected", "select OriginState from ontime group by OriginState order by count(*) desc, OriginState limit 4", true},
		{"having without alias", "select Carrier, count(*) from ontime group by Carrier having count(*) > 100 and Carrier <> 'WN'", false},
		{"group by expression", "select YearD div 10 as decade, count(*), round(avg(Distance), 1) from ontime group by decade", true},
		{"group by two keys", "select YearD, Quarter, count(*), max(DepDelayMinutes) from ontime group by YearD, Quarter", true},
		{"integer vs decimal division", "select Carrier, sum(Distance) / count(*), sum(Distance) div count(*) from ontime group by Carrier", true},
		{"division by zero", "select Carrier, sum(Cancelled) / sum(0) from ontime group by Carrier", true},
		{"case inside aggregate", "select sum(case when ArrDelayMinutes > 60 then 1 when ArrDelayMinutes > 15 then 0.5 else 0 end) from ontime", true},
		{"rows with order and limit", "select id, Carrier, ArrDelayMinutes from ontime where Origin = 'SFO' order by ArrDelayMinutes desc, id limit 10", true},
		{"rows star order limit", "select * from ontime order by Distance desc, id limit 5", true},
		{"rows no order", "select id, FlightDate, TailNum from ontime where id % 97 = 0", false},
		{"rows limit no order count", "select count(*) from (select 1 from ontime limit 0) x", true},
	}
	// This one answers exactly by passing through: a derived table.
	passes := map[string]bool{"rows limit no order count": true}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			diff(t, c.q, c.ordered)
			ex := explain(t, c.q)
			if distributed := strings.HasPrefix(ex, "split "); distributed == passes[c.name] {
				t.Errorf("distributed=%v, want %v:\n%s", distributed, !passes[c.name], ex)
			}
		})
	}
}

// TestLimitWithoutOrder checks LIMIT without ORDER BY returns the requested
// number of rows (any rows are a correct answer). That the remaining
// fragments are cancelled is not asserted here.
func TestLimitWithoutOrder(t *testing.T) {
	r, err := query(env.shoal, "select id from ontime limit 17")
	if err != nil || r.err != nil {
		t.Fatal(err, r.err)
	}
	if len(r.rows) != 17 {
		t.Fatalf("got %d rows, want 17", len(r.rows))
	}
	// SQL allows any rows; a drop-in gives the ones MariaDB gives. Its scan
	// of an InnoDB table meets rows in primary key order, and a
	// distributed LIMIT without ORDER BY takes the first rows in that
	// order (planner planRows, keyOrder); with a filter on other columns
	// the statement runs on one replica, which stops at its first
	// matches. The rows are the same, in the same order, either way.
	distributed := 0
	for _, q := range []string{
		"select * from ontime limit 17",
		"select id, Carrier, DepDelayMinutes from ontime where DepDelayMinutes > 30 limit 25",
		"select Carrier, ArrDelayMinutes * 2 from ontime where Origin <> 'ATL' limit 9 offset 40",
		"select * from ontime where Cancelled = 1 order by null limit 6",
	} {
		diff(t, q, true)
		switch ex := explain(t, q); {
		case strings.Contains(ex, "the first rows in primary key order"):
			distributed++
		case strings.Contains(q, "where") && !strings.HasPrefix(ex, "passthrough"):
			t.Errorf("%s: a LIMIT without ORDER BY over a filter should run on one replica:\n%s", q, ex)
		}
	}
	if distributed == 0 {
		t.Error("no LIMIT without ORDER BY was distributed in primary key order; the statements only checked the passthrough")
	}
}

// TestPassthrough checks statements Shoal does not distribute answer as the
// replica does.
func TestPassthrough(t *testing.T) {
	// SHOW TABLES and information_schema read a replica: tables an
	// earlier test dropped on the primary must be gone there too.
	replicasCaughtUp(t)
	for _, q := range []string{
		"SHOW TABLES",
		"SELECT @@version_comment LIMIT 1",
		"select table_name from information_schema.tables where table_schema = 'ontime' order by 1",
		"select count(distinct Carrier) from ontime",
		"select Carrier, Origin, count(*) from ontime where id < 500 group by Carrier, Origin with rollup",
		"select 1 + 1, 'x'",
		"SHOW COLUMNS FROM ontime",
		"DESCRIBE ontime",
	} {
		diff(t, q, true)
	}
}

// TestErrors checks the errors a user can cause: each keeps MySQL's code
// and the connection stays usable. Without the Refuse case in query
// (router/handler.go) writes reach a replica and get 1792, not 1290; without the
// unknown-database check in use, USE no_such_database succeeds and the
// session's next statements fail with 1049: this fails.
func TestErrors(t *testing.T) {
	// The replicas run on this host: a file one of them wrote would be here.
	outfile := fmt.Sprintf("%s/shoal-e2e-outfile-%d", os.TempDir(), os.Getpid())
	for _, c := range []struct {
		q    string
		code uint16
	}{
		{"selec * from ontime", 1064},
		{"select * from ontime where", 1064},
		{"select * from no_such_table", 1146},
		{"select no_such_column from ontime group by Carrier", 1054},
		{"insert into ontime (id) values (1)", 1290},
		{"update ontime set Carrier = 'X'", 1290},
		{"delete from ontime", 1290},
		{"drop table ontime", 1290},
		{"create table x (a int)", 1290},
		{"lock tables ontime write", 1290},
		{"lock tables ontime read, carriers write", 1290},
		{"use no_such_database", 1049},
		{"select * from ontime into outfile '/tmp/x'", 1290},
		// Forms the TiDB parser cannot read or reads as a comment, which a
		// passthrough would send to a replica that then writes the file:
		// the statement's text is what is checked (planner/textguard.go).
		{"select id into outfile '" + outfile + "' from ontime limit 3", 1290},
		{"select id into dumpfile '" + outfile + "' from ontime limit 1", 1290},
		{"select id from ontime limit 1 /*M! into outfile '" + outfile + "' */", 1290},
		{"select 1 union select 2 into outfile '" + outfile + "'", 1290},
		{"select id from ontime limit 1 for update skip locked", 1290},
		{"select count(*) from ontime lock in share mode nowait", 1290},
		{"select nextval(no_such_sequence)", 1290},
	} {
		r, err := query(env.shoal, c.q)
		if err != nil {
			t.Fatalf("%s: %v", c.q, err)
		}
		if r.err == nil || r.err.Number != c.code {
			t.Errorf("%s: got %v, want error %d", c.q, r.err, c.code)
		}
		// The same pool (and so, usually, the same connection) still works.
		diff(t, "select count(*) from ontime", true)
	}
	if _, err := os.Stat(outfile); !os.IsNotExist(err) {
		t.Errorf("a replica wrote %s (%v)", outfile, err)
		os.Remove(outfile)
	}
}

// TestAuth checks accounts from the config: the right password works, a
// wrong one gets 1045.
func TestAuth(t *testing.T) {
	addr := env.coord.Addr().String()
	good, err := sql.Open("mysql", "alice:s3cret@tcp("+addr+")/ontime")
	if err != nil {
		t.Fatal(err)
	}
	defer good.Close()
	var n int64
	if err := good.QueryRow("select count(*) from ontime").Scan(&n); err != nil || n != env.rows {
		t.Fatalf("alice: %d rows, %v", n, err)
	}
	bad, err := sql.Open("mysql", "alice:wrong@tcp("+addr+")/ontime")
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	err = bad.Ping()
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1045 {
		t.Fatalf("wrong password: %v, want error 1045", err)
	}
}
