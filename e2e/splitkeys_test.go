package e2e

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shoaldb/shoal/config"
)

// splitKeyTable is a table of TestSplitKeys: created on the primary from
// ontime, then queried through Shoal and directly.
type splitKeyTable struct {
	name string
	ddl  string // CREATE TABLE ... (columns Carrier, Distance, ArrDelayMinutes at least)
	fill string // INSERT ... SELECT from ontime
	// key is a total order of the rows (ORDER BY), "" for none.
	key string
	// plan is what the first EXPLAIN line must contain; note, if set,
	// what some line must contain.
	plan, note string
	// minFragments and maxFragments bound the fragments of an aggregate.
	minFragments, maxFragments int
}

// splitKeyQuery is a query of TestSplitKeys; ordered: its ORDER BY is
// total, so the row order must match too.
type splitKeyQuery struct {
	q       string
	ordered bool
}

var splitKeyTables = []splitKeyTable{
	{
		name: "sk_nokey",
		ddl:  "(Carrier VARCHAR(10) NOT NULL, Origin CHAR(3) NOT NULL, Distance INT NOT NULL, ArrDelayMinutes INT NULL)",
		fill: "SELECT Carrier, Origin, Distance, ArrDelayMinutes FROM ontime.ontime WHERE id <= 20000",
		// Nothing to split on: one fragment would be the replica's own
		// plan behind a hop, so it passes through (no fragments).
		plan: "passthrough to one replica", note: "no primary key",
		minFragments: -1, maxFragments: -1,
	},
	{
		// No primary key, one UNIQUE index on NOT NULL columns: InnoDB
		// clusters the rows on it, and Shoal splits there.
		name: "sk_uniq", key: "u",
		ddl:  "(u INT NOT NULL, Carrier VARCHAR(10) NOT NULL, Origin CHAR(3) NOT NULL, Distance INT NOT NULL, ArrDelayMinutes INT NULL, UNIQUE KEY (u), KEY (Carrier))",
		fill: "SELECT id * 3, Carrier, Origin, Distance, ArrDelayMinutes FROM ontime.ontime",
		plan: "split ontime.sk_uniq on `sk_uniq`.`u`", minFragments: 4, maxFragments: 64,
	},
	{
		// Two such indexes: which one InnoDB clusters on is not read from
		// the catalog, so nothing is split.
		name: "sk_uniq2",
		ddl:  "(u INT NOT NULL, w INT NOT NULL, Carrier VARCHAR(10) NOT NULL, Distance INT NOT NULL, ArrDelayMinutes INT NULL, UNIQUE KEY (u), UNIQUE KEY (w))",
		fill: "SELECT id, -id, Carrier, Distance, ArrDelayMinutes FROM ontime.ontime WHERE id <= 20000",
		plan: "passthrough to one replica", note: "no primary key",
		minFragments: -1, maxFragments: -1,
	},
	{
		// A TIMESTAMP key is not cut (its literals follow the session's
		// time zone): passed through, and EXPLAIN says why.
		name: "sk_ts",
		ddl:  "(ts TIMESTAMP NOT NULL PRIMARY KEY, Carrier VARCHAR(10) NOT NULL, Distance INT NOT NULL, ArrDelayMinutes INT NULL)",
		fill: "SELECT TIMESTAMP '1990-01-01 00:00:00' + INTERVAL id * 997 SECOND, Carrier, Distance, ArrDelayMinutes FROM ontime.ontime WHERE id <= 20000",
		plan: "passthrough to one replica", note: "key column ts is a TIMESTAMP",
		minFragments: -1, maxFragments: -1,
	},
	{
		name: "sk_date", key: "d",
		ddl:  "(d DATE NOT NULL PRIMARY KEY, Carrier VARCHAR(10) NOT NULL, Distance INT NOT NULL, ArrDelayMinutes INT NULL)",
		fill: "SELECT DATE '1850-01-01' + INTERVAL id DAY, Carrier, Distance, ArrDelayMinutes FROM ontime.ontime",
		plan: "split ontime.sk_date on `sk_date`.`d` (date ranges)", minFragments: 4, maxFragments: 64,
	},
	{
		// Fractions of a second: keys between two whole-second bounds.
		name: "sk_datetime", key: "ts",
		ddl:  "(ts DATETIME(6) NOT NULL PRIMARY KEY, Carrier VARCHAR(10) NOT NULL, Distance INT NOT NULL, ArrDelayMinutes INT NULL)",
		fill: "SELECT TIMESTAMP '2020-02-28 12:00:00' + INTERVAL id * 1500100 MICROSECOND, Carrier, Distance, ArrDelayMinutes FROM ontime.ontime",
		plan: "split ontime.sk_datetime on `sk_datetime`.`ts` (datetime ranges)", minFragments: 4, maxFragments: 64,
	},
	{
		// Mixed case under a case-insensitive collation: byte order is
		// not the index's order.
		name: "sk_varchar", key: "k",
		ddl:  "(k VARCHAR(20) NOT NULL PRIMARY KEY, Carrier VARCHAR(10) NOT NULL, Distance INT NOT NULL, ArrDelayMinutes INT NULL) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci",
		fill: "SELECT CONCAT(IF(id % 2 = 1, LOWER(Carrier), Carrier), '-', id), Carrier, Distance, ArrDelayMinutes FROM ontime.ontime",
		plan: "split ontime.sk_varchar on key (`sk_varchar`.`k`) at sampled boundaries", minFragments: 4, maxFragments: 64,
	},
	{
		// A low-cardinality leading column: the ranges need the row
		// comparison on all three columns.
		name: "sk_composite", key: "Origin, FlightDate, id",
		ddl: "(Origin CHAR(3) NOT NULL, FlightDate DATE NOT NULL, id INT NOT NULL, Carrier VARCHAR(10) NOT NULL, Distance INT NOT NULL, ArrDelayMinutes INT NULL, " +
			"PRIMARY KEY (Origin, FlightDate, id))",
		fill:         "SELECT Origin, FlightDate, id, Carrier, Distance, ArrDelayMinutes FROM ontime.ontime",
		plan:         "split ontime.sk_composite on key (`sk_composite`.`Origin`, `sk_composite`.`FlightDate`, `sk_composite`.`id`) at sampled boundaries",
		minFragments: 4, maxFragments: 64,
	},
	{
		name: "sk_part", key: "id",
		ddl: "(id INT NOT NULL PRIMARY KEY, Carrier VARCHAR(10) NOT NULL, Distance INT NOT NULL, ArrDelayMinutes INT NULL) " +
			"PARTITION BY RANGE (id) (PARTITION p0 VALUES LESS THAN (15000), PARTITION p1 VALUES LESS THAN (40000), PARTITION p2 VALUES LESS THAN MAXVALUE)",
		fill: "SELECT id, Carrier, Distance, ArrDelayMinutes FROM ontime.ontime",
		plan: "split ontime.sk_part on `sk_part`.`id`, within each partition", minFragments: 3, maxFragments: 64,
	},
	{
		name: "sk_part_nokey",
		ddl: "(FlightDate DATE NOT NULL, Carrier VARCHAR(10) NOT NULL, Distance INT NOT NULL, ArrDelayMinutes INT NULL) " +
			"PARTITION BY HASH (MONTH(FlightDate)) PARTITIONS 4",
		fill: "SELECT FlightDate, Carrier, Distance, ArrDelayMinutes FROM ontime.ontime WHERE id <= 40000",
		plan: "one fragment per partition of ontime.sk_part_nokey", note: "one fragment per partition",
		minFragments: 4, maxFragments: 4,
	},
}

// TestSplitKeys creates tables with every kind of split key on the
// primary — none, a UNIQUE NOT NULL key instead of a primary key, DATE,
// DATETIME(6), VARCHAR, composite, RANGE partitioned, partitioned without
// a key — and requires every query to
// answer through Shoal as on the primary, with the split EXPLAIN names
// and as many fragments as it should have.
//
// Checked to fail without its protection: a key range bound with > instead
// of >= (rows on boundaries lost), DATETIME bounds rendered as the integer
// key rather than a date literal (every row in one fragment: checkBalance), and partition ranges that ignore the
// partition (each partition's rows read by every partition's fragments).
func TestSplitKeys(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	exec := func(q string) {
		t.Helper()
		if _, err := env.direct.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() {
		for _, tb := range splitKeyTables {
			if _, err := env.direct.Exec("DROP TABLE IF EXISTS ontime." + tb.name); err != nil {
				t.Errorf("drop %s: %v", tb.name, err)
			}
		}
		replicasCaughtUp(t)
		if err := env.coord.RefreshCatalog(context.Background()); err != nil {
			t.Errorf("refreshing the catalog: %v", err)
		}
	})
	for _, tb := range splitKeyTables {
		exec("DROP TABLE IF EXISTS ontime." + tb.name)
		exec("CREATE TABLE ontime." + tb.name + " " + tb.ddl)
		exec("INSERT INTO ontime." + tb.name + " " + tb.fill)
		exec("ANALYZE TABLE ontime." + tb.name) // row estimates, replicated
	}
	replicasCaughtUp(t)
	if err := env.coord.RefreshCatalog(ctx); err != nil {
		t.Fatal(err)
	}
	fragments := regexp.MustCompile(`^fragments: (\d+) over`)
	for _, tb := range splitKeyTables {
		t.Run(tb.name, func(t *testing.T) {
			agg := "SELECT Carrier, COUNT(*), SUM(ArrDelayMinutes), AVG(Distance), MAX(Distance) FROM " + tb.name + " GROUP BY Carrier"
			lines := strings.Split(explain(t, agg), "\n")
			if !strings.Contains(lines[0], tb.plan) {
				t.Errorf("EXPLAIN: first line %q, want %q", lines[0], tb.plan)
			}
			n := -1
			for _, l := range lines {
				if m := fragments.FindStringSubmatch(l); m != nil {
					n, _ = strconv.Atoi(m[1])
				}
			}
			if n < tb.minFragments || n > tb.maxFragments {
				t.Errorf("%d fragments, want %d to %d:\n%s", n, tb.minFragments, tb.maxFragments, strings.Join(lines, "\n"))
			}
			if tb.note != "" && !strings.Contains(strings.Join(lines, "\n"), tb.note) {
				t.Errorf("EXPLAIN does not say %q:\n%s", tb.note, strings.Join(lines, "\n"))
			}
			if tb.minFragments > 1 {
				checkBalance(t, "SELECT Distance FROM "+tb.name)
			}
			qs := []splitKeyQuery{
				{agg, false},
				{"SELECT COUNT(*), SUM(Distance), MIN(Distance), COUNT(ArrDelayMinutes) FROM " + tb.name, true},
				{"SELECT COUNT(DISTINCT Carrier), COUNT(*) FROM " + tb.name + " WHERE Distance > 300", true},
				{"SELECT * FROM " + tb.name, false}, // every row exactly once
				{"SELECT Carrier, Distance FROM " + tb.name + " WHERE ArrDelayMinutes > 60", false},
			}
			if tb.key != "" {
				lead, _, _ := strings.Cut(tb.key, ",")
				qs = append(qs,
					splitKeyQuery{"SELECT * FROM " + tb.name + " WHERE Distance > 1500 ORDER BY " + tb.key, true},
					splitKeyQuery{"SELECT * FROM " + tb.name + " ORDER BY " + tb.key + " DESC LIMIT 30", true},
					splitKeyQuery{"SELECT " + lead + ", Distance FROM " + tb.name + " ORDER BY Distance DESC, " + tb.key + " LIMIT 10 OFFSET 5", true},
				)
			}
			for _, c := range qs {
				if !strings.HasPrefix(explain(t, c.q), strings.Split(tb.plan, ",")[0]) {
					t.Errorf("%s is not split as the table is:\n%s", c.q, explain(t, c.q))
				}
				diff(t, c.q, c.ordered)
			}
		})
	}
}

// TestSplitNullableColumn: a configured split column that is a nullable
// DATE (split_columns) cuts the table by date, and its NULL keys are read
// by a range of their own. Pass nullable=false to the splits in
// coordinator.fragments and the rows with a NULL date are lost: this
// fails.
func TestSplitNullableColumn(t *testing.T) {
	checkLeaks(t)
	const table = "ontime.sk_nullsplit"
	for _, q := range []string{
		"DROP TABLE IF EXISTS " + table,
		"CREATE TABLE " + table + " (id INT NOT NULL PRIMARY KEY, d DATE NULL, Carrier VARCHAR(10) NOT NULL, Distance INT NOT NULL, KEY (d))",
		"INSERT INTO " + table + " SELECT id, IF(id % 10 = 0, NULL, FlightDate), Carrier, Distance FROM ontime.ontime",
		"ANALYZE TABLE " + table,
	} {
		if _, err := env.direct.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() {
		if _, err := env.direct.Exec("DROP TABLE IF EXISTS " + table); err != nil {
			t.Errorf("drop: %v", err)
		}
	})
	replicasCaughtUp(t)
	fs := startFaultShoal(t, func(c *config.Coordinator) { c.SplitColumns = map[string]string{table: "d"} })
	q0 := "SELECT COUNT(*), SUM(Distance), COUNT(d) FROM " + table
	if ex := explainText(t, fs.db, q0); !strings.Contains(ex, "split ontime.sk_nullsplit on `sk_nullsplit`.`d` (date ranges)") {
		t.Fatalf("not split on the configured date column:\n%s", ex)
	}
	for _, c := range []splitKeyQuery{
		{q0, true},
		{"SELECT Carrier, COUNT(*), SUM(Distance) FROM " + table + " WHERE d IS NULL OR Distance > 1000 GROUP BY Carrier", false},
		{"SELECT id, d FROM " + table, false},
	} {
		got, err := query(fs.db, c.q)
		if err != nil {
			t.Fatalf("shoal: %s: %v", c.q, err)
		}
		want, err := query(env.direct, c.q)
		if err != nil {
			t.Fatalf("direct: %s: %v", c.q, err)
		}
		compare(t, c.q, got, want, c.ordered)
	}
}

// fragmentRowsRE reads the rows of one fragment from EXPLAIN ANALYZE.
var fragmentRowsRE = regexp.MustCompile(`^fragment \d+ .*: worker .*, (\d+) rows, \d+ bytes`)

// checkBalance runs the row query q with EXPLAIN ANALYZE and requires no
// fragment to read more than half the rows: the table is really cut, not
// read by one fragment while the others read nothing.
func checkBalance(t *testing.T, q string) {
	t.Helper()
	r, err := query(env.shoal, "EXPLAIN ANALYZE "+q)
	if err != nil || r.err != nil {
		t.Fatalf("EXPLAIN ANALYZE %s: %v %v", q, err, r.err)
	}
	var rows []int
	total, most := 0, 0
	for _, row := range r.rows {
		if m := fragmentRowsRE.FindStringSubmatch(row[0]); m != nil {
			n, _ := strconv.Atoi(m[1])
			rows = append(rows, n)
			total += n
			most = max(most, n)
		}
	}
	if len(rows) < 2 || 2*most > total {
		t.Errorf("%s: fragment rows %v: one fragment reads more than half of %d", q, rows, total)
	}
}
