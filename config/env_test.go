package config

import (
	"strings"
	"testing"
)

// TestCheckEnv: a retired secret variable is an error naming its
// replacement, not a password silently ignored; the current names pass.
func TestCheckEnv(t *testing.T) {
	t.Setenv(ReplicaPasswordEnv, "x")
	t.Setenv(SecretEnv, "y")
	if err := CheckEnv(); err != nil {
		t.Fatalf("current names: %v", err)
	}
	t.Setenv("SHOAL_WORKER_PASSWORD", "x")
	if err := CheckEnv(); err == nil || !strings.Contains(err.Error(), "set "+ReplicaPasswordEnv+" instead") {
		t.Fatalf("SHOAL_WORKER_PASSWORD set: %v, want an error naming %s", err, ReplicaPasswordEnv)
	}
}
