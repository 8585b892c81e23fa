package pushdown

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/shoaldb/shoal/planner"
	"github.com/shoaldb/shoal/sqlparse"
)

// TestDateKeyRoundTrip converts every day from 1000-01-01 to 9999-12-31
// to its key and back, and checks keys are consecutive (so ranges of keys
// are ranges of days) and a DATETIME keeps its time of day.
func TestDateKeyRoundTrip(t *testing.T) {
	first, ok := DateKey(planner.SplitDate, "1000-01-01")
	if !ok {
		t.Fatal("1000-01-01 not a date")
	}
	prev := first - 1
	for k := first; ; k++ {
		lit := DateLiteral(planner.SplitDate, k)
		got, ok := DateKey(planner.SplitDate, strings.Trim(lit, "'"))
		if !ok || got != k || got != prev+1 {
			t.Fatalf("key %d renders %s, reads back %d %v", k, lit, got, ok)
		}
		prev = got
		if lit == "'9999-12-31'" {
			break
		}
		if k-first > 4_000_000 {
			t.Fatal("never reached 9999-12-31")
		}
	}
	cases := []struct {
		kind planner.SplitKind
		text string
		key  int64
		lit  string
	}{
		{planner.SplitDate, "1970-01-01", 0, "'1970-01-01'"},
		{planner.SplitDate, "2024-02-29", 19782, "'2024-02-29'"},
		{planner.SplitDatetime, "1970-01-01 00:00:01", 1, "'1970-01-01 00:00:01'"},
		{planner.SplitDatetime, "2024-01-05 12:30:00.999999", 19727*86400 + 45000, "'2024-01-05 12:30:00'"},
		{planner.SplitDatetime, "1969-12-31 23:59:59", -1, "'1969-12-31 23:59:59'"},
		{planner.SplitDatetime, "2024-01-05", 19727 * 86400, "'2024-01-05 00:00:00'"},
	}
	for _, c := range cases {
		k, ok := DateKey(c.kind, c.text)
		if !ok || k != c.key {
			t.Errorf("DateKey(%s, %q) = %d %v, want %d", c.kind, c.text, k, ok, c.key)
		}
		if lit := DateLiteral(c.kind, c.key); lit != c.lit {
			t.Errorf("DateLiteral(%s, %d) = %s, want %s", c.kind, c.key, lit, c.lit)
		}
	}
	for _, bad := range []string{"0000-00-00", "2023-02-29", "2024-13-01", "x", "2024-01-05 25:00:00"} {
		if k, ok := DateKey(planner.SplitDatetime, bad); ok {
			t.Errorf("DateKey(%q) = %d, want not ok", bad, k)
		}
	}
}

// TestSplitKeysCoversEveryKey checks that every key — sampled, between
// samples, before the first and after the last — is in exactly one range,
// for samples of every size and every fragment count.
func TestSplitKeysCoversEveryKey(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	word := func() string {
		b := make([]byte, 1+rng.IntN(4))
		for i := range b {
			b[i] = byte('b' + rng.IntN(24))
		}
		return string(b)
	}
	for iter := range 300 {
		set := map[string]bool{}
		for range rng.IntN(40) {
			set[word()] = true
		}
		var keys []string
		for k := range set {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		sample := make([][]string, len(keys))
		for i, k := range keys {
			sample[i] = []string{k}
		}
		n := rng.IntN(20)
		rs := SplitKeys(sample, n)
		if len(rs) > max(n, 1) {
			t.Fatalf("iter %d: %d ranges for n=%d", iter, len(rs), n)
		}
		if want := min(max(n, 1), len(keys)+1); len(rs) != want {
			t.Fatalf("iter %d: %d ranges, want %d (n=%d, %d keys)", iter, len(rs), want, n, len(keys))
		}
		probes := []string{"a", "zz", "b", "bb"}
		for _, k := range keys {
			probes = append(probes, k, k+"a", k[:len(k)-1])
		}
		for _, p := range probes {
			hits := 0
			for _, r := range rs {
				if (r.LoKey == nil || p >= r.LoKey[0]) && (r.HiKey == nil || p < r.HiKey[0]) {
					hits++
				}
			}
			if hits != 1 {
				t.Fatalf("iter %d: key %q in %d ranges: %v", iter, p, hits, rs)
			}
		}
	}
}

func TestKeyPredicate(t *testing.T) {
	one := []string{"`t`.`k`"}
	two := []string{"`t`.`a`", "`t`.`b`"}
	cases := []struct {
		cols []string
		r    Range
		want string
	}{
		{one, Range{}, "TRUE"},
		{one, Range{HiKey: []string{"'m'"}}, "(`t`.`k` < 'm')"},
		{one, Range{LoKey: []string{"'m'"}, HiKey: []string{"'t'"}}, "(`t`.`k` >= 'm' AND `t`.`k` < 't')"},
		{two, Range{LoKey: []string{"'AA'", "7"}}, "((`t`.`a`, `t`.`b`) >= ('AA', 7) AND (`t`.`a` > 'AA' OR `t`.`a` = 'AA' AND `t`.`b` >= 7))"},
		{two, Range{LoKey: []string{"'AA'", "7"}, HiKey: []string{"'DL'", "X'00ff'"}},
			"((`t`.`a`, `t`.`b`) >= ('AA', 7) AND (`t`.`a` > 'AA' OR `t`.`a` = 'AA' AND `t`.`b` >= 7) AND " +
				"(`t`.`a`, `t`.`b`) < ('DL', X'00ff') AND (`t`.`a` < 'DL' OR `t`.`a` = 'DL' AND `t`.`b` < X'00ff'))"},
		{[]string{"a", "b", "c"}, Range{HiKey: []string{"1", "2", "3"}}, "((a, b, c) < (1, 2, 3) AND (a < 1 OR a = 1 AND (b < 2 OR b = 2 AND c < 3)))"},
	}
	for _, c := range cases {
		if got := KeyPredicate(c.cols, c.r); got != c.want {
			t.Errorf("%v: got %s\nwant %s", c.r, got, c.want)
		}
	}
}

// TestBindRoundTrips binds ranges of every split kind into a fragment and
// checks the SQL parses and restores to itself (the worker re-renders
// every fragment it runs).
func TestBindRoundTrips(t *testing.T) {
	lo, hi := int64(19727), int64(19800)
	los, his := lo*86400, hi*86400+3599
	frag := "SELECT COUNT(1) FROM `db`.`t` WHERE (`x` > 1) AND " + planner.RangeMarker
	cases := []struct {
		p    planner.Plan
		r    Range
		want string
	}{
		{planner.Plan{Split: planner.SplitNone}, Range{}, "TRUE"},
		{planner.Plan{Split: planner.SplitInt, SplitColumn: "`t`.`id`"}, Range{Lo: &lo, Hi: &hi}, "(`t`.`id` >= 19727 AND `t`.`id` < 19800)"},
		{planner.Plan{Split: planner.SplitDate, SplitColumn: "`t`.`d`"}, Range{Lo: &lo, Hi: &hi}, "(`t`.`d` >= '2024-01-05' AND `t`.`d` < '2024-03-18')"},
		{planner.Plan{Split: planner.SplitDatetime, SplitColumn: "`t`.`d`"}, Range{Lo: &los, Hi: &his}, "(`t`.`d` >= '2024-01-05 00:00:00' AND `t`.`d` < '2024-03-18 00:59:59')"},
		{planner.Plan{Split: planner.SplitKey, KeyColumns: []string{"`t`.`a`", "`t`.`b`"}},
			Range{LoKey: []string{"'it''s'", "-3"}, HiKey: []string{"'z\\\\'", "X'00ff'"}}, ""},
	}
	for _, c := range cases {
		c.p.FragmentSQL = frag
		sql := Bind(&c.p, c.r)
		if c.want != "" && !strings.HasSuffix(sql, " AND "+c.want) {
			t.Errorf("%s: got %s, want it to end with %s", c.p.Split, sql, c.want)
		}
		st, err := sqlparse.ParseOne(sql)
		if err != nil {
			t.Fatalf("%s does not parse: %v", sql, err)
		}
		once := sqlparse.MustRestore(st)
		st2, err := sqlparse.ParseOne(once)
		if err != nil {
			t.Fatalf("restored %s does not parse: %v", once, err)
		}
		if twice := sqlparse.MustRestore(st2); twice != once {
			t.Errorf("%s does not round-trip:\n%s\n%s", sql, once, twice)
		}
	}
}

// TestBindPartition checks a Partitioned plan's fragments name their
// partition, and that no fragment SQL keeps the marker.
func TestBindPartition(t *testing.T) {
	p := &planner.Plan{Split: planner.SplitInt, SplitColumn: "`b`.`id`", Partitioned: true,
		FragmentSQL: "SELECT COUNT(1) FROM `db`.`t` PARTITION(" + planner.PartitionMarker + ") AS `b` WHERE " + planner.RangeMarker}
	lo := int64(5)
	cases := []struct {
		r    Range
		want string
	}{
		{Range{Lo: &lo, Partition: "p`1"}, "SELECT COUNT(1) FROM `db`.`t` PARTITION(`p``1`) AS `b` WHERE (`b`.`id` >= 5)"},
		{Range{Lo: &lo}, "SELECT COUNT(1) FROM `db`.`t` AS `b` WHERE (`b`.`id` >= 5)"},
	}
	for _, c := range cases {
		got := Bind(p, c.r)
		if got != c.want {
			t.Errorf("%v: got %s\nwant %s", c.r, got, c.want)
		}
		if _, err := sqlparse.ParseOne(got); err != nil {
			t.Errorf("%s: %v", got, err)
		}
	}
	if got, want := Empty(p), "SELECT COUNT(1) FROM `db`.`t` AS `b` WHERE FALSE"; got != want {
		t.Errorf("Empty: got %s want %s", got, want)
	}
	if got, want := (Range{Lo: &lo, Partition: "p1"}).String(), "partition p1 [5, +inf)"; got != want {
		t.Errorf("String: got %s want %s", got, want)
	}
}

func TestDescribe(t *testing.T) {
	lo, hi := int64(19727), int64(19728)
	cases := []struct {
		p    planner.Plan
		r    Range
		want string
	}{
		{planner.Plan{Split: planner.SplitDate}, Range{Lo: &lo, Hi: &hi}, "['2024-01-05', '2024-01-06')"},
		{planner.Plan{Split: planner.SplitDatetime}, Range{Hi: &hi, Partition: "p1"}, "partition p1 [-inf, '1970-01-01 05:28:48')"},
		{planner.Plan{Split: planner.SplitInt}, Range{Lo: &lo}, "[19727, +inf)"},
		{planner.Plan{Split: planner.SplitKey}, Range{LoKey: []string{"'a'", "1"}}, "[('a', 1), +inf)"},
	}
	for _, c := range cases {
		if got := Describe(&c.p, c.r); got != c.want {
			t.Errorf("got %s want %s", got, c.want)
		}
	}
}
