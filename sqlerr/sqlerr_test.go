package sqlerr

import (
	"strings"
	"testing"
)

// TestCutNear: the text of a syntax error is cut as the server cuts it:
// MariaDB ('%-.80T') past 80 bytes to the whole characters of its first
// 77 bytes and "..." (as a MariaDB 10.11 answers), MySQL to 80
// characters.
func TestCutNear(t *testing.T) {
	a := strings.Repeat("a", 77)
	cases := []struct {
		near, mariadb, mysql string
	}{
		{"short", "short", "short"},
		{strings.Repeat("b", 80), strings.Repeat("b", 80), strings.Repeat("b", 80)},
		{strings.Repeat("b", 81), strings.Repeat("b", 77) + "...", strings.Repeat("b", 80)},
		{"selec '" + a + "'", ("selec '" + a)[:77] + "...", ("selec '" + a)[:80]},
		// 11 bytes, then 2-byte characters: 33 of them in the 77 bytes.
		{"selec 'ü' " + strings.Repeat("ü", 60), "selec 'ü' " + strings.Repeat("ü", 33) + "...", "selec 'ü' " + strings.Repeat("ü", 60)},
		{a + "ü" + "bbbb", a + "...", a + "übb"},
	}
	for _, c := range cases {
		if got := cutNear(c.near, true); got != c.mariadb {
			t.Errorf("MariaDB %q: got %q, want %q", c.near, got, c.mariadb)
		}
		if got := cutNear(c.near, false); got != c.mysql {
			t.Errorf("MySQL %q: got %q, want %q", c.near, got, c.mysql)
		}
	}
}
