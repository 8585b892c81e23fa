package mysqlwire

import (
	"strings"
	"testing"

	"github.com/shoaldb/shoal/sqlerr"
	"github.com/shoaldb/shoal/sqlparse"
)

// TestUnbindSyntax: a syntax error of the text Shoal sent to describe a
// prepared statement is told at the client's text, with its markers, as
// MariaDB's prepare tells it.
func TestUnbindSyntax(t *testing.T) {
	long := strings.Repeat("x", 90)
	cases := []struct {
		orig string
		lits []string
		// sent is made from the bound text; near is what the server
		// said of it.
		sent       func(bound string) string
		near, want string
		line       int
	}{
		{"selec broken ?", []string{"NULL"}, nil, "selec broken NULL", "selec broken ?", 1},
		{"select ? from t where a = ? and", []string{"NULL", "NULL"}, nil, "", "", 1},
		{"select a from t where b = ?\nand c = ? oops ?", []string{"NULL", "NULL", "NULL"}, nil, "oops NULL", "oops ?", 2},
		// In a literal: at its marker.
		{"select ? ?", []string{"NULL", "NULL"}, nil, "NULL", "?", 1},
		{"select a from t limit ?, ? oops", []string{"0", "0"}, nil, "oops", "oops", 1},
		// The describing LIMIT 0 appended.
		{"select ? from t where", []string{"NULL"}, func(b string) string { return b + " LIMIT 0" }, "LIMIT 0", "", 1},
		// Cut by the server: the longer tail.
		{"selec ? " + long, []string{"NULL"}, nil, ("selec NULL " + long)[:77] + "...", ("selec ? " + long)[:77] + "...", 1},
	}
	for _, c := range cases {
		var marks []int
		for i := range c.orig {
			if c.orig[i] == '?' {
				marks = append(marks, i)
			}
		}
		b := sqlparse.Bind(c.orig, marks, c.lits)
		sent := b.Text
		if c.sent != nil {
			sent = c.sent(b.Text)
		}
		err := unbindSyntax(sqlerr.Syntax(c.near, 1), b, sent)
		near, line, ok := sqlerr.SyntaxNear(err)
		if !ok || near != c.want || line != c.line {
			t.Errorf("%q: got near %q line %d (%v), want %q line %d", c.orig, near, line, err, c.want, c.line)
		}
	}
	other := sqlerr.New(1054, "42S22", "Unknown column 'x' in 'SELECT'")
	if err := unbindSyntax(other, sqlparse.Bind("select ?", []int{7}, []string{"NULL"}), "select NULL"); err != other {
		t.Errorf("another error was changed: %v", err)
	}
}
