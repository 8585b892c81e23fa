package mysqlwire

import "testing"

func TestHandshakeVersion(t *testing.T) {
	for _, c := range []struct{ v, want string }{
		{"10.11.19-MariaDB-0+deb12u1-log-shoal", "5.5.5-10.11.19-MariaDB-0+deb12u1-log-shoal"},
		{"10.6.16-MariaDB-shoal", "5.5.5-10.6.16-MariaDB-shoal"},
		{"11.4.2-MariaDB-shoal", "11.4.2-MariaDB-shoal"}, // MariaDB 11 dropped the prefix
		{"8.0.40-shoal", "8.0.40-shoal"},
		{"10.0.1-shoal", "10.0.1-shoal"}, // not MariaDB
	} {
		if got := handshakeVersion(c.v); got != c.want {
			t.Errorf("handshakeVersion(%q) = %q, want %q", c.v, got, c.want)
		}
	}
}
