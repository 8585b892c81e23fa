package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// More client tests: clients with protocol implementations of their own,
// which production BI and application stacks use, each run once against
// Shoal and once against the primary with one batch of statements, their
// outputs compared line by line (values with their client-side types,
// NULLs, column metadata, warning counts, affected rows, error codes,
// SQLSTATEs and messages, every result set of a multi-statement query):
//
//   - PHP's mysqlnd (php-cli, php-mysql): mysqli text queries and
//     multi_query, server-side prepared statements read through get_result
//     and bind_result, PDO with native and with emulated prepares,
//     fetch_fields and getColumnMeta (e2e/clients/php_client.php);
//   - MariaDB Connector/C (libmariadb) through Perl's DBD::MariaDB, with its
//     prepared-statement API (mariadb_server_prepare=1) and the text
//     protocol with multi-statements (e2e/clients/dbd_mariadb_client.pl);
//   - ODBC: MariaDB Connector/ODBC under unixODBC, driven by pyodbc, with
//     the catalog calls Tableau, Power BI and Excel make (SQLTables,
//     SQLColumns, SQLPrimaryKeys, SQLStatistics, SQLGetTypeInfo) and
//     prepared statements (e2e/clients/odbc_client.py).
//
// carriers and airports are pinned (CACHE TABLE) while they run, so
// statements over them run on the in-memory engine; ontime is read by
// distributed scans; joins pass through. A statement whose name starts
// with "write" changes nothing on MariaDB (WHERE 1 = 0) and must be
// refused by Shoal (1290); the client must go on working after it.

// pinClientTables pins the small tables the client scripts read for the
// test's duration.
func pinClientTables(t *testing.T) {
	t.Helper()
	for _, tbl := range []string{"ontime.carriers", "ontime.airports"} {
		shoalExec(t, "CACHE TABLE "+tbl)
		t.Cleanup(func() { env.shoal.Exec("UNCACHE TABLE IF EXISTS " + tbl) })
	}
	if ex := explain(t, "select country, count(*) from carriers group by country"); !strings.Contains(ex, "in memory") {
		t.Fatalf("carriers is pinned but the statement does not run in memory:\n%s", ex)
	}
}

// clientLine is what the client scripts print for one result.
type clientLine struct {
	Name     string `json:"name"`
	Error    *int   `json:"error"`
	SQLState string `json:"sqlstate"`
}

// splitWrites takes the results of the statements named "write…" out of
// a client's output.
func splitWrites(t *testing.T, lines []string) (writes []clientLine, rest []string) {
	t.Helper()
	for _, l := range lines {
		var cl clientLine
		if err := json.Unmarshal([]byte(l), &cl); err != nil {
			t.Fatalf("the client printed a line that is not JSON: %v\n%s", err, l)
		}
		if strings.HasPrefix(cl.Name, "write") {
			writes = append(writes, cl)
			continue
		}
		rest = append(rest, l)
	}
	return writes, rest
}

// clientDiff runs a client script against Shoal and the primary and
// compares their outputs; must are result names the output must have.
// prepares is how many server-side prepared executions the script makes
// at least through Shoal.
func clientDiff(t *testing.T, argv []string, must []string, prepares float64) {
	t.Helper()
	pinClientTables(t)
	before := scrape(t)
	got := runLines(t, env.coord.Addr().String(), argv...)
	after := scrape(t)
	want := runLines(t, env.cluster.Primary, argv...)
	gotW, got := splitWrites(t, got)
	wantW, want := splitWrites(t, want)
	compareLines(t, got, want)
	if len(gotW) == 0 || len(wantW) == 0 {
		t.Errorf("no write statements ran: %d through shoal, %d direct", len(gotW), len(wantW))
	}
	for _, w := range gotW {
		if w.Error == nil || *w.Error != 1290 || w.SQLState != "HY000" {
			t.Errorf("%s through shoal: want error 1290 (HY000), got %+v", w.Name, w)
		}
	}
	for _, w := range wantW {
		if w.Error != nil {
			t.Errorf("%s direct failed (%d): it must be a write that changes nothing", w.Name, *w.Error)
		}
	}
	text := strings.Join(want, "\n")
	for _, m := range must {
		if !strings.Contains(text, `"name":"`+m) && !strings.Contains(text, `"name": "`+m) {
			t.Errorf("the client's output lacks %q", m)
		}
	}
	if d := after.get(`shoal_prepared_executions_total`) - before.get(`shoal_prepared_executions_total`); d < prepares {
		t.Errorf("prepared executions went up by %v, want at least %v: the client did not prepare on the server", d, prepares)
	}
	if d := after.get(`shoal_queries_total{kind="distributed",outcome="ok"}`) - before.get(`shoal_queries_total{kind="distributed",outcome="ok"}`); d < 5 {
		t.Errorf("distributed queries went up by %v, want at least 5", d)
	}
}

func TestClientPHP(t *testing.T) {
	php := lookClient(t, "php is not installed: PHP (mysqlnd) client test skipped (apt-get install -y php-cli php-mysql; scripts/deps.sh does it)", "php")
	if exec.Command(php, "-r", `exit(extension_loaded("mysqli") && extension_loaded("pdo_mysql") ? 0 : 1);`).Run() != nil {
		clientSkip(t, "php has no mysqli or pdo_mysql: PHP client test skipped (apt-get install -y php-mysql)")
	}
	clientDiff(t, []string{php, filepath.Join("clients", "php_client.php")},
		[]string{"distributed aggregate #0", "multi #2", "multi with error #1", "syntax error", "pinned #0",
			"prepared aggregate exec 2", "prepared aggregate bound exec 0", "prepared limit exec 1", "prepared syntax error prepare",
			"prepared good after errors exec 0", "pdo native parameters #0", "pdo emulated multi #1", "pdo native good after errors #0"}, 15)
}

func TestClientDBDMariaDB(t *testing.T) {
	perl := lookClient(t, "perl is not installed: DBD::MariaDB client test skipped (apt-get install -y libdbd-mariadb-perl)", "perl")
	if exec.Command(perl, "-MDBD::MariaDB", "-MJSON::PP", "-e1").Run() != nil {
		clientSkip(t, "Perl's DBD::MariaDB is not installed: Connector/C client test skipped (apt-get install -y libdbd-mariadb-perl; scripts/deps.sh does it)")
	}
	clientDiff(t, []string{perl, filepath.Join("clients", "dbd_mariadb_client.pl")},
		[]string{"server prepare aggregate exec 0 #0", "server prepare parameters exec 1 #0", "server prepare limit exec 0 #0",
			"server prepare syntax error prepare", "server prepare good after errors exec 0 #0", "client prepare multi exec 0 #1",
			"client prepare syntax error exec 0"}, 10)
}

// odbcDriver is the name unixODBC knows MariaDB Connector/ODBC by
// (Debian's odbc-mariadb registers it), as the script connects with it.
const odbcDriver = "MariaDB Unicode"

func TestClientODBC(t *testing.T) {
	py := "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		if py, err = exec.LookPath("python3"); err != nil {
			clientSkip(t, "python3 is not installed: ODBC client test skipped")
		}
	}
	if exec.Command(py, "-c", "import pyodbc").Run() != nil {
		clientSkip(t, "pyodbc is not importable by %s: ODBC client test skipped (apt-get install -y python3-pyodbc unixodbc odbc-mariadb; scripts/deps.sh does it)", py)
	}
	drivers, err := exec.Command(py, "-c", "import pyodbc; print('\\n'.join(pyodbc.drivers()))").Output()
	if err != nil || !strings.Contains(string(drivers), odbcDriver) {
		clientSkip(t, "unixODBC has no %q driver (%v): ODBC client test skipped (apt-get install -y odbc-mariadb)", odbcDriver, err)
	}
	clientDiff(t, []string{py, filepath.Join("clients", "odbc_client.py")},
		[]string{"SQLTables", "SQLColumns ontime", "SQLGetTypeInfo", "aggregate #0", "parameters again #0", "typed parameters #0",
			"limit parameter #0", "multi #1", "syntax error prepared", "good after errors #0"}, 5)
}
