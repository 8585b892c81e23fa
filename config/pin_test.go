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

// TestPinLive: `refresh: live` is read as Live, written back as it was,
// refused beside incremental; a duration still reads as one; an unknown
// key in a pin is still refused.
func TestPinLive(t *testing.T) {
	cases := []struct {
		pin      map[string]any
		live     bool
		every    string
		wantErr  string
		validate string
	}{
		{pin: map[string]any{"table": "ontime.ontime", "refresh": "live"}, live: true},
		{pin: map[string]any{"table": "ontime.recent", "query": "SELECT * FROM ontime.ontime WHERE YearD >= 2015", "refresh": "LIVE"}, live: true},
		{pin: map[string]any{"table": "ontime.ontime", "refresh": "90s"}, every: "1m30s"},
		{pin: map[string]any{"table": "ontime.ontime", "refresh": "live", "incremental": true}, live: true, validate: "refresh: live follows the binary log"},
		{pin: map[string]any{"table": "ontime.ontime", "refresh": "often"}, wantErr: "invalid duration"},
		{pin: map[string]any{"table": "ontime.ontime", "refresh": "live", "follow": true}, wantErr: "field follow not found"},
	}
	for _, c := range cases {
		path := filepath.Join(t.TempDir(), "c.yaml")
		if err := Write(path, map[string]any{"replicas": []map[string]any{{"mysql": "m:3306", "worker": "w:9000"}}, "pins": []any{c.pin}}); err != nil {
			t.Fatal(err)
		}
		var co Coordinator
		err := Load(path, &co)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%v: err %v, want %q", c.pin, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v", c.pin, err)
		}
		co.Defaults()
		if err := co.Validate(); (c.validate == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.validate)) {
			t.Errorf("%v: validate: %v, want %q", c.pin, err, c.validate)
		}
		p := co.Pins[0]
		if p.Live != c.live || (c.every != "" && p.Refresh.D().String() != c.every) || p.Table != c.pin["table"] {
			t.Errorf("%v: read as %+v", c.pin, p)
		}
		// Written and read again, the pin is the same.
		again := filepath.Join(t.TempDir(), "again.yaml")
		if err := Write(again, co); err != nil {
			t.Fatal(err)
		}
		var co2 Coordinator
		if err := Load(again, &co2); err != nil {
			t.Fatalf("%v: reading it back: %v", c.pin, err)
		}
		if co2.Pins[0] != p {
			t.Errorf("%v: written and read back as %+v, was %+v", c.pin, co2.Pins[0], p)
		}
	}
}
