package scan

import "testing"

func TestRangePredicate(t *testing.T) {
	cases := []struct{ in, want string }{
		{"[-inf, 939437)", "id < 939437"},
		{"[939437, 1878873)", "id >= 939437 and id < 1878873"},
		{"[14091542, +inf)", "id >= 14091542"},
		{"[-inf, +inf)", "id is not null"},
		{"NULL", "id is null"},
	}
	for _, c := range cases {
		if got, err := rangePredicate("id", c.in); err != nil || got != c.want {
			t.Errorf("rangePredicate(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "[1, 2]", "[x, 2)", "[1, 2; drop)", "1, 2"} {
		if _, err := rangePredicate("id", bad); err == nil {
			t.Errorf("rangePredicate(%q): no error", bad)
		}
	}
	if got := maxOverMedian([]int64{10, 12, 11, 20}); got != "1.82" {
		t.Errorf("maxOverMedian = %s", got)
	}
}
