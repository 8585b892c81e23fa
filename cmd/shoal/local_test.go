package main

import (
	"os"
	"testing"
)

// TestSelfCommand: the stop command `shoal local up` prints runs the same
// binary the way it was started, so it works when pasted.
func TestSelfCommand(t *testing.T) {
	saved := os.Args[0]
	defer func() { os.Args[0] = saved }()
	for arg0, want := range map[string]string{
		"bin/shoal":                       "bin/shoal",
		"./shoal":                         "./shoal",
		"/usr/local/bin/shoal":            "/usr/local/bin/shoal",
		"shoal":                           "shoal",
		"/tmp/go-build123/b001/exe/shoal": "shoal",
	} {
		os.Args[0] = arg0
		if got := selfCommand(); got != want {
			t.Errorf("started as %q: stop command runs %q, want %q", arg0, got, want)
		}
	}
}
