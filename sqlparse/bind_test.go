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

// TestOriginalNameSelectListOnly: an alias that is also a whole item of
// GROUP BY or ORDER BY (GROUP BY 1, k3 HAVING) is not taken for the
// select item: the columns after it were left named by the bound text.
func TestOriginalNameSelectListOnly(t *testing.T) {
	orig := "SELECT a + 1 AS k3, COUNT(IF(b = ?, 1, NULL)) FROM t WHERE c IN (?) GROUP BY 1, k3 HAVING COUNT(IF(b = 5, 1, NULL)) > 0"
	b := Bind(orig, []int{strings.Index(orig, "?"), strings.LastIndex(orig, "?")}, []string{"5", "'x'"})
	at := 0
	for _, c := range []struct {
		name, orig string
		ok         bool
	}{
		{"k3", "", false},
		{"COUNT(IF(b = 5, 1, NULL))", "COUNT(IF(b = ?, 1, NULL))", true},
	} {
		got, ok := b.OriginalName(c.name, &at)
		if ok != c.ok || got != c.orig {
			t.Errorf("OriginalName(%q) = %q %v, want %q %v", c.name, got, ok, c.orig, c.ok)
		}
	}
	for _, c := range []struct{ q, rest string }{
		{"SELECT a, b FROM t", "FROM t"},
		{"select (select x from u) y, `from` where 1", "where 1"},
		{"WITH c AS (SELECT 1 FROM t) SELECT n, 'from' FROM c", "FROM c"},
		{"SELECT 1", ""},
		{"SELECT a ORDER BY a", "ORDER BY a"},
	} {
		if got := c.q[SelectListEnd(c.q):]; got != c.rest {
			t.Errorf("SelectListEnd(%q): rest %q, want %q", c.q, got, c.rest)
		}
	}
}

// TestOriginalNameCut: a long bound value makes the server cut the
// item's name at 255 bytes (whole characters); the column is still named
// from the item as prepared (a mysqlnd client sending the value as long
// data saw "length('ébéb…" for length(?)).
func TestOriginalNameCut(t *testing.T) {
	orig := "SELECT ?, length(?), concat(?, 'a,b', (1)), COUNT(*) FROM t WHERE c = ?"
	var marks []int
	for i := range orig {
		if orig[i] == '?' {
			marks = append(marks, i)
		}
	}
	long := "'" + strings.Repeat("éb", 200) + "'"
	b := Bind(orig, marks, []string{"'x'", long, long, "'y'"})
	at := 0
	cut := func(s string) string { return CutName(s) }
	for _, c := range []struct {
		name, orig string
	}{
		{"x", "?"},
		{cut("length(" + long + ")"), "length(?)"},
		{cut("concat(" + long + ", 'a,b', (1))"), "concat(?, 'a,b', (1))"},
	} {
		got, ok := b.OriginalName(c.name, &at)
		if !ok || got != c.orig {
			t.Errorf("OriginalName(%.30q…) = %q %v, want %q", c.name, got, ok, c.orig)
		}
	}
	if n := CutName("x" + strings.Repeat("é", 200)); len(n) != 255 || !strings.HasSuffix(n, "é") {
		t.Errorf("CutName: %d bytes", len(n))
	}
	if n := CutName(strings.Repeat("é", 200)); len(n) != 254 {
		t.Errorf("CutName: %d bytes, want 254", len(n))
	}
}
