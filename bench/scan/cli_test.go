package scan

import (
	"strings"
	"testing"

	"github.com/shoaldb/shoal/deploy/localcluster"
)

func TestViaCoordinator(t *testing.T) {
	shaped := &localcluster.Cluster{Dir: "d", Coordinator: localcluster.Coordinator{MySQL: "127.0.0.1:1", Shape: "delay=1ms",
		Shaped: map[string]string{localcluster.ShapedNone: "127.0.0.1:2", localcluster.ShapedLZ4: "127.0.0.1:3"}}}
	plain := &localcluster.Cluster{Dir: "d", Coordinator: localcluster.Coordinator{MySQL: "127.0.0.1:1"}}
	for _, c := range []struct {
		c         *localcluster.Cluster
		via, addr string
		err       string
	}{
		{shaped, "", "127.0.0.1:1", ""},
		{shaped, "shaped", "127.0.0.1:2", ""},
		{shaped, "shaped-lz4", "127.0.0.1:3", ""},
		{plain, "", "127.0.0.1:1", ""},
		{plain, "shaped", "", "started without --shape"},
		{plain, "lz4", "", "use shaped or shaped-lz4"},
	} {
		addr, desc, err := viaCoordinator(c.c, c.via)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("via %q: %v; want an error containing %q", c.via, err, c.err)
			}
			continue
		}
		if err != nil || addr != c.addr || !strings.Contains(desc, addr) {
			t.Errorf("via %q = %q, %q, %v; want %q", c.via, addr, desc, err, c.addr)
		}
	}
	if err := Command([]string{"--via", "nosuch", "--dir", t.TempDir()}); err == nil || !strings.Contains(err.Error(), "use shaped or shaped-lz4") {
		t.Errorf("bench --via nosuch: %v", err)
	}
}
