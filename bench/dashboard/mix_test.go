package dashboard

import (
	"math/rand/v2"
	"testing"
)

func TestMixClassesNewLiterals(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	seen := map[string]bool{}
	for _, c := range mixClasses() {
		if seen[c.name] {
			t.Fatalf("class %s twice", c.name)
		}
		seen[c.name] = true
		a, b := c.gen(r, 1, 1_000_000), c.gen(r, 1, 1_000_000)
		if c.name == "point" || c.name == "point-expr" || c.name == "short-range" {
			if a == b {
				t.Errorf("%s: the same text twice: %s", c.name, a)
			}
		}
	}
	if c := mixClasses()[2]; c.name != "point-same" || c.gen(r, 1, 1000) != c.gen(r, 1, 1000) {
		t.Errorf("point-same must repeat its text")
	}
	for _, want := range []string{"select-1", "point", "point-same", "point-expr", "short-range", "selective-count", "aggregate", "export"} {
		if !seen[want] {
			t.Errorf("no class %s", want)
		}
	}
}
