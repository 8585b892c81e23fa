package dashboard

import (
	"strings"
	"testing"
	"time"

	"github.com/shoaldb/shoal/sqlparse"
)

// TestVarierUnique checks that no two (user, sequence) pairs get the same
// text, that every text parses, and that the three filter forms appear.
func TestVarierUnique(t *testing.T) {
	v := Varier{Carriers: []string{"AA", "DL", "O'K", "UA", "WN"},
		First: time.Date(2005, 1, 1, 0, 0, 0, 0, time.UTC), Last: time.Date(2016, 12, 31, 0, 0, 0, 0, time.UTC)}
	gen := v.Queries(Dashboard(), Slice{Table: "recent", Where: "YearD >= 2005"})
	seen := map[string][2]int{}
	forms := map[string]int{}
	for u := range 300 {
		for seq := range 60 {
			q := gen(u, seq)
			if prev, ok := seen[q]; ok {
				t.Fatalf("user %d query %d repeats user %d query %d: %s", u, seq, prev[0], prev[1], q)
			}
			seen[q] = [2]int{u, seq}
			if u < 3 {
				if _, err := sqlparse.Parse(q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			switch {
			case strings.Contains(q, "FlightDate BETWEEN"):
				forms["dates"]++
			case strings.Contains(q, "Carrier IN ("):
				forms["carriers"]++
			default:
				forms["distance only"]++
			}
		}
	}
	if len(forms) != 3 {
		t.Errorf("filter forms used: %v", forms)
	}
}

func TestSameNumbers(t *testing.T) {
	tests := []struct {
		name string
		a, b [][]string
		want bool
	}{
		{"AVG rounded by MySQL", [][]string{{"4", "1", "8.8515"}}, [][]string{{"4", "1", "8.851499999"}}, true},
		{"integer vs float", [][]string{{"AA", "10"}}, [][]string{{"AA", "10.0"}}, true},
		{"other order", [][]string{{"b", "1"}, {"a", "2"}}, [][]string{{"a", "2"}, {"b", "1"}}, true},
		{"different number", [][]string{{"AA", "10.5"}}, [][]string{{"AA", "10.6"}}, false},
		{"different text", [][]string{{"AA", "1"}}, [][]string{{"DL", "1"}}, false},
		{"row count", [][]string{{"AA", "1"}}, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got, why := sameNumbers(tc.a, tc.b); got != tc.want {
				t.Errorf("sameNumbers = %v (%s), want %v", got, why, tc.want)
			}
		})
	}
}
