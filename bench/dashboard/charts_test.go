package dashboard

import (
	"strings"
	"testing"
)

func TestChartRender(t *testing.T) {
	c := Chart{"c", "SELECT Carrier, COUNT(*) FROM {table} WHERE {slice} AND Cancelled = 0 GROUP BY Carrier"}
	for _, tc := range []struct {
		s    Slice
		want string
	}{
		{Slice{"recent", "YearD >= 2015"}, "SELECT Carrier, COUNT(*) FROM recent WHERE (YearD >= 2015) AND Cancelled = 0 GROUP BY Carrier"},
		{Slice{"ontime", "YearD = 2015 OR YearD = 2016"}, "SELECT Carrier, COUNT(*) FROM ontime WHERE (YearD = 2015 OR YearD = 2016) AND Cancelled = 0 GROUP BY Carrier"},
		{Slice{"ontime", " "}, "SELECT Carrier, COUNT(*) FROM ontime WHERE 1 = 1 AND Cancelled = 0 GROUP BY Carrier"},
	} {
		if got := c.Render(tc.s); got != tc.want {
			t.Errorf("Render(%+v) =\n %s\nwant\n %s", tc.s, got, tc.want)
		}
	}
	if got := RecentSlice("ontime", 2016, 2); got != (Slice{"ontime", "YearD >= 2015"}) {
		t.Errorf("RecentSlice = %+v", got)
	}
}

// The dashboard has 15 distinct charts, each reading only the slice.
func TestDashboardCharts(t *testing.T) {
	cs := Dashboard()
	if len(cs) != 15 {
		t.Errorf("%d charts, want 15", len(cs))
	}
	seen := map[string]bool{}
	for _, c := range cs {
		if seen[c.Name] {
			t.Errorf("chart %s twice", c.Name)
		}
		seen[c.Name] = true
		if strings.Count(c.SQL, "{table}") != 1 || strings.Count(c.SQL, "{slice}") != 1 {
			t.Errorf("%s: want one {table} and one {slice}: %s", c.Name, c.SQL)
		}
		if !strings.Contains(c.SQL, "FROM {table} WHERE {slice}") {
			t.Errorf("%s: the slice must be the WHERE of the table: %s", c.Name, c.SQL)
		}
		r := c.Render(Slice{"t", "x"})
		if strings.ContainsAny(r, "{}") {
			t.Errorf("%s: unrendered placeholder: %s", c.Name, r)
		}
	}
}
