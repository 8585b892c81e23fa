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
