package worker

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/ticket"
)

// Magic numbers opening an LZ4 frame and a zstd frame (little endian). A
// compressed IPC body buffer is its uncompressed length (8 bytes) followed
// by one such frame, so a compressed body holds the codec's magic and a
// plain body of these test rows (short strings, small integers) neither.
var (
	lz4Magic  = []byte{0x04, 0x22, 0x4d, 0x18}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// codecOf names the codec that compressed b: "lz4", "zstd", "none", or
// "both" when b holds frames of each.
func codecOf(b []byte) string {
	lz4, zstd := bytes.Contains(b, lz4Magic), bytes.Contains(b, zstdMagic)
	switch {
	case lz4 && zstd:
		return "both"
	case lz4:
		return "lz4"
	case zstd:
		return "zstd"
	}
	return "none"
}

// compressionCases: the worker's ipc_compression × the codec a ticket asks
// for (the coordinator's replicas[].ipc_compression) → the codec of the
// result's bodies. The ticket wins when it names one, either way.
var compressionCases = []struct {
	config, ticket, want string
}{
	{"", "", "none"},
	{"none", "", "none"},
	{"lz4", "", "lz4"},
	{"zstd", "", "zstd"},
	{"none", "lz4", "lz4"},
	{"none", "zstd", "zstd"},
	{"lz4", "zstd", "zstd"},
	{"zstd", "lz4", "lz4"},
	{"lz4", "none", "none"},
	{"zstd", "none", "none"},
}

// TestIPCCompressionOptions writes one repetitive batch into an IPC stream
// with the options of each compressionCases row: the stream's bodies must
// carry the expected codec, the compressed ones be much smaller than the
// plain ones, and each read back to the same values. Ignore the ticket's
// codec, or let the config override it: this fails.
func TestIPCCompressionOptions(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String}, {Name: "n", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for i := range 20000 {
		b.Field(0).(*array.StringBuilder).Append(fmt.Sprintf("carrier-%d", i%7))
		b.Field(1).(*array.Int64Builder).Append(int64(i % 100))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()

	size := map[string]int{} // by codec
	for _, tc := range compressionCases {
		name := fmt.Sprintf("config %q, ticket %q", tc.config, tc.ticket)
		s := &Server{cfg: config.Worker{IPCCompression: tc.config}, mem: mem}
		var buf bytes.Buffer
		w := ipc.NewWriter(&buf, s.ipcOptions(schema, tc.ticket)...)
		if err := w.Write(rec); err != nil {
			t.Fatal(name, err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(name, err)
		}
		if got := codecOf(buf.Bytes()); got != tc.want {
			t.Errorf("%s: stream compressed with %s, want %s", name, got, tc.want)
		}
		size[tc.want] = buf.Len()
		r, err := ipc.NewReader(&buf, ipc.WithAllocator(mem))
		if err != nil {
			t.Fatal(name, err)
		}
		if !r.Next() {
			t.Fatalf("%s: no batch read back: %v", name, r.Err())
		}
		if !array.RecordEqual(rec, r.RecordBatch()) {
			t.Errorf("%s: the batch read back differs", name)
		}
		r.Release()
	}
	for _, codec := range []string{"lz4", "zstd"} {
		if size[codec]*4 > size["none"] {
			t.Errorf("%s stream is %d bytes, plain %d: not compressed", codec, size[codec], size["none"])
		}
	}
	t.Logf("IPC stream bytes: %v", size)
}

// TestTicketCompression sends real tickets through Flight: for each
// compressionCases row, a worker with that ipc_compression answers a ticket
// asking for that codec. Every record batch message on the wire must carry
// the expected codec (a ticket asking for lz4 from a worker configured with
// none gets lz4 bodies), and the rows must be those of a plain stream.
func TestTicketCompression(t *testing.T) {
	const query = "SELECT seq, CONCAT('v', seq % 13), seq % 7 FROM " + testDB + ".seq_1_to_30000"
	var plain string
	for _, tc := range compressionCases {
		name := fmt.Sprintf("config %q, ticket %q", tc.config, tc.ticket)
		ts := startServer(t, func(c *config.Worker) { c.IPCCompression = tc.config })
		tk := ticket.Ticket{SQL: query, Compression: tc.ticket}

		// The raw Flight stream: each message's body as it crossed the wire.
		b, err := ticket.Encode(tk)
		if err != nil {
			t.Fatal(name, err)
		}
		raw, err := ts.client.fc.DoGet(context.Background(), &flight.Ticket{Ticket: b})
		if err != nil {
			t.Fatal(name, err)
		}
		batches := 0
		for {
			fd, err := raw.Recv()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(name, err)
			}
			if len(fd.DataBody) == 0 {
				continue // the schema
			}
			batches++
			if got := codecOf(fd.DataBody); got != tc.want {
				t.Errorf("%s: batch %d compressed with %s, want %s", name, batches, got, tc.want)
			}
		}
		if batches == 0 {
			t.Fatalf("%s: no record batch on the wire", name)
		}

		// The same ticket through the client: the rows of a plain stream.
		s, err := ts.client.Fragment(context.Background(), tk, ts.mem)
		if err != nil {
			t.Fatal(name, err)
		}
		var out bytes.Buffer
		for s.Next() {
			out.WriteString(fmt.Sprint(s.RecordBatch()))
		}
		err = s.Err()
		s.Release()
		if err != nil {
			t.Fatal(name, err)
		}
		if plain == "" {
			plain = out.String() // the first case is uncompressed
			if tc.want != "none" || len(plain) < 30000 {
				t.Fatalf("%s: plain result of %d bytes", name, len(plain))
			}
		} else if out.String() != plain {
			t.Errorf("%s: rows differ from the uncompressed stream", name)
		}
	}
}

// TestCompressedFragment runs a fragment through a worker with each codec
// and requires the rows the uncompressed worker returns.
func TestCompressedFragment(t *testing.T) {
	const query = "SELECT seq, CONCAT('v', seq % 13), seq / 7 FROM " + testDB + ".seq_1_to_30000"
	read := func(codec string) string {
		ts := startServer(t, func(c *config.Worker) { c.IPCCompression = codec })
		s, err := ts.client.Fragment(context.Background(), ticket.Ticket{SQL: query}, ts.mem)
		if err != nil {
			t.Fatal(codec, err)
		}
		defer s.Release()
		var out bytes.Buffer
		for s.Next() {
			out.WriteString(fmt.Sprint(s.RecordBatch()))
		}
		if err := s.Err(); err != nil {
			t.Fatal(codec, err)
		}
		return out.String()
	}
	plain := read("none")
	if len(plain) < 30000 {
		t.Fatalf("plain result too short: %d bytes", len(plain))
	}
	for _, codec := range []string{"lz4", "zstd"} {
		if got := read(codec); got != plain {
			t.Errorf("%s: rows differ from the uncompressed stream", codec)
		}
	}
}

func TestIPCCompressionConfig(t *testing.T) {
	w := config.Worker{MySQL: testAddr, IPCCompression: "snappy"}
	if err := w.Validate(); err == nil {
		t.Fatal("ipc_compression: snappy accepted")
	}
}
