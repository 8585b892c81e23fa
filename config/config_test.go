package config

import (
	"path/filepath"
	"testing"
)

// TestComposeConfigs loads the container deployment's configs with unknown
// keys rejected, so docker-compose.yml cannot drift from the config schema.
func TestComposeConfigs(t *testing.T) {
	dir := filepath.Join("..", "deploy", "compose")
	var c Coordinator
	if err := Load(filepath.Join(dir, "coordinator.yaml"), &c); err != nil {
		t.Fatal(err)
	}
	c.Defaults()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(c.Replicas) != 2 {
		t.Fatalf("coordinator.yaml lists %d replicas, want 2", len(c.Replicas))
	}
	for _, name := range []string{"worker1.yaml", "worker2.yaml"} {
		var w Worker
		if err := Load(filepath.Join(dir, name), &w); err != nil {
			t.Fatal(err)
		}
		w.Defaults()
		if err := w.Validate(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
}

func TestLoadRejectsUnknownKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	if err := Write(path, map[string]any{"listen": "x", "no_such_key": 1}); err != nil {
		t.Fatal(err)
	}
	var c Coordinator
	if err := Load(path, &c); err == nil {
		t.Fatal("unknown key accepted")
	}
}
