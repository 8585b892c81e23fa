package e2e

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/shoaldb/shoal/config"
)

// Observability through the coordinator and the workers: SHOW
// PROCESSLIST, the slow query log, the status page and the workers'
// metrics.

// procRow is one row of SHOW [FULL] PROCESSLIST.
type procRow struct {
	id                               int64
	user, host, command, state, prog string
	db, info                         sql.NullString
	seconds                          int64
}

func processlist(t *testing.T, db queryer, full bool) []procRow {
	t.Helper()
	q := "SHOW PROCESSLIST"
	if full {
		q = "SHOW FULL PROCESSLIST"
	}
	rows, err := db.QueryContext(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	if strings.Join(cols, ",") != "Id,User,Host,db,Command,Time,State,Info,Progress" {
		t.Fatalf("SHOW PROCESSLIST columns %v", cols)
	}
	var out []procRow
	for rows.Next() {
		var r procRow
		if err := rows.Scan(&r.id, &r.user, &r.host, &r.db, &r.command, &r.seconds, &r.state, &r.info, &r.prog); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func findProc(rows []procRow, id int64) (procRow, bool) {
	for _, r := range rows {
		if r.id == id {
			return r, true
		}
	}
	return procRow{}, false
}

// TestProcesslistSessions: SHOW PROCESSLIST lists the coordinator's own
// sessions under the ids KILL and CONNECTION_ID() use — never a replica's
// threads — and an account sees only its own sessions, root all of them.
func TestProcesslistSessions(t *testing.T) {
	ctx := context.Background()
	root, err := env.shoal.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	adb, err := sql.Open("mysql", "alice:s3cret@tcp("+env.coord.Addr().String()+")/ontime")
	if err != nil {
		t.Fatal(err)
	}
	defer adb.Close()
	alice, err := adb.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer alice.Close()
	rootID, aliceID := connID(t, root), connID(t, alice)
	if _, err := alice.ExecContext(ctx, "USE information_schema"); err != nil {
		t.Fatal(err)
	}

	all := processlist(t, root, false)
	me, ok := findProc(all, rootID)
	if !ok || me.user != "root" || me.command != "Query" || me.state != "starting" || me.info.String != "SHOW PROCESSLIST" || me.db.String != "ontime" {
		t.Errorf("own row: %+v (found %v)", me, ok)
	}
	if !strings.HasPrefix(me.host, "127.0.0.1:") {
		t.Errorf("host %q, want the client's address", me.host)
	}
	a, ok := findProc(all, aliceID)
	if !ok || a.user != "alice" || a.command != "Sleep" || a.db.String != "information_schema" || a.info.Valid || a.prog != "0.000" {
		t.Errorf("alice's idle session as root sees it: %+v (found %v)", a, ok)
	}
	for _, r := range all {
		if r.user == "system user" || r.user == "repl" || strings.Contains(r.info.String, "Slave") {
			t.Errorf("a replica thread in the coordinator's list: %+v", r)
		}
	}
	for _, r := range processlist(t, alice, true) {
		if r.user != "alice" {
			t.Errorf("alice sees someone else's session: %+v", r)
		}
	}
	if _, ok := findProc(processlist(t, alice, false), aliceID); !ok {
		t.Error("alice does not see her own session")
	}
}

// TestProcesslistProgress holds a distributed query half done — its
// fragments on replica1 hang (SIGSTOP), replica2's finish — and watches
// it from another session: SHOW PROCESSLIST shows the statement, its
// running time and "fragments k/n done"; the status page shows the same.
// KILL QUERY ends it; the slow query log then has one JSON line for it
// with error 1317, its fragment count, the rows its fragments shipped, its
// plan and its fragment attempts (replica1's cancelled, replica2's ok),
// and none for a statement faster than long_query_time.
func TestProcesslistProgress(t *testing.T) {
	checkLeaks(t)
	slowPath := filepath.Join(t.TempDir(), "slow.log")
	fs := startFaultShoal(t, func(c *config.Coordinator) {
		c.SlowQueryLog = slowPath
		c.LongQueryTime = new(config.Duration(time.Second))
		c.HTTPListen = new("127.0.0.1:0")
	})
	sameAnswer(t, fs.db, faultQ)
	if _, err := fs.db.Exec("select 1 as shoal_fast_probe"); err != nil {
		t.Fatal(err)
	}
	// information_schema.PROCESSLIST's columns are described by a replica
	// once; later statements over it need no replica, frozen or not.
	var sessions int
	if err := fs.db.QueryRow("SELECT COUNT(*) FROM information_schema.PROCESSLIST").Scan(&sessions); err != nil || sessions < 1 {
		t.Fatalf("information_schema.PROCESSLIST before the hold: %d sessions, %v", sessions, err)
	}
	_, id, cont, ch := hangQuery(t, fs)

	progressRE := regexp.MustCompile(`^fragments (\d+)/(\d+) done$`)
	var row procRow
	var done, total int
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		r, ok := findProc(processlist(t, fs.db, true), id)
		if ok {
			if m := progressRE.FindStringSubmatch(r.state); m != nil {
				done, _ = strconv.Atoi(m[1])
				total, _ = strconv.Atoi(m[2])
				row = r
				if done > 0 && done < total && r.seconds >= 1 {
					break
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("never saw the held query half done with time ≥ 1s; last row %+v (found %v)", r, ok)
		}
	}
	t.Logf("held query: %s, %d s, progress %s", row.state, row.seconds, row.prog)
	if row.command != "Query" || row.info.String != faultQ || row.user != "root" || row.db.String != "ontime" {
		t.Errorf("held query's row: %+v", row)
	}
	if p, err := strconv.ParseFloat(row.prog, 64); err != nil || p <= 0 || p >= 100 {
		t.Errorf("Progress %q, want strictly between 0 and 100", row.prog)
	}

	statusURL := "http://" + fs.co.HTTPAddr().String() + "/status"
	page := httpGet(t, statusURL)
	for _, want := range []string{"Running statements", row.state, "replica1", "replica2", "Recent slow statements", "Pinned tables"} {
		if !strings.Contains(page, want) {
			t.Errorf("status page lacks %q while the query is held", want)
		}
	}
	if !strings.Contains(page, faultQ) {
		t.Error("status page does not show the held statement")
	}
	// Its plan and its timeline: replica1's fragments still running,
	// replica2's done.
	for _, want := range []string{`<svg class="tl"`, `class="b-running"`, `class="b-ok"`, ">replica1</text>", ">replica2</text>", "fragment: SELECT"} {
		if !strings.Contains(page, want) {
			t.Errorf("status page lacks %q while the query is held", want)
		}
	}
	var heldID uint64
	for _, q := range readStatusQueries(t, statusURL+"/queries.json").Running {
		if q.Statement != faultQ {
			continue
		}
		heldID = q.QueryID
		o := q.outcomes()
		if q.Session != id || len(q.Plans) != 1 || len(q.Plans[0].Lines) < 2 || o["replica1 running"] == 0 || o["replica2 ok"] == 0 {
			t.Errorf("queries.json, held query: session %d, plans %v, attempts %v", q.Session, q.Plans, o)
		}
	}
	if heldID == 0 {
		t.Error("queries.json does not list the held query as running")
	}
	// information_schema.PROCESSLIST shows it too, with its progress.
	var isState, isInfo, isProg string
	var examined int64
	if err := fs.db.QueryRow("SELECT STATE, INFO, PROGRESS, EXAMINED_ROWS FROM information_schema.PROCESSLIST WHERE ID = "+itoa(id)).Scan(&isState, &isInfo, &isProg, &examined); err != nil {
		t.Fatal(err)
	}
	if m := progressRE.FindStringSubmatch(isState); m == nil || m[2] != itoa(int64(total)) || isInfo != faultQ || examined <= 0 {
		t.Errorf("information_schema.PROCESSLIST row: state %q info %q examined %d", isState, isInfo, examined)
	}
	if p, err := strconv.ParseFloat(isProg, 64); err != nil || p <= 0 || p >= 100 {
		t.Errorf("information_schema.PROCESSLIST PROGRESS %q, want strictly between 0 and 100", isProg)
	}
	screenshot(t, statusURL, "status-running.png")

	if _, err := fs.db.Exec("KILL QUERY " + itoa(id)); err != nil {
		t.Fatal(err)
	}
	var me *mysql.MySQLError
	select {
	case err := <-ch:
		if !errors.As(err, &me) || me.Number != 1317 {
			t.Fatalf("killed query: %v, want 1317", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("KILL QUERY did not interrupt the query")
	}
	cont()

	es := readSlowLog(t, slowPath)
	var held map[string]any
	for _, e := range es {
		if strings.Contains(e["statement"].(string), "shoal_fast_probe") {
			t.Errorf("a fast statement was logged: %v", e)
		}
		if e["statement"] == faultQ && e["errno"] == float64(1317) {
			held = e
		}
	}
	if held == nil {
		t.Fatalf("no slow log entry for the killed query; entries: %v", es)
	}
	if held["session"] != float64(id) || held["user"] != "root" || held["db"] != "ontime" || held["path"] != "distributed" ||
		held["fragments"] != float64(total) || held["rows_shipped"].(float64) <= 0 || held["bytes_shipped"].(float64) <= 0 ||
		held["duration_seconds"].(float64) < 1 || held["rows_sent"] != float64(0) || held["error"] == nil {
		t.Errorf("slow log entry: %v", held)
	}
	// Its plan as EXPLAIN gives it, and every fragment attempt: the ones
	// on the frozen replica1 cancelled, replica2's ok with their rows,
	// adding up to the rows shipped.
	plans, _ := held["plans"].([]any)
	if len(plans) != 1 || !strings.Contains(fmt.Sprint(plans[0]), "fragment: SELECT") {
		t.Errorf("slow log entry's plans: %v", held["plans"])
	}
	attempts, _ := held["attempts"].([]any)
	outcomes := map[string]int{}
	var okRows float64
	for _, a := range attempts {
		a := a.(map[string]any)
		outcomes[a["worker"].(string)+" "+a["outcome"].(string)]++
		if a["outcome"] == "ok" {
			okRows += a["rows"].(float64)
			if a["elapsed_ms"].(float64) <= 0 || a["range"] == "" || a["try"].(float64) < 1 {
				t.Errorf("slow log attempt: %v", a)
			}
		}
	}
	if outcomes["replica1 cancelled"] == 0 || outcomes["replica2 ok"] == 0 || okRows != held["rows_shipped"] {
		t.Errorf("slow log attempts %v, rows of the ok ones %v, rows shipped %v", outcomes, okRows, held["rows_shipped"])
	}
	if _, err := time.Parse(time.RFC3339Nano, held["time"].(string)); err != nil {
		t.Errorf("time %v: %v", held["time"], err)
	}
	page = httpGet(t, statusURL)
	if !strings.Contains(page, "1317") || strings.Contains(page, "No slow statement") {
		t.Error("status page does not list the killed query among the slow ones")
	}
	screenshot(t, statusURL, "status-slow.png")
	// Once killed it is among the recent statements, its held fragments
	// cancelled, and ?query= shows its timeline.
	found := false
	for _, q := range readStatusQueries(t, statusURL+"/queries.json").Recent {
		if q.QueryID == heldID {
			found = true
			if o := q.outcomes(); q.Errno != 1317 || o["replica1 cancelled"] == 0 || o["replica1 running"] != 0 {
				t.Errorf("killed query in queries.json: errno %d, attempts %v", q.Errno, o)
			}
		}
	}
	if !found {
		t.Error("queries.json does not list the killed query among the recent ones")
	}
	sel := statusURL + "?query=" + strconv.FormatUint(heldID, 10)
	if page := httpGet(t, sel); !strings.Contains(page, `class="b-cancelled"`) || !strings.Contains(page, `<h2 id="selected">`) {
		t.Error("?query= does not show the killed query's timeline")
	}
	screenshot(t, sel, "status-query.png")
	sharedHealthy(t)
}

// readSlowLog reads a slow query log, one JSON object per line.
func readSlowLog(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var e map[string]any
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("slow log line %q: %v", sc.Text(), err)
		}
		out = append(out, e)
	}
	return out
}

func httpGet(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	return string(b)
}

// TestStatusPageShared: the shared coordinator's status page shows both
// replicas healthy, and / and /status are the same page.
func TestStatusPageShared(t *testing.T) {
	base := "http://" + env.coord.HTTPAddr().String()
	page := httpGet(t, base+"/")
	for _, want := range []string{"<title>Shoal coordinator</title>", "2 of 2 replicas healthy", "replica1", "replica2", env.cluster.Replicas[0].MySQL} {
		if !strings.Contains(page, want) {
			t.Errorf("GET / lacks %q", want)
		}
	}
	if p := httpGet(t, base+"/status"); !strings.Contains(p, "2 of 2 replicas healthy") {
		t.Error("GET /status is not the status page")
	}
	// A pinned table is listed with its kind, rows and source.
	const pinDef = "SELECT Carrier, COUNT(*) AS flights FROM ontime.ontime GROUP BY Carrier"
	if _, err := env.shoal.Exec("CACHE TABLE ontime.status_page_pin AS " + pinDef); err != nil {
		t.Fatal(err)
	}
	page = httpGet(t, base+"/")
	if _, err := env.shoal.Exec("UNCACHE TABLE ontime.status_page_pin"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page, "<code>ontime.status_page_pin</code></td><td>query</td>") || !strings.Contains(page, "Carrier, COUNT(*) AS flights") {
		t.Error("the status page does not list the pinned table")
	}
	if page := httpGet(t, base+"/"); strings.Contains(page, "<code>ontime.status_page_pin</code>") || !strings.Contains(page, "No table is pinned") {
		t.Error("the status page still lists the unpinned table")
	}
	screenshot(t, base+"/", "status-idle.png")
}

// screenshot renders url with headless Chromium into name (in
// $SHOAL_SCREENSHOT_DIR when set, else the test's temporary directory) and
// checks it is a PNG of some substance. Skipped without Chromium
// (apt-get install chromium), recorded for scripts/test.sh's summary
// (recordSkip), except in CI, where deps.sh installs it and it fails.
func screenshot(t *testing.T, url, name string) {
	t.Helper()
	bin := ""
	for _, b := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(b); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("no chromium on PATH in CI: scripts/deps.sh installs it (apt-get install chromium)")
		}
		recordSkip(t, "status page screenshot "+name, "no chromium on PATH (apt-get install chromium)")
		return
	}
	dir := os.Getenv("SHOAL_SCREENSHOT_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	out := filepath.Join(dir, name)
	profile := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--hide-scrollbars", "--no-first-run", "--user-data-dir="+profile, "--window-size=1400,900",
		"--screenshot="+out, url)
	// Its own process group, killed whole: Chromium's helpers must not
	// outlive the test.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	outb, err := cmd.CombinedOutput()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // stray helpers, if any
	}
	if err != nil {
		t.Fatalf("%s --screenshot: %v\n%s", bin, err, outb)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("no screenshot: %v\n%s", err, outb)
	}
	if len(b) < 10_000 || string(b[1:4]) != "PNG" {
		t.Fatalf("screenshot %s: %d bytes, not a PNG of a page", out, len(b))
	}
	t.Logf("screenshot of %s: %s (%d bytes)", url, out, len(b))
}

// TestWorkerMetricsE2E scrapes every worker's /metrics around distributed
// queries: the fragments they ran and the rows they streamed add up to
// what the coordinator counted as completed and shipped.
func TestWorkerMetricsE2E(t *testing.T) {
	var servers []*httptest.Server
	for _, w := range env.workers {
		hs := httptest.NewServer(w.HTTPHandler())
		defer hs.Close()
		servers = append(servers, hs)
	}
	sum := func(name string) float64 {
		t.Helper()
		total := 0.0
		for _, hs := range servers {
			total += scrapeURL(t, hs.URL+"/metrics").get(name)
		}
		return total
	}
	names := []string{
		`shoal_worker_fragments_total{outcome="ok"}`, "shoal_worker_rows_streamed_total",
		"shoal_worker_bytes_streamed_total", "shoal_worker_fragment_duration_seconds_count",
	}
	before := map[string]float64{}
	for _, n := range names {
		before[n] = sum(n)
	}
	cBefore := scrape(t)
	for _, q := range []string{
		"select Carrier, count(*), sum(Distance) from ontime group by Carrier",
		"select Origin, Dest, max(ArrDelayMinutes) from ontime group by Origin, Dest",
	} {
		if r, err := query(env.shoal, q); err != nil || r.err != nil {
			t.Fatalf("%s: %v %v", q, err, r)
		}
	}
	cAfter := scrape(t)
	// A worker counts a fragment when its stream has ended, a moment
	// after the coordinator has all of it.
	wantFrags := cAfter.get("shoal_fragments_total") - cBefore.get("shoal_fragments_total")
	wantRows := cAfter.get("shoal_rows_shipped_total") - cBefore.get("shoal_rows_shipped_total")
	var d map[string]float64
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		d = map[string]float64{}
		for _, n := range names {
			d[n] = sum(n) - before[n]
		}
		if d[names[0]] >= wantFrags || time.Now().After(deadline) {
			break
		}
	}
	if wantFrags < 2 || d[names[0]] != wantFrags {
		t.Errorf("workers ran %v fragments ok, the coordinator completed %v", d[names[0]], wantFrags)
	}
	if d[names[1]] != wantRows || wantRows == 0 {
		t.Errorf("workers streamed %v rows, the coordinator received %v", d[names[1]], wantRows)
	}
	if d[names[2]] <= 0 || d[names[3]] < wantFrags {
		t.Errorf("bytes streamed moved by %v, latency observations by %v", d[names[2]], d[names[3]])
	}
	for _, hs := range servers {
		m := scrapeURL(t, hs.URL+"/metrics")
		if m.get("shoal_worker_slots") != 2 || m.get("shoal_worker_active_fragments") != 0 {
			t.Errorf("%s: slots %v active %v, want 2 and 0", hs.URL, m.get("shoal_worker_slots"), m.get("shoal_worker_active_fragments"))
		}
		if body := httpGet(t, hs.URL+"/healthz"); !strings.Contains(body, `"healthy":true`) {
			t.Errorf("%s/healthz: %s", hs.URL, body)
		}
	}
}

// scrapeURL reads one Prometheus text exposition.
func scrapeURL(t *testing.T, url string) metricValues {
	t.Helper()
	out := metricValues{}
	for _, line := range strings.Split(httpGet(t, url), "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if v, err := strconv.ParseFloat(line[i+1:], 64); err == nil {
			out[line[:i]] = v
		}
	}
	return out
}

// colMeta describes a query's columns: name, type, nullability and
// decimal size, as a client sees them.
func colMeta(t *testing.T, db queryer, q string) []string {
	t.Helper()
	rows, err := db.QueryContext(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, ct := range cts {
		null, _ := ct.Nullable()
		p, s, _ := ct.DecimalSize()
		out = append(out, ct.Name()+" "+ct.DatabaseTypeName()+" null="+strconv.FormatBool(null)+" dec="+itoa(p)+","+itoa(s))
	}
	for rows.Next() {
	}
	return out
}

// TestInformationSchemaProcesslist: SELECT … FROM
// information_schema.PROCESSLIST through the coordinator lists the
// coordinator's sessions (the ids SHOW PROCESSLIST and KILL use, never a
// replica's threads) in MariaDB's columns, with WHERE, ORDER BY, LIMIT,
// column lists, aliases and aggregates working; a statement the in-memory
// engine cannot run over it fails with 1235 and the connection stays
// usable.
func TestInformationSchemaProcesslist(t *testing.T) {
	ctx := context.Background()
	conn, err := env.shoal.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	idle, err := env.shoal.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	me, other := connID(t, conn), connID(t, idle)

	const all = "SELECT * FROM information_schema.PROCESSLIST"
	got, want := colMeta(t, conn, all), colMeta(t, env.direct, all)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("columns through Shoal:\n%s\nMariaDB's:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	q := "SELECT ID, USER, COMMAND, INFO, STATE, DB, QUERY_ID > 0, TIME_MS >= 0 FROM information_schema.PROCESSLIST WHERE ID IN (" + itoa(me) + ", " + itoa(other) + ") ORDER BY ID DESC"
	r, err := queryArgs(conn, q)
	if err != nil || r.err != nil {
		t.Fatalf("%v %v", err, r)
	}
	wantRows := [][]string{
		{itoa(other), "root", "Sleep", "NULL", "", "ontime", "1", "1"},
		{itoa(me), "root", "Query", q, "executing", "ontime", "1", "1"},
	}
	if me > other {
		wantRows[0], wantRows[1] = wantRows[1], wantRows[0]
	}
	if strings.Join(r.cols, ",") != "ID,USER,COMMAND,INFO,STATE,DB,QUERY_ID > 0,TIME_MS >= 0" || len(r.rows) != 2 ||
		strings.Join(r.rows[0], "|") != strings.Join(wantRows[0], "|") || strings.Join(r.rows[1], "|") != strings.Join(wantRows[1], "|") {
		t.Errorf("rows %v %v, want %v", r.cols, r.rows, wantRows)
	}

	// Every session is the coordinator's: the same ids as SHOW PROCESSLIST.
	var ids []string
	for _, p := range processlist(t, conn, false) {
		ids = append(ids, itoa(p.id))
	}
	r, err = queryArgs(conn, "select p.id from information_schema.processlist as p order by p.id")
	if err != nil || r.err != nil {
		t.Fatalf("%v %v", err, r)
	}
	var got2 []string
	for _, row := range r.rows {
		got2 = append(got2, row[0])
	}
	if strings.Join(got2, ",") != strings.Join(ids, ",") {
		t.Errorf("information_schema ids %v, SHOW PROCESSLIST ids %v", got2, ids)
	}
	r, err = queryArgs(conn, "SELECT COMMAND, COUNT(*) FROM information_schema.PROCESSLIST WHERE USER = 'system user' OR COMMAND = 'Binlog Dump' GROUP BY COMMAND")
	if err != nil || r.err != nil || len(r.rows) != 0 {
		t.Errorf("replica threads listed: %v %v", err, r)
	}

	// Unqualified in information_schema, LIMIT.
	if _, err := conn.ExecContext(ctx, "USE information_schema"); err != nil {
		t.Fatal(err)
	}
	r, err = queryArgs(conn, "SELECT ID FROM PROCESSLIST WHERE ID = CONNECTION_ID() LIMIT 1")
	if err != nil || r.err != nil || len(r.rows) != 1 || r.rows[0][0] != itoa(me) {
		t.Errorf("unqualified: %v %+v %v", err, r, r.err)
	}
	if _, err := conn.ExecContext(ctx, "USE ontime"); err != nil {
		t.Fatal(err)
	}

	// A join cannot run in memory: a clear error, never the replica's list.
	r, err = queryArgs(conn, "SELECT p.ID FROM information_schema.PROCESSLIST p JOIN ontime o ON o.id = p.ID")
	if err != nil || r.err == nil || r.err.Number != 1235 || !strings.Contains(r.err.Message, "SHOW FULL PROCESSLIST") {
		t.Errorf("join over PROCESSLIST: %v %v", err, r)
	}
	// A wrong statement gets MariaDB's own error for it.
	r, err = queryArgs(conn, "SELECT NO_SUCH_COLUMN FROM information_schema.PROCESSLIST")
	if err != nil || r.err == nil || r.err.Number != 1054 {
		t.Errorf("unknown column: %v %v", err, r)
	}
	if connID(t, conn) != me {
		t.Error("connection unusable after the errors")
	}
}

// queriesJSON reads the coordinator's /status/queries.json.
type statusQueries struct {
	Running []statusQuery `json:"running"`
	Recent  []statusQuery `json:"recent"`
}

type statusQuery struct {
	QueryID   uint64 `json:"query_id"`
	Session   int64  `json:"session"`
	Statement string `json:"statement"`
	Errno     int    `json:"errno"`
	Plans     []struct {
		Lines []string `json:"lines"`
	} `json:"plans"`
	Attempts []struct {
		Worker  string  `json:"worker"`
		Outcome string  `json:"outcome"`
		StartMS float64 `json:"start_ms"`
		EndMS   float64 `json:"end_ms"`
		Rows    int64   `json:"rows"`
	} `json:"attempts"`
}

func (q statusQuery) outcomes() map[string]int {
	out := map[string]int{}
	for _, a := range q.Attempts {
		out[a.Worker+" "+a.Outcome]++
	}
	return out
}

func readStatusQueries(t *testing.T, url string) statusQueries {
	t.Helper()
	var sq statusQueries
	if err := json.Unmarshal([]byte(httpGet(t, url)), &sq); err != nil {
		t.Fatal(err)
	}
	return sq
}
