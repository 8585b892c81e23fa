package router

import "testing"

func TestBindConnectionID(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"SELECT CONNECTION_ID() AS id", "SELECT 42 AS id"},
		{"SELECT connection_id ( ) + 0, 1", "SELECT 42 + 0 AS `connection_id ( ) + 0`, 1"},
		{"SELECT CONNECTION_ID(), @@x", "SELECT 42 AS `CONNECTION_ID()`, @@x"},
		{"SELECT a FROM t WHERE b = CONNECTION_ID()", "SELECT a FROM t WHERE b = 42"},
		{"SET @me = CONNECTION_ID()", "SET @me = 42"},
		{"SELECT 'CONNECTION_ID()', `CONNECTION_ID()` FROM t /* CONNECTION_ID() */", "SELECT 'CONNECTION_ID()', `CONNECTION_ID()` FROM t /* CONNECTION_ID() */"},
		{"SELECT db.CONNECTION_ID() FROM t", "SELECT db.CONNECTION_ID() FROM t"},
		{"SELECT my_connection_id()", "SELECT my_connection_id()"},
		{"SELECT 'it''s', CONNECTION_ID() FROM t", "SELECT 'it''s', 42 AS `CONNECTION_ID()` FROM t"},
		{"SELECT /*! CONNECTION_ID() */", "SELECT /*! 42 */"},
		{"SELECT CONNECTION_ID() UNION SELECT 1", "SELECT 42 AS `CONNECTION_ID()` UNION SELECT 1"},
		{"SELECT 1", "SELECT 1"},
	} {
		if got := bindConnectionID(c.in, 42); got != c.want {
			t.Errorf("%s\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}
