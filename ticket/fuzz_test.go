package ticket

import (
	"reflect"
	"strings"
	"testing"
)

// FuzzTicketDecode: Decode never panics on any input, never accepts what
// violates its rules, and what it accepts survives Encode → Decode
// unchanged. `go test` runs the seeds; `go test -fuzz FuzzTicketDecode
// ./ticket` explores.
func FuzzTicketDecode(f *testing.F) {
	good, _ := Encode(Ticket{QueryID: "7", FragmentID: 3, SQL: "SELECT 1", Deadline: 1700000000000, BatchRows: 10})
	for _, s := range []string{
		string(good),
		`{"v":1,"q":"1","f":0,"sql":"SELECT * FROM t"}`,
		`{"v":1,"sql":"DELETE FROM t"}`,
		`{"v":2,"sql":"SELECT 1"}`,
		`{"v":3,"sql":"SELECT 1"}`,
		`{"v":2,"sql":"SELECT 1","gtid":"0-1-42","gw":5000}`,
		`{"v":1,"sql":"SELECT 1","gtid":"0-1-42"}`,
		`{"v":2,"sql":"SELECT 1","gtid":"0-1-42","gw":-1}`,
		`{"v":1,"sql":""}`,
		`{"v":1,"sql":"SELECT 1","f":-1}`,
		`{"v":1,"sql":"SELECT 1","br":-5}`,
		`{"v":1,"sql":"SELECT 1","dl":-9223372036854775808}`,
		`{"v":1,"sql":"SELECT 1","f":1e400}`,
		`{"v":1,"sql":"\ud800"}`,
		`{"v":1,"sql":"SELECT 1","sql":"DROP TABLE t"}`,
		`{"v":1,"sql":"SELECT 1","z":"lz4"}`,
		`{"v":2,"sql":"SELECT 1","gtid":"0-1-42","z":"zstd"}`,
		`{"v":1,"sql":"SELECT 1","z":"snappy"}`,
		`{"v":1,"sql":"SELECT 1","z":""}`,
		`[]`, `null`, `{`, "", "\xff\xfe", `{"v":1,"sql":"SELECT 1"}` + strings.Repeat(" ", 100),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		tk, err := Decode(b)
		if err != nil {
			return
		}
		if tk.V < 1 || tk.V > Version || (tk.V == 1 && tk.hasFloor()) || tk.SQL == "" || tk.FragmentID < 0 || tk.BatchRows < 0 || tk.GTIDWait < 0 || !validCompression(tk.Compression) || len(b) > MaxSize {
			t.Fatalf("Decode accepted an invalid ticket: %+v", tk)
		}
		_ = tk.DeadlineTime()
		again, err := Encode(tk)
		if err != nil {
			t.Fatalf("Encode of a decoded ticket: %v", err)
		}
		tk2, err := Decode(again)
		if err != nil {
			t.Fatalf("re-Decode: %v", err)
		}
		tk.V, tk2.V = 0, 0 // Encode stamps the lowest version that fits
		if !reflect.DeepEqual(tk, tk2) {
			t.Fatalf("round trip changed the ticket:\n%+v\n%+v", tk, tk2)
		}
	})
}
