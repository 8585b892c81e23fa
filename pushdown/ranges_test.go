package pushdown

import (
	"testing"
)

// TestSplitCoversEveryKey checks that every key, including keys outside the
// planning bounds, falls into exactly one range.
func TestSplitCoversEveryKey(t *testing.T) {
	cases := []struct {
		min, max int64
		n        int
	}{
		{1, 100, 7}, {1, 1, 4}, {-50, 50, 3}, {0, 5, 10}, {10, 2, 3}, {1, 1 << 40, 16},
		{-1 << 62, 1 << 62, 5},
	}
	for _, c := range cases {
		rs := Split(c.min, c.max, c.n, false)
		if len(rs) < 1 {
			t.Fatalf("%v: no ranges", c)
		}
		probe := []int64{c.min - 1000, c.min - 1, c.min, c.min + 1, c.max - 1, c.max, c.max + 1, c.max + 1000, (c.min + c.max) / 2}
		for _, r := range rs {
			if r.Lo != nil {
				probe = append(probe, *r.Lo-1, *r.Lo, *r.Lo+1)
			}
		}
		for _, k := range probe {
			hits := 0
			for _, r := range rs {
				if (r.Lo == nil || k >= *r.Lo) && (r.Hi == nil || k < *r.Hi) {
					hits++
				}
			}
			if hits != 1 {
				t.Errorf("%v: key %d in %d ranges (%v)", c, k, hits, rs)
			}
		}
	}
}

func TestPredicate(t *testing.T) {
	lo, hi := int64(10), int64(20)
	cases := []struct {
		r    Range
		want string
	}{
		{Range{Lo: &lo, Hi: &hi}, "(`t`.`id` >= 10 AND `t`.`id` < 20)"},
		{Range{Hi: &hi}, "(`t`.`id` < 20)"},
		{Range{Lo: &lo}, "(`t`.`id` >= 10)"},
		{Range{}, "(`t`.`id` IS NOT NULL)"},
		{Range{Null: true}, "(`t`.`id` IS NULL)"},
	}
	for _, c := range cases {
		if got := Predicate("`t`.`id`", c.r); got != c.want {
			t.Errorf("%v: got %s want %s", c.r, got, c.want)
		}
	}
}
