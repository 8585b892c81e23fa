package pinstore

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/sqlparse"
)

func TestPinOptions(t *testing.T) {
	for _, c := range []struct {
		in   string
		want map[string]string
		bad  bool
	}{
		{"", map[string]string{}, false},
		{"'refresh' = 'live'", map[string]string{"refresh": "live"}, false},
		{" 'Refresh'='live' , 'x' = 'it''s' ", map[string]string{"refresh": "live", "x": "it's"}, false},
		{"refresh = live", map[string]string{"refresh": "live"}, false},
		{"'refresh' 'live'", nil, true},
		{"'a' = 'b' 'c' = 'd'", nil, true},
	} {
		got, err := PinOptions(c.in)
		if (err != nil) != c.bad || (!c.bad && !maps.Equal(got, c.want)) {
			t.Errorf("PinOptions(%q) = %v, %v", c.in, got, err)
		}
	}
}

func TestLiveOptions(t *testing.T) {
	withPrimary := config.Coordinator{Primary: "127.0.0.1:3306"}
	followsPrimary := config.Coordinator{Primary: "127.0.0.1:3306", LiveFollow: config.LiveFollowPrimary}
	for _, c := range []struct {
		cfg           config.Coordinator
		opts          string
		live, primary bool
		bad           string // part of the error, "" for none
	}{
		{opts: "'refresh' = 'LIVE'", live: true},
		{opts: ""},
		{opts: "'refresh' = 'hourly'", bad: "the one value known is 'live'"},
		{opts: "'ttl' = '1'", bad: "Unknown CACHE TABLE option 'ttl'"},
		{cfg: withPrimary, opts: "'refresh' = 'live', 'follow' = 'Primary'", live: true, primary: true},
		{cfg: withPrimary, opts: "'refresh' = 'live', 'follow' = 'replica'", live: true},
		{cfg: withPrimary, opts: "'refresh' = 'live'", live: true},
		{cfg: followsPrimary, opts: "'refresh' = 'live'", live: true, primary: true},
		{cfg: followsPrimary, opts: "'refresh' = 'live', 'follow' = 'replica'", live: true},
		{cfg: followsPrimary, opts: ""},
		{opts: "'refresh' = 'live', 'follow' = 'primary'", bad: "set primary: host:port"},
		{cfg: withPrimary, opts: "'refresh' = 'live', 'follow' = 'leader'", bad: "use 'primary' or 'replica'"},
		{cfg: withPrimary, opts: "'follow' = 'primary'", bad: "add 'refresh' = 'live'"},
	} {
		opts, err := PinOptions(c.opts)
		if err != nil {
			t.Fatal(err)
		}
		live, primary, err := (&Store{cfg: c.cfg}).liveOption(opts)
		if c.bad != "" {
			if err == nil || !strings.Contains(err.Error(), c.bad) || !strings.Contains(err.Error(), "1235") {
				t.Errorf("primary %q live_follow %q, %s: %v, want error 1235 saying %q", c.cfg.Primary, c.cfg.LiveFollow, c.opts, err, c.bad)
			}
			continue
		}
		if err != nil || live != c.live || primary != c.primary {
			t.Errorf("primary %q live_follow %q, %s: live %v primary %v %v, want %v %v", c.cfg.Primary, c.cfg.LiveFollow, c.opts, live, primary, err, c.live, c.primary)
		}
	}
}

func TestLiveSpecAggregated(t *testing.T) {
	for _, c := range []struct {
		q    string
		keys []string
		outs string
		why  string // a refusal's reason, "" for none
	}{
		{q: "SELECT carrier, region, COUNT(*), COUNT(qty), SUM(t.amount), AVG(qty), MIN(day), MAX(day) FROM db.t GROUP BY carrier, 2",
			keys: []string{"carrier", "region"}, outs: "[{  0} {  1} {count  0} {count qty 0} {sum amount 0} {avg qty 0} {min day 0} {max day 0}]"},
		{q: "SELECT COUNT(1), SUM(x) FROM db.t WHERE x > 1", outs: "[{count  0} {sum x 0}]"},
		{q: "SELECT carrier, COUNT(*) FROM db.t GROUP BY carrier HAVING COUNT(*) > 1", why: "HAVING"},
		{q: "SELECT carrier, COUNT(*) FROM db.t GROUP BY carrier WITH ROLLUP", why: "ROLLUP"},
		{q: "SELECT carrier, COUNT(DISTINCT x) FROM db.t GROUP BY carrier", why: "DISTINCT"},
		{q: "SELECT carrier, GROUP_CONCAT(x) FROM db.t GROUP BY carrier", why: "GROUP_CONCAT"},
		{q: "SELECT carrier, STD(x) FROM db.t GROUP BY carrier", why: "STD"},
		{q: "SELECT carrier, SUM(x + 1) FROM db.t GROUP BY carrier", why: "columns only"},
		{q: "SELECT carrier, x, COUNT(*) FROM db.t GROUP BY carrier", why: "neither grouped nor aggregated"},
		{q: "SELECT YEAR(d), COUNT(*) FROM db.t GROUP BY YEAR(d)", why: "GROUP BY"},
		{q: "SELECT carrier, COUNT(*) + 1 FROM db.t GROUP BY carrier", why: "computes values"},
	} {
		stmt, err := sqlparse.ParseOne(c.q)
		if err != nil {
			t.Fatal(err)
		}
		spec, err := liveSpec("db", "p", false, c.q, stmt.(*ast.SelectStmt))
		if c.why != "" {
			if err == nil || !strings.Contains(err.Error(), c.why) || !strings.Contains(err.Error(), "1235") {
				t.Errorf("%s: %v, want error 1235 saying %q", c.q, err, c.why)
			}
			continue
		}
		if err != nil || spec.Agg == nil {
			t.Errorf("%s: %v %+v", c.q, err, spec)
			continue
		}
		if !slices.Equal(spec.Agg.Keys, c.keys) || fmt.Sprint(spec.Agg.Outs) != c.outs {
			t.Errorf("%s: keys %q outs %v, want %q %s", c.q, spec.Agg.Keys, spec.Agg.Outs, c.keys, c.outs)
		}
	}
}
