package config

import (
	"os"
	"path/filepath"
	"testing"
)

func TestAffinityDefaultsOn(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		yaml string
		want bool
	}{
		{"listen: 127.0.0.1:4000\n", true},
		{"affinity: true\n", true},
		{"affinity: false\n", false},
	} {
		p := filepath.Join(dir, "c.yaml")
		if err := os.WriteFile(p, []byte(c.yaml), 0o600); err != nil {
			t.Fatal(err)
		}
		var cfg Coordinator
		if err := Load(p, &cfg); err != nil {
			t.Fatalf("%q: %v", c.yaml, err)
		}
		cfg.Defaults()
		if got := cfg.AffinityOn(); got != c.want {
			t.Errorf("%q: AffinityOn = %v, want %v", c.yaml, got, c.want)
		}
	}
}
