package pinned

import (
	"testing"
)

func TestRegistryBudget(t *testing.T) {
	r := NewRegistry()
	a := &Table{DB: "d", Name: "a", Bytes: 60}
	b := &Table{DB: "d", Name: "b", Bytes: 50}
	if ok, _ := r.Put(a, 100); !ok {
		t.Fatal("a does not fit")
	}
	g := r.Gen()
	if ok, others := r.Put(b, 100); ok || others != 60 {
		t.Fatalf("b fit beside a: %v %d", ok, others)
	}
	if r.Gen() != g || r.Get("d", "b") != nil {
		t.Fatal("a refused pin changed the registry")
	}
	a2 := &Table{DB: "d", Name: "a", Bytes: 90}
	if ok, _ := r.Put(a2, 100); !ok || r.Get("d", "a") != a2 || a2.Version != 2 {
		t.Fatal("replacing a within budget failed")
	}
	if !r.Delete("d", "a") || r.Delete("d", "a") || r.Len() != 0 {
		t.Fatal("delete")
	}
}
