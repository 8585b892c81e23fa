// Package ticket defines the Flight ticket the coordinator sends to a worker
// to run one fragment.
//
// A ticket is small, versioned and self-describing (JSON). It carries the
// fragment SQL already rendered by the coordinator from the AST, never
// replica credentials: those stay in the worker's own config. The worker
// re-parses the SQL and refuses anything that is not a single read-only
// SELECT, whatever the ticket says.
//
// Versions: 1 is the original ticket; 2 adds the freshness floor (MinGTID,
// GTIDWait); 3 the statement's clock (Timestamp). Encode writes the lowest version that can carry the ticket, so
// a ticket without a floor still reaches a worker of an older release; a
// ticket with one is refused by such a worker (it reads version 1 only)
// instead of running without the wait and answering from stale data.
//
// Compression, the IPC body codec the coordinator asks for, did not bump
// the version: it is an optimization the reader handles either way, since
// every IPC message records its own codec. A worker of an older release
// ignores the unknown JSON field and answers with its own ipc_compression,
// which the coordinator reads just as well.
package ticket

import (
	"encoding/json"
	"fmt"
	"time"
)

// Version is the highest ticket format version this build writes and
// reads; it reads every version from 1.
const Version = 3

// Ticket asks a worker to run one fragment.
type Ticket struct {
	V          int    `json:"v"`
	QueryID    string `json:"q"`
	FragmentID int    `json:"f"`
	// SQL is the complete fragment statement (a SELECT).
	SQL string `json:"sql"`
	// Deadline is when the worker must give up (unix milliseconds); 0 means
	// the worker's own default.
	Deadline int64 `json:"dl,omitempty"`
	// BatchRows is the number of rows per Arrow record batch; 0 means the
	// worker's default.
	BatchRows int `json:"br,omitempty"`
	// MinGTID (version 2) is the freshness floor: the GTID position (a
	// MariaDB GTID list or a MySQL GTID set) the replica must have applied
	// before the fragment runs. Empty: no wait.
	MinGTID string `json:"gtid,omitempty"`
	// GTIDWait (version 2) bounds the wait for MinGTID in milliseconds; 0
	// means until the deadline.
	GTIDWait int64 `json:"gw,omitempty"`
	// Compression is the codec the coordinator asks the worker to compress
	// the result's IPC bodies with: "none", "lz4" or "zstd" (the
	// coordinator's replicas[].ipc_compression, chosen per replica because
	// the link decides whether compression pays). Empty: the worker's own
	// ipc_compression. Any version; see the package doc.
	Compression string `json:"z,omitempty"`
	// Timestamp (version 3) is the statement's clock, microseconds since
	// 1970 UTC: the worker runs the fragment with the replica's
	// timestamp set to it, so NOW(), CURDATE(), UNIX_TIMESTAMP() and the
	// like read one instant in every fragment, as in one MariaDB
	// statement. 0: the replica's own clock. A worker of an older release
	// refuses such a ticket rather than read its own clock.
	Timestamp int64 `json:"ts,omitempty"`
}

// Compression codecs a ticket may ask for.
const (
	CompressionNone = "none"
	CompressionLZ4  = "lz4"
	CompressionZstd = "zstd"
)

// validCompression reports whether c is a codec a ticket may carry ("" for
// the worker's default).
func validCompression(c string) bool {
	switch c {
	case "", CompressionNone, CompressionLZ4, CompressionZstd:
		return true
	}
	return false
}

// hasFloor reports whether t uses the version 2 fields.
func (t Ticket) hasFloor() bool { return t.MinGTID != "" || t.GTIDWait != 0 }

// MaxSize bounds an encoded ticket; larger ones are refused undecoded.
const MaxSize = 1 << 20

// Encode serialises t, stamping the lowest version that carries it.
func Encode(t Ticket) ([]byte, error) {
	t.V = 1
	if t.hasFloor() {
		t.V = 2
	}
	if t.Timestamp != 0 {
		t.V = 3
	}
	return json.Marshal(t)
}

// Decode parses and validates a ticket.
func Decode(b []byte) (Ticket, error) {
	var t Ticket
	if len(b) > MaxSize {
		return t, fmt.Errorf("ticket of %d bytes exceeds the %d byte limit", len(b), MaxSize)
	}
	if err := json.Unmarshal(b, &t); err != nil {
		return t, fmt.Errorf("malformed ticket: %w", err)
	}
	if t.V < 1 || t.V > Version {
		return t, fmt.Errorf("ticket version %d not supported (this worker reads versions 1 to %d); run the same Shoal release on coordinator and workers", t.V, Version)
	}
	if t.V == 1 && t.hasFloor() {
		return t, fmt.Errorf("ticket version 1 cannot carry a freshness floor")
	}
	if t.SQL == "" {
		return t, fmt.Errorf("ticket carries no SQL")
	}
	if t.V < 3 && t.Timestamp != 0 {
		return t, fmt.Errorf("ticket version %d cannot carry a statement clock", t.V)
	}
	if t.BatchRows < 0 || t.FragmentID < 0 || t.GTIDWait < 0 || t.Timestamp < 0 {
		return t, fmt.Errorf("ticket has negative fields")
	}
	if !validCompression(t.Compression) {
		return t, fmt.Errorf("ticket asks for IPC compression %q, which this worker does not know (it knows none, lz4 and zstd): set the coordinator's replicas[].ipc_compression to one of them, or run the same Shoal release on coordinator and workers", t.Compression)
	}
	return t, nil
}

// Wait returns the bound of the wait for MinGTID, 0 meaning none.
func (t Ticket) Wait() time.Duration { return time.Duration(t.GTIDWait) * time.Millisecond }

// DeadlineTime returns the ticket's deadline, or the zero time.
func (t Ticket) DeadlineTime() time.Time {
	if t.Deadline == 0 {
		return time.Time{}
	}
	return time.UnixMilli(t.Deadline)
}
