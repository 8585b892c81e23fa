package schedule

import (
	"testing"
	"time"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/engine/cluster"
	"github.com/shoaldb/shoal/ticket"
)

// TestFragmentTicketCompression: the ticket a fragment attempt sends asks
// for the IPC codec of the replica it goes to (replicas[].ipc_compression),
// and for none when the replica leaves it to its worker; building it
// allocates nothing. Read the codec from the wrong place (another replica,
// the coordinator) or drop it: this fails.
func TestFragmentTicketCompression(t *testing.T) {
	f := &fragment{id: 3, sql: "SELECT a FROM db.t WHERE a >= 10", floor: Floor{GTID: "0-1-42", Wait: 1500 * time.Millisecond}}
	dl := time.UnixMilli(1700000000000)
	for _, tc := range []struct {
		name  string
		codec string // the replica's ipc_compression
	}{
		{"far replica, lz4", "lz4"},
		{"far replica, zstd", "zstd"},
		{"loopback replica, none", "none"},
		{"unset: the worker's own", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := cluster.NewWorker(config.Replica{Name: "r", MySQL: "10.0.0.2:3306", Worker: "10.0.0.2:4100", IPCCompression: tc.codec}, "")
			tk := fragmentTicket(w, f, "q7", dl)
			want := ticket.Ticket{QueryID: "q7", FragmentID: 3, SQL: f.sql, Deadline: dl.UnixMilli(),
				MinGTID: "0-1-42", GTIDWait: 1500, Compression: tc.codec}
			if tk != want {
				t.Fatalf("ticket %+v, want %+v", tk, want)
			}
			b, err := ticket.Encode(tk)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ticket.Decode(b)
			if err != nil || got.Compression != tc.codec {
				t.Fatalf("the worker decodes codec %q (%v), want %q", got.Compression, err, tc.codec)
			}
			f.clock = 1700000000123456
			if tk := fragmentTicket(w, f, "q7", dl); tk.Timestamp != f.clock {
				t.Errorf("ticket clock %d, want the statement's %d", tk.Timestamp, f.clock)
			}
			f.clock = 0
			if n := testing.AllocsPerRun(100, func() { tk = fragmentTicket(w, f, "q7", dl) }); n != 0 {
				t.Errorf("fragmentTicket allocates %.0f times per call, want 0", n)
			}
		})
	}
}
