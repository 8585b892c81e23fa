package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/shoaldb/shoal/config"
)

// routedCoordinator starts a coordinator that routes by cost (the
// defaults), over the shared cluster.
func routedCoordinator(t testing.TB, mod func(*config.Coordinator)) *sql.DB {
	t.Helper()
	cfg := config.Coordinator{Listen: "127.0.0.1:0", Replicas: env.replicas, MinRowsPerFragment: 1000}
	if mod != nil {
		mod(&cfg)
	}
	_, db := serveCoordinator(t, cfg, nil)
	db.SetMaxOpenConns(1) // one session: its replica, its statements
	return db
}

// diffOn runs q on db and on the primary and compares the answers.
func diffOn(t *testing.T, db *sql.DB, q string, ordered bool) {
	t.Helper()
	got, err := query(db, q)
	if err != nil {
		t.Fatalf("shoal: %s: %v", q, err)
	}
	want, err := query(env.direct, q)
	if err != nil {
		t.Fatalf("direct: %s: %v", q, err)
	}
	compare(t, q, got, want, ordered)
}

// Small statements run on one replica; EXPLAIN says why, with the
// estimate and the threshold. Scans still distribute.
func TestRouteByCost(t *testing.T) {
	db := routedCoordinator(t, nil)
	for _, tc := range []struct{ q, want string }{
		// The sample data's keys have gaps: the key sample may estimate
		// fewer rows than the keys listed.
		{"select * from ontime where id = 1517", "passthrough to one replica: routed by cost: ~"},
		{"select * from ontime where id = 1500 + 0*17", "[1500, 1500]"},
		{"select * from ontime where id = CAST('7' AS SIGNED)", "[7, 7]"},
		{"select * from ontime where id = 10 + 5", "[15, 15]"},
		{"select * from ontime where id in (20, 300000)", "~2 rows (2 key(s) of the primary key) <= route_small_rows 20000"},
		{"select count(*) from ontime where id = 7.5", "the WHERE clause matches no key"},
		{"select id, Carrier, ArrDelayMinutes from ontime where id between 1000 and 1199", "[1000, 1199] over the key sample) <= route_small_rows 20000"},
		{"select Carrier, sum(Distance) from ontime group by Carrier", "route: distributed, ~"},
		// MariaDB reads the Carrier index alone: narrower than the table
		// the fragments would scan on the primary key.
		{"select Carrier, count(*) from ontime group by Carrier order by 2 desc limit 5", "reads the covering index Carrier alone"},
		// MIN/MAX over an indexed column: one dive at each end of the
		// index, where fragments would scan the table.
		{"select max(FlightDate), min(FlightDate) from ontime", "answers from the ends of an index"},
		{"select min(Carrier) from ontime where Carrier > 'Z'", "answers from the ends of an index"},
		// Exports return every row they read: the replica streams them.
		{"select id, Carrier, Origin, Dest, Distance from ontime where id >= 3", "an export: every one of ~"},
		{"select * from ontime", "an export: every one of ~"},
		// A filter on another column may keep few rows; a LIMIT cuts.
		{"select id, Carrier from ontime where id >= 3 and Distance > 4000", "route: distributed, ~"},
		{"select id, Carrier from ontime where id >= 3 order by Distance desc limit 10", "route: distributed, ~"},
	} {
		if got := explainOn(t, db, tc.q); !strings.Contains(got, tc.want) {
			t.Errorf("EXPLAIN %s:\n%s\nwant %q", tc.q, got, tc.want)
		}
	}
	// The answers are the replica's, for any literal.
	for k := 1; k <= 40; k++ {
		id := (k * 1543) % int(env.rows)
		diffOn(t, db, fmt.Sprintf("select * from ontime where id = %d", id), true)
		diffOn(t, db, fmt.Sprintf("select * from ontime where id = %d + 0*%d", id, k), true)
		diffOn(t, db, fmt.Sprintf("select id, Carrier from ontime where id between %d and %d + 150 order by id", id, id), true)
		diffOn(t, db, fmt.Sprintf("select count(*), sum(Distance) from ontime where id in (%d, %d, '%dabc')", id, id+7, id+9), true)
	}
	for _, q := range []string{
		"select * from ontime where id = 7.5",
		"select * from ontime where id = '7.5'",
		"select * from ontime where id = '7abc'",
		"select * from ontime where id = ' 7'",
		"select * from ontime where id = NULL",
		"select count(*) from ontime where id >= 7.5 and id <= 20.5",
		"select Carrier, count(*) from ontime where YearD = 2005 group by Carrier",
		"select Carrier, count(*) from ontime group by Carrier order by 2 desc, 1 limit 5",
		"select max(FlightDate), min(FlightDate), max(Carrier) from ontime",
		"select min(Carrier) from ontime where Carrier > 'Z'",
		"select id, Carrier, Origin, Dest, Distance from ontime where id >= 3",
	} {
		diffOn(t, db, q, false)
	}
	// route_covering_scans false: the covering scan distributes again.
	noCover := false
	dist := routedCoordinator(t, func(c *config.Coordinator) { c.RouteCoveringScans = &noCover })
	if got := explainOn(t, dist, "select Carrier, count(*) from ontime group by Carrier order by 2 desc limit 5"); strings.Contains(got, "passthrough") {
		t.Errorf("route_covering_scans false:\n%s", got)
	}
	// route_row_exports false: exports distribute again.
	noExport := false
	exp := routedCoordinator(t, func(c *config.Coordinator) { c.RouteRowExports = &noExport })
	if got := explainOn(t, exp, "select * from ontime"); strings.Contains(got, "passthrough") {
		t.Errorf("route_row_exports false:\n%s", got)
	}
	// route_small_rows -1: a point lookup is one fragment again.
	off := routedCoordinator(t, func(c *config.Coordinator) { c.RouteSmallRows = -1 })
	if got := explainOn(t, off, "select * from ontime where id = 1500 + 0*17"); !strings.Contains(got, "ranges cut within [1500, 1500]") || strings.Contains(got, "passthrough") {
		t.Errorf("route_small_rows -1:\n%s", got)
	}
}

// Statements of one shape with new literals reuse the first one's result
// columns (no LIMIT 0 describe round trip) and answer as the primary does:
// key windows, LIMIT counts, ORDER BY positions and literal types bound
// from each statement's own text.
//
// The statements go to a coordinator of their own, set as the shared one
// (distributing what it can), that reads the catalog once: on the shared
// one, a catalog refresh that sees another test's
// table appear or double (catalog.Snapshot.Follow) starts a new generation
// mid-loop, and each shape then misses once more (CI saw 30 hits for 33).
func TestShapeCacheNewLiterals(t *testing.T) {
	co, db := serveCoordinator(t, config.Coordinator{Listen: "127.0.0.1:0", HTTPListen: new("127.0.0.1:0"), Replicas: env.replicas,
		MinRowsPerFragment: 1000, CatalogRefreshInterval: config.Duration(time.Hour), RouteSmallRows: -1, RouteBusyStatements: -1}, nil)
	db.SetMaxOpenConns(1)
	hits := `shoal_shape_cache_hits_total`
	before := scrapeAt(t, co.HTTPAddr()).get(hits)
	n := 0
	for k := 0; k < 12; k++ {
		diffOn(t, db, fmt.Sprintf("select Carrier, count(*), sum(Distance) from ontime where YearD = %d and Origin <> 'ZZZ' group by Carrier order by 2 desc, 1 limit %d", 1995+k, 1+k%4), true)
		lo := 1 + k*4099
		diffOn(t, db, fmt.Sprintf("select id, Carrier, Distance from ontime where id between %d and %d order by id limit %d", lo, lo+3000, 5+k), true)
		diffOn(t, db, fmt.Sprintf("select id, Carrier from ontime where id >= %d and DayOfWeek = %d", lo, 1+k%7), false)
		n += 3
	}
	if got := scrapeAt(t, co.HTTPAddr()).get(hits) - before; got < float64(n-3) {
		t.Errorf("shape cache hits %v for %d statements of 3 shapes, want at least %d", got, n, n-3)
	}
	// Same digest but for the literals' values, or a different digest:
	// each answers as the primary does.
	for _, q := range []string{
		"select count(*) from ontime where Carrier = 'AA'",
		"select count(*) from ontime where Carrier = 0",
		"select count(*) from ontime where Carrier = '0'",
		"select Carrier, count(*) from ontime where YearD > 2000 group by Carrier order by 1",
		"select Carrier, count(*) from ontime where YearD > 2001 group by Carrier order by 2, 1",
		"select id + 1 from ontime where id < 100 order by 1",
		"select id + 1.5 from ontime where id < 100 order by 1",
		"select id, 'a' as s from ontime where id < 100 order by 1",
		"select id, 'abcdef' as s from ontime where id < 120 order by 1",
		"select Carrier, count(*) from ontime where Distance > 500 group by Carrier having count(*) > 10 order by 1",
		"select Carrier, count(*) from ontime where Distance > 500.5 group by Carrier having count(*) > 10.5 order by 1",
		"select Carrier, count(*) from ontime where Distance > '700' group by Carrier order by 1",
		"select id, Distance from ontime where id between 100 and 90000 order by Distance desc, id limit 3",
		"select id, Distance from ontime where id between 7.5 and 40000.5 order by Distance desc, id limit 4",
		"select id, Distance from ontime where id = 7.5",
		"select id, Distance from ontime where id = NULL",
	} {
		diffOn(t, db, q, true)
	}
}

// A point lookup by a new key, or a short key window, passes through by
// its shape, unparsed.
func TestShapeCachePointLookups(t *testing.T) {
	db := routedCoordinator(t, nil)
	for k := 0; k < 30; k++ {
		id := 1 + (k*7919)%int(env.rows)
		diffOn(t, db, fmt.Sprintf("select * from ontime where id = %d", id), true)
		diffOn(t, db, fmt.Sprintf("select id, Carrier from ontime where id = %d + 0*%d", id, k), true)
		diffOn(t, db, fmt.Sprintf("select id, Carrier from ontime where id in (%d, %d) order by id", id, id+11), true)
		diffOn(t, db, fmt.Sprintf("select id, Carrier from ontime where id = '%d'", id), true)
		// A short window passes by its shape; a wide one of the same
		// shape is planned (and distributed) again.
		diffOn(t, db, fmt.Sprintf("select id, Carrier from ontime where id between %d and %d order by id", id, id+150), true)
		diffOn(t, db, fmt.Sprintf("select count(*), sum(Distance) from ontime where id between %d and %d", id, id+150+k*40000), true)
	}
	// A shape learnt from one literal type does not answer for another.
	diffOn(t, db, "select id from ontime where id = '7.5'", true)
	diffOn(t, db, "select id from ontime where id = 7.5", true)
	if got := explainOn(t, db, "select * from ontime where id = 99999"); !strings.Contains(got, "routed by cost") {
		t.Errorf("EXPLAIN of a point lookup:\n%s", got)
	}
}

// Passthrough sessions spread over the replicas, and each keeps its own
// session state: a session's SET and user variables are on its own
// replica connection only, and a new session after it has closed starts
// clean (its connection is a new one with only its own SETs replayed).
func TestPassthroughSpreadsSessions(t *testing.T) {
	cfg := config.Coordinator{Listen: "127.0.0.1:0", Replicas: env.replicas, MinRowsPerFragment: 1000}
	co, db := serveCoordinator(t, cfg, nil)
	const n = 6
	db.SetMaxOpenConns(n)
	ctx := context.Background()
	ports := map[string]int{}
	var conns []*sql.Conn
	for i := 0; i < n; i++ {
		c, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		// select @@port has no FROM clause: it passes through.
		var port string
		if err := c.QueryRowContext(ctx, "select @@port").Scan(&port); err != nil {
			t.Fatal(err)
		}
		ports[port]++
		if _, err := c.ExecContext(ctx, fmt.Sprintf("SET @who = %d", i)); err != nil {
			t.Fatal(err)
		}
		if _, err := c.ExecContext(ctx, "SET SESSION sql_mode = 'ANSI_QUOTES'"); err != nil {
			t.Fatal(err)
		}
	}
	if len(ports) != len(env.replicas) {
		t.Errorf("%d sessions went to replicas %v: want them spread over all %d", n, ports, len(env.replicas))
	}
	for port, k := range ports {
		if k != n/len(env.replicas) {
			t.Errorf("replica on port %s got %d of %d sessions (%v): want an even spread", port, k, n, ports)
		}
	}
	if got := co.PassthroughSessions(); fmt.Sprint(got) != fmt.Sprint([]int64{n / 2, n / 2}) {
		t.Errorf("open session connections per replica %v, want %d each", got, n/2)
	}
	for i, c := range conns {
		var who int
		var mode string
		if err := c.QueryRowContext(ctx, "select @who, @@sql_mode").Scan(&who, &mode); err != nil {
			t.Fatal(err)
		}
		if who != i || mode != "ANSI_QUOTES" {
			t.Errorf("session %d sees @who = %d, sql_mode %q: want its own %d, ANSI_QUOTES", i, who, mode, i)
		}
		c.Close()
	}
	// The sessions are gone; their SETs and variables with them.
	db.SetMaxIdleConns(0) // close the pool's idle connections: new sessions next
	db.SetMaxIdleConns(n)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		got := co.PassthroughSessions()
		if got[0]+got[1] == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("session connections still open per replica after the sessions closed: %v", got)
		}
	}
	for i := 0; i < n; i++ {
		c, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var who sql.NullInt64
		var mode string
		if err := c.QueryRowContext(ctx, "select @who, @@sql_mode").Scan(&who, &mode); err != nil {
			t.Fatal(err)
		}
		if who.Valid || mode == "ANSI_QUOTES" {
			t.Errorf("new session %d sees @who = %v, sql_mode %q: state of a closed session", i, who, mode)
		}
		defer c.Close()
	}
}

// TestRouteBusy: with as many distributed statements running as
// route_busy_statements (here 1), a statement planned for distribution
// runs on its session's replica instead (schedule.Scheduler.Busy), and answers as
// MariaDB does either way. Six sessions send the same aggregate at once
// until shoal_routed_busy_total shows one routed that way; alone, the
// statement is distributed again.
func TestRouteBusy(t *testing.T) {
	co, db := serveCoordinator(t, config.Coordinator{Listen: "127.0.0.1:0", HTTPListen: new("127.0.0.1:0"),
		Replicas: env.replicas, MinRowsPerFragment: 1000, RouteSmallRows: -1, RouteBusyStatements: 1}, nil)
	const q = "select DayOfWeek, count(*), sum(Distance), avg(ArrDelayMinutes) from ontime group by DayOfWeek order by DayOfWeek"
	want, err := query(env.direct, q)
	if err != nil || want.err != nil {
		t.Fatalf("direct: %v %v", err, want)
	}
	const sessions = 6
	db.SetMaxOpenConns(sessions)
	routed := func() float64 { return scrapeAt(t, co.HTTPAddr()).get("shoal_routed_busy_total") }
	for round := 0; routed() == 0; round++ {
		if round == 20 {
			t.Fatalf("%d sessions sent %s at once %d times and none was routed by load", sessions, q, round)
		}
		var g errgroup.Group
		for range sessions {
			g.Go(func() error {
				got, err := query(db, q)
				if err != nil {
					return err
				}
				if got.err != nil || !equalRows(got.rows, want.rows) {
					return fmt.Errorf("%s: got %v %v, want %v", q, got.err, head(got.rows), head(want.rows))
				}
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	before := routed()
	db.SetMaxOpenConns(1)
	if plan := explainOn(t, db, q); !strings.HasPrefix(plan, "split ") {
		t.Fatalf("alone, %s is not distributed:\n%s", q, plan)
	}
	diffOn(t, db, q, true)
	if d := routed() - before; d != 0 {
		t.Errorf("a statement alone was routed by load (%v)", d)
	}
}

// TestRoutingFollowsTableGrowth: a statement routed to one replica while
// its table was nearly empty is distributed once the table has grown and
// the catalog has been read again — the cached decision and the shape's
// estimate belong to a plan generation, which a table's size moving by
// more than a factor of two now changes (catalog.Snapshot.Follow).
func TestRoutingFollowsTableGrowth(t *testing.T) {
	for _, q := range []string{"DROP TABLE IF EXISTS route_grow",
		"CREATE TABLE route_grow (id INT NOT NULL PRIMARY KEY, code VARCHAR(10) NOT NULL, n INT NOT NULL)",
		"INSERT INTO route_grow VALUES (1, 'abc1', 1), (2, 'abd2', 2)"} {
		if _, err := env.direct.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() { env.direct.Exec("DROP TABLE IF EXISTS route_grow") })
	replicasCaughtUp(t)
	c, db := serveCoordinator(t, config.Coordinator{Listen: "127.0.0.1:0", Replicas: env.replicas, MinRowsPerFragment: 1000}, nil)
	db.SetMaxOpenConns(1)
	plan := func() string {
		t.Helper()
		r, err := query(db, "EXPLAIN "+routeGrowQuery)
		if err != nil || r.err != nil || len(r.rows) == 0 {
			t.Fatalf("EXPLAIN: %v %v", err, r.err)
		}
		return r.rows[0][0]
	}
	if ex := plan(); !strings.HasPrefix(ex, "passthrough") {
		t.Fatalf("over 2 rows the statement should run on one replica: %q", ex)
	}
	diffOn(t, db, routeGrowQuery, true)
	fill := "INSERT INTO route_grow WITH RECURSIVE s(i) AS (SELECT 3 UNION ALL SELECT i + 1 FROM s WHERE i < 120000) " +
		"SELECT i, CONCAT(CHAR(97 + i % 5), 'b', CHAR(99 + i % 3), i % 10), i % 7 FROM s"
	for _, q := range []string{"SET STATEMENT max_recursive_iterations = 200000 FOR " + fill, "ANALYZE TABLE route_grow"} {
		if _, err := env.direct.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	replicasCaughtUp(t)
	if err := c.RefreshCatalog(t.Context()); err != nil {
		t.Fatal(err)
	}
	if ex := plan(); strings.HasPrefix(ex, "passthrough") {
		t.Fatalf("over 120,000 rows the statement still runs on one replica, as decided over 2: %q", ex)
	}
	diffOn(t, db, routeGrowQuery, true)
}

const routeGrowQuery = "select left(code, 3) p, count(*), sum(n) from route_grow group by p"

// A catalog refresh that sees other tables appear, change or grow keeps
// the cached plans of the statements that do not read them; a change to
// a table a statement reads makes it planned and described again, and it
// answers with the table's new columns.
func TestPlansOutliveOtherTables(t *testing.T) {
	for _, q := range []string{"DROP TABLE IF EXISTS plan_keep, plan_other",
		"CREATE TABLE plan_keep (id INT NOT NULL PRIMARY KEY, n INT NOT NULL)",
		"CREATE TABLE plan_other (id INT NOT NULL PRIMARY KEY, n INT NOT NULL)",
		"INSERT INTO plan_keep VALUES (1, 10), (2, 20), (3, 30)",
		"INSERT INTO plan_other VALUES (1, 1)"} {
		if _, err := env.direct.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() { env.direct.Exec("DROP TABLE IF EXISTS plan_keep, plan_other, plan_new") })
	replicasCaughtUp(t)
	co, db := serveCoordinator(t, config.Coordinator{Listen: "127.0.0.1:0", HTTPListen: new("127.0.0.1:0"), Replicas: env.replicas,
		MinRowsPerFragment: 1000, CatalogRefreshInterval: config.Duration(time.Hour), RouteSmallRows: -1, RouteBusyStatements: -1}, nil)
	db.SetMaxOpenConns(1)
	const keep = "select * from plan_keep order by id"
	const agg = "select count(*), sum(Distance) from ontime where id > 100"
	misses := func() float64 { return scrapeAt(t, co.HTTPAddr()).get("shoal_plan_cache_misses_total") }
	diffOn(t, db, keep, true)
	diffOn(t, db, agg, true)
	for _, change := range []string{
		"CREATE TABLE plan_new (id INT NOT NULL PRIMARY KEY)",
		"ALTER TABLE plan_other ADD COLUMN x INT NOT NULL DEFAULT 7",
		"DROP TABLE plan_other",
	} {
		if _, err := env.direct.Exec(change); err != nil {
			t.Fatalf("%s: %v", change, err)
		}
		replicasCaughtUp(t)
		if err := co.RefreshCatalog(t.Context()); err != nil {
			t.Fatal(err)
		}
		before := misses()
		diffOn(t, db, keep, true)
		diffOn(t, db, agg, true)
		if got := misses() - before; got != 0 {
			t.Errorf("after %q: %v statements over other tables planned again, want 0", change, got)
		}
	}
	if _, err := env.direct.Exec("ALTER TABLE plan_keep ADD COLUMN s VARCHAR(5) NOT NULL DEFAULT 'new'"); err != nil {
		t.Fatal(err)
	}
	replicasCaughtUp(t)
	if err := co.RefreshCatalog(t.Context()); err != nil {
		t.Fatal(err)
	}
	before := misses()
	diffOn(t, db, keep, true) // three columns now
	diffOn(t, db, agg, true)
	if got := misses() - before; got != 1 {
		t.Errorf("after plan_keep changed: %v statements planned again, want 1 (the one over plan_keep)", got)
	}
}
