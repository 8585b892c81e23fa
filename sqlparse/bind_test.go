package sqlparse

import (
	"strings"
	"testing"
)

// TestOriginalNameWholeItems: a column is renamed only from a whole select
// item; an alias whose text occurs inside a literal keeps its name.
func TestOriginalNameWholeItems(t *testing.T) {
	b := Bind("SELECT DATE_FORMAT(d, ?) m, ? + 1, ?, COUNT(*) FROM t WHERE x = ?", []int{22, 28, 35, 64}, []string{"'%Y-%m'", "2", "'w'", "'m'"})
	if b.Text != "SELECT DATE_FORMAT(d, '%Y-%m') m, 2 + 1, 'w', COUNT(*) FROM t WHERE x = 'm'" {
		t.Fatalf("bound %q", b.Text)
	}
	at := 0
	for _, c := range []struct {
		name, orig string
		ok         bool
	}{
		{"m", "", false}, // the alias (inside '%Y-%m', in WHERE's 'm'): kept
		{"2 + 1", "? + 1", true},
		{"w", "?", true}, // a literal, named by its value
	} {
		got, ok := b.OriginalName(c.name, &at)
		if ok != c.ok || got != c.orig {
			t.Errorf("OriginalName(%q) = %q %v, want %q %v", c.name, got, ok, c.orig, c.ok)
		}
	}
}

func TestInLimit(t *testing.T) {
	for _, c := range []struct {
		stmt string
		want bool
	}{
		{"SELECT a FROM t LIMIT ?", true},
		{"SELECT a FROM t limit\n ?", true},
		{"SELECT a FROM t LIMIT 10 OFFSET ?", true},
		{"SELECT a FROM t LIMIT ?, ?", true},
		{"SELECT a FROM t LIMIT 5,?", true},
		{"SELECT a FROM t WHERE b = ?", false},
		{"SELECT a, ? FROM t", false},
		{"SELECT CONCAT(a, ?) FROM t", false},
	} {
		pos := strings.LastIndexByte(c.stmt, '?')
		if got := InLimit(c.stmt, pos); got != c.want {
			t.Errorf("InLimit(%q) = %v, want %v", c.stmt, got, c.want)
		}
	}
}
