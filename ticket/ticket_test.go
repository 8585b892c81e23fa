package ticket

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestFloorNeedsVersion2: a ticket carrying a freshness floor is written as
// version 2, which a worker reading only version 1 refuses, and a version 1
// ticket with a floor is refused here. Stamp every ticket version 1 (or let
// version 1 carry a floor) and an old worker would run the fragment without
// waiting, answering from stale data: this fails.
func TestFloorNeedsVersion2(t *testing.T) {
	plain, err := Encode(Ticket{SQL: "SELECT 1"})
	if err != nil {
		t.Fatal(err)
	}
	floor, err := Encode(Ticket{SQL: "SELECT 1", MinGTID: "0-1-42", GTIDWait: 1500})
	if err != nil {
		t.Fatal(err)
	}
	version := func(b []byte) int {
		var v struct {
			V int `json:"v"`
		}
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		return v.V
	}
	if version(plain) != 1 || version(floor) != 2 {
		t.Fatalf("versions: plain %d, with floor %d; want 1 and 2", version(plain), version(floor))
	}
	tk, err := Decode(floor)
	if err != nil || tk.MinGTID != "0-1-42" || tk.Wait().Milliseconds() != 1500 {
		t.Fatalf("round trip: %+v %v", tk, err)
	}
	if _, err := Decode([]byte(`{"v":1,"sql":"SELECT 1","gtid":"0-1-42"}`)); err == nil || !strings.Contains(err.Error(), "floor") {
		t.Fatalf("version 1 ticket with a floor: %v", err)
	}
}

// TestCompression: the codec the coordinator asks for survives the round
// trip without raising the version (an older worker ignores the field and
// answers with its own codec, which the reader handles), and Decode refuses
// a codec it does not know with a message naming the setting to fix. Bump
// the version for it, drop the field, or accept any string: this fails.
func TestCompression(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      string // encoded ticket
		want    string // decoded Compression
		wantErr string // substring of the error; "" for success
	}{
		{"absent: the worker's default", `{"v":1,"sql":"SELECT 1"}`, "", ""},
		{"none", `{"v":1,"sql":"SELECT 1","z":"none"}`, "none", ""},
		{"lz4", `{"v":1,"sql":"SELECT 1","z":"lz4"}`, "lz4", ""},
		{"zstd", `{"v":1,"sql":"SELECT 1","z":"zstd"}`, "zstd", ""},
		{"with a floor", `{"v":2,"sql":"SELECT 1","gtid":"0-1-42","z":"zstd"}`, "zstd", ""},
		{"unknown codec", `{"v":1,"sql":"SELECT 1","z":"snappy"}`, "", `IPC compression "snappy"`},
		{"wrong case", `{"v":1,"sql":"SELECT 1","z":"LZ4"}`, "", "replicas[].ipc_compression"},
		{"not a string", `{"v":1,"sql":"SELECT 1","z":4}`, "", "malformed ticket"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tk, err := Decode([]byte(tc.in))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Decode(%s) = %+v, %v; want an error containing %q", tc.in, tk, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Decode(%s): %v", tc.in, err)
			}
			if tk.Compression != tc.want {
				t.Fatalf("Decode(%s).Compression = %q, want %q", tc.in, tk.Compression, tc.want)
			}
			b, err := Encode(tk)
			if err != nil {
				t.Fatal(err)
			}
			again, err := Decode(b)
			if err != nil || again != tk {
				t.Fatalf("round trip: %s → %+v, %v; want %+v", b, again, err, tk)
			}
		})
	}

	// Asking for a codec alone stays version 1, so a worker of an older
	// release (reading version 1 only) still runs the fragment.
	b, err := Encode(Ticket{SQL: "SELECT 1", Compression: CompressionLZ4})
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		V int    `json:"v"`
		Z string `json:"z"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if v.V != 1 || v.Z != "lz4" {
		t.Fatalf("Encode with lz4 wrote %s: want version 1 and z lz4", b)
	}
	// Without a codec the field is not written at all.
	b, err = Encode(Ticket{SQL: "SELECT 1"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), `"z"`) {
		t.Fatalf("Encode without a codec wrote %s", b)
	}
}

// TestClockNeedsVersion3: a ticket carrying the statement's clock is
// version 3, so a worker of an older release refuses it instead of running
// NOW() on its own clock; a version 2 ticket claiming one is refused.
func TestClockNeedsVersion3(t *testing.T) {
	b, err := Encode(Ticket{SQL: "SELECT 1", MinGTID: "0-1-42", Timestamp: 1700000000123456})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"v":3`) {
		t.Fatalf("ticket with a clock: %s, want version 3", b)
	}
	tk, err := Decode(b)
	if err != nil || tk.Timestamp != 1700000000123456 || tk.MinGTID != "0-1-42" {
		t.Fatalf("round trip: %+v %v", tk, err)
	}
	if _, err := Decode([]byte(`{"v":2,"sql":"SELECT 1","ts":5}`)); err == nil || !strings.Contains(err.Error(), "clock") {
		t.Fatalf("version 2 ticket with a clock: %v", err)
	}
}
