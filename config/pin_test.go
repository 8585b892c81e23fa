package config

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestPinIncremental: incremental: true is read from YAML, and refused on
// a pinned query result, which can only be reloaded in full.
func TestPinIncremental(t *testing.T) {
	cases := []struct {
		pin     map[string]any
		wantErr string
	}{
		{map[string]any{"table": "ontime.ontime", "refresh": "1m", "incremental": true}, ""},
		{map[string]any{"table": "ontime.recent", "query": "SELECT * FROM ontime.ontime", "incremental": true}, "need a whole-table pin"},
	}
	for _, c := range cases {
		path := filepath.Join(t.TempDir(), "c.yaml")
		if err := Write(path, map[string]any{"replicas": []map[string]any{{"mysql": "m:3306", "worker": "w:9000"}}, "pins": []any{c.pin}}); err != nil {
			t.Fatal(err)
		}
		var co Coordinator
		if err := Load(path, &co); err != nil {
			t.Fatal(err)
		}
		co.Defaults()
		err := co.Validate()
		if c.wantErr == "" {
			if err != nil || !co.Pins[0].Incremental {
				t.Errorf("%v: incremental %v, err %v", c.pin, co.Pins[0].Incremental, err)
			}
		} else if err == nil || !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("%v: err %v, want %q", c.pin, err, c.wantErr)
		}
	}
}
