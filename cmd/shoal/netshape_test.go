package main

import (
	"strings"
	"testing"
)

func TestNetshapeFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--to", "127.0.0.1:1", "--link", "delay=1ms"}, "--listen is required"},
		{[]string{"--listen", "127.0.0.1:0", "--link", "delay=1ms"}, "--to is required"},
		{[]string{"--listen", "127.0.0.1:0", "--to", "127.0.0.1:1"}, "--link: netshape: empty link"},
		{[]string{"--listen", "127.0.0.1:0", "--to", "127.0.0.1:1", "--link", "delay=fast"}, "--link: netshape: delay"},
		{[]string{"--listen", "127.0.0.1:0", "--to", "127.0.0.1:1", "--link", "rate"}, "not key=value"},
		{[]string{"--listen", "127.0.0.1:0", "--to", "127.0.0.1:1", "--link", "delay=1ms", "extra"}, "unexpected arguments"},
	} {
		err := runNetshape(c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("netshape %q: %v; want an error containing %q", c.args, err, c.want)
		}
	}
}
