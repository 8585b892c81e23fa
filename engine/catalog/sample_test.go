package catalog

import (
	"context"
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"vitess.io/vitess/go/mysql/sqlerror"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/planner"
	"github.com/shoaldb/shoal/pushdown"
	"github.com/shoaldb/shoal/replica"
	"github.com/shoaldb/shoal/sqlparse"
)

func TestProbeSQL(t *testing.T) {
	tb := &planner.Table{Schema: "ontime", Name: "on`time", SplitColumn: "id"}
	got := probeSQL(tb, "PRIMARY", [][2]int64{{1, 100}, {100, 250}})
	want := "EXPLAIN SELECT 1 FROM `ontime`.`on``time` FORCE INDEX (`PRIMARY`) WHERE `id` >= 1 AND `id` < 100" +
		" UNION ALL SELECT 1 FROM `ontime`.`on``time` FORCE INDEX (`PRIMARY`) WHERE `id` >= 100 AND `id` < 250"
	if got != want {
		t.Fatalf("probeSQL:\n got %s\nwant %s", got, want)
	}
	// It must parse as one statement (the EXPLAIN of a UNION ALL).
	if _, err := sqlparse.ParseOne(got[len("EXPLAIN "):]); err != nil {
		t.Errorf("probe SQL does not parse: %v", err)
	}
}

func explainResult(cols []string, rows ...[]string) *sqltypes.Result {
	r := &sqltypes.Result{}
	for _, c := range cols {
		r.Fields = append(r.Fields, &querypb.Field{Name: c, Type: sqltypes.VarChar})
	}
	for _, row := range rows {
		var vs []sqltypes.Value
		for _, v := range row {
			if v == "NULL" {
				vs = append(vs, sqltypes.NULL)
			} else {
				vs = append(vs, sqltypes.NewVarChar(v))
			}
		}
		r.Rows = append(r.Rows, vs)
	}
	return r
}

func TestParseProbe(t *testing.T) {
	maria := []string{"id", "select_type", "table", "type", "possible_keys", "key", "key_len", "ref", "rows", "Extra"}
	r := explainResult(maria,
		[]string{"1", "PRIMARY", "t", "range", "PRIMARY", "PRIMARY", "4", "NULL", "223546", "Using where"},
		[]string{"2", "UNION", "t", "range", "PRIMARY", "PRIMARY", "4", "NULL", "0", "Using where"},
		[]string{"3", "UNION", "t", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "Impossible WHERE"},
	)
	got, err := parseProbe(r, 3)
	if err != nil || !slices.Equal(got, []float64{223546, 0, 0}) {
		t.Errorf("MariaDB EXPLAIN: %v, %v", got, err)
	}
	mysql := []string{"id", "select_type", "table", "partitions", "type", "possible_keys", "key", "key_len", "ref", "rows", "filtered", "Extra"}
	r = explainResult(mysql,
		[]string{"2", "UNION", "t", "NULL", "range", "PRIMARY", "PRIMARY", "4", "NULL", "7", "100.00", "Using where"},
		[]string{"1", "PRIMARY", "t", "NULL", "range", "PRIMARY", "PRIMARY", "4", "NULL", "5", "100.00", "Using where"},
		[]string{"NULL", "UNION RESULT", "<union1,2>", "NULL", "ALL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "Using temporary"},
	)
	got, err = parseProbe(r, 2)
	if err != nil || !slices.Equal(got, []float64{5, 7}) {
		t.Errorf("MySQL EXPLAIN: %v, %v", got, err)
	}
	if _, err := parseProbe(r, 3); err == nil {
		t.Error("a missing interval must be an error")
	}
	if _, err := parseProbe(explainResult([]string{"id", "x"}, []string{"1", "2"}), 1); err == nil {
		t.Error("no rows column must be an error")
	}
}

func TestSampleReusable(t *testing.T) {
	now := time.Now()
	old := &tableSample{splitCol: "id", min: 1, max: 1_000_000, rows: 500_000, fragments: 16, at: now.Add(-time.Minute)}
	tb := func(min, max, rows int64) *planner.Table {
		return &planner.Table{SplitColumn: "id", Min: min, Max: max, Rows: rows}
	}
	cases := []struct {
		name      string
		t         *planner.Table
		fragments int
		now       time.Time
		want      bool
	}{
		{"unchanged", tb(1, 1_000_000, 500_000), 16, now, true},
		{"a few new rows", tb(1, 1_010_000, 505_000), 16, now, true},
		{"many new rows", tb(1, 1_200_000, 600_000), 16, now, false},
		{"rows deleted", tb(1, 1_000_000, 400_000), 16, now, false},
		{"more fragments", tb(1, 1_000_000, 500_000), 64, now, false},
		{"fewer fragments", tb(1, 1_000_000, 500_000), 8, now, true},
		{"old", tb(1, 1_000_000, 500_000), 16, now.Add(maxSampleAge), false},
		{"new split column", &planner.Table{SplitColumn: "k", Min: 1, Max: 1_000_000, Rows: 500_000}, 16, now, false},
	}
	for _, c := range cases {
		if got := old.reusable(c.t, c.fragments, c.now); got != c.want {
			t.Errorf("%s: reusable = %v", c.name, got)
		}
	}
	var none *tableSample
	if none.reusable(tb(1, 2, 3), 1, now) {
		t.Error("nil sample reusable")
	}
}

func TestConnLost(t *testing.T) {
	if !connLost(sqlerror.NewSQLError(2013, "HY000", "lost")) {
		t.Error("2013 is a lost connection")
	}
	if connLost(sqlerror.NewSQLError(1054, "42S22", "unknown column")) || connLost(errors.New("no index")) {
		t.Error("server and sampling errors keep the connection")
	}
}

// TestSampleLive samples a real table and reports the cost and the balance
// of 16 ranges cut at its quantiles against 16 of equal key width. Opt in:
// SHOAL_SAMPLE_ADDR=host:port of a replica holding ontime.ontime (shoal
// local up), e.g. to check the cost on a large table.
func TestSampleLive(t *testing.T) {
	addr := os.Getenv("SHOAL_SAMPLE_ADDR")
	if addr == "" {
		t.Skip("SHOAL_SAMPLE_ADDR not set")
	}
	ctx := context.Background()
	b, err := replica.Dial(ctx, addr, "root", "", "ontime")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	snap, err := loadSnapshot(ctx, b, nil, 10000)
	if err != nil {
		t.Fatal(err)
	}
	tb, _ := snap.Tables.Table("ontime", "ontime")
	for _, n := range []int{16, 64} {
		ts, err := sampleTable(b, tb, pushdown.OptionsFor(n))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("sized for %d fragments: %d intervals, %d probes, %s", n, len(ts.sample.Rows), ts.probes, ts.took)
		for name, rs := range map[string][]pushdown.Range{
			"key width": pushdown.Split(tb.Min, tb.Max, n, false),
			"sample":    pushdown.SplitSample(ts.sample, n, false),
		} {
			var sel []string
			for _, r := range rs {
				sel = append(sel, "SUM("+pushdown.Predicate("`id`", r)+")")
			}
			res, err := b.Fetch("SELECT "+strings.Join(sel, ", ")+" FROM ontime", 1)
			if err != nil {
				t.Fatal(err)
			}
			var counts []int64
			for _, v := range res.Rows[0] {
				n, _ := strconv.ParseInt(v.ToString(), 10, 64)
				counts = append(counts, n)
			}
			sorted := slices.Sorted(slices.Values(counts))
			t.Logf("  %d ranges by %s: rows max/median %.2f, max/min %.2f", len(rs), name,
				float64(sorted[len(sorted)-1])/float64(sorted[len(sorted)/2]), float64(sorted[len(sorted)-1])/float64(max(sorted[0], 1)))
		}
	}
}
