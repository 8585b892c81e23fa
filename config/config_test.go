package config

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// TestCoordinatorValidate: every new key is checked at start, with a
// message naming it.
func TestCoordinatorValidate(t *testing.T) {
	base := func() Coordinator {
		return Coordinator{Replicas: []Replica{{MySQL: "127.0.0.1:3307", Worker: "127.0.0.1:4100"}}}
	}
	for _, c := range []struct {
		name string
		mod  func(*Coordinator)
		want string // "" means valid
	}{
		{"defaults", func(*Coordinator) {}, ""},
		{"sha2 account", func(c *Coordinator) { c.Users = []User{{Name: "a", Plugin: PluginCachingSHA2}} }, ""},
		{"unknown plugin", func(c *Coordinator) { c.Users = []User{{Name: "a", Plugin: "dialog"}} }, "plugin"},
		{"cert without key", func(c *Coordinator) { c.TLSCert = "c.pem" }, "tls_key"},
		{"tls", func(c *Coordinator) { c.TLSCert, c.TLSKey = "c.pem", "k.pem" }, ""},
		{"require without tls", func(c *Coordinator) { c.RequireSecureTransport = true }, "require_secure_transport"},
		{"replica-min", func(c *Coordinator) { c.Consistency = ConsistencyReplicaMin }, ""},
		{"primary without address", func(c *Coordinator) { c.Consistency = ConsistencyPrimary }, "primary:"},
		{"primary", func(c *Coordinator) { c.Consistency, c.Primary = ConsistencyPrimary, "127.0.0.1:3306" }, ""},
		{"unknown consistency", func(c *Coordinator) { c.Consistency = "strong" }, "consistency"},
		{"live pins follow the primary", func(c *Coordinator) { c.LiveFollow, c.Primary = LiveFollowPrimary, "127.0.0.1:3306" }, ""},
		{"live pins follow a replica", func(c *Coordinator) { c.LiveFollow = LiveFollowReplica }, ""},
		{"live_follow primary without address", func(c *Coordinator) { c.LiveFollow = LiveFollowPrimary }, "live_follow: primary needs primary:"},
		{"unknown live_follow", func(c *Coordinator) { c.LiveFollow = "leader" }, "live_follow \"leader\""},
		{"replica lz4", func(c *Coordinator) { c.Replicas[0].IPCCompression = "lz4" }, ""},
		{"replica zstd", func(c *Coordinator) { c.Replicas[0].IPCCompression = "zstd" }, ""},
		{"replica none", func(c *Coordinator) { c.Replicas[0].IPCCompression = "none" }, ""},
		{"replica unknown codec", func(c *Coordinator) {
			c.Replicas = append(c.Replicas, Replica{Name: "far", MySQL: "10.0.0.2:3306", Worker: "10.0.0.2:4100", IPCCompression: "snappy"})
		}, `replicas[1] (far) ipc_compression "snappy": use none, lz4 or zstd`},
		{"unnamed replica unknown codec", func(c *Coordinator) { c.Replicas[0].IPCCompression = "LZ4" }, "replicas[0] (127.0.0.1:4100) ipc_compression"},
	} {
		cfg := base()
		c.mod(&cfg)
		cfg.Defaults()
		err := cfg.Validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: got %v, want an error naming %q", c.name, err, c.want)
		}
	}
	cfg := base()
	cfg.Defaults()
	if cfg.Consistency != ConsistencyNone || cfg.ConsistencyWait.D() != 5*time.Second || cfg.Users[0].Plugin != PluginNative {
		t.Errorf("defaults: consistency %q wait %s plugin %q", cfg.Consistency, cfg.ConsistencyWait.D(), cfg.Users[0].Plugin)
	}
	users := []User{{Name: "a"}}
	cfg = base()
	cfg.Users = users
	cfg.Defaults()
	if users[0].Plugin != "" {
		t.Error("Defaults wrote into the caller's users array")
	}
}
