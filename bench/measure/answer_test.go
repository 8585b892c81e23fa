package measure

import "testing"

func TestCompareSorted(t *testing.T) {
	a := [][]string{{"AA", "1"}, {"UA", "2"}}
	b := [][]string{{"UA", "2"}, {"AA", "1"}}
	if eq, why := CompareSorted(a, b); !eq {
		t.Errorf("same rows in another order: %s", why)
	}
	if eq, why := CompareSorted(a, [][]string{{"AA", "1"}, {"UA", "3"}}); eq || why != "first difference: shoal (UA, 2), direct (UA, 3)" {
		t.Errorf("got %v %q", eq, why)
	}
	if eq, why := CompareSorted(a, a[:1]); eq || why != "2 rows through shoal, 1 direct" {
		t.Errorf("got %v %q", eq, why)
	}
	// A column boundary is not a character: ("A", "B1") is not ("AB", "1").
	if eq, _ := CompareSorted([][]string{{"A", "B1"}}, [][]string{{"AB", "1"}}); eq {
		t.Errorf("rows differing in column boundaries compared equal")
	}
}
