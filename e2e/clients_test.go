package e2e

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// The client tests: server-side prepared statements through go-sql-driver
// (interpolateParams=false, its default, prepares every query with
// arguments), real clients (the mariadb CLI, PyMySQL, Node mysql2) run
// against Shoal and against the primary with the same statements, what BI
// tools send on connect, and the metrics endpoint.

// queryer is *sql.DB or *sql.Conn.
type queryer interface {
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
}

// queryArgs is query with arguments: with any, go-sql-driver prepares the
// statement on the server (COM_STMT_PREPARE / EXECUTE / CLOSE) and reads
// binary-protocol rows.
func queryArgs(db queryer, q string, args ...any) (*result, error) {
	rows, err := db.QueryContext(context.Background(), q, args...)
	if err != nil {
		var me *mysql.MySQLError
		if errors.As(err, &me) {
			return &result{err: me}, nil
		}
		return nil, err
	}
	defer rows.Close()
	r := &result{}
	if r.cols, err = rows.Columns(); err != nil {
		return nil, err
	}
	cts, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	for _, ct := range cts {
		r.types = append(r.types, ct.DatabaseTypeName())
	}
	vals := make([]sql.RawBytes, len(r.cols))
	ptrs := make([]any, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make([]string, len(vals))
		for i, v := range vals {
			if v == nil {
				row[i] = "NULL"
			} else {
				row[i] = string(v)
			}
		}
		r.rows = append(r.rows, row)
	}
	if err := rows.Err(); err != nil {
		var me *mysql.MySQLError
		if errors.As(err, &me) {
			return &result{err: me}, nil
		}
		return nil, err
	}
	return r, nil
}

// compare reports differences between Shoal's result and the primary's.
func compare(t *testing.T, what string, got, want *result, ordered bool) {
	t.Helper()
	if (got.err == nil) != (want.err == nil) {
		t.Errorf("%s:\nshoal error %v\ndirect error %v", what, got.err, want.err)
		return
	}
	if want.err != nil {
		if got.err.Number != want.err.Number {
			t.Errorf("%s: shoal error %d, direct %d (%v / %v)", what, got.err.Number, want.err.Number, got.err, want.err)
		}
		return
	}
	if !slices.Equal(got.cols, want.cols) {
		t.Errorf("%s: columns\nshoal  %q\ndirect %q", what, got.cols, want.cols)
	}
	if !slices.Equal(got.types, want.types) {
		t.Errorf("%s: types\nshoal  %q\ndirect %q", what, got.types, want.types)
	}
	if compareDefs && got.defs != nil && want.defs != nil && !slices.Equal(got.defs, want.defs) {
		t.Errorf("%s: column definitions\nshoal  %q\ndirect %q", what, got.defs, want.defs)
	}
	g, w := got.rows, want.rows
	if !ordered {
		g, w = sorted(g), sorted(w)
	}
	if len(g) != len(w) {
		t.Errorf("%s: %d rows through shoal, %d direct", what, len(g), len(w))
	}
	for i := 0; i < len(g) && i < len(w); i++ {
		if !slices.Equal(g[i], w[i]) {
			t.Errorf("%s: row %d\nshoal  %q\ndirect %q", what, i, g[i], w[i])
			break
		}
	}
}

// diffArgs runs a prepared statement with args through Shoal and on the
// primary and compares the answers.
func diffArgs(t *testing.T, q string, ordered bool, args ...any) *result {
	t.Helper()
	got, err := queryArgs(env.shoal, q, args...)
	if err != nil {
		t.Fatalf("shoal: %s %v: %v", q, args, err)
	}
	want, err := queryArgs(env.direct, q, args...)
	if err != nil {
		t.Fatalf("direct: %s %v: %v", q, args, err)
	}
	compare(t, fmt.Sprintf("%s %v", q, args), got, want, ordered)
	return got
}

// nonASCIICarrier is a carrier name with non-ASCII letters (the generator
// has one).
func nonASCIICarrier(t *testing.T) string {
	t.Helper()
	var name string
	err := env.direct.QueryRow("select name from carriers where name <> convert(name using ascii) order by code limit 1").Scan(&name)
	if err != nil {
		t.Fatal(err)
	}
	return name
}

func TestPreparedStatements(t *testing.T) {
	before := scrape(t)
	day := func(s string) time.Time {
		d, err := time.Parse(time.DateOnly, s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	cases := []struct {
		name    string
		q       string
		ordered bool
		args    []any
	}{
		{"distributed aggregate", "select Carrier, count(*) from ontime where YearD between ? and ? and Origin = ? group by Carrier", true, []any{2000, 2005, "SFO"}},
		{"same statement other values", "select Carrier, count(*) from ontime where YearD between ? and ? and Origin = ? group by Carrier", true, []any{1995, 2010, "LAX"}},
		{"int and string", "select count(*), sum(Distance) from ontime where Carrier = ? and DayOfWeek = ?", true, []any{"AA", int64(3)}},
		{"unsigned", "select count(*) from ontime where id < ?", true, []any{uint64(5000)}},
		// go-sql-driver sends a uint64 with the unsigned flag (0x80), which
		// vitess read as signed: 2^63 arrived as -2^63 and the max as -1.
		{"unsigned above 2^63", "select count(*), sum(id) from ontime where id < ? and ? > 9223372036854775807 and ? = 18446744073709551615", true,
			[]any{uint64(5000), uint64(1 << 63), uint64(math.MaxUint64)}},
		{"unsigned above 2^63 in a group", "select DayOfWeek, count(*), sum(id % ?) from ontime where ? > id group by DayOfWeek", false,
			[]any{uint64(math.MaxUint64), uint64(1<<63 + 5)}},
		{"double", "select Carrier, sum(Distance * ?) from ontime where ArrDelayMinutes > ? group by Carrier", true, []any{1.5, 30.25}},
		{"decimal as string", "select count(*) from ontime where Distance > ?", true, []any{"500.5"}},
		{"date", "select count(*), min(FlightDate), max(FlightDate) from ontime where FlightDate >= ? and FlightDate < ?", true, []any{day("2001-01-01"), day("2003-07-01")}},
		{"date as string", "select FlightDate, count(*) from ontime where FlightDate between ? and ? group by FlightDate", true, []any{"2004-02-01", "2004-02-10"}},
		{"null", "select count(*) from ontime where TailNum <=> ?", true, []any{nil}},
		{"null in expression", "select ? is null as a, coalesce(?, 'x') as b, ? + 1 as c", true, []any{nil, nil, nil}},
		{"bool", "select count(*) from ontime where Cancelled = ?", true, []any{true}},
		{"non-ascii", "select code, name from carriers where name = ?", true, []any{nonASCIICarrier(t)}},
		// concat: MariaDB types a bare string parameter as the driver declared
		// it (CHAR for go-sql-driver); a bound literal is a VARCHAR.
		{"non-ascii echo", "select concat(?, '') as s, char_length(?) as n, ? = 'ünïcödé' as eq", true, []any{"héllo ✈ 'q' \\ ? \x00 ü", "ünïcödé", "ünïcödé"}},
		// Integer parameters are typed BIGINT by MariaDB, a bound literal
		// is INT: columns computed from integer parameters alone differ in
		// type (docs/clients.md), so these use strings and NULLs.
		{"unaliased expressions keep their markers", "select concat('a?', ?), count(*) from ontime where YearD > ?", true, []any{"b", 2000}},
		{"many columns with nulls", "select TailNum, ArrDelayMinutes, DepDelayMinutes, NULL, Carrier, ?, FlightDate, Distance, NULL, concat(?, '') from ontime where TailNum is null or ArrDelayMinutes is null order by id limit 20", true, []any{nil, "x"}},
		{"bytes", "select hex(?) as h, length(?) as n", true, []any{[]byte{0xff, 0x00, '\'', 0x80}, []byte("a?b")}},
		{"marker-like text untouched", "select count(*) from ontime where Origin = ? and 'a?b' = 'a?b' /* ? */ and `Dest` <> ? -- ?\n", true, []any{"SFO", "JFK"}},
		{"passthrough", "select code, name, country from carriers where code > ? order by code limit ?", true, []any{"A", 5}},
		{"passthrough join", "select c.name, count(*) from ontime o join carriers c on c.code = o.Carrier where o.YearD = ? group by c.name", false, []any{2002}},
		{"rows distributed", "select id, Carrier, ArrDelayMinutes from ontime where Origin = ? order by ArrDelayMinutes desc, id limit 10", true, []any{"SFO"}},
		{"error", "select nosuchcolumn from ontime where id = ?", true, []any{1}},
		{"empty result", "select Carrier, count(*) from ontime where YearD = ? group by Carrier", true, []any{1800}},
		// Drivers that bind every value as text send LIMIT '3': the
		// server takes the number (it was bound as a quoted literal: 1064).
		{"limit as a string", "select Carrier, count(*) from ontime group by Carrier order by 2 desc, 1 limit ?", true, []any{"3"}},
		{"limit and offset as strings", "select Carrier, count(*) from ontime group by Carrier order by 2 desc, 1 limit ? offset ?", true, []any{"2", "1"}},
		// An alias whose text is inside a bound literal ('%Y-%m' holds m)
		// keeps its name (it was renamed "?").
		{"alias inside a literal", "select date_format(FlightDate, ?) m, count(*) from ontime where YearD = ? group by m order by m", true, []any{"%Y-%m", 2004}},
		// FLOAT: the text protocol writes 6 significant digits, the binary
		// one the float's own (2.3333333): read from the replica's own
		// prepared statement.
		{"float", "select id, cast(Distance / 7 as float) f from ontime where id < ? order by id limit 5", true, []any{500}},
		{"float aggregate", "select Carrier, max(cast(Distance / 7 as float)) f from ontime where YearD > ? group by Carrier", true, []any{2000}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			diffArgs(t, c.q, c.ordered, c.args...)
		})
	}

	t.Run("statement reused", func(t *testing.T) {
		stS, err := env.shoal.Prepare("select count(*) from ontime where YearD = ? and Carrier = ?")
		if err != nil {
			t.Fatal(err)
		}
		defer stS.Close()
		stD, err := env.direct.Prepare("select count(*) from ontime where YearD = ? and Carrier = ?")
		if err != nil {
			t.Fatal(err)
		}
		defer stD.Close()
		for _, y := range []int{1995, 2000, 2005, 1800} {
			var got, want int64
			if err := stS.QueryRow(y, "WN").Scan(&got); err != nil {
				t.Fatal(err)
			}
			if err := stD.QueryRow(y, "WN").Scan(&want); err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("year %d: shoal %d, direct %d", y, got, want)
			}
		}
	})

	t.Run("error then good statement on one connection", func(t *testing.T) {
		ctx := context.Background()
		cs, err := env.shoal.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		cd, err := env.direct.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer cd.Close()
		for _, q := range []struct {
			q    string
			args []any
		}{
			{"select nosuch from ontime where id = ?", []any{1}},
			{"selec broken ?", []any{1}},
			{"select Carrier, count(*) from ontime where YearD > ? group by Carrier", []any{2000}},
			{"select count(*) from ontime where Origin = ?", []any{"SFO"}},
		} {
			got, err := queryArgs(cs, q.q, q.args...)
			if err != nil {
				t.Fatal(err)
			}
			want, err := queryArgs(cd, q.q, q.args...)
			if err != nil {
				t.Fatal(err)
			}
			compare(t, q.q, got, want, false)
		}
	})

	t.Run("write refused at prepare", func(t *testing.T) {
		_, err := env.shoal.Exec("insert into carriers (code, name, country) values (?, ?, ?)", "ZZ", "z", "z")
		var me *mysql.MySQLError
		if !errors.As(err, &me) || me.Number != 1290 {
			t.Fatalf("want error 1290, got %v", err)
		}
	})

	after := scrape(t)
	if d := after.get(`shoal_prepared_executions_total`) - before.get(`shoal_prepared_executions_total`); d < float64(len(cases)) {
		t.Errorf("prepared executions went up by %v, want at least %d: the driver did not use server-side prepare", d, len(cases))
	}
	if d := after.get(`shoal_queries_total{kind="distributed",outcome="ok"}`) - before.get(`shoal_queries_total{kind="distributed",outcome="ok"}`); d < 10 {
		t.Errorf("distributed queries went up by %v, want at least 10", d)
	}
}

// TestPreparedPing checks COM_PING on a connection that has run prepared
// statements.
func TestComPing(t *testing.T) {
	ctx := context.Background()
	c, err := env.shoal.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.PingContext(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := queryArgs(c, "select count(*) from ontime where id > ?", 10); err != nil {
		t.Fatal(err)
	}
	if err := c.PingContext(ctx); err != nil {
		t.Fatal(err)
	}
}

// cliRun runs the mariadb (or mysql) command-line client in batch mode
// against addr and returns stdout and the error numbers it printed.
func cliRun(t *testing.T, bin, addr, sqlText string) (string, []string) {
	t.Helper()
	host, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command(bin, "-h"+host, "-P"+port, "-uroot", "--batch", "--force", "--skip-ssl",
		"--default-character-set=utf8mb4", "ontime")
	cmd.Stdin = strings.NewReader(sqlText)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var codes []string
	for _, m := range regexp.MustCompile(`ERROR (\d+)`).FindAllStringSubmatch(errb.String(), -1) {
		codes = append(codes, m[1])
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("%s: %v", bin, err)
	}
	if err != nil && len(codes) == 0 {
		t.Fatalf("%s failed: %v\n%s", bin, err, errb.String())
	}
	return out.String(), codes
}

func TestClientCLI(t *testing.T) {
	bin := lookClient(t, "no mariadb or mysql command-line client on PATH (apt-get install -y mariadb-client)", "mariadb", "mysql")
	script := strings.Join([]string{
		"select Carrier, count(*), sum(Distance), avg(ArrDelayMinutes) from ontime group by Carrier order by Carrier;",
		"select min(FlightDate), max(FlightDate), sum(ArrDelayMinutes * 1.5), count(TailNum), max(TailNum is null) from ontime;",
		"select TailNum, ArrDelayMinutes from ontime where TailNum is null or ArrDelayMinutes is null order by id limit 5;",
		"select code, name, country from carriers order by code;",
		"select 'héllo ✈' as s, char_length('ünïcödé') as n;",
		"selec broken from ontime;",
		"select count(*), min(id), max(id) from ontime;",
		"select database();",
		"show tables;",
	}, "\n")
	got, gotCodes := cliRun(t, bin, env.coord.Addr().String(), script)
	want, wantCodes := cliRun(t, bin, env.cluster.Primary, script)
	if got != want {
		t.Errorf("%s output differs\nshoal:\n%s\ndirect:\n%s", filepath.Base(bin), got, want)
	}
	if !slices.Equal(gotCodes, wantCodes) {
		t.Errorf("errors: shoal %v, direct %v", gotCodes, wantCodes)
	}
	if len(wantCodes) != 1 || !strings.Contains(got, "Carrier") {
		t.Errorf("expected one error and a result, got %v\n%s", wantCodes, got)
	}
}

// python finds a python3 that can import pymysql.
func python(t *testing.T) string {
	t.Helper()
	var tried []string
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		path, err := exec.LookPath(p)
		if err != nil {
			continue
		}
		tried = append(tried, path)
		if exec.Command(path, "-c", "import pymysql").Run() == nil {
			return path
		}
	}
	if len(tried) == 0 {
		clientSkip(t, "python3 is not installed: PyMySQL client test skipped (scripts/deps.sh installs python3-pymysql)")
	}
	clientSkip(t, "PyMySQL is not importable by %v: client test skipped (apt-get install -y python3-pymysql; scripts/deps.sh does it)", tried)
	return ""
}

// runLines runs a client script against addr and returns its JSON lines.
func runLines(t *testing.T, addr string, argv ...string) []string {
	t.Helper()
	host, port, _ := net.SplitHostPort(addr)
	args := append(argv[1:], host, port, env.cluster.User, env.cluster.Password, env.cluster.Database)
	cmd := exec.Command(argv[0], args...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s against %s: %v\n%s", strings.Join(argv, " "), addr, err, errb.String())
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines
}

// compareLines compares a client script's output on Shoal and the primary.
func compareLines(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%d results through shoal, %d direct", len(got), len(want))
	}
	for i := 0; i < len(got) && i < len(want); i++ {
		if got[i] != want[i] {
			t.Errorf("result %d differs\nshoal  %s\ndirect %s", i, got[i], want[i])
		}
	}
	if len(want) == 0 {
		t.Error("the client printed nothing")
	}
}

func TestClientPyMySQL(t *testing.T) {
	py := python(t)
	script := filepath.Join("clients", "pymysql_client.py")
	got := runLines(t, env.coord.Addr().String(), py, script)
	want := runLines(t, env.cluster.Primary, py, script)
	compareLines(t, got, want)
}

func TestClientNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		clientSkip(t, "node is not installed: Node client tests skipped (apt-get install -y node-mysql; scripts/deps.sh does it)")
	}
	dir := filepath.Join("clients", "node")
	ran := 0
	// mysql2 from npm (package.json), where the registry was reachable.
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "mysql2")); err == nil {
		t.Run("mysql2", func(t *testing.T) {
			script := filepath.Join(dir, "mysql2_client.js")
			compareLines(t, runLines(t, env.coord.Addr().String(), node, script), runLines(t, env.cluster.Primary, node, script))
		})
		ran++
	} else {
		recordSkip(t, "mysql2 (npm)", fmt.Sprintf("not installed: npm ci --prefix %s (the npm registry may be out of reach); the Debian node-mysql run stands in", dir))
	}
	// mysqljs from Debian's node-mysql: a Node from elsewhere (nodesource)
	// does not look in /usr/share/nodejs by itself.
	nodePath := "NODE_PATH=" + strings.Join(append(filepath.SplitList(os.Getenv("NODE_PATH")), "/usr/share/nodejs"), string(filepath.ListSeparator))
	if exec.Command("env", nodePath, node, "-e", "require('mysql')").Run() == nil {
		t.Run("mysql (Debian node-mysql)", func(t *testing.T) {
			script := filepath.Join(dir, "mysql_client.js")
			got := runLines(t, env.coord.Addr().String(), "env", nodePath, node, script)
			want := runLines(t, env.cluster.Primary, "env", nodePath, node, script)
			if len(want) < 10 {
				t.Fatalf("mysqljs printed %d results on the primary, want 11", len(want))
			}
			compareLines(t, got, want)
		})
		ran++
	} else {
		recordSkip(t, "mysql (Debian node-mysql)", "require('mysql') fails: apt-get install -y node-mysql")
	}
	if ran == 0 {
		clientSkip(t, "neither mysql2 (npm ci --prefix %s) nor mysqljs (apt-get install -y node-mysql) is installed", dir)
	}
}

// TestConnectSequences replays what BI tools and their drivers send on
// connect and while browsing, on one connection, and compares with the
// primary where the answer does not depend on the server instance.
func TestConnectSequences(t *testing.T) {
	ctx := context.Background()
	cs, err := env.shoal.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Both connections take the tools' SETs (isolation level, sql_mode,
	// character_set_results): discarded, not pooled, so no later test
	// inherits them.
	defer discard(cs)
	cd, err := env.direct.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer discard(cd)
	// exact: rows must be equal; false: the value is per server (a
	// replica is another server), so only columns, types and errors.
	steps := []struct {
		q     string
		args  []any
		exact bool
	}{
		// MySQL Connector/J 8 (what Metabase and DBeaver's MySQL driver run).
		{"/* mysql-connector-j-8.4.0 (Revision: 1c3f5c149e0bfe31c7fbeb24e2d260cd890972c4) */SELECT @@session.auto_increment_increment AS auto_increment_increment, @@character_set_client AS character_set_client, @@character_set_connection AS character_set_connection, @@character_set_results AS character_set_results, @@character_set_server AS character_set_server, @@collation_server AS collation_server, @@collation_connection AS collation_connection, @@init_connect AS init_connect, @@interactive_timeout AS interactive_timeout, @@license AS license, @@lower_case_table_names AS lower_case_table_names, @@max_allowed_packet AS max_allowed_packet, @@net_write_timeout AS net_write_timeout, @@performance_schema AS performance_schema, @@sql_mode AS sql_mode, @@system_time_zone AS system_time_zone, @@time_zone AS time_zone, @@wait_timeout AS wait_timeout", nil, false},
		{"SET NAMES utf8mb4", nil, true},
		{"SET character_set_results = NULL", nil, true},
		{"SET autocommit=1", nil, true},
		{"SET SESSION sql_mode = CONCAT(@@sql_mode, ',STRICT_TRANS_TABLES')", nil, true},
		{"SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED", nil, true},
		{"SELECT @@session.transaction_read_only", nil, false},
		// MariaDB Connector/J 3.
		{"SELECT @@max_allowed_packet, @@wait_timeout, @@auto_increment_increment", nil, false},
		{"SET session_track_schema=1", nil, true},
		{"SELECT DATABASE()", nil, true},
		{"SELECT @@character_set_client, @@character_set_connection, @@collation_connection, @@sql_mode", nil, true},
		{"SHOW VARIABLES LIKE 'lower_case_table_names'", nil, true},
		{"SHOW VARIABLES WHERE Variable_name IN ('sql_mode', 'character_set_client')", nil, true},
		{"SHOW DATABASES LIKE 'ontime'", nil, true},
		{"SHOW TABLES", nil, true},
		{"SHOW FULL TABLES FROM `ontime` LIKE '%'", nil, true},
		{"SHOW FULL COLUMNS FROM `ontime` FROM `ontime` LIKE '%'", nil, true},
		{"SHOW INDEX FROM ontime", nil, false}, // cardinality is a per-server estimate
		{"SHOW CHARACTER SET LIKE 'utf8mb4'", nil, true},
		{"SHOW COLLATION WHERE Charset = 'utf8mb4' AND Collation = 'utf8mb4_general_ci'", nil, true},
		// JDBC DatabaseMetaData.getTables / getColumns (prepared by the driver).
		{"SELECT TABLE_SCHEMA TABLE_CAT, NULL TABLE_SCHEM, TABLE_NAME, IF(TABLE_TYPE='BASE TABLE' or TABLE_TYPE='SYSTEM VERSIONED', 'TABLE', TABLE_TYPE) as TABLE_TYPE, TABLE_COMMENT REMARKS, NULL TYPE_CAT, NULL TYPE_SCHEM, NULL TYPE_NAME, NULL SELF_REFERENCING_COL_NAME, NULL REF_GENERATION FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME LIKE ? ORDER BY TABLE_TYPE, TABLE_SCHEMA, TABLE_NAME", []any{"ontime", "%"}, true},
		{"SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, IS_NULLABLE, ORDINAL_POSITION FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION", []any{"ontime", "ontime"}, true},
		// Grafana's MySQL data source (go-sql-driver).
		{"SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() ORDER BY table_name", nil, true},
		{"SELECT column_name FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'ontime' ORDER BY ordinal_position", nil, true},
		{"SELECT 1", nil, true},
		{"SHOW WARNINGS", nil, true},
		{"SELECT @@version_comment LIMIT 1", nil, false},
		{"USE ontime", nil, true},
		{"select count(*) from ontime", nil, true},
	}
	for i, s := range steps {
		var got, want *result
		var err error
		if s.args == nil {
			got, err = queryArgs(cs, s.q)
		} else {
			got, err = queryArgs(cs, s.q, s.args...)
		}
		if err != nil {
			t.Fatalf("step %d %s: shoal: %v", i, s.q, err)
		}
		if s.args == nil {
			want, err = queryArgs(cd, s.q)
		} else {
			want, err = queryArgs(cd, s.q, s.args...)
		}
		if err != nil {
			t.Fatalf("step %d %s: direct: %v", i, s.q, err)
		}
		if !s.exact && got.err == nil && want.err == nil {
			got.rows, want.rows = nil, nil
		}
		compare(t, fmt.Sprintf("step %d %s", i, s.q), got, want, true)
	}
	if err := cs.PingContext(ctx); err != nil {
		t.Errorf("COM_PING: %v", err)
	}
}

// metricValues is one scrape of /metrics: "name{labels}" → value.
type metricValues map[string]float64

func (m metricValues) get(key string) float64 { return m[key] }

func scrape(t *testing.T) metricValues {
	t.Helper()
	return scrapeAt(t, env.coord.HTTPAddr())
}

// scrapeAt scrapes the coordinator whose HTTP listener is a.
func scrapeAt(t *testing.T, a net.Addr) metricValues {
	t.Helper()
	if a == nil {
		t.Fatal("the coordinator has no HTTP listener")
	}
	resp, err := http.Get("http://" + a.String() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /metrics: %d %v", resp.StatusCode, err)
	}
	out := metricValues{}
	for _, line := range strings.Split(string(body), "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			continue
		}
		out[line[:i]] = v
	}
	return out
}

func TestMetrics(t *testing.T) {
	before := scrape(t)
	for _, q := range []string{
		"select Carrier, count(*) from ontime group by Carrier",
		"select Carrier, count(*) from ontime group by Carrier", // plan cache hit
		"select Origin, max(Distance) from ontime group by Origin order by Origin limit 3",
		"select code from carriers where rand() < 2 order by code", // volatile: passes through
	} {
		if _, err := query(env.shoal, q); err != nil {
			t.Fatal(err)
		}
	}
	r, err := query(env.shoal, "delete from carriers")
	if err != nil || r.err == nil || r.err.Number != 1290 {
		t.Fatalf("delete: want 1290, got %v %v", err, r)
	}
	if r, err := query(env.shoal, "selec nope"); err != nil || r.err == nil {
		t.Fatalf("syntax error expected, got %v %v", err, r)
	}
	after := scrape(t)
	moved := func(key string, atLeast float64) {
		t.Helper()
		if d := after.get(key) - before.get(key); d < atLeast {
			t.Errorf("%s moved by %v, want at least %v", key, d, atLeast)
		}
	}
	moved(`shoal_queries_total{kind="distributed",outcome="ok"}`, 3)
	moved(`shoal_queries_total{kind="passthrough",outcome="ok"}`, 1)
	moved(`shoal_queries_total{kind="refused",outcome="error"}`, 1)
	moved(`shoal_queries_total{kind="error",outcome="error"}`, 1)
	moved(`shoal_query_duration_seconds_count{kind="distributed"}`, 3)
	moved(`shoal_fragments_total`, 3)
	moved(`shoal_rows_shipped_total`, 1)
	moved(`shoal_bytes_shipped_total`, 1)
	moved(`shoal_plan_cache_hits_total`, 1)
	moved(`shoal_connections_total`, 0)
	if after.get(`shoal_connections`) < 1 {
		t.Errorf("shoal_connections = %v with the test's connections open", after.get(`shoal_connections`))
	}
	if after.get(`shoal_workers_healthy`) != float64(len(env.workers)) {
		t.Errorf("shoal_workers_healthy = %v, want %d", after.get(`shoal_workers_healthy`), len(env.workers))
	}
	// Each replica's health and replication lag, as SHOW SHOAL REPLICAS
	// shows them (a poll may come between the scrape and the SHOW: the
	// lag may move a little).
	for _, r := range showReplicas(t, env.shoal) {
		lag, ok := after[`shoal_replica_lag_seconds{replica="`+r.name+`"}`]
		if after.get(`shoal_replica_healthy{replica="`+r.name+`"}`) != 1 || !ok || !r.lag.Valid || lag < 0 || math.Abs(lag-r.lag.Float64) > 2 {
			t.Errorf("%s: shoal_replica_healthy %v, shoal_replica_lag_seconds %v (present %v); SHOW SHOAL REPLICAS: %+v",
				r.name, after.get(`shoal_replica_healthy{replica="`+r.name+`"}`), lag, ok, r)
		}
	}
	if after.get(`shoal_plan_cache_misses_total`) < 1 {
		t.Error("no plan cache misses recorded")
	}

	resp, err := http.Get("http://" + env.coord.HTTPAddr().String() + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"ok":true`) {
		t.Errorf("/healthz: %d %s", resp.StatusCode, body)
	}
}

// lookClient is the path of the first of names on PATH; the test is
// skipped (clientSkip, which CI counts) with why when there is none.
func lookClient(t *testing.T, why string, names ...string) string {
	t.Helper()
	for _, b := range names {
		if p, err := exec.LookPath(b); err == nil {
			return p
		}
	}
	clientSkip(t, "%s", why)
	return ""
}
