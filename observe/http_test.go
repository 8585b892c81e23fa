package observe

import (
	"net/http"
	"testing"

	"github.com/shoaldb/shoal/config"
)

// TestPProfOff: /debug/pprof/ is served only with pprof: true; /metrics is
// served either way. Register the pprof handlers unconditionally and the
// off case fails.
func TestPProfOff(t *testing.T) {
	for _, tc := range []struct {
		pprof bool
		want  int
	}{{false, http.StatusNotFound}, {true, http.StatusOK}} {
		s := observedServer(t, config.Coordinator{HTTPListen: new("127.0.0.1:0"), PProf: tc.pprof})
		if err := s.startHTTP(); err != nil {
			t.Fatal(err)
		}
		base := "http://" + s.Addr().String()
		for path, want := range map[string]int{"/debug/pprof/": tc.want, "/metrics": http.StatusOK} {
			resp, err := http.Get(base + path)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != want {
				t.Errorf("pprof %v: GET %s: %s, want %d", tc.pprof, path, resp.Status, want)
			}
		}
		s.Close()
	}
}
