// Package ticket defines the Flight ticket the coordinator sends to a worker
// to run one fragment.
//
// A ticket is small, versioned and self-describing (JSON). It carries the
// fragment SQL already rendered by the coordinator from the AST, never
// replica credentials: those stay in the worker's own config. The worker
// re-parses the SQL and refuses anything that is not a single read-only
// SELECT, whatever the ticket says.
package ticket

import (
	"encoding/json"
	"fmt"
	"time"
)

// Version is the ticket format version this build writes and reads.
const Version = 1

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
}

// MaxSize bounds an encoded ticket; larger ones are refused undecoded.
const MaxSize = 1 << 20

// Encode serialises t, stamping the current version.
func Encode(t Ticket) ([]byte, error) {
	t.V = Version
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
	if t.V != Version {
		return t, fmt.Errorf("ticket version %d not supported (this worker reads version %d); run the same Shoal release on coordinator and workers", t.V, Version)
	}
	if t.SQL == "" {
		return t, fmt.Errorf("ticket carries no SQL")
	}
	if t.BatchRows < 0 || t.FragmentID < 0 {
		return t, fmt.Errorf("ticket has negative fields")
	}
	return t, nil
}

// DeadlineTime returns the ticket's deadline, or the zero time.
func (t Ticket) DeadlineTime() time.Time {
	if t.Deadline == 0 {
		return time.Time{}
	}
	return time.UnixMilli(t.Deadline)
}
